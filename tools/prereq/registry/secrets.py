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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from prereq.core import placeholders
from prereq.core.yamlload import LoadedYaml

if TYPE_CHECKING:
    from detect_secrets.plugins.base import BasePlugin

# detect-secrets' plugins that name a credential by its own shape (module, class), with how we name
# each kind.  Left out: the entropy and keyword heuristics (checksums and prose set them off; our
# option rules below say more), public IPs (no secret), basic auth (our URL rule knows example hosts
# and templates), and the services whose patterns match ordinary identifiers.
_DETECTORS = (
    ("private_key", "PrivateKeyDetector", "a private key"),
    ("aws", "AWSKeyDetector", "an AWS access key"),
    ("azure_storage_key", "AzureStorageKeyDetector", "an Azure storage account key"),
    ("github_token", "GitHubTokenDetector", "a GitHub token"),
    ("gitlab_token", "GitLabTokenDetector", "a GitLab token"),
    ("slack", "SlackDetector", "a Slack token"),
    ("jwt", "JwtTokenDetector", "a JSON Web Token"),
    ("npm", "NpmDetector", "an npm token"),
    ("pypi_token", "PypiTokenDetector", "a PyPI token"),
    ("openai", "OpenAIDetector", "an OpenAI API key"),
    ("stripe", "StripeDetector", "a Stripe key"),
    ("sendgrid", "SendGridDetector", "a SendGrid key"),
    ("discord", "DiscordBotTokenDetector", "a Discord bot token"),
)
# What a line holds before any of those plugins can match (their patterns' fixed parts): detect-secrets
# (which imports requests, 0.2 s) is loaded and run only for such lines, which a clean registry rarely has.
_DETECTOR_HINT = re.compile(
    r"BEGIN|PuTTY|A3T|ABIA|ACCA|AKIA|ASIA|(?i:aws.{0,20}?(?:key|pw|pass|token))|AccountKey|gh[pousr]_|GR1348941"
    r"|gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-|xox|eyJ|npm_|_authToken|pypi-AgE|T3BlbkFJ|_live_|SG\."
    r"|[MNO][\w-]{23,25}\.[\w-]{6}\."
)
_URL_PASSWORD = "a password in a URL (user:password@host)"
_BEARER = "a bearer token"
# Our own shapes: an Azure SAS signature in a URL, Hugging Face tokens, GitHub's fine-grained tokens.
_SHAPES = (
    (re.compile(r"[?&]sig=[A-Za-z0-9%+/=]{20,}"), "an Azure shared access signature"),
    (re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), "a Hugging Face token"),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{60,}\b"), "a GitHub token"),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"), "a Google API key"),
    (re.compile(r"\bBearer\s+[A-Za-z0-9._~+/=-]{20,}"), _BEARER),
)
# Commands whose short -p takes a password: `sshpass -p X`, `docker login -p X`, `mysql -pX` (mysql's
# `-p` alone prompts, and what follows it is a database).
_SHORT_PASSWORD = (
    re.compile(
        r"\b(?:sshpass|(?:docker|podman|nerdctl|buildah)\s+login)\b[^;&|\n]*?\s-p\s*(?P<value><%.*?%>|[^\s;&|]+)"
    ),
    re.compile(r"\bmysql(?:dump|admin)?\b[^;&|\n]*?\s-p(?P<value><%.*?%>|[^\s;&|<-][^\s;&|]*)"),
)
# Option and variable names whose value is a credential: `password=...`, `AccountKey=...`,
# `AZURE_STORAGE_ACCESS_KEY=...`, `--password ...`.  A name ends with the credential word.
_CREDENTIAL_NAME = (
    r"[A-Za-z0-9_.-]*?(?:password|passwd|accountkey|sharedaccesssignature|sas_?token|secret_?access_?key"
    r"|access_?key|secret_?key|client_?secret|api_?key|auth_?token|access_?token|_token|_secret)"
)
_NAME_ONLY = re.compile(rf"(?i)(?:{_CREDENTIAL_NAME}|token|secret)")
_OPTION = re.compile(
    rf"(?i)(?<![A-Za-z0-9_])(?P<name>{_CREDENTIAL_NAME}|token|secret)"
    r"(?:=|\s*:\s*(?=[\"']))(?P<value><%.*?%>|\"[^\"]*\"|'[^']*'|[^\s;&,'\"]*)"
)
_LEADING_TEMPLATE = re.compile(r"<%.*?%>")
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
    """The plugins, made once (imported here, not at the top: see ``_DETECTOR_HINT``)."""
    from importlib import import_module

    import detect_secrets.plugins

    package = detect_secrets.plugins.__name__
    return tuple((getattr(import_module(f"{package}.{module}"), name)(), kind) for module, name, kind in _DETECTORS)


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
        template = _LEADING_TEMPLATE.match(rest)  # `--password <% $secrets.pw %>`: one value, spaces and all
        words = rest.split(None, 1)
        value = template[0] if template else words[0] if words else ""  # nothing, or only tabs, after it
        literal = _value_kind(value) if not value.startswith("-") else None
        if literal is not None:
            yield (f"a plain-text value after {match[0]}" if literal else match[0]), literal
    for pattern in _SHORT_PASSWORD:
        for match in pattern.finditer(line):
            literal = _value_kind(match["value"])
            if literal is not None:
                yield ("a plain-text password after -p" if literal else "-p"), literal


