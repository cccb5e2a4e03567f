"""Credentials in items and job templates (PRQ190, PRQ191): one realistic fake of each kind, at its
line, never shown; look-alikes that must stay quiet.

Every fake credential is put together here from parts, so that no file of the repository looks like
a live credential to a secret scanner (GitHub's included)."""

from __future__ import annotations

import pytest

from check_helpers import found, item
from prereq.registry.secretscan import scan_text, scan_value
from prereq.registry.validate import validate


def _join(*parts: str) -> str:
    return "".join(parts)


KEY_BODY = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
FAKES = {
    "aws-key-id": (_join("export AWS_ACCESS_KEY_ID=", "AK", "IA", "Q3EGRJ7XWZ5TN2PL"), "an AWS access key"),
    "aws-secret": (
        _join("export AWS_SECRET_ACCESS_KEY=", "wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYzQ8kLm3nR2sT"),
        "a plain-text AWS_SECRET_ACCESS_KEY= value",
    ),
    "github-clone": (
        _join("git clone https://", "gh", "p_", "R7tLq2Vx9Kd4Mw8Ns1Pz6Bc3Hf5Jg0Ya2Eu7", "@github.com/team/repo.git"),
        "a GitHub token",
    ),
    "slack": (
        _join("curl -H 'Authorization: Bearer ", "xo", "xb-", "2468013579-1357924680-", "kQ7zR2mX9pL4vT8n' hooks"),
        "a Slack token",
    ),
    "private-key": (
        _join("-----BEGIN OPENSSH ", "PRIVATE KEY-----\n", KEY_BODY, "\n-----END OPENSSH ", "PRIVATE KEY-----"),
        "a private key",
    ),
    "url-password": (
        _join("wget https://admin:", "Vq7#rT2p", "@data.cluster.local/imagenet/train.tar"),
        "a password in a URL (user:password@host)",
    ),
    "azure-connection-string": (
        _join(
            "blobfuse2 mount /mnt/blob --connection-string 'DefaultEndpointsProtocol=https;AccountName=team;",
            "Account",
            "Key=",
            "q8Zt3Lm0Rw5Xv2Nc7Hb4Jd9Kf1Pg6Ys0Ua3Ei8Ol5Tr2Wm7Qn4Bx1Cv6Dz9Fh3Gk0Jp5Sl8Ry2Tu7Iw4Oe1Aq6Md==",
            ";EndpointSuffix=core.windows.net'",
        ),
        "an Azure storage account key",
    ),
    "azure-short-key": (
        _join("AccountName=team;Account", "Key=", "c2VjcmV0LXZhbHVl"),
        "a plain-text AccountKey= value",
    ),
    "azure-sas-option": (
        _join("BlobEndpoint=https://team.blob.core.windows.net;SharedAccess", "Signature=sv=2022-11-02&sr=c"),
        "a plain-text SharedAccessSignature= value",
    ),
    "azure-sas-url": (
        _join(
            "azcopy copy 'https://team.blob.core.windows.net/data?sv=2022-11-02&sp=rl&",
            "si",
            "g=",
            "Xk2Lp9Qr4Ts7Vw1Yz3Bc6Df8Gh0Jk5Mn%2B%3D' /data",
        ),
        "an Azure shared access signature",
    ),
    "mount-password": (
        "mount -t cifs //fs/share /mnt -o username=bob,password=Tr0ub4dor3",
        "a plain-text password= value",
    ),
    "docker-password": (
        "docker login -u bob --password Tr0ub4dor3 registry.local",
        "a plain-text value after --password",
    ),
    "jwt": (
        _join(
            "curl -H 'Authorization: Bearer ",
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.",
            "eyJzdWIiOiJqb2ItcnVubmVyIiwiaWF0IjoxNzAwMDAwMDAwfQ.",
            "dGhpcy1pcy1ub3QtYS1yZWFsLXNpZ25hdHVyZQ' https://api.cluster.local",
        ),
        "a JSON Web Token",
    ),
    "hugging-face": (
        _join("huggingface-cli login --token ", "hf", "_", "QwErTyUiOpAsDfGhJkLzXcVbNm1234567"),
        "a Hugging Face token",
    ),
    "tracking-password": (
        "MLFLOW_TRACKING_PASSWORD=Tr0ub4dor3 mlflow run .",
        "a plain-text MLFLOW_TRACKING_PASSWORD= value",
    ),
}

