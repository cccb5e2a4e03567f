"""Signing the index (``prereq build --sign-key``) and verifying it under a trust setting
($PREREQ_TRUST, prereq.yaml's ``trust: allowed_signers``), with keys ssh-keygen makes here."""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from gitrepo import GitRepo, item_yaml
from prereq.cli import main
from prereq.core.errors import PrereqError
from prereq.index import sshsig
from prereq.index.reader import Index
from prereq.index.trust import NAMESPACE, Trust, UntrustedIndex, sign_index

JOB = """\
protocolVersion: 2
name: signed
type: job
prerequisites:
  - name: image
    type: dockerimage
    uri: ubuntu:22.04
taskRoles:
  train:
    instances: 1
    dockerImage: image
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
    commands:
      - echo hi
"""


def _key(folder: Path, name: str, passphrase: str = "") -> Path:
    key = folder / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-C", name, "-f", str(key)], check=True)
    return key


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A registry built and signed through the CLI, its keys, and an allowed_signers file for one of them."""
    top = tmp_path_factory.mktemp("signing")
    repo = GitRepo(top / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write("registry/prerequisites/disk.yaml", item_yaml("disk", "1.0.0", parameters={"mountPoint": "/mnt/d"}))
    repo.write("registry/prerequisites/data.yaml", item_yaml("data", "1.2.0", require=["disk"]))
    repo.commit("items")
    keys = top / "keys"
    keys.mkdir()
    signer, stranger = _key(keys, "signer"), _key(keys, "stranger")
    allowed = keys / "allowed_signers"
    public = signer.with_suffix(".pub").read_text().split()
    allowed.write_text(f'index@example namespaces="{NAMESPACE}" {public[0]} {public[1]}\n')
    out = top / "site"
    args = ["build", "--registry", str(repo.root / "registry"), "--out", str(out), "--no-site", "-q"]
    assert main([*args, "--sign-key", str(signer)]) == 0
    return {"out": out, "signer": signer, "stranger": stranger, "allowed": allowed, "repo": repo.root}


def _copy(signed: dict[str, Path], tmp_path: Path) -> Path:
    copy = tmp_path / "index"
    shutil.copytree(signed["out"], copy)
    return copy


def _job(tmp_path: Path) -> Path:
    path = tmp_path / "job.yaml"
    path.write_text(JOB, encoding="utf-8")
    return path


def _refused(args: list[str], capsys: pytest.CaptureFixture[str], *words: str) -> str:
    """Run the CLI, which must refuse with exit 2 and a message holding ``words`` (and a hint)."""
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err
    assert "hint:" in err, err
    for word in words:
        assert word in err, err
    return err


def test_the_build_writes_an_sshsig_that_ssh_keygen_verifies(signed: dict[str, Path]) -> None:
    api = signed["out"] / "api" / "v1"
    signature = (api / "index.json.sig").read_text()
    assert signature.startswith("-----BEGIN SSH SIGNATURE-----")
    checked = subprocess.run(
        ["ssh-keygen", "-Y", "verify", "-f", str(signed["allowed"]), "-I", "index@example", "-n", NAMESPACE]
        + ["-s", str(api / "index.json.sig")],
        input=(api / "index.json").read_bytes(),
        capture_output=True,
    )
    assert checked.returncode == 0, checked.stderr
    trust = Trust(signed["allowed"], "a test")
    assert Index.load(signed["out"], trust=trust).signed_by == "index@example"


def test_a_signed_build_replaces_the_last_one_signature_and_all(signed: dict[str, Path]) -> None:
    """The signature is made in the build's staging folder: it is among the files the build wrote, so
    the next build replaces the folder, and the new index is never live unsigned."""
    args = ["build", "--registry", str(signed["repo"] / "registry"), "--out", str(signed["out"]), "--no-site", "-q"]
    listed = (signed["out"] / ".prereq-build").read_text(encoding="utf-8")
    assert '"api/v1/index.json.sig"' in listed
    assert main([*args, "--sign-key", str(signed["signer"])]) == 0
    assert Index.load(signed["out"], trust=Trust(signed["allowed"], "a test")).signed_by == "index@example"


def test_job_add_and_resolve_verify_a_signed_index(
    signed: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PREREQ_TRUST", str(signed["allowed"]))
    job = _job(tmp_path)
    assert main(["job", "add", str(job), "data", "--index", str(signed["out"])]) == 0
    assert "added disk 1.0.0, required by data" in capsys.readouterr().out
    assert main(["job", "lock", str(job), "--index", str(signed["out"])]) == 0
    capsys.readouterr()
    assert main(["job", "resolve", str(job), "--index", str(signed["out"])]) == 0
    assert "name: disk" in capsys.readouterr().out


def test_a_tampered_root_is_refused(
    signed: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = _copy(signed, tmp_path)
    root = copy / "api" / "v1" / "index.json"
    document = json.loads(root.read_text())
    document["items"][0]["title"] = "Trusted: " + document["items"][0]["title"]
    root.write_text(json.dumps(document))
    monkeypatch.setenv("PREREQ_TRUST", str(signed["allowed"]))
    job = _job(tmp_path)
    _refused(["job", "add", str(job), "data", "--index", str(copy)], capsys, f"{root}: its signature", "does not match")
    assert job.read_text() == JOB
    _refused(["job", "resolve", str(job), "--index", str(copy)], capsys, "does not match")
    with pytest.raises(UntrustedIndex, match="does not match"):
        Index.load(copy, trust=Trust(signed["allowed"], "a test"))


def test_a_tampered_item_file_is_refused(
    signed: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = _copy(signed, tmp_path)
    item = copy / "api" / "v1" / "prerequisites" / "disk.json"
    text = item.read_text()
    assert "/mnt/d" in text
    item.write_text(text.replace("/mnt/d", "/mnt/evil"))
    monkeypatch.setenv("PREREQ_TRUST", str(signed["allowed"]))
    job = _job(tmp_path)
    _refused(["job", "add", str(job), "data", "--index", str(copy)], capsys, "disk.json", "changed after signing")
    assert job.read_text() == JOB
    index = Index.load(copy, trust=Trust(signed["allowed"], "a test"))  # the root itself is as signed
    with pytest.raises(UntrustedIndex, match="changed after signing"):
        index.version("disk")


def test_an_unsigned_index_is_refused(
    signed: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = _copy(signed, tmp_path)
    (copy / "api" / "v1" / "index.json.sig").unlink()
    monkeypatch.setenv("PREREQ_TRUST", str(signed["allowed"]))
    job = _job(tmp_path)
    err = _refused(["job", "add", str(job), "data", "--index", str(copy)], capsys, "is not signed", "index.json.sig")
    assert "$PREREQ_TRUST" in err  # the fix names where the trust setting came from


def test_a_signature_by_a_key_not_allowed_is_refused(
    signed: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = _copy(signed, tmp_path)
    sign_index(copy / "api" / "v1", key=signed["stranger"], interactive=False)
    monkeypatch.setenv("PREREQ_TRUST", str(signed["allowed"]))
    job = _job(tmp_path)
    _refused(["job", "add", str(job), "data", "--index", str(copy)], capsys, "is not by a key", str(signed["allowed"]))
    with pytest.raises(UntrustedIndex, match="is not by a key"):
        Index.load(copy, trust=Trust(signed["allowed"], "a test"))


def test_without_a_trust_setting_nothing_is_checked_and_ssh_keygen_never_runs(
    signed: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = _copy(signed, tmp_path)
    (copy / "api" / "v1" / "index.json.sig").write_text("not a signature\n")
    monkeypatch.delenv("PREREQ_TRUST", raising=False)
    monkeypatch.setattr(sshsig, "SSH_KEYGEN", str(tmp_path / "no-ssh-keygen"))  # a call would be an error
    job = _job(tmp_path)
    assert main(["job", "add", str(job), "data", "--index", str(copy)]) == 0
    assert "added data 1.2.0" in capsys.readouterr().out
    assert Index.load(copy).signed_by is None


def test_prereq_yaml_names_the_allowed_signers(
    signed: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "registry-checkout"
    repo.mkdir()
    shutil.copy(signed["allowed"], repo / "allowed_signers")
    (repo / "prereq.yaml").write_text("trust:\n  allowed_signers: allowed_signers\n")
    monkeypatch.delenv("PREREQ_TRUST", raising=False)
    monkeypatch.chdir(repo)
    copy = _copy(signed, tmp_path)
    job = _job(tmp_path)
    assert main(["job", "add", str(job), "disk", "--index", str(signed["out"])]) == 0
    (copy / "api" / "v1" / "index.json.sig").unlink()
    err = _refused(["job", "add", str(job), "data", "--index", str(copy)], capsys, "is not signed")
    assert "trust.allowed_signers in" in err and "prereq.yaml" in err
    _refused(["show", "data", "--index", str(copy)], capsys, "is not signed")


def test_a_trust_setting_naming_no_file_is_a_clear_error(
    signed: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "prereq.yaml").write_text("trust:\n  allowed_signers: nowhere\n")
    monkeypatch.delenv("PREREQ_TRUST", raising=False)
    monkeypatch.chdir(tmp_path)
    job = _job(tmp_path)
    _refused(["job", "add", str(job), "data", "--index", str(signed["out"])], capsys, "prereq.yaml:2:", "nowhere")
    monkeypatch.setenv("PREREQ_TRUST", str(tmp_path / "missing_signers"))
    _refused(["job", "add", str(job), "data", "--index", str(signed["out"])], capsys, "missing_signers", "not exist")


@pytest.fixture
def served(signed: dict[str, Path], tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A copy of the signed build served over http: its URL, and the folder (to change it)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    copy = _copy(signed, tmp_path)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(copy)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", copy
    finally:
        server.shutdown()
        server.server_close()


def test_an_index_over_http_is_verified_with_its_signature(
    served: tuple[str, Path],
    signed: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url, folder = served
    monkeypatch.setenv("PREREQ_TRUST", str(signed["allowed"]))
    job = _job(tmp_path)
    assert main(["job", "add", str(job), "data", "--index", url]) == 0
    capsys.readouterr()
    (folder / "api" / "v1" / "index.json.sig").unlink()  # the server answers 404
    _refused(["job", "lock", str(job), "--index", url], capsys, "is not signed", url)


def test_files_no_signed_sha256_covers_are_refused_under_trust(signed: dict[str, Path]) -> None:
    index = Index.load(signed["out"], trust=Trust(signed["allowed"], "a test"))
    with pytest.raises(UntrustedIndex, match="not covered by the signature"):
        index.read_file("execution/catalog.json", "execution")


def _build(
    signed: dict[str, Path], out: Path, *extra: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """``prereq build`` in its own process, as CI runs it: stdin is no terminal."""
    code = "import sys; from prereq.cli import main; sys.exit(main(sys.argv[1:]))"
    args = ["build", "--registry", str(signed["repo"] / "registry"), "--out", str(out), "--no-site", *extra]
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def test_signing_keys_that_cannot_sign_are_clear_errors(signed: dict[str, Path], tmp_path: Path) -> None:
    protected = _key(tmp_path, "protected", passphrase="correct horse")
    run = _build(signed, tmp_path / "a", "--sign-key", str(protected))
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert "protected by a passphrase" in run.stderr and "ssh-agent" in run.stderr
    run = _build(signed, tmp_path / "b", env={"PREREQ_SIGN_KEY": str(tmp_path / "no-key")})
    assert run.returncode == 2 and "cannot read the signing key" in run.stderr and "no such file" in run.stderr
    assert not (tmp_path / "b").exists()  # refused before building
    with pytest.raises(PrereqError, match="could not sign"):
        sign_index(signed["out"] / "api" / "v1", key=signed["allowed"], interactive=False)


def test_prereq_sign_key_from_the_environment_signs(signed: dict[str, Path], tmp_path: Path) -> None:
    run = _build(signed, tmp_path / "c", env={"PREREQ_SIGN_KEY": str(signed["signer"])})
    assert run.returncode == 0, run.stderr
    index = Index.load(tmp_path / "c", trust=Trust(signed["allowed"], "a test"))
    assert index.signed_by == "index@example"
    assert json.loads((tmp_path / "c" / "api" / "v1" / "index.json").read_text())["items"]
