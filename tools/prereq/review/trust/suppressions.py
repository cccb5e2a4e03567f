"""The suppressions a pull request adds: a ``# prereq: disable=...`` comment or an item's ``suppress:``
entry that the head has and the base had not.  Each one silences a rule on the change's own say-so,
so the report lists it and the change is never trivially safe.  A credential finding (PRQ190, PRQ191)
that a suppression already on the base silences in a file the pull request changes is listed too: the
suppression is old, but what it silences may be the change's own new credential.

Suppressions are read by the registry's own readers (``comment_suppressions``, ``item_suppressions``)
and compared per file, rule and form, counted: a line moved by an edit above it is no new suppression,
a second one of the same rule in the same file is."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from prereq.registry.loader import ITEMS_DIR, SourceItem
from prereq.registry.suppress import Suppressed, Suppression, comment_suppressions, item_suppressions
from prereq.review.result import AddedSuppression
from prereq.review.rules import ALL_RULES


def suppressions_in(sources: Iterable[SourceItem]) -> list[Suppression]:
    """Every well-formed suppression written in ``sources`` (malformed ones are the validation's PRQ179)."""
    found: list[Suppression] = []
    for source in sources:
        found += comment_suppressions(source.rel, source.raw.decode("utf-8", errors="replace"), rules=ALL_RULES)[0]
        if source.rel.startswith(ITEMS_DIR + "/"):
            found += item_suppressions(source, rules=ALL_RULES)[0]
    return found


def added_suppressions(base: Iterable[SourceItem], head: Iterable[SourceItem]) -> list[AddedSuppression]:
    """The head's suppressions beyond the base's, by file, rule and form (a comment or ``suppress:``)."""
    left = Counter((s.file, s.rule, bool(s.lines)) for s in suppressions_in(base))
    added: list[AddedSuppression] = []
    for found in suppressions_in(head):
        key = (found.file, found.rule, bool(found.lines))
        if left[key] > 0:
            left[key] -= 1
        else:
            added.append(AddedSuppression(found.file, found.line, found.rule, found.by))
    return sorted(set(added), key=lambda s: (s.file, s.line, s.rule))


CREDENTIAL_RULES = ("PRQ190", "PRQ191")  # the credential rules a suppression may still silence


def silenced_credentials(suppressed: Iterable[Suppressed], changed: set[str]) -> list[AddedSuppression]:
    """The credential findings suppressed in the files of ``changed`` (registry-relative paths), each as
    the suppression that silences it."""
    return [
        AddedSuppression(
            each.problem.file or "", each.problem.line or each.suppression.line, each.problem.rule, each.suppression.by
        )
        for each in suppressed
        if each.problem.rule in CREDENTIAL_RULES and each.problem.file in changed
    ]
