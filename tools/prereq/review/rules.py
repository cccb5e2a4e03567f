"""The review's rules (PRQ2xx: a change judged against its base branch), and every layer's rules joined.

``RULES`` is this layer's table, written as the registry's are (``prereq.registry.rules``).
``ALL_RULES`` joins the registry's (PRQ1xx), the execution catalog's (PRQ3xx) and these: this is the
lowest layer that may import all three.  ``prereq rules`` and the site's rule reference show it, and
the callers that report every layer's problems (``prereq validate``, the build, the review) pass it to
the registry's validation, which cannot import upward, so that a suppression may name any rule and a
guarded one of any layer is refused (PRQ182).  ``problem`` builds a finding of any of them (``at``: one
at a position of a file): the review reports a rule of the catalog's too (PRQ316).

May import: prereq.registry.rules, prereq.execution.rules.
"""

from __future__ import annotations

from prereq.execution import rules as execution_rules
from prereq.registry import rules as registry_rules
from prereq.registry.rules.table import E, Rule, RuleTable, W

_ENTRIES = (
    Rule(
        "PRQ200",
        "version-not-bumped",
        E,
        "{name} changed ({keys}) but its version {version} is not higher than {base_version} on the base",
        "set version: {suggestion} (or a higher minor or major version); a change only to description, "
        "title, tags, homepage or deprecated needs no new version",
        "A job that locked an item's version must keep getting what it locked, so a change to what an item "
        "does is a new, higher version. Descriptive keys (`description`, `title`, `tags`, `homepage`, "
        "`deprecated`) and comments change without one.",
        guard=True,
    ),
    Rule(
        "PRQ201",
        "version-republished",
        E,
        "{name} {version} was published before (commit {commit}) with other content",
        "choose a version never published, such as {suggestion}",
        "A version that was ever published (on the base branch, at any point of its history) never reappears "
        "with different content: jobs locked to it, and the index's copies of it, would disagree. The same "
        "holds for a version of an environment or a library of the execution catalog "
        "(`<name>/<version>.yaml`, its description aside): a change goes into a new file with a version "
        "above every published one (PRQ314 says so of a file whose own history held other content).",
        guard=True,
    ),
    Rule(
        "PRQ202",
        "required-item-deleted",
        E,
        "{name} is deleted but still required by {dependents}",
        "keep {name} and deprecate it (deprecated: with a reason and a replacement), then delete it once "
        "nothing requires it",
        "Deleting an item that other items or job templates require breaks them; deprecation tells their "
        "owners to move first.",
    ),
    Rule(
        "PRQ203",
        "required-item-renamed",
        E,
        "{old} is renamed to {name} but still required as {old} by {dependents}",
        "update their require to {name}, or keep {old} as a deprecated item with replacement: {name}",
        "A rename is a deletion for everything that requires the old name.",
    ),
    Rule(
        "PRQ204",
        "deprecated-still-required",
        W,
        "{name} is deprecated here but still required by {dependents}",
        "{fix}",
        "Deprecating an item that items in use still require is allowed, and worth a second look: their "
        "owners should move them to the replacement.",
    ),
    Rule(
        "PRQ205",
        "author-not-owner",
        E,
        "{author} is not among the owners of {name} ({owners}) on the base",
        "{fix}",
        "With `--author`, every modified, renamed or deleted item must list the author, or a team of "
        "`owners.yaml` the author belongs to, among its owners as the base has them (a pull request "
        "cannot grant itself ownership). No live API is called. The author is a user, never a team (a "
        "team counts through its members): a GitHub login matches the user `owners.yaml` gives that "
        "handle (`github:`); a bare name that is no handle's login also matches the user of that name, "
        "but `--author @login` (what a pull request's check gives) is a login only, so a user with a "
        "handle is never matched by a stranger whose login is their local name. The hint names the "
        "form `owners:` needs: the author's `owners.yaml` user, or the `github:` entry mapping the "
        "login. In the execution catalog the same goes for a modified or deleted environment, library "
        "or queue, a new version of an environment or a library (its newest version's owners decide), "
        "and a changed row of `rights.yaml` (its queue's owners decide who gets slots there).",
        "ask an owner to make or approve this change, or to add you (your owners.yaml user, or a team of "
        "yours; a login only through github:) to owners in a change of its own",
        guard=True,
    ),
    Rule(
        "PRQ206",
        "new-item-without-author",
        E,
        "the new {what} {name} does not list its author {author} among its owners",
        "{fix}",
        "With `--author`, a new item lists its author among its owners, so that someone owns it from the start; "
        "so does a new environment, library or queue of the execution catalog. Owners are `owners.yaml` "
        "names: the author is listed as the user `owners.yaml` knows them by, never as a GitHub login.",
        "list the author's owners.yaml user (the user whose github: handle is their login) among owners",
        guard=True,
    ),
    Rule(
        "PRQ207",
        "codeowners-outdated",
        E,
        "{path} is {state}",
        "run 'prereq codeowners' and commit {path}",
        "When `owners.yaml` gives GitHub handles (`github: {user: '@login', team: '@org/team'}`), the "
        "repository's `.github/CODEOWNERS` is generated from them and the items' owners, so GitHub asks an "
        "item's owners to review its changes; checked by `prereq validate` (with or without `--base`) and "
        "`prereq codeowners --check`. "
        "Without any handle there is no CODEOWNERS to generate, and none is checked.",
        guard=True,
    ),
    Rule(
        "PRQ208",
        "version-below-published",
        E,
        "{name} comes back at {version}, not higher than {highest}, which the base branch published (commit {commit})",
        "set version: {suggestion} (or a higher minor or major version)",
        "An item added again after its deletion, or renamed to a name used before, continues that name's "
        "versions: it carries a version higher than every version the base branch ever published under the "
        "name (or that highest version itself, unchanged, which undoes the deletion). A lower one would "
        "make the file and the index's newest version disagree, and ranges that accepted the old versions "
        "would pick them over it.",
        guard=True,
    ),
    Rule(
        "PRQ210",
        "trust-file-change",
        E,
        "{author} changes the trust file {path} ({what}) but is not an administrator ({admins})",
        "ask an administrator (a member of owners.yaml's admins team{team}) to make or co-author this "
        "change, or split it out into a pull request of its own for them",
        "Items have owners, who review them; every other file of the repository is a trust file, the "
        "administrators': `owners.yaml` (users, teams, handles, `admins`), `rights.yaml`, the execution "
        "catalog, job templates (they run in jobs and have no owners of their own), `prereq.yaml` and the "
        "allowed signers it names, `schema/`, `.github/` (workflows, CODEOWNERS) and the site's sources (a "
        "`mkdocs.yml` runs hooks in the publish job, which holds the signing key; pages and scripts reach "
        "every user and the portal's plugin). With `--author`, a change to "
        "any of them needs an administrator: a member of the team `owners.yaml` names in `admins:`, as the "
        "base has it (a pull request cannot make itself an administrator). One exception: a team listed in "
        "`self-managed:` may have its own members (on the base) edit that team's member list, and nothing "
        "else. A base without `admins:` has no administrator, so every such change is refused: the one "
        "adding `admins:` is merged by the repository's maintainers past the check. Without `--author` "
        "the trust changes are listed in the report and the change is never trivially safe.",
        guard=True,
    ),
    Rule(
        "PRQ209",
        "intermediate-version",
        E,
        "commit {commit} holds {what} {name} {version} {detail}",
        "squash the pull request into one commit, or drop the commit that holds it (git rebase -i {ref}), so "
        "that only versions the review judged reach {ref}'s history",
        "A review (`prereq validate --base`) reads every commit of the pull request, not only its final tree. "
        "The build publishes every version the base branch's first-parent history holds; merged with a merge "
        "commit or squashed, only the final tree joins that history, but a rebase merge or a fast-forward puts "
        "each commit there. So a version of an item, an environment or a library that a commit holds must be "
        "the final tree's own (the build keeps the final content of a version the tree holds; another file "
        "claiming the name must hold that same content) or one the base already publishes, exactly as it "
        "publishes it, descriptions and tags included (the index shows a version's newest content); a version "
        "written in one commit and undone in a later one is refused, naming the commit.",
        guard=True,
    ),
    Rule(
        "PRQ211",
        "secret-in-commit",
        E,
        "commit {commit} holds {kinds} at line {at}: merged, it stays readable in {ref}'s history",
        "rotate the credential, then rewrite the pull request's commits so that none holds it (squash them, "
        "or git rebase -i {ref}): removing it in a later commit is not enough",
        "A review (`prereq validate --base`) scans every file of the registry folder that any commit of the "
        "pull request wrote, as text: comments, files no loader reads, an intermediate `owners.yaml`. A "
        "credential one commit adds and a later one removes is still in the history the merge brings to the "
        "base branch. Unlike the base's own history (PRQ192), a pull request's can still be rewritten before "
        "it merges. Lines a value scan already reports (PRQ190, PRQ192, PRQ318) are not reported again.",
        guard=True,
    ),
)
RULES = RuleTable(_ENTRIES, owns="PRQ2")
ALL_RULES = RuleTable.joined(registry_rules.RULES, RULES, execution_rules.RULES)
problem = ALL_RULES.problem
at = ALL_RULES.at