def _url_passwords(line: str) -> Iterator[tuple[str, bool]]:
    for match in _URL_USERINFO.finditer(line):
        literal = _value_kind(match["value"])
        if literal is not None and not _EXAMPLE_HOST.search(match["host"]):
            yield (_URL_PASSWORD if literal else "the password of a URL"), literal


def _detected(line: str) -> Iterator[str]:
    for plugin, kind in _plugins() if _DETECTOR_HINT.search(line) else ():
        if any(not _PLACEHOLDER.match(found) for found in plugin.analyze_string(line)):
            yield kind
    for pattern, kind in _SHAPES:
        if pattern.search(line):
            yield kind


# Text without which no rule can match a line, from each rule's fixed parts: the detectors' hint, the
# words every credential name and option holds (password, passwd, sshpass, ...key, ...token, ...secret,
# sharedaccesssignature), the commands whose -p is a password, a URL's ``://`` and our own shapes.  Most
# lines of most items then skip every regex (tests/test_secrets_prefilter.py holds it to every rule).
_MAYBE = re.compile(
    rf"{_DETECTOR_HINT.pattern}|(?i:key|pass|token|secret|signature|login|mysql)|://|sig=|hf_|github_pat_|AIza|Bearer"
)


def scan_text(text: str) -> list[Leak]:
    """Every credential in ``text``, one Leak per line and kind, in line order.  A credential that a
    detector names by its shape is named so, not again as the option or URL that holds it."""
    if not _MAYBE.search(text):
        return []  # what most strings are
    leaks: list[Leak] = []
    for number, line in enumerate(text.split("\n")):
        if _MAYBE.search(line):
            leaks.extend(scan_line(line, number))
    return leaks


def scan_line(line: str, number: int = 0) -> list[Leak]:
    """The credentials of one line (the ``number``-th of its text), every rule tried."""
    named = list(dict.fromkeys(_detected(line)))
    if len(named) > 1 and _BEARER in named:  # the token a bearer carries is named by its own shape
        named.remove(_BEARER)
    generic = [found for found in (*_url_passwords(line), *_options(line)) if not (named and found[1])]
    return [Leak(number, kind) for kind in named] + [Leak(number, k, literal) for k, literal in dict(generic).items()]


def _credential_key(path: tuple[Any, ...]) -> str | None:
    """The mapping key naming a credential that holds this value (``parameters.storagePassword``,
    ``auth.password``, a job's ``secrets.KEY``), if any."""
    if len(path) >= 2 and path[0] == "secrets":
        return f"secrets.{path[1]}"
    last = path[-1] if path else None  # asked of every string: the last key only, no list made
    return last if isinstance(last, str) and _NAME_ONLY.fullmatch(last) else None


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


@dataclass(frozen=True)
class Located:
    """The credentials of one line of a file: where, in which string, and which (never their values)."""

    path: tuple[Any, ...]
    line: int
    column: int
    leaks: tuple[Leak, ...]


def locate(loaded: LoadedYaml, *, skip: Callable[[tuple[Any, ...]], bool] = lambda path: False) -> Iterator[Located]:
    """``scan_document`` of a loaded file, each line's credentials at that line of the file.  A string of
    several lines is almost always a block scalar (``|``), whose text starts on the line after its
    indicator; a string of one line is where its value starts."""
    found: dict[tuple[tuple[Any, ...], int], list[Leak]] = {}
    for path, leak in scan_document(loaded.data):
        if not skip(path):
            found.setdefault((path, leak.line), []).append(leak)
    for (path, offset), leaks in found.items():
        line, column = loaded.position(path)
        value = _value_at(loaded.data, path)
        if "\n" in value.rstrip("\n"):
            line, column = line + 1 + offset, 1
        yield Located(path, line, column, tuple(leaks))


def _value_at(data: Any, path: tuple[Any, ...]) -> str:
    for key in path:
        data = data[key]
    return str(data)
