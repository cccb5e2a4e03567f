"""The credentials corpus against the Python engine: cases.json is what credentials_corpus.py makes
today (tests/js/credentials.test.js holds the composer's scanDocument to the same file), and it
reaches every rule the CLI has for a credential in a command, each both refused and let through."""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from credentials_corpus import CASES, FORMS, VALUES, cases

from prereq.registry import secretscan

FILE = json.loads(CASES.read_text(encoding="utf-8"))["cases"]


def test_the_file_is_what_the_python_engine_gives_now() -> None:
    assert cases() == FILE, "run tests/cases/credentials/regen.py"


def test_every_kind_the_cli_names_in_a_command_is_in_the_corpus() -> None:
    """Each command form and option rule of secretscan is refused somewhere (a plain value) and named as
    a template somewhere (a template other than a secret reference), so a rule missing from the
    composer fails a case."""
    named = {(kind, literal) for case in FILE for _, _, kind, literal, _ in case["expect"]}
    for _, plain, template in secretscan._COMMAND_FORMS:
        assert (plain, True) in named
        assert (template, False) in named
    assert (secretscan._URL_PASSWORD, True) in named


def test_each_form_is_also_let_through() -> None:
    """A secret reference, a shell variable and a placeholder are never refused, in any form."""
    quiet = {case["name"] for case in FILE if not case["expect"]}
    for form in range(len(FORMS)):
        for value in ("<% $secrets.SHARE_PASSWORD %>", "$SHARE_PASSWORD", "<password>"):
            assert f"form-{form}-value-{VALUES.index(value)}" in quiet


def test_the_composer_reads_digits_as_the_python_of_the_cli() -> None:
    """core/placeholders.js spells Python's \\d out (PY_DIGIT_ZEROS: each run of ten digits by its zero),
    since the browser's \\p{Nd} follows a newer Unicode: here, the Python the CLI runs on."""
    source = (Path(__file__).resolve().parents[3] / "site/assets/composer/core/placeholders.js").read_text()
    listed = re.search(r"PY_DIGIT_ZEROS = \[(.*?)\];", source, re.DOTALL)
    assert listed is not None
    zeros = [int(zero, 16) for zero in re.findall(r"0x([0-9a-f]+)", listed[1])]
    digits = [code for code in range(sys.maxunicode + 1) if re.fullmatch(r"\d", chr(code))]
    assert zeros == [code for code in digits if unicodedata.digit(chr(code)) == 0]
    assert sorted(zero + step for zero in zeros for step in range(10)) == digits
