"""Reviewing a pull request: what a change does to the registry, compared with its base branch.

``prereq validate --base REF`` validates the registry as the pull request leaves it and adds what only
a comparison with the base can tell (rules PRQ2xx): versions bumped and never republished, deleted
or renamed items nothing requires any more, deprecations, the author's ownership (from owners.yaml,
never a live API), and the impact on every dependent and template, with a *trivially safe* verdict
that any file changed outside the item folder withholds.

- ``rules``: the review's rules (PRQ2xx), and ``ALL_RULES``, every layer's joined (``prereq rules``,
  the site's reference, the suppressions a validation accepts);
- ``result``: the review's result as data (changes, dependents, impact);
- ``mergebase``: the merge base, the base tree as a loaded registry, what its first-parent history
  published, and what each commit of the pull request holds;
- ``changes``: base and head items compared (added, modified, renamed, deleted; docs-only; bumps);
- ``item_checks``: the review rules (PRQ2xx) over the items' changes;
- ``catalog``: the execution catalog compared (environments, libraries, queues, rights rows, group
  members) and the same rules over it (PRQ201, PRQ205, PRQ206, and PRQ316: deleted while in use);
- ``impact``: dependents, direct and transitive, the templates using them, the verdict;
- ``markdown``: the impact report, for a pull request's comment or a job summary;
- ``commits``: every commit of the pull request, not only its final tree (PRQ209: a version only an
  intermediate commit holds, which a rebase merge would publish);
- ``review``: the library API (a registry folder and a base ref in, a ``ReviewResult`` out), with
  PRQ192 over the pull request's own commits;
- ``trust``: the trust files (every file but the items: owners.yaml, rights.yaml, the catalog, job
  templates, prereq.yaml, schema/, .github/, the site's sources): what each change grants, PRQ210 (an
  administrator's to change), and the suppressions a change adds;
- ``codeowners``: ``.github/CODEOWNERS`` from the items' owners and their GitHub handles, the trust
  files to the administrators, and no path it cannot write safely;
- ``targets``: where the review writes (the report, CODEOWNERS): never into the registry or .git,
  never through a link in the checkout.

May import: prereq.core, prereq.openpai, prereq.registry, prereq.index, prereq.execution.
"""
