"""The execution catalog's rules for its files and names: loading (PRQ300-PRQ302), references and
languages (PRQ303-PRQ306), published versions (PRQ314), deletions (PRQ316), look-alike names (PRQ317)
and credentials (PRQ318).

May import: prereq.registry.rules.table.
"""

from __future__ import annotations

from prereq.registry.rules.table import E, Rule

RULES = (
    Rule(
        "PRQ300",
        "catalog-schema",
        E,
        "{path}: {detail}",
        "{fix}",
        "Each catalog file matches its part of `schema/execution-catalog.schema.json`: an environment "
        "(`environments/<name>/<version>.yaml`), a queue (`queues/<name>.yaml`), a library "
        "(`libraries/<name>/<version>.yaml`) or the rights (`rights.yaml`). Keys outside the format are refused.",
        "see the execution catalog's format in schema/execution-catalog.schema.json",
        guard=True,
    ),
    Rule(
        "PRQ301",
        "catalog-name-mismatch",
        E,
        "{key} {value!r} differs from {expected!r}, which the file's path gives",
        "{fix}",
        "A catalog file's path says what it holds: `environments/python/1.0.0.yaml` holds name `python` and "
        "version `1.0.0`, `queues/gpu-1d.yaml` holds name `gpu-1d`, so a reference is found without opening "
        "every file.",
        guard=True,
    ),
    Rule(
        "PRQ302",
        "not-a-catalog-file",
        E,
        "{detail} is not read as {what}",
        "{fix}",
        "The catalog's folders hold only `<name>/<version>.yaml` files (environments, libraries) or "
        "`<name>.yaml` files (queues); anything else there would be silently ignored.",
        guard=True,
    ),
    Rule(
        "PRQ303",
        "catalog-reference-missing",
        E,
        "{what} {name!r} is not {where}",
        "{fix}",
        "Every reference resolves: a queue's and a library's environments, a library's dependencies and its "
        "install prerequisite, an environment's docker image (a `dockerimage` item), the queues and groups of "
        "the rights, the users of a group, and every owner.",
    ),
    Rule(
        "PRQ304",
        "library-cycle",
        E,
        "library dependency cycle: {cycle}",
        "remove one of these dependencies, such as this one ({edge})",
        "Library dependencies must not form a cycle: nothing could be installed first. The whole cycle is "
        "named, once, at the dependency of its first library (by name) that leads on around it.",
    ),
    Rule(
        "PRQ305",
        "library-language-mismatch",
        E,
        "{library} is {language}, but {target} is {other}",
        "{fix}",
        "Languages agree along dependencies: a library uses only libraries of its own language, and lists "
        "only environments that have its language.",
    ),
    Rule(
        "PRQ306",
        "library-no-environment",
        E,
        "{library} works in no environment: {culprit} ({chain}) leaves none of {remaining}",
        "{fix}",
        "A library works in the environments of its own list that everything it depends on (directly or "
        "not) also works in. When that leaves none, the library of the chain that removed the last "
        "environment is named, with the chain that leads to it.",
    ),
    Rule(
        "PRQ314",
        "catalog-version-changed",
        E,
        "{kind} {ref} was published (commit {commit}) with other content",
        "keep {ref} as it was and put the change into a new version: {suggestion}",
        "A published version of an environment or a library never changes: experiments name it exactly, and "
        "what they computed must stay reproducible. Any content in the git history of the file "
        "(`<name>/<version>.yaml`) other than today's is reported; the description may change.",
        guard=True,
    ),
    Rule(
        "PRQ316",
        "catalog-deleted-in-use",
        E,
        "{what} {name} is deleted but still used by {users}",
        "keep {name} until nothing uses it: move {users} to another {what} first",
        "A review (`prereq validate --base`) refuses to delete an environment that queues serve or libraries "
        "list, a library that libraries depend on, or a queue that rows of `rights.yaml` name: what uses it "
        "moves first (the head's validation names each dangling reference too, PRQ303).",
    ),
    Rule(
        "PRQ317",
        "catalog-name-collision",
        E,
        "{what} name {name!r} collides with {other!r} ({other_file})",
        "choose a name that differs by more than case or '-'/'_', or use {other!r} itself",
        "The names of environments, of libraries and of queues stay distinct after folding case and "
        "treating '-' and '_' alike, as item names do (PRQ121): `array_utils` beside `array-utils` would be "
        "two libraries that people, typing either, cannot tell apart. Each file of the later name (in "
        "sorted order) is reported.",
        guard=True,
    ),
    Rule(
        "PRQ318",
        "catalog-secret",
        E,
        "{where} holds {kinds}",
        "never write a credential into the execution catalog: an image's registry login belongs to the cluster, "
        "not to the catalog; remove it and rotate it (it stays readable in the repository's history)",
        "The execution catalog (environments, libraries, queues, `rights.yaml`, and the users and teams of "
        "`owners.yaml`, which it publishes as groups) is published in the index and its every version kept in "
        "the history, so no string or key of it may hold a credential: the same scan as PRQ190's.",
        guard=True,
    ),
)
