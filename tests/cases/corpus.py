"""The case corpus's files: reading cases, writing their expectations.

Knows the format of ``jobs/<case>/`` (see README.md) and nothing of the engine:
``engine_py`` runs steps, this module reads and writes what they should give.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

CASES = Path(__file__).resolve().parent
JOBS = CASES / "jobs"
INDEXES = CASES / "indexes"
CASE_FILE = "case.yaml"
JOB_FILE = "job.yaml"
STEP_FILE = re.compile(r"step-(\d+)\.yaml")
# What regen.py writes in a case folder: step texts and meaning files (meaning.py).
EXPECTATION_FILE = re.compile(r"step-\d+\.yaml|(step-\d+|job)\.json")
CASE_KEYS = ("description", "index", "hand_written", "browser_refuses", "steps")
ACTIONS = ("add", "remove", "lock", "resolve")


class CaseError(Exception):
    """A case folder that does not follow the format."""


@dataclass
class Step:
    """One step of a case: ``action`` with ``argument`` (as written in case.yaml) and what it should give."""

    action: str
    argument: Any
    task_role: str | None = None
    index: str | None = None  # another index fixture for this step only
    bind: bool = False  # add --bind
    unbind: bool = False  # remove --unbind
    expect: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_data(cls, data: dict[str, Any], where: str) -> Step:
        actions = [key for key in ACTIONS if key in data]
        unknown = set(data) - set(ACTIONS) - {"task_role", "index", "bind", "unbind", "expect"}
        if len(actions) != 1 or unknown:
            raise CaseError(
                f"{where}: a step has one of {', '.join(ACTIONS)}, and optionally task_role, "
                f"index, bind, unbind and expect (got {', '.join(map(str, data))})"
            )
        return cls(
            action=actions[0],
            argument=data[actions[0]],
            task_role=data.get("task_role"),
            index=data.get("index"),
            bind=bool(data.get("bind", False)),
            unbind=bool(data.get("unbind", False)),
            expect=data.get("expect") or {},
        )

    def as_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {self.action: self.argument}
        if self.task_role is not None:
            data["task_role"] = self.task_role
        if self.index is not None:
            data["index"] = self.index
        if self.bind:
            data["bind"] = True
        if self.unbind:
            data["unbind"] = True
        data["expect"] = self.expect
        return data


@dataclass
class Case:
    """One folder of ``jobs/``."""

    folder: Path
    description: str
    index: str
    steps: list[Step]
    hand_written: bool = False  # expectations written by a person: regen.py never touches the folder
    browser_refuses: dict[str, Any] | None = None  # {step, message}: the composer refuses a step the CLI takes

    @property
    def name(self) -> str:
        return self.folder.name

    @property
    def job_text(self) -> str:
        return read_text(self.folder / JOB_FILE)

    def step_file(self, number: int) -> str:
        return f"step-{number}.yaml"

    def as_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"description": self.description, "index": self.index}
        if self.browser_refuses is not None:
            data["browser_refuses"] = self.browser_refuses
        return {**data, "steps": [step.as_data() for step in self.steps]}

    def yielded_texts(self) -> list[str | None]:
        """The file holding the text each step yields (None for a step that fails): its step file, or
        the text it was given when it changed nothing (job.yaml or an earlier step's file)."""
        current, out = JOB_FILE, []
        for step in self.steps:
            if "error" in step.expect:
                out.append(None)
                continue
            current = step.expect.get("text") or current
            out.append(current)
        return out

    def meaning_files(self) -> dict[str, str]:
        """Each text file a step yields -> its meaning file (meaning.py): ``step-N.json``, ``job.json``."""
        return {name: name.removesuffix(".yaml") + ".json" for name in self.yielded_texts() if name}


def read_text(path: Path) -> str:
    """A job text exactly as stored: UTF-8, line ends and a BOM kept."""
    return path.read_bytes().decode("utf-8")


def write_text(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8"))


def load_case(folder: Path) -> Case:
    data = yaml.safe_load(read_text(folder / CASE_FILE))
    where = f"{folder.name}/{CASE_FILE}"
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list) or set(data) - set(CASE_KEYS):
        raise CaseError(f"{where}: needs description, index and steps, and may say hand_written: true")
    steps = [Step.from_data(step, f"{where} step {number}") for number, step in enumerate(data["steps"], start=1)]
    return Case(
        folder=folder,
        description=str(data.get("description", "")),
        index=str(data["index"]),
        steps=steps,
        hand_written=data.get("hand_written") is True,
        browser_refuses=data.get("browser_refuses"),
    )


def case_folders(jobs: Path = JOBS) -> list[Path]:
    return sorted(path for path in jobs.iterdir() if path.is_dir()) if jobs.is_dir() else []


# --------------------------------------------------------------------------- writing case.yaml


class _Flow(list):  # type: ignore[type-arg]
    """A list written on one line: ``add: [a, b]``."""


class _FlowMap(dict):  # type: ignore[type-arg]
    """A mapping written on one line: ``lock: {upgrade: [store]}``."""


class _Dumper(yaml.SafeDumper):
    pass


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value and not value.endswith((" ", "\n")) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _represent_flow(dumper: yaml.SafeDumper, value: _Flow) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=True)


