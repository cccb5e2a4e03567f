"""ssh-keygen behind one module: SSH signatures (SSHSIG) made and checked as git's SSH signing does.

``sign`` gives the armoured signature of some bytes under a namespace; ``verify`` tells which
principal of an ``allowed_signers`` file (ssh-keygen's format, ALLOWED SIGNERS in ssh-keygen(1))
signed them, or why none did.  The allowed_signers file alone decides whom to trust: the principal
comes from ``ssh-keygen -Y find-principals``, never from the signature's own claims.

May import: prereq.core.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from prereq.core.errors import PrereqError

SSH_KEYGEN = "ssh-keygen"
TIMEOUT_SECONDS = 60.0  # a signing key on a hardware token may wait for a touch; nothing else takes this long


@dataclass(frozen=True)
class Verdict:
    """What ``verify`` found: the principal that signed, or (``principal`` None) why no allowed signer did."""

    principal: str | None
    reason: str = ""


def _run(arguments: list[str], *, data: bytes | None = None, interactive: bool = True) -> subprocess.CompletedProcess:
    # Not interactive: a new session has no terminal to ask a passphrase on, and stdin is empty, so a
    # protected key fails at once instead of waiting for an answer nobody will type.
    env = dict(os.environ) if interactive else {**os.environ, "SSH_ASKPASS_REQUIRE": "never"}
    try:
        return subprocess.run(
            [SSH_KEYGEN, *arguments],
            input=data,
            stdin=None if data is not None or interactive else subprocess.DEVNULL,
            capture_output=True,
            start_new_session=not interactive,
            env=env,
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    except FileNotFoundError:
        raise PrereqError(
            f"{SSH_KEYGEN} is not installed: it signs and verifies the index",
            hint="install OpenSSH's client (8.2 or newer; Debian: apt-get install openssh-client)",
        ) from None
    except subprocess.TimeoutExpired:
        raise PrereqError(
            f"{SSH_KEYGEN} did not finish within {TIMEOUT_SECONDS:.0f} s", hint="check the key (a token to touch?)"
        ) from None


def _said(run: subprocess.CompletedProcess) -> str:
    """ssh-keygen's last line of complaint, without the passphrase prompt it printed first."""
    lines = [line.strip() for line in run.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1].replace("Enter passphrase: ", "") if lines else f"exit status {run.returncode}"


def check_key(key: Path) -> None:
    """A PrereqError unless ``key`` is a file this user can read (said before a long build, not after)."""
    if not Path(key).is_file() or not os.access(key, os.R_OK):
        missing = not Path(key).exists()
        raise PrereqError(
            f"cannot read the signing key {key}" + (": no such file" if missing else ""),
            hint="name an SSH private key file you can read (ssh-keygen -t ed25519 makes one)",
        )


def sign(data: bytes, *, key: Path, namespace: str, interactive: bool) -> str:
    """The armoured SSHSIG of ``data`` by ``key`` (a private key, or a public key whose private half
    ssh-agent holds).  A key that cannot be used is a PrereqError naming it; a passphrase is asked
    only when ``interactive``."""
    check_key(key)
    with tempfile.TemporaryDirectory(prefix="prereq-sign-") as folder:
        signed = Path(folder) / "data"
        signed.write_bytes(data)
        # A file, not stdin: ssh-keygen may read a passphrase from stdin when it has no terminal.
        run = _run(["-Y", "sign", "-n", namespace, "-f", str(key), str(signed)], interactive=interactive)
        signature = Path(folder) / "data.sig"
        if run.returncode == 0 and signature.is_file():
            return signature.read_text(encoding="ascii")
    reason = _said(run)
    if "passphrase" in reason and not interactive:
        raise PrereqError(
            f"the signing key {key} is protected by a passphrase, and nobody is here to type it",
            hint="load it into ssh-agent (ssh-add) and pass its .pub file, or use a key made for signing alone",
        )
    raise PrereqError(f"{SSH_KEYGEN} could not sign with {key}: {reason}", hint="check that it is an SSH private key")


def verify(data: bytes, *, signature: bytes, allowed_signers: Path, namespace: str) -> Verdict:
    """Which principal of ``allowed_signers`` signed ``data`` under ``namespace`` with ``signature``."""
    with tempfile.TemporaryDirectory(prefix="prereq-verify-") as folder:
        signature_file = Path(folder) / "data.sig"
        signature_file.write_bytes(signature)
        found = _run(["-Y", "find-principals", "-s", str(signature_file), "-f", str(allowed_signers)])
        principals = found.stdout.decode("utf-8", "replace").split() if found.returncode == 0 else []
        if not principals:
            return Verdict(None, f"is not by a key {allowed_signers} lists ({_said(found)})")
        checking = ["-Y", "verify", "-f", str(allowed_signers), "-n", namespace, "-s", str(signature_file)]
        for principal in principals:
            checked = _run([*checking, "-I", principal], data=data)
            if checked.returncode == 0:
                return Verdict(principal)
        return Verdict(None, f"does not match it ({_said(checked)})")
