"""The credentials corpus: what each engine finds in a job's prerequisite before it is shared.

``prereq share`` refuses an entry that ``prereq.registry.secretscan.scan_document`` finds a credential
in; the composer's Share panel asks ``site/assets/composer/jobs/credentials.js``'s ``scanDocument``.
The browser may refuse more than the CLI, never less: each case of ``cases.json`` is an entry as YAML
text and the findings of the Python engine (path, line, kind, whether literal, whether in a key), in
its order, which a refusal's message keeps.  ``regen.py`` writes it; ``test_credentials_cases.py`` and
``tests/js/credentials.test.js`` hold both engines to it.

The entries are every command form the CLI knows, each with values that must be refused (plain text,
a template other than a secret reference, one filled in from the entry's own parameters) and values
that must not (a secret reference, a shell variable, a placeholder, a short number, an example host);
the credentials of tests/test_secrets.py and its look-alikes; credentials in keys and under credential
names; and spellings where JavaScript's regular expressions read text otherwise than Python's (its
whitespace, ``.`` and ``\\d``).  Every fake credential is put together from parts, as in
tests/test_secrets.py, so that no file looks like a live one to a secret scanner.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from prereq.core.yamlload import load_yaml
from prereq.registry.secretscan import scan_document
from test_secrets import FAKES, LOOK_ALIKES

CASES = Path(__file__).resolve().parent / "cases.json"
# Commands that take a credential, as the CLI reads them (secretscan's options and command forms).
FORMS = [
    "sshpass -p {v} ssh bob@gpu-01",
    "docker login -u bob -p {v} registry.cluster.local",
    "mysql -u root -p{v} experiments",
    "curl -u bob:{v} https://files.cluster.local/data.tar",
    "curl --user bob:{v} https://files.cluster.local/data.tar",
    "curl -fsSL -u bob:{v} https://files.example.com/data.tar",
    "aws configure set aws_secret_access_key {v}",
    "aws configure set default.aws_session_token {v}",
    "echo 'machine files.cluster.local login bob password {v}' > ~/.netrc",
    "password {v}",
    "redis-cli -h cache -a {v} ping",
    "smbclient //fs/share -U bob%{v}",
    "az login -u bob -p {v}",
    "curl -H 'Authorization: Basic {v}' https://api.cluster.local/v1",
    "curl -H 'X-Api-Key: {v}' https://api.cluster.local/v1",
    "mount -t cifs //fs/share /mnt -o username=bob,password={v}",
    "export AZURE_STORAGE_KEY={v}",
    "export DB_PASS={v}",
    "export DB_PWD={v}",
    "SSHPASS={v} sshpass -e ssh bob@gpu-01",
    "sync-tool --db-password {v} --to /mnt/share",
    "sync-tool --password={v}",
    "git clone https://bot:{v}@git.cluster.local/team/repo.git",
    "token={v} ./fetch.sh",
    'echo \'{"secret": "{v}"}\' > /etc/app.json',
]
VALUES = [
    "Tr0ub4dor3",
    "'Tr0ub4dor3'",
    "<% $secrets.SHARE_PASSWORD %>",
    "<% this.pw %>",  # the entry's parameters give pw as plain text
    "<% this.unset %>",
    "<% expression.pw %>",
    "$SHARE_PASSWORD",
    "<password>",
    "1234",
    "xxxx",
]
PARAMETERS = {"pw": "Tr0ub4dor3"}


def _join(*parts: str) -> str:
    return "".join(parts)


GITHUB = _join("gh", "p_", "R7tLq2Vx9Kd4Mw8Ns1Pz6Bc3Hf5Jg0Ya2Eu7")
# Spellings where JavaScript reads otherwise than Python: whitespace \s does not share, "." before \r,
# Unicode digits and letters, a float parameter, a token split over two parameters, keys.
EDGES: list[tuple[str, dict[str, Any]]] = [
    ("bearer-unit-separator", {"commands": [_join("curl -H 'Authorization: Bearer\x1f", "abcdefghijklmnopqrstuvwx'")]}),
    (
        "aws-secret-carriage-return",
        {"commands": [_join("aws\r_secret_key = '", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8kLm3nR2", "'")]},
    ),
    ("aws-profile-non-ascii", {"commands": ["aws configure set profé.aws_secret_access_key Tr0ub4dor3"]}),
    ("option-value-unit-separator", {"commands": ["sync-tool --password Tr0ub\x1cdor3"]}),
    ("long-option-tab", {"commands": ["sync-tool --password\t\tTr0ub4dor3"]}),
    ("netrc-escaped-newline", {"commands": ["printf 'machine h login bob\\npassword Tr0ub4dor3\\n' > ~/.netrc"]}),
    ("password-line-prose", {"commands": ["password required for this share"]}),
    ("float-parameter", {"parameters": {"pw": 1.0}, "commands": ["mount -o password=<% this.pw %>"]}),
    ("bool-parameter", {"parameters": {"pw": True}, "commands": ["mount -o password=<% this.pw %>"]}),
    (
        "split-token",
        {
            "parameters": {"a": GITHUB[:20], "b": GITHUB[20:]},
            "commands": ["git clone https://<% this.a %><% this.b %>@github.com/team/repo.git"],
        },
    ),
    (
        "nested-parameters",
        {"parameters": {"a": "<% this.b %>", "b": "Tr0ub4dor3"}, "commands": ["password=<% this.a %>"]},
    ),
    ("credential-in-key", {"parameters": {"password=Tr0ub4dor3": "yes"}}),
    ("template-in-key", {"parameters": {"password=<% this.pw %>": "yes", "pw": "Tr0ub4dor3"}}),
    ("credential-named-value", {"parameters": {"sharePassword": "Tr0ub4dor3", "apiKey": "<% this.other %>"}}),
    ("credential-named-reference", {"parameters": {"sharePassword": "<% $secrets.SHARE %>", "tokenizer": "bert"}}),
    ("job-secrets", {"secrets": {"SHARE": "Tr0ub4dor3", "OTHER": "<% expression.other %>"}}),
    ("multi-line", {"commands": ["set -e\ncd /tmp\n" + FAKES["github-clone"][0] + "\nmount -o password=Tr0ub4dor3"]}),
    ("bearer-with-jwt", {"commands": [FAKES["jwt"][0]]}),
    ("example-host-netrc", {"commands": ["echo 'machine files.example.com login bob password Tr0ub4dor3' > ~/.netrc"]}),
    ("short-unicode-digits", {"commands": ["mount -o password=١٢٣"]}),
    # A review's finds (all let through by the browser until fixed): Python's case-insensitive i is also ı
    # and İ; a JWT as Python decodes it; \b before "machine" after a non-ASCII letter; \d in a template's
    # index; digits newer than Python's Unicode; a list parameter filled in as Python's str() writes it.
    ("dotless-i-name", {"commands": ["export apı_key=Tr0ub4dor3"]}),
    ("dotless-i-header", {"commands": ["curl -H 'Authorızation: Basic dXNlcjpwYXNz' https://api.cluster.local"]}),
    ("dotless-i-parameter-name", {"parameters": {"apıKey": "Tr0ub4dor3"}}),
    ("dotted-i-aws-secret", {"commands": [_join("aws_key = '", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8kLm3nR", "İ'")]}),
    ("dotted-i-example-host", {"commands": ["curl -u bob:Tr0ub4dor3 https://files.ınvalid/data.tar"]}),
    ("jwt-nan-header", {"commands": [_join("curl -H 'X: ", "eyJhIjpOYU59", ".", "e30", "'")]}),
    ("jwt-padding-inside", {"commands": [_join("curl -H 'X: ", "eyJh==bGciOiJIUzI1NiJ9", ".", "e30", "'")]}),
    ("jwt-pad-ends-data", {"commands": [_join("curl -H 'X: ", "eyJhIjoxfQ==Zm9v", ".", "e30", "'")]}),
    ("machine-after-a-letter", {"commands": ["sshpass -p Tr0ub4dor3 ssh bob@gpu-01  # émachine example.com"]}),
    (
        "template-index-unicode-digit",
        {
            "parameters": {"u": "bot:Tr0ub4dor3"},
            "commands": ["git clone https://<% this.u[٠] %>@git.cluster.local/r.git"],
        },
    ),
    ("secret-index-unicode-digit", {"commands": ["mount -o password=<% $secrets.pw[٠] %>"]}),
    ("newer-unicode-digit", {"commands": ["mount -o password=\U00010d40"]}),
    ("list-parameter", {"parameters": {"l": ["password=\u3000"]}, "commands": ["echo <% this.l %>"]}),
    ("list-parameter-quotes", {"parameters": {"l": [""]}, "commands": ["token='<% this.l %>"]}),
    ("dict-parameter", {"parameters": {"d": {"password": "Tr0ub4dor3", "n": 1.5}}, "commands": ["echo <% this.d %>"]}),
    # Filled in, a text is cut at 100,000 code points (not UTF-16 units): "{pad}" stands for PADS' text.
    (
        "render-cap-counts-code-points",
        {"parameters": {"a": "{pad}" + GITHUB[:20]}, "commands": ["<% this.a %>" + GITHUB[20:]]},
    ),
]
PADS = {"render-cap-counts-code-points": ("\U0001f600", 50_000)}  # 100,000 units: the cut falls after the token


def entry(name: str, body: dict[str, Any]) -> dict[str, Any]:
    """A hand-written prerequisite as a job holds one: commands under a taskStarts callback."""
    data: dict[str, Any] = {"name": name, "type": "script"}
    data.update({key: value for key, value in body.items() if key != "commands"})
    if "commands" in body:
        data["callbacks"] = [{"event": "taskStarts", "commands": body["commands"]}]
    return data


def documents() -> list[tuple[str, dict[str, Any]]]:
    found = [
        (f"form-{f}-value-{v}", entry("share-me", {"parameters": PARAMETERS, "commands": [form.replace("{v}", value)]}))
        for f, form in enumerate(FORMS)
        for v, value in enumerate(VALUES)
    ]
    found += [(f"fake-{name}", entry("share-me", {"commands": [text]})) for name, (text, _) in sorted(FAKES.items())]
    found += [
        (f"look-alike-{name}", entry("share-me", {"commands": [text]})) for name, text in sorted(LOOK_ALIKES.items())
    ]
    return found + [(name, entry("share-me", body)) for name, body in EDGES]


def case(name: str, data: dict[str, Any]) -> dict[str, Any]:
    """The entry's YAML (with "{pad}" for a long text the case's ``pad`` gives) and what Python finds."""
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)
    pad = PADS.get(name)
    loaded = load_yaml(text.replace("{pad}", pad[0] * pad[1]) if pad else text, merge_keys=True).data
    expect = [[list(path), leak.line, leak.kind, leak.literal, leak.key] for path, leak in scan_document(loaded)]
    return {"name": name, "yaml": text, "expect": expect} | ({"pad": list(pad)} if pad else {})


def cases() -> list[dict[str, Any]]:
    return [case(name, data) for name, data in documents()]