LOOK_ALIKES = {
    "sha256": "echo 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  data.tar' | sha256sum -c",
    "md5": "echo '9e107d9d372bb6826bd81d3542a419d6  mnist.gz' | md5sum -c",
    "uuid": "export RUN_ID=123e4567-e89b-12d3-a456-426614174000",
    "git-commit": "git checkout 3f786850e387550fdab836ed7e6dc881de23001b",
    "example-host": "curl -fsSL https://user:password@example.com/data.tar",
    "example-subdomain": "curl https://alice:s3cret@files.example.org/data.tar",
    "secret-reference": "mount -t cifs //fs/share /mnt -o password=<% $secrets.SMB_PASSWORD %>",
    "quoted-reference": "echo 'password=<% $secrets.SMB_PASSWORD %>' >> /root/.smb/credentials",
    "env-reference": "AZURE_STORAGE_ACCESS_KEY=<% $secrets.AZURE_STORAGE_KEY %> blobfuse2 mount /mnt",
    "url-reference": "git clone https://bot:<% $secrets.GIT_TOKEN %>@git.cluster.local/team/repo.git",
    "shell-variable": "mount -t cifs //fs/share /mnt -o password=$SMB_PASSWORD",
    "password-stdin": 'echo "$PW" | docker login --password-stdin -u bob registry.local',
    "public-key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGf0example0public0key0only alice@laptop",
    "prose": "The password comes from the job secret SMB_PASSWORD; token: ask the platform team.",
    "placeholder": "curl https://user:<password>@files.cluster.local/data.tar",
    "credentials-file": "mount -o credentials=/root/.smb/credentials,vers=3.0",
    "tokenizer": "python train.py --tokenizer=bert-base --max_tokens=512",
    "auth-type": "export AZURE_STORAGE_AUTH_TYPE=Key",
}


@pytest.mark.parametrize("kind", sorted(FAKES))
def test_each_kind_of_credential_is_found_and_named(kind: str) -> None:
    text, named = FAKES[kind]
    leaks = scan_text(text)
    assert [leak.kind for leak in leaks] == [named]
    assert all(leak.literal for leak in leaks)


@pytest.mark.parametrize("name", sorted(LOOK_ALIKES))
def test_look_alikes_are_clean(name: str) -> None:
    assert scan_text(LOOK_ALIKES[name]) == []


def test_credential_named_values_must_be_secret_references() -> None:
    assert [leak.kind for leak in scan_value(("parameters", "sharePassword"), "Tr0ub4dor3")] == [
        "a plain-text credential"
    ]
    assert scan_value(("parameters", "sharePassword"), "<% $secrets.SHARE %>") == []
    assert [(leak.kind, leak.literal) for leak in scan_value(("parameters", "apiKey"), "<% this.other %>")] == [
        ("apiKey", False)
    ]
    assert scan_value(("parameters", "tokenizer"), "bert") == []
    assert scan_value(("secrets", "SHARE"), "") == []
    assert scan_value(("secrets", "SHARE"), "<% expression.share %>") == []


def test_a_multi_line_command_reports_the_line_of_the_credential(make_registry) -> None:
    _, named = FAKES["github-clone"]
    block = "|\n        set -e\n        cd /tmp\n        " + FAKES["github-clone"][0]
    root = make_registry({"prerequisites/clone.yaml": item("clone", commands=(block,))})
    result = validate(root)
    assert found(result) == {("PRQ190", "prerequisites/clone.yaml", 12)}
    assert result.problems[0].message == f"callbacks[0].commands[0] holds {named}"


def test_every_kind_in_an_item_is_an_error_that_never_shows_the_value(make_registry) -> None:
    commands = tuple(f"'{text}'" if "\n" not in text else None for text, _ in FAKES.values())
    single = tuple(c for c in commands if c is not None and "'" not in c[1:-1])
    root = make_registry({"prerequisites/leaky.yaml": item("leaky", commands=single)})
    leaks = [p for p in validate(root).problems if p.rule.startswith("PRQ19")]  # not the commands' lint
    assert {p.rule for p in leaks} == {"PRQ190"}
    assert len(leaks) == len(single)
    assert {p.line for p in leaks} == set(range(9, 9 + len(single)))
    for problem in leaks:
        for secret in ("Tr0ub4dor3", "R7tLq2Vx9Kd4", "Q3EGRJ7XWZ5TN2PL", "Vq7#rT2p"):
            assert secret not in problem.message + problem.hint
        assert "<% $secrets.KEY %>" in problem.hint


def test_a_document_s_templated_string_is_scanned_once_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """scan_document hands rendered_leaks the leaks it found in the string as written: each string is
    scanned once as written, and once more only as the build renders it."""
    from prereq.registry import secretscan

    scanned: list[str] = []
    real = secretscan.scan_value

    def counting(path: tuple[object, ...], value: str) -> list[secretscan.Leak]:
        scanned.append(value)
        return real(path, value)

    monkeypatch.setattr(secretscan, "scan_value", counting)
    written = "export DB_PASSWORD=<% this.PART %>"
    data = {"parameters": {"PART": "hunter2hunter2"}, "commands": [written]}
    leaks = list(secretscan.scan_document(data))
    assert scanned.count(written) == 1
    assert [(path, leak.literal) for path, leak in leaks] == [(("commands", 0), False), (("commands", 0), True)]
