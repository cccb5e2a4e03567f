"""What ``owners.yaml`` says: the users and teams who may own items, and their GitHub handles
(``github:``: each user's login, ``@login``, and each team's GitHub team, ``@org/team``), from which
``prereq codeowners`` writes ``.github/CODEOWNERS`` (optional: a registry off GitHub needs none).
The loader reads the file and calls ``read_owners``.

Who administers the registry: ``admins: TEAM`` names the team whose members alone may change the
trust files (owners.yaml itself, rights.yaml, prereq.yaml, schema/, the execution catalog,
.github/) in a reviewed pull request; ``self-managed: [TEAM, ...]`` lets each of those teams' own
members edit that team's member list, and nothing else.

May import: prereq.core, prereq.registry.rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from prereq.core.yamlload import LoadedYaml
from prereq.registry.rules import Problem, problem

_LOGIN = r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}"  # GitHub's own rule for logins
USER_HANDLE = re.compile(rf"@{_LOGIN}")
TEAM_HANDLE = re.compile(rf"@{_LOGIN}/[A-Za-z0-9][A-Za-z0-9_.-]{{0,99}}")
_FIX = "write github: {user: '@login', team: '@org/team'}"
OWNERS_FIX = "write users: [name, ...] and teams: {team: [member, ...]}"
ADMINS, SELF_MANAGED = "admins", "self-managed"
KEYS = ("users", "teams", "github", ADMINS, SELF_MANAGED)


@dataclass
class Owners:
    users: set[str] = field(default_factory=set)
    teams: dict[str, list[str]] = field(default_factory=dict)
    loaded: bool = False
    github: dict[str, str] = field(default_factory=dict)  # name -> @login or @org/team
    admins: str | None = None  # the team administering the registry (None: nobody may change trust files)
    self_managed: frozenset[str] = frozenset()  # teams whose members may edit that team's member list
    source: LoadedYaml | None = field(default=None, compare=False, repr=False)  # as read: scanned (PRQ318)

    def known(self, name: str) -> bool:
        return name in self.users or name in self.teams

    @property
    def administrators(self) -> set[str]:
        """The users of the admins team (none without one)."""
        return set(self.teams.get(self.admins, [])) if self.admins else set()


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


def _owners_problem(loaded: LoadedYaml, where: tuple[Any, ...], detail: str, fix: str = OWNERS_FIX) -> Problem:
    line, column = loaded.position(where, key=len(where) == 1 and where[0] not in ("users", "teams"))
    return problem("PRQ161", file="owners.yaml", line=line, column=column, detail=detail, fix=fix)


def read_owners(loaded: LoadedYaml) -> tuple[Owners, list[Problem]]:
    data = loaded.data
    users, teams = data.get("users", []), data.get("teams", {})
    problems = [_owners_problem(loaded, (key,), f"unknown key {key!r}") for key in sorted(set(data) - set(KEYS))]
    trusted = True
    if not isinstance(users, list) or not all(isinstance(u, str) for u in users):
        problems.append(_owners_problem(loaded, ("users",), "users must be a list of names"))
        users, trusted = [], False
    if not isinstance(teams, dict) or not all(
        isinstance(m, list) and all(isinstance(u, str) for u in m) for m in teams.values()
    ):
        problems.append(_owners_problem(loaded, ("teams",), "teams must map team names to lists of member names"))
        teams, trusted = {}, False
    # A malformed users or teams list is one problem here, not one on every item's owners.
    owners = Owners(users=set(users), teams={str(k): list(v) for k, v in teams.items()}, loaded=trusted, source=loaded)
    for team, members in owners.teams.items() if trusted else ():
        for index, member in enumerate(members):
            if member not in owners.users:
                detail = f"team {team!r} lists {member!r}, who is not in users"
                problems.append(_owners_problem(loaded, ("teams", team, index), detail, f"add {member} to users"))
    # the GitHub handles (those of a malformed owners file are not trusted either)
    owners.github, found = read_handles(loaded, owners.users, set(owners.teams)) if trusted else ({}, [])
    if trusted:
        owners.admins, owners.self_managed, governed = read_governance(loaded, set(owners.teams))
        found += governed
    return owners, problems + found


def read_governance(loaded: LoadedYaml, teams: set[str]) -> tuple[str | None, frozenset[str], list[Problem]]:
    """``admins`` (a team) and ``self-managed`` (a list of teams), with a PRQ161 for each bad entry; a bad
    admins names nobody, so that a typo never makes the trust files anyone's."""
    data, problems = loaded.data, []
    admins = data.get(ADMINS)
    if admins is not None and not (isinstance(admins, str) and admins in teams):
        detail = f"admins must name one team of teams, not {admins!r}"
        problems.append(_owners_problem(loaded, (ADMINS,), detail, "write admins: TEAM, a team listed in teams"))
        admins = None
    listed = data.get(SELF_MANAGED, [])
    if not isinstance(listed, list):
        detail = "self-managed must be a list of teams whose members may edit that team's member list"
        return (
            admins,
            frozenset(),
            [*problems, _owners_problem(loaded, (SELF_MANAGED,), detail, "write self-managed: [TEAM, ...]")],
        )
    kept = set()
    for index, team in enumerate(listed):
        if isinstance(team, str) and team in teams:
            kept.add(team)
        else:
            detail = f"self-managed names {team!r}, which is not a team of teams"
            problems.append(_owners_problem(loaded, (SELF_MANAGED, index), detail, "add the team, or fix the name"))
    return admins, frozenset(kept), problems