def _represent_flow_map(dumper: yaml.SafeDumper, value: _FlowMap) -> yaml.Node:
    return dumper.represent_mapping("tag:yaml.org,2002:map", value.items(), flow_style=True)


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(_Flow, _represent_flow)
_Dumper.add_representer(_FlowMap, _represent_flow_map)


def _flow_arguments(step: dict[str, Any]) -> dict[str, Any]:
    """Step arguments on one line: ``add: [a, b]``, ``lock: {upgrade: [store]}``."""
    for action in ACTIONS:
        if isinstance(step.get(action), list):
            step[action] = _Flow(step[action])
        elif isinstance(step.get(action), dict):
            step[action] = _FlowMap(step[action])
    return step


def dump_case(case: Case) -> str:
    data = case.as_data()
    data["steps"] = [_flow_arguments(step) for step in data["steps"]]
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1 << 16, default_flow_style=False)


# --------------------------------------------------------------------------- expectations


def expected_outcome(case: Case, number: int, previous_text: str) -> dict[str, Any]:
    """What step ``number`` (from 1) should give, in ``engine_py.run_step``'s form."""
    expect = case.steps[number - 1].expect
    if "error" in expect:
        error = expect["error"] or {}
        return {"error": {"message": error.get("message", ""), "hint": error.get("hint", "")}}
    text = read_text(case.folder / expect["text"]) if expect.get("text") else previous_text
    return {"text": text, "changes": list(expect.get("changes") or []), "warnings": list(expect.get("warnings") or [])}


def expectation(
    case: Case, number: int, outcome: dict[str, Any], previous_text: str
) -> tuple[dict[str, Any], str | None]:
    """The ``expect`` block for step ``number``'s ``outcome``, and the text of its step file (None: no file)."""
    if "error" in outcome:
        return {"error": dict(outcome["error"])}, None
    expect: dict[str, Any] = {"changes": list(outcome["changes"]), "warnings": list(outcome["warnings"])}
    if outcome["text"] == previous_text:
        return expect, None
    expect["text"] = case.step_file(number)
    return expect, outcome["text"]


def step_files(folder: Path) -> set[str]:
    return {path.name for path in folder.iterdir() if STEP_FILE.fullmatch(path.name)}


def expectation_files(folder: Path) -> set[str]:
    """The step texts and meaning files in ``folder`` (what regen.py writes and deletes)."""
    return {path.name for path in folder.iterdir() if EXPECTATION_FILE.fullmatch(path.name)}


# --------------------------------------------------------------------------- JSON case files


def rewrite_expectations(paths: list[Path], outcome: Callable[[dict[str, Any]], dict[str, Any]], *, check: bool) -> int:
    """Set each JSON case's ``expect`` to what ``outcome`` gives for it (with ``check``, write nothing);
    says how many changed and returns the exit code: 1 when ``check`` finds a case out of date."""
    changed = []
    for path in paths:
        case = json.loads(path.read_text(encoding="utf-8"))
        expect = outcome(case)
        if case.get("expect") != expect:
            changed.append(path.name)
            if not check:
                path.write_text(
                    json.dumps({**case, "expect": expect}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
                )
    print(f"{len(paths)} cases, {len(changed)} {'would change' if check else 'changed'}")
    return 1 if changed and check else 0


def rewrite_file(path: Path, wanted: str, *, check: bool) -> int:
    """Write a corpus file made whole by the Python engine (with ``check``, write nothing); says whether
    it was up to date and returns the exit code: 1 when ``check`` finds it out of date."""
    current = path.read_text(encoding="utf-8") if path.exists() else ""
    if check:
        print(f"{path.name} is " + ("up to date" if current == wanted else "out of date: run regen.py"))
        return 0 if current == wanted else 1
    path.write_text(wanted, encoding="utf-8")
    print(f"wrote {len(json.loads(wanted)['cases'])} cases to {path.name}")
    return 0
