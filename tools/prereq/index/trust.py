"""The index's trust: signing its root, and whom a reader trusts to have signed it.

The publish step signs ``api/v1/index.json`` with an SSH key (``sign_index``: ``index.json.sig``
beside it, an armoured SSHSIG under the namespace ``prereq-index``).  A reader trusts an index
when a trust setting names an ``allowed_signers`` file ($PREREQ_TRUST, else ``trust:
allowed_signers`` in the repository's prereq.yaml) and one of its keys signed the root
(``check_root``); the root's sha256 of every item file then chains each item to that signature
(``reader.Index``).  Without a trust setting nothing is checked and ssh-keygen is never run.

May import: prereq.core, prereq.registry.settings, prereq.index.sshsig.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from prereq.core.errors import PrereqError
from prereq.core.files import is_there, write_atomic
from prereq.index import sshsig
from prereq.registry.settings import load_settings

NAMESPACE = "prereq-index"  # what the signature is for: a key's signature for git commits is not one for this
ROOT_FILE = "index.json"
SIGNATURE_FILE = "index.json.sig"
TRUST_VARIABLE = "PREREQ_TRUST"
SIGN_KEY_VARIABLE = "PREREQ_SIGN_KEY"


class UntrustedIndex(PrereqError):
    """An index a trust setting asks to verify that does not verify: never used, never only a warning."""


@dataclass(frozen=True)
class Trust:
    """The allowed signers to check an index against, and where that was set (for messages)."""

    allowed_signers: Path
    origin: str


def trust_setting(start: Path | None = None) -> Trust | None:
    """$PREREQ_TRUST, else prereq.yaml's ``trust: allowed_signers`` of the repository around ``start``
    (the current folder), else None: no verification."""
    named = os.environ.get(TRUST_VARIABLE)
    if named:
        return Trust(Path(named), f"${TRUST_VARIABLE}")
    settings = load_settings(start or Path.cwd())
    if settings.allowed_signers is None:
        return None
    return Trust(settings.allowed_signers, f"trust.allowed_signers in {settings.file}")


def sign_index(api_folder: Path, *, key: Path, interactive: bool) -> Path:
    """Sign ``api_folder``'s index.json with ``key``; the signature is written atomically beside it."""
    root = api_folder / ROOT_FILE
    try:
        data = root.read_bytes()
    except OSError as exc:
        raise PrereqError(f"cannot read {root}: {exc.strerror}", hint="build the index first") from None
    signature = sshsig.sign(data, key=key, namespace=NAMESPACE, interactive=interactive)
    write_atomic(api_folder / SIGNATURE_FILE, signature, follow_links=False)
    return api_folder / SIGNATURE_FILE


def check_root(where: str, body: bytes, signature: bytes | None, trust: Trust) -> str:
    """The principal that signed the root ``body`` read from ``where`` (its address, for messages);
    an UntrustedIndex when it is unsigned or no allowed signer signed it."""
    fix = f"use an index its publisher signed ('prereq build --sign-key KEY'), or change {trust.origin}"
    if signature is None:
        raise UntrustedIndex(f"{where}/{ROOT_FILE} is not signed ({where}/{SIGNATURE_FILE} is missing)", hint=fix)
    if not is_there(trust.allowed_signers, folder=False):
        raise PrereqError(
            f"the allowed signers file {trust.allowed_signers} ({trust.origin}) does not exist",
            hint="name an allowed_signers file (ssh-keygen's format: PRINCIPAL KEYTYPE KEY per line)",
        )
    verdict = sshsig.verify(body, signature=signature, allowed_signers=trust.allowed_signers, namespace=NAMESPACE)
    if verdict.principal is None:
        raise UntrustedIndex(f"{where}/{ROOT_FILE}: its signature {where}/{SIGNATURE_FILE} {verdict.reason}", hint=fix)
    return verdict.principal


def tampered(where: str, path: str) -> UntrustedIndex:
    """The error for an item file of a signed index whose sha256 the root does not have."""
    return UntrustedIndex(
        f"{where}/{path} does not match the sha256 in the signed {ROOT_FILE}: it was changed after signing",
        hint="do not use this copy of the index; fetch it again from its publisher, or ask them to rebuild it",
    )


def not_covered(where: str, path: str) -> UntrustedIndex:
    """The error for a file of a signed index that no signed sha256 covers (the execution catalog)."""
    return UntrustedIndex(
        f"{where}/{path} is not covered by the signature of {ROOT_FILE}, and a trust setting asks for one",
        hint="pass --registry with a reviewed checkout of the registry instead",
    )
