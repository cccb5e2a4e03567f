"""What is published is what was scanned: the credential forms commands use (``curl -u``, ``aws configure
set``, a .netrc, ``sshpass``, ``docker login``, ``mysql``, ``PGPASSWORD``), mapping keys, a job template's
comments and strings once ``<% this.* %>`` are filled in, in the working tree (PRQ190, PRQ194), in the
history (PRQ192) and in the build.  Fake credentials are put together from parts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from check_helpers import found, item, published_text
from gitrepo import GitRepo, item_yaml
from prereq.marketplace.build import build
from prereq.registry.secretscan import scan_text
from prereq.registry.validate import validate

PW = "".join(("Tr0ub", "4dor", "3x"))
AWS_SECRET = "".join(("wJalrXUtnFEMI", "K7MDENGbPxRf", "iCYzQ8kLm3nR2sT"))
TOKEN_END = "".join(("R7tLq2Vx9Kd4", "Mw8Ns1Pz6Bc3", "Hf5Jg0Ya2Eu7"))
TOKEN = "gh" + "p_" + TOKEN_END

FORMS = {
    "curl -u": (f"curl -fsSL -u loader:{PW} https://files.cluster.local/data.tar", "after curl -u"),
    "curl --user": (f"curl --user 'loader:{PW}' -o data.tar https://files.cluster.local/data.tar", "after curl -u"),
    "curl -U": (f"curl -U proxy:{PW} https://files.cluster.local/data.tar", "after curl -u"),
    "aws secret": (f"aws configure set aws_secret_access_key {AWS_SECRET}", "aws configure set"),
    "aws session": (f"aws configure set default.aws_session_token {AWS_SECRET}", "aws configure set"),
    "netrc": (f"echo 'machine files.cluster.local login loader password {PW}' >> ~/.netrc", "a .netrc password"),
    "netrc printf": (f"printf 'machine h\\nlogin loader\\npassword {PW}\\n' > ~/.netrc", "a .netrc password"),
    "netrc line": (f"  password {PW}", "a .netrc password"),
    "sshpass": (f"sshpass -p {PW} rsync -a host:/data /data", "after -p"),
    "docker login": (f"docker login -u bob -p {PW} registry.cluster.local", "after -p"),
    "mysql": (f"mysql -u root -p{PW} -h db.cluster.local results", "after -p"),
    "mysql long": (f"mysql --password={PW} -h db.cluster.local", "--password"),
    "PGPASSWORD": (f"PGPASSWORD={PW} psql -h db.cluster.local", "PGPASSWORD"),
    "SSHPASS": (f"SSHPASS={PW} sshpass -e ssh host", "SSHPASS"),
    "MYSQL_PWD": (f"MYSQL_PWD={PW} mysql -h db.cluster.local", "MYSQL_PWD"),
    "DB_PASS": (f"export DB_PASS={PW}", "DB_PASS"),
    "AZURE_STORAGE_KEY": (f"export AZURE_STORAGE_KEY={AWS_SECRET}", "AZURE_STORAGE_KEY"),
    "wget --ftp-password": (f"wget --ftp-password {PW} ftp://files.cluster.local/x", "--ftp-password"),
    "redis-cli -a": (f"redis-cli -h cache.cluster.local -a {PW} ping", "redis-cli -a"),
    "smbclient -U": (f"smbclient //files/share -U bob%{PW} -c ls", "smbclient -U"),
    "az login -p": (f"az login -u bob@corp.local -p {PW}", "az login -p"),
    "basic auth header": (f"curl -H 'Authorization: Basic {AWS_SECRET}' https://files.cluster.local/x", "basic"),
    "api key header": (f"curl -H 'X-Api-Key: {AWS_SECRET}' https://api.cluster.local/x", "API key header"),
}
CLEAN = {
    "checksum": "echo 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  data.tar' | sha256sum -c",
    "secret reference": "curl -u 'loader:<% $secrets.SHARE_PASSWORD %>' https://files.cluster.local/data.tar",
    "shell variable": 'curl -u "$USER:$SHARE_PASSWORD" https://files.cluster.local/data.tar',
    "braced variable": "curl -u loader:${SHARE_PASSWORD} https://files.cluster.local/data.tar",
    "placeholder": "curl -u loader:<password> https://files.cluster.local/data.tar",
    "stars": "curl -u loader:*** https://files.cluster.local/data.tar",
    "example host": f"curl -u loader:{PW} https://files.example.com/data.tar",
    "example netrc": f"machine example.com login loader password {PW}",
    "netrc xxxx": "machine files.cluster.local login loader password xxxx",
    "user only": "curl -u loader https://files.cluster.local/data.tar",
    "aws variable": "aws configure set aws_secret_access_key $AWS_SECRET_ACCESS_KEY",
    "aws region": "aws configure set region us-east-1",
    "prose": "password required",
    "port in a URL": "curl -o data.tar https://files.cluster.local:8443/a:b",
    "sshpass from a file": "sshpass -f /root/.ssh-password ssh host",
    "mysql prompts": "mysql -u root -p results",
    "password from stdin": 'echo "$PW" | docker login --password-stdin -u bob registry.cluster.local',
    "redis from a variable": 'redis-cli -a "$REDIS_PASSWORD" ping',
    "smbclient with a variable": 'smbclient //files/share -U "bob%${SMB_PASSWORD}" -c ls',
    "old working folder": 'cd "$OLDPWD"',
    "bypass": "BYPASS_PROXY=1 make",
}


@pytest.mark.parametrize("name", sorted(FORMS))
def test_each_command_form_is_found_without_its_value(name: str) -> None:
    text, named = FORMS[name]
    leaks = scan_text(text)
    assert leaks and all(leak.literal for leak in leaks), text
    assert any(named in leak.kind for leak in leaks)
    assert all(PW not in leak.kind and AWS_SECRET not in leak.kind for leak in leaks)


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_look_alikes_stay_quiet(name: str) -> None:
    assert scan_text(CLEAN[name]) == []


def test_a_template_value_in_curl_is_not_a_secret_reference() -> None:
    assert [(leak.kind, leak.literal) for leak in scan_text("curl -u bob:<% this.pw %> https://h.local")] == [
        ("curl -u", False)
    ]


def test_a_key_a_comment_and_a_split_token_are_found(make_registry) -> None:
    template = (
        "protocolVersion: 2\nname: train\ntype: job\n"
        f"# clone with https://{TOKEN}@github.com/team/tools.git\n"
        "taskRoles:\n  main:\n    instances: 1\n    dockerImage: image\n"
        "    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}\n"
        "    commands:\n      - echo train  # a checksum: "
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
        "prerequisites:\n  - {name: image, type: dockerimage, uri: 'ubuntu:22.04'}\n"
    )
    keyed = item("keyed", head=f"parameters:\n  {TOKEN}: clone\n")
    split = item(
        "split",
        head=f"parameters:\n  start: ghp_\n  end: {TOKEN_END}\n",
        commands=("git clone https://<% this.start %><% this.end %>@github.com/team/tools.git",),
    )
    root = make_registry(
        {"templates/train.yaml": template, "prerequisites/keyed.yaml": keyed, "prerequisites/split.yaml": split}
    )
    result = validate(root)
    leaks = {p for p in found(result) if p[0].startswith("PRQ19")}
    assert leaks == {
        ("PRQ190", "templates/train.yaml", 4),
        ("PRQ190", "prerequisites/keyed.yaml", 7),
        ("PRQ194", "prerequisites/split.yaml", 12),
    }
    messages = {p.rule + " " + p.message for p in result.problems if p.rule.startswith("PRQ19")}
    assert "PRQ190 a comment holds a GitHub token" in messages
    assert "PRQ190 a key of parameters holds a GitHub token" in messages
    assert all(TOKEN_END not in message for message in messages)


def test_the_history_scan_finds_the_new_surfaces(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    path = "registry/prerequisites/tools.yaml"
    clean = ["git clone https://github.com/team/tools.git /opt/tools"]
    repo.write(path, item_yaml("tools", "1.0.0", commands=clean))
    repo.commit("tools")
    split = {"start": "ghp_", "end": TOKEN_END}
    command = "git clone https://<% this.start %><% this.end %>@github.com/team/tools.git"
    repo.write(path, item_yaml("tools", "1.1.0", parameters=split, commands=[command]))
    leaked = repo.commit("split token")
    repo.write(path, item_yaml("tools", "1.1.1", commands=[f"curl -u loader:{PW} https://files.cluster.local/x"]))
    curl = repo.commit("curl password")
    repo.write(path, item_yaml("tools", "1.2.0", commands=clean))
    repo.commit("clean again")
    result = validate(repo.root / "registry", history=True)
    held = sorted(p.message for p in result.problems if p.rule == "PRQ192")
    assert held[0].startswith("tools 1.1.0 held a GitHub token") and leaked[:10] in held[0]
    assert held[1].startswith("tools 1.1.1 held a plain-text password after curl -u") and curl[:10] in held[1]
    out = tmp_path / "site"
    built = build(repo.root / "registry", out, with_site=False)
    assert built.built, built.problems
    document = json.loads((out / "api" / "v1" / "prerequisites" / "tools.json").read_text(encoding="utf-8"))
    assert [v["version"] for v in document["versions"]] == ["1.0.0", "1.2.0"]
    published = published_text(out)
    assert TOKEN_END not in published and PW not in published


def test_a_template_with_a_credential_in_a_comment_is_not_built(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write("registry/prerequisites/tools.yaml", item_yaml("tools", "1.0.0", commands=["echo ok"]))
    repo.write(
        "registry/templates/train.yaml",
        "protocolVersion: 2\nname: train\ntype: job\n"
        "prerequisites:\n  - {name: image, type: dockerimage, uri: 'ubuntu:22.04'}\n"
        f"taskRoles:\n  main:  # fetch: curl -u loader:{PW} https://files.cluster.local/x\n"
        "    instances: 1\n    dockerImage: image\n    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}\n"
        "    commands: [echo train]\n",
    )
    repo.commit("template")
    out = tmp_path / "site"
    built = build(repo.root / "registry", out, with_site=False)
    assert not built.built
    assert [(p.rule, p.file, p.line) for p in built.problems if p.rule == "PRQ190"] == [
        ("PRQ190", "templates/train.yaml", 7)
    ]
    assert PW not in published_text(out)
