"""Where commands look when the user names nothing: from the repository root, wherever prereq runs.

The repository is the folder of ``prereq.yaml`` or the git work tree around the current folder
(``registry.settings``), so ``prereq build`` run inside ``registry/prerequisites`` writes the
same ``build/site`` as at the root, and paths in messages are shown from the current folder,
where a terminal or an editor can open them.
"""

from __future__ import annotations

from pathlib import Path

DEFAULT_OUT = Path("build") / "site"


def registry_folder(explicit: Path | None) -> Path:
    """The named registry, else prereq.yaml's, else the registry/ of the repository around the current folder."""
    # Imported here: `prereq job` and `prereq search` read no registry unless a command needs one.
    from prereq.registry.loader import find_registry
    from prereq.registry.settings import load_settings

    if explicit is not None:
        return find_registry(explicit, search_parents=False)
    settings = load_settings(Path.cwd())
    if settings.registry is not None:
        return find_registry(settings.registry, search_parents=False)
    return find_registry(Path.cwd())


def output_folder(explicit: Path | None, registry: Path) -> Path:
    """The named --out, else build/site at the root of the registry's repository."""
    from prereq.registry.settings import load_settings

    return explicit if explicit is not None else load_settings(registry).root / DEFAULT_OUT
