"""Credentials in registry text: what a maintained detector and our own rules find (PRQ190, PRQ191).

What is published is what is scanned: every string of an item or job template, every mapping key,
every string once its ``<% this.KEY %>`` are filled in (``rendered_leaks``: a token split over two
parameters is one again in the index), and the comments of a file published as written
(``locate_comments``: job templates).  Each line is scanned with detect-secrets' plugins (its per-line
API, ``analyze_string``: its own YAML scan misses list entries, and its verification would call the
services the keys belong to), plus the rules a registry of cluster jobs needs and no generic detector
has: credential options (``password=``, ``AccountKey=``, ``SharedAccessSignature=``,
``AZURE_STORAGE_ACCESS_KEY=``...) and credential-named values whose value is not a
``<% $secrets.KEY %>`` reference, ``user:password@`` in URLs, commands that take a credential
(``curl -u``, ``sshpass -p``, ``docker login -p``, ``mysql -p``, ``aws configure set``, a .netrc's
``password``), Azure SAS signatures, Hugging Face tokens, and a job template's own ``secrets:``.  A
finding names the kind of credential and never holds its value.  Checksums, UUIDs, example hosts and
placeholders like ``<password>``, ``***``, ``$VAR`` never fire.

Longer than usual: the rules and the surfaces they are run on are one table of what counts as a
credential; split, a form added to one half would be missed by the other (the folder is full).

detect-secrets is imported here only (tests/test_house.py holds that).

May import: the standard library, detect-secrets, prereq.core.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
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
_BEARER = "a bearer token"
# Our own shapes: an Azure SAS signature in a URL, Hugging Face tokens, GitHub's fine-grained tokens.
_SHAPES = (
    (re.compile(r"[?&]sig=[A-Za-z0-9%+/=]{20,}"), "an Azure shared access signature"),
    (re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), "a Hugging Face token"),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{60,}\b"), "a GitHub token"),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"), "a Google API key"),
    (re.compile(r"\bBearer\s+[A-Za-z0-9._~+/=-]{20,}"), _BEARER),
)


_URL_PASSWORD = "a password in a URL (user:password@host)"
# Commands that take a credential as an argument, each with how a plain-text value and a template are
# named: `sshpass -p X`, `docker login -p X`, `mysql -pX` (mysql's `-p` alone prompts, and what follows it
# is a database), `curl -u user:X` (and `-U`, `--user`, `--proxy-user`), `aws configure set
# aws_secret_access_key X`, and a .netrc's `login u password X` (or a line of its own, `password X`).
# None counts at an example host (``_at_example_host``).
_VALUE = r"[\"']?(?P<value><%.*?%>|[^\s;&|\"'\\]+)"
_COMMAND_FORMS = (
    (
        re.compile(
            r"\b(?:sshpass|(?:docker|podman|nerdctl|buildah)\s+login)\b[^;&|\n]*?\s-p\s*(?P<value><%.*?%>|[^\s;&|]+)"
        ),
        "a plain-text password after -p",
        "-p",
    ),
    (
        re.compile(r"\bmysql(?:dump|admin)?\b[^;&|\n]*?\s-p(?P<value><%.*?%>|[^\s;&|<-][^\s;&|]*)"),
        "a plain-text password after -p",
        "-p",
    ),
    (
        re.compile(rf"\bcurl\b[^;&|\n]*?\s(?:-[A-Za-z]*[uU]\s*|--(?:proxy-)?user[=\s]\s*)[\"']?[^\s:;&|\"']*:{_VALUE}"),
        "a plain-text password after curl -u",
        "curl -u",
    ),
    (
        re.compile(
            rf"(?i)\baws\s+configure\s+set\s+(?:[\w-]+\.)?(?:aws_secret_access_key|aws_session_token)\s+{_VALUE}"
        ),
        "a plain-text AWS secret after aws configure set",
        "aws configure set",
    ),
    (
        re.compile(rf"(?:^|\s|\\n)login\s+[^\s\\]+(?:\s+|\\n)password\s+{_VALUE}"),
        "a .netrc password",
        "a .netrc password",
    ),
    # a line of its own only with a value no word of prose is (a digit or a sign): not `password required`
    (re.compile(rf"^\s*password\s+(?=\S*[^A-Za-z\s]){_VALUE}\s*$"), "a .netrc password", "a .netrc password"),
    (re.compile(rf"\bredis-cli\b[^;&|\n]*?\s-a\s+{_VALUE}"), "a plain-text password after redis-cli -a", "-a"),
    (re.compile(rf"\bsmbclient\b[^;&|\n]*?\s-U\s*[\"']?[^\s%\"']+%{_VALUE}"), "a password after smbclient -U", "-U"),
    (re.compile(rf"\baz\s+login\b[^;&|\n]*?\s-p\s+{_VALUE}"), "a plain-text password after az login -p", "-p"),
    (re.compile(rf"(?i)\bauthorization:\s*basic\s+{_VALUE}"), "HTTP basic credentials", "Authorization: Basic"),
    (re.compile(rf"(?i)\bx-api-key:\s*{_VALUE}"), "an API key header", "X-Api-Key:"),
)
# Option and variable names whose value is a credential: `password=...`, `AccountKey=...`,
# `AZURE_STORAGE_ACCESS_KEY=...`, `--password ...`.  A name ends with the credential word.
_CREDENTIAL_NAME = (
    r"[A-Za-z0-9_.-]*?(?:password|passwd|accountkey|sharedaccesssignature|sas_?token|secret_?access_?key"
    r"|access_?key|secret_?key|client_?secret|api_?key|auth_?token|access_?token|_token|_secret|storage_?key"
    r"|sshpass|_pass|_pwd)"
)
_NAME_ONLY = re.compile(rf"(?i)(?:{_CREDENTIAL_NAME}|token|secret)")
_OPTION = re.compile(
    rf"(?i)(?<![A-Za-z0-9_])(?P<name>{_CREDENTIAL_NAME}|token|secret)"
    r"(?:=|\s*:\s*(?=[\"']))(?P<value><%.*?%>|\"[^\"]*\"|'[^']*'|[^\s;&,'\"]*)"
)
_LEADING_TEMPLATE = re.compile(r"<%.*?%>")
_LONG_OPTION = re.compile(r"--(?:[a-z]+-)?(?:password|passwd|token|secret|api-key|account-key|sas-token)(?=[=\s])")
_URL_USERINFO = re.compile(r"://(?P<user>[^\s/@:]+):(?P<value><%.*?%>|[^\s/@]+)@(?P<host>[^\s/?#:]+)")
# Hosts of documentation (RFC 2606) and values that stand for a credential without being one.
_HOST = re.compile(r"(?:://(?:[^\s/@]*@)?|\bmachine\s+)([^\s/?#:'\"\\]+)")
_EXAMPLE_HOST = re.compile(r"(?i)(^|\.)(example\.(com|net|org)|example|invalid|test)$")
_PLACEHOLDER = re.compile(r"(?i)^(<[^<>%]*>|\{[^{}]*\}|\*+|x+|\.+|changeme|secret|password|pass|token|none|null|)$")


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
    for pattern, plain, name in _COMMAND_FORMS:
        for match in pattern.finditer(line):
            literal = _value_kind(match["value"])
            # a line naming a documentation host (a URL's, a .netrc's ``machine``) holds an example
            if literal is not None and not any(_EXAMPLE_HOST.search(host) for host in _HOST.findall(line)):
                yield (plain if literal else name), literal


def _url_passwords(line: str) -> Iterator[tuple[str, bool]]:
    for match in _URL_USERINFO.finditer(line):
        literal = _value_kind(match["value"])
        if literal is not None and not _EXAMPLE_HOST.search(match["host"]):
            yield (_URL_PASSWORD if literal else "the password of a URL"), literal


@dataclass(frozen=True)
class Leak:
    """One credential in one string: which line of the string (0-based) and what kind; never the value.
    ``literal`` is False for a credential that is a template other than ``<% $secrets.KEY %>``; ``text``
    is the line of the string that holds it, never shown (the history keeps a digest of it, to know the
    line again); ``key``: the string is a mapping key."""

    line: int
    kind: str
    literal: bool = True
    text: str = field(default="", compare=False, repr=False)
    key: bool = False


@lru_cache(maxsize=1)
def _plugins() -> tuple[tuple[BasePlugin, str], ...]:
    """The plugins, made once (imported here, not at the top: see ``_DETECTOR_HINT``)."""
    from importlib import import_module

    import detect_secrets.plugins

    package = detect_secrets.plugins.__name__
    return tuple((getattr(import_module(f"{package}.{module}"), name)(), kind) for module, name, kind in _DETECTORS)


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
    rf"{_DETECTOR_HINT.pattern}|(?i:key|pass|token|secret|signature|login|mysql|curl|redis|smbclient|authoriz|pwd)"
    r"|://|sig=|hf_|github_pat_|AIza|Bearer"
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
    leaks = [Leak(number, kind, True, line) for kind in named]
    return leaks + [Leak(number, kind, literal, line) for kind, literal in dict(generic).items()]


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
        leaks.append(Leak(0, "a plain-text credential" if literal else key, literal, value.split("\n")[0]))
    return leaks


def scan_document(data: Any, *, render: bool = True) -> Iterator[tuple[tuple[Any, ...], Leak]]:
    """Every credential an item or job template publishes, with the path of the string that holds it:
    in every string, in every mapping key (its path then ends with the key, and ``Leak.key`` says so),
    and with ``render`` in every string once its ``<% this.KEY %>`` are filled in from the document's own
    parameters, as the build fills them (a token split over two parameters is one again)."""
    lookup = own_parameters(data) if render else None
    for path, value in placeholders.strings(data):
        written = scan_value(path, value)
        for leak in written:
            yield path, leak
        if lookup is not None and placeholders.OPEN in value:
            for leak in rendered_leaks(path, value, lookup, written=written):
                yield path, leak
    for path, key in _keys(data):
        for leak in scan_text(key):
            if leak.literal:  # a key is no place for a template: only a credential written out counts
                yield path, replace(leak, key=True)


def _keys(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    """Every string mapping key inside a JSON-like value, with its path (ending with the key)."""
    if isinstance(value, dict):
        for key, child in value.items():
            if isinstance(key, str) and _MAYBE.search(key):
                yield path + (key,), key
            yield from _keys(child, path + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _keys(child, path + (index,))


def own_parameters(data: Any) -> Callable[[str], Any]:
    """``<% this.KEY %>`` as a document's own parameters fill it in (the nearest, the build's first)."""
    parameters = data.get("parameters") if isinstance(data, dict) else None
    found = parameters if isinstance(parameters, dict) else {}
    return found.get


def rendered(text: str, lookup: Callable[[str], Any]) -> str:
    """``text`` with its ``<% this.KEY %>`` filled in by ``lookup``, and the templates those values hold,
    a few levels deep and to a bounded size: what a scan reads, never what is published."""

    def plain(key: str) -> str | None:
        found = lookup(key)
        return None if found is None else ("true" if found else "false") if isinstance(found, bool) else str(found)

    for _ in range(_RENDER_DEPTH):
        filled = placeholders.render(text, "this", plain)[:_RENDER_SIZE]
        if filled == text or placeholders.OPEN not in filled:
            return filled
        text = filled
    return text


_RENDER_DEPTH = 8  # parameters that use parameters...: past those a scan stops filling in
_RENDER_SIZE = 100_000  # characters: the build refuses a parameter that grows past them (PRQ155)


def rendered_leaks(
    path: tuple[Any, ...], value: str, lookup: Callable[[str], Any], *, written: list[Leak] | None = None
) -> list[Leak]:
    """The credentials in ``value`` once its ``<% this.KEY %>`` are filled in that it did not hold as
    written (each at the line of the string that uses the parameters, and always literal: what the
    build publishes is the value itself).  ``written``: ``scan_value(path, value)``, when the caller has it."""
    lines = value.split("\n")
    held = {(leak.line, leak.kind) for leak in (scan_value(path, value) if written is None else written)}
    found: dict[tuple[int, str], Leak] = {}
    for number, line in enumerate(lines):
        if placeholders.OPEN not in line:
            continue
        text = rendered(line, lookup)
        if text == line:
            continue
        leaks = scan_value(path, text) if len(lines) == 1 else scan_text(text)  # a key's rule: one-line values
        for leak in leaks:
            if leak.literal and (number, leak.kind) not in held:
                found.setdefault((number, leak.kind), Leak(number, leak.kind, True, line))
    return list(found.values())


def kinds(leaks: Iterable[Leak]) -> str:
    """The kinds of ``leaks``, for one message ("an AWS access key and a GitHub token")."""
    names = list(dict.fromkeys(leak.kind for leak in leaks))
    return " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]


@dataclass(frozen=True)
class Located:
    """The credentials of one line of a file: where, in which string (or key, or comment: ``on``), and
    which (never their values)."""

    path: tuple[Any, ...]
    line: int
    column: int
    leaks: tuple[Leak, ...]
    on: str = "value"  # "value", "key" or "comment"


def locate(loaded: LoadedYaml, *, skip: Callable[[tuple[Any, ...]], bool] = lambda path: False) -> Iterator[Located]:
    """``place`` of ``scan_document`` of a loaded file as written (nothing filled in)."""
    return place(loaded, ((path, leak) for path, leak in scan_document(loaded.data, render=False) if not skip(path)))


def place(loaded: LoadedYaml, leaks: Iterable[tuple[tuple[Any, ...], Leak]]) -> Iterator[Located]:
    """Each line's credentials at that line of the file.  A string of several lines is almost always a
    block scalar (``|``), whose text starts on the line after its indicator; a string of one line is
    where its value starts; a key is where it is written."""
    found: dict[tuple[tuple[Any, ...], int, bool], list[Leak]] = {}
    for path, leak in leaks:
        found.setdefault((path, leak.line, leak.key), []).append(leak)
    for (path, offset, key), held in found.items():
        line, column = loaded.position(path, key=key)
        value = "" if key else _value_at(loaded.data, path)
        if "\n" in value.rstrip("\n"):
            line, column = line + 1 + offset, 1
        yield Located(path, line, column, tuple(held), "key" if key else "value")


def _value_at(data: Any, path: tuple[Any, ...]) -> str:
    for key in path:
        data = data[key]
    return str(data)


def locate_comments(text: str, data: Any) -> list[Located]:
    """The credentials in the YAML comments of ``text`` (a file published as written, comments and all),
    ``data`` what it loads to, at their lines.  A ``#`` after a blank starts a comment unless what follows
    it is part of a string of ``data`` (a shell comment in a block of commands: scanned as that string)."""
    if not _MAYBE.search(text):
        return []
    found: list[Located] = []
    written: str | None = None
    for number, line in enumerate(text.split("\n")):
        match = _COMMENT.search(line)
        leaks = scan_text(match[1]) if match and _MAYBE.search(match[1]) else []
        if not leaks:
            continue
        if written is None:  # every string and key, once, for the few lines that need it
            written = "\n".join([value for _, value in placeholders.strings(data)] + [k for _, k in _keys(data)])
        if match and match[1] not in written:
            held = tuple(replace(leak, line=number) for leak in leaks if leak.literal)
            found += [Located((), number + 1, match.start(1) + 1, held, "comment")] if held else []
    return found


_COMMENT = re.compile(r"(?:^|\s)(#.*)")
