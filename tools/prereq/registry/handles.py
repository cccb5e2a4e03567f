"""GitHub handles in owners.yaml (``github:``): each user's login (``@login``) and each team's GitHub
team (``@org/team``), from which ``prereq codeowners`` writes ``.github/CODEOWNERS``.  Optional:
a registry off GitHub needs none.  Kept out of the loader, which only calls ``read_handles``.

May import: prereq.core, prereq.registry.rules.
"""

from __future__ import annotations

import re
from typing import Any

from prereq.core.yamlload import LoadedYaml
from prereq.registry.rules import Problem, problem

_LOGIN = r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}"  # GitHub's own rule for logins
USER_HANDLE = re.compile(rf"@{_LOGIN}")
TEAM_HANDLE = re.compile(rf"@{_LOGIN}/[A-Za-z0-9][A-Za-z0-9_.-]{{0,99}}")
_FIX = "write github: {user: '@login', team: '@org/team'}"


def _problem(loaded: LoadedYaml, where: tuple[Any, ...], detail: str, fix: str) -> Problem:
    line, column = loaded.position(where)
    return problem("PRQ161", file="owners.yaml", line=line, column=column, detail=detail, fix=fix)


def read_handles(loaded: LoadedYaml, users: set[str], teams: set[str]) -> tuple[dict[str, str], list[Problem]]:
    """The valid handles by user or team name, and a PRQ161 for each one that is not."""
    handles = loaded.data.get("github", {})
    if not isinstance(handles, dict):
        return {}, [_problem(loaded, ("github",), "github must map user and team names to GitHub handles", _FIX)]
    found: dict[str, str] = {}
    problems: list[Problem] = []
    for name, handle in handles.items():
        shape = "'@org/team'" if name in teams else "'@login'"
        if name not in users and name not in teams:
            detail = f"github names {name!r}, who is neither in users nor in teams"
            problems.append(_problem(loaded, ("github", name), detail, "add them, or fix the name"))
        elif not isinstance(handle, str) or not (TEAM_HANDLE if name in teams else USER_HANDLE).fullmatch(handle):
            detail = f"github handle of {name!r} must be written {shape}"
            problems.append(_problem(loaded, ("github", name), detail, f"write {name}: {shape}"))
        else:
            found[name] = handle
    return found, problems
