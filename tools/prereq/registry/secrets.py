"""Credentials in registry text: what a maintained detector and our own rules find (PRQ190, PRQ191).

Every string of an item or job template is scanned line by line with detect-secrets' plugins (its
per-line API, ``analyze_string``: its own YAML scan misses list entries, and its verification would
call the services the keys belong to), plus the rules a registry of cluster jobs needs and no generic
detector has: credential options (``password=``, ``AccountKey=``, ``SharedAccessSignature=``,
``AZURE_STORAGE_ACCESS_KEY=``...) and credential-named values whose value is not a
``<% $secrets.KEY %>`` reference, ``user:password@`` in URLs, Azure SAS signatures, Hugging Face
tokens, and a job template's own ``secrets:``.  A finding names the kind of credential and never
holds its value.  Checksums, UUIDs, example hosts and placeholders like ``<password>`` never fire.

detect-secrets is imported here only (tests/test_house.py holds that).

May import: the standard library, detect-secrets, prereq.core.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import BasePlugin
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.private_key import PrivateKeyDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.stripe import StripeDetector

from prereq.core import placeholders

# detect-secrets' plugins that name a credential by its own shape, with how we name each kind.  Left
# out: the entropy and keyword heuristics (checksums and prose set them off; our option rules below
# say more), public IPs (no secret), and the services whose patterns match ordinary identifiers.
_DETECTORS: tuple[tuple[type[BasePlugin], str], ...] = (
    (PrivateKeyDetector, "a private key"),
    (AWSKeyDetector, "an AWS access key"),
    (AzureStorageKeyDetector, "an Azure storage account key"),
    (GitHubTokenDetector, "a GitHub token"),
    (GitLabTokenDetector, "a GitLab token"),
    (SlackDetector, "a Slack token"),
    (JwtTokenDetector, "a JSON Web Token"),
    (NpmDetector, "an npm token"),
    (PypiTokenDetector, "a PyPI token"),
    (OpenAIDetector, "an OpenAI API key"),
    (StripeDetector, "a Stripe key"),
    (SendGridDetector, "a SendGrid key"),
    (DiscordBotTokenDetector, "a Discord bot token"),
    (BasicAuthDetector, "a password in a URL (user:password@host)"),
)
_URL_PASSWORD = _DETECTORS[-1][1]
# Our own shapes: an Azure SAS signature in a URL, Hugging Face tokens, GitHub's fine-grained tokens.
_SHAPES = (
    (re.compile(r"[?&]sig=[A-Za-z0-9%+/=]{20,}"), "an Azure shared access signature"),
    (re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), "a Hugging Face token"),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{60,}\b"), "a GitHub token"),
)
# Option and variable names whose value is a credential: `password=...`, `AccountKey=...`,
# `AZURE_STORAGE_ACCESS_KEY=...`, `--password ...`.  A name ends with the credential word.
_CREDENTIAL_NAME = (
    r"[A-Za-z0-9_.-]*?(?:password|passwd|accountkey|sharedaccesssignature|sas_?token|secret_?access_?key"
    r"|access_?key|secret_?key|client_?secret|api_?key|auth_?token|access_?token|_token|_secret)"
)
_NAME_ONLY = re.compile(rf"(?i){_CREDENTIAL_NAME}")
_OPTION = re.compile(
    rf"(?i)(?<![A-Za-z0-9_])(?P<name>{_CREDENTIAL_NAME}|token|secret)"
    r"(?:=|\s*:\s*(?=[\"']))(?P<value><%.*?%>|\"[^\"]*\"|'[^']*'|[^\s;&,'\"]*)"
)
_LONG_OPTION = re.compile(r"--(?:password|passwd|token|secret|api-key|account-key|sas-token)(?=[=\s])")
_URL_USERINFO = re.compile(r"://(?P<user>[^\s/@:]+):(?P<value><%.*?%>|[^\s/@]+)@(?P<host>[^\s/?#:]+)")
# Hosts of documentation (RFC 2606) and values that stand for a credential without being one.
_EXAMPLE_HOST = re.compile(r"(?i)(^|\.)(example\.(com|net|org)|example|invalid|test)$")
_PLACEHOLDER = re.compile(r"(?i)^(<[^<>%]*>|\{[^{}]*\}|\*+|x+|\.+|changeme|secret|password|pass|token|none|null|)$")


@dataclass(frozen=True)
class Leak:
    """One credential in one string: which line of the string (0-based) and what kind; never the value.
    ``literal`` is False for a credential that is a template other than ``<% $secrets.KEY %>``."""

    line: int
    kind: str
    literal: bool = True


@lru_cache(maxsize=1)
def _plugins() -> tuple[tuple[BasePlugin, str], ...]:
    return tuple((plugin(), kind) for plugin, kind in _DETECTORS)


def _is_secret_reference(value: str) -> bool:
    template = placeholders.TEMPLATE.fullmatch(value.strip("\"'"))
    return template is not None and placeholders.parse(template[1]).namespace == "$secrets"


def _value_kind(value: str) -> bool | None:
    """True: a literal credential; False: a template other than a secret reference; None: nothing to say
    (a secret reference, a shell expansion, empty, a placeholder)."""
    value = value.strip("\"'")
    if _is_secret_reference(value) or _PLACEHOLDER.match(value) or value.startswith(("$", "`")):
        return None
    return "<%" not in value


def _options(line: str) -> Iterator[tuple[str, bool]]:
    """(kind, literal) of each credential option on the line whose value is not a secret reference."""
    for match in _OPTION.finditer(line):
        name, value = match["name"], match["value"]
        if name.lower() in ("token", "secret") and not match.group(0).lower().startswith(("token=", "secret=")):
            continue  # a bare `token`/`secret` counts only as `token=VALUE`
        literal = _value_kind(value)
        if literal is not None and not (literal and value.strip("\"'").isdigit() and len(value) < 5):
            yield (f"a plain-text {name}= value" if literal else f"{name}="), literal
    for match in _LONG_OPTION.finditer(line):
        rest = line[match.end() :].lstrip(" =")
        value = rest.split(None, 1)[0] if rest else ""
        literal = _value_kind(value) if not value.startswith("-") else None
        if literal is not None:
            yield (f"a plain-text value after {match[0]}" if literal else match[0]), literal


def _url_passwords(line: str) -> Iterator[tuple[str, bool]]:
    for match in _URL_USERINFO.finditer(line):
        literal = _value_kind(match["value"])
        if literal is not None and not _EXAMPLE_HOST.search(match["host"]):
            yield (_URL_PASSWORD if literal else "the password of a URL"), literal


def _detected(line: str) -> Iterator[str]:
    for plugin, kind in _plugins():
        for found in plugin.analyze_string(line):
            if kind == _URL_PASSWORD:
                continue  # our own URL rule below knows example hosts and templates
            if not _PLACEHOLDER.match(found):
                yield kind
                break
    for pattern, kind in _SHAPES:
        if pattern.search(line):
            yield kind


# Text without which no rule can match a line: most lines of most items skip every regex.
_MAYBE = re.compile(r"(?i)[=:@]|key|pass|token|secret|eyj|xox|gh[pousr]_|gl|akia|asia|hf_|sk|sg\.")


def scan_text(text: str) -> list[Leak]:
    """Every credential in ``text``, one Leak per line and kind, in line order.  A credential that a
    detector names by its shape is named so, not again as the option or URL that holds it."""
    leaks: list[Leak] = []
    for number, line in enumerate(text.split("\n")):
        if not _MAYBE.search(line):
            continue
        named = list(dict.fromkeys(_detected(line)))
        generic = [found for found in (*_url_passwords(line), *_options(line)) if not (named and found[1])]
        leaks.extend(Leak(number, kind) for kind in named)
        leaks.extend(Leak(number, kind, literal) for kind, literal in dict(generic).items())
    return leaks


def _credential_key(path: tuple[Any, ...]) -> str | None:
    """The mapping key naming a credential that holds this value (``parameters.storagePassword``,
    ``auth.password``, a job's ``secrets.KEY``), if any."""
    keys = [key for key in path if isinstance(key, str)]
    if not keys:
        return None
    if len(path) >= 2 and path[0] == "secrets":
        return f"secrets.{path[1]}"
    last = keys[-1]
    return last if isinstance(path[-1], str) and _NAME_ONLY.fullmatch(last) else None


def scan_value(path: tuple[Any, ...], value: str) -> list[Leak]:
    """``scan_text`` of one string of an item or job template, plus what its key says: a value under a
    credential's name (or in a job's ``secrets:``) must be a secret reference."""
    leaks = scan_text(value)
    key = _credential_key(path)
    if key is None or leaks:
        return leaks
    literal = _value_kind(value)
    if key.startswith("secrets.") and literal is False:
        literal = None  # a job's own secret filled in from a template the user supplies is theirs
    if literal is not None:
        leaks.append(Leak(0, "a plain-text credential" if literal else key, literal))
    return leaks


def scan_document(data: Any) -> Iterator[tuple[tuple[Any, ...], Leak]]:
    """Every credential in every string of an item or job template, with the string's path."""
    for path, value in placeholders.strings(data):
        for leak in scan_value(path, value):
            yield path, leak


def kinds(leaks: Iterable[Leak]) -> str:
    """The kinds of ``leaks``, for one message ("an AWS access key and a GitHub token")."""
    names = list(dict.fromkeys(leak.kind for leak in leaks))
    return " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]
