"""The secrets scan's prefilter (``secretscan._MAYBE``) against every rule: a line it lets by finds nothing
when every rule is tried on it (``scan_line``), on random lines made of credential-like pieces; and the
credentials whose lines hold none of ``=``, ``:`` or ``@`` are found (the prefilter once skipped them)."""

from __future__ import annotations

import os
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from prereq.registry import secretscan

EXAMPLES = int(os.environ.get("PREREQ_EXAMPLES", "60")) * 10


ALNUM = string.ascii_letters + string.digits
# Each rule's fixed part (or a near miss of one), then what may follow it: a value of a length the
# rules look for.  The prefixes are the rules' own words, so that leaving one out of the prefilter
# shows (tests checked it by taking each out).
PREFIXES = [
    *("password=", "PASSWD=", "api_key=", "token=", "secret: '", "--password ", "--sas-token=", "AccountKey="),
    *(
        "SharedAccessSignature=",
        "sshpass -p ",
        "docker login -u me -p ",
        "mysql -u root -p",
        "https://user:",
        "https://bob:hunter2@files.company.net/",
        "curl -u bob:",
        "curl --user bob:",
        "aws configure set aws_secret_access_key ",
        "machine h login u password ",
        "password 1",
    ),
    *("@host.org/", "?sig=", "&sig=", "Bearer ", "bearer ", "-----BEGIN RSA PRIVATE KEY-----", "eyJ", "xoxb-"),
    *("npm_", "_authToken=", "pypi-AgE", "T3BlbkFJ", "sk_live_", "rk_live_", "SG.", "GR1348941", "aws_secret="),
    *("AKIA", "ASIA", "ABIA", "ACCA", "A3T", "ghp_", "glpat-", "hf_", "github_pat_", "AIza", "M", "N", " ", ""),
]
VALUES = st.tuples(st.sampled_from([0, 8, 16, 20, 24, 35, 36, 40, 64]), st.sampled_from(["", "-_", "%+/="])).flatmap(
    lambda shape: st.text(st.sampled_from(ALNUM + shape[1]), min_size=shape[0], max_size=shape[0])
)
TOKENS = st.tuples(
    st.sampled_from(["AIza", "github_pat_", "hf_", "ghp_"]), st.sampled_from([30, 35, 36, 60, 64])
).flatmap(
    lambda shape: st.text(st.sampled_from(ALNUM), min_size=shape[1], max_size=shape[1]).map(shape[0].__add__)
)  # the long tokens our own shapes and GitHub's detector look for, at the lengths they look for
PIECES = st.one_of(
    st.builds(str.__add__, st.sampled_from(PREFIXES), VALUES),
    TOKENS,
    st.text(st.sampled_from(ALNUM + " -_.=:/@?&'\"$<%>{}"), max_size=12),
)
LINES = st.lists(PIECES, max_size=3).map("".join)


@settings(max_examples=EXAMPLES, deadline=None)
@given(LINES)
def test_a_line_the_prefilter_lets_by_holds_nothing_any_rule_finds(line: str) -> None:
    if not secretscan._MAYBE.search(line):
        assert secretscan.scan_line(line) == [], line
    assert secretscan.scan_text(line) == ([] if not secretscan._MAYBE.search(line) else secretscan.scan_line(line))


def test_credentials_without_an_equals_sign_a_colon_or_an_at_are_found() -> None:
    lines = {
        "echo ABIA" + "ABCDEFGHIJKLMNOP": "an AWS access key",
        "echo rk_live_" + "a1B2" * 6: "a Stripe key",
        "clone github_pat_" + "A1" * 35: "a GitHub token",
    }
    for line, kind in lines.items():
        assert [leak.kind for leak in secretscan.scan_text(line)] == [kind], line
