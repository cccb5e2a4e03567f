"""Rewrite every case's expectations from the Python engine (the reference).

Keeps each case's description, index, steps and job.yaml; rewrites the
``expect`` blocks of case.yaml and the step-N.yaml files, and deletes step files
no step refers to any more.  Prints the cases that changed.

    python tests/cases/regen.py            # every case
    python tests/cases/regen.py 012 040    # cases whose folder name starts with these
    python tests/cases/regen.py --check    # change nothing; exit 1 when a case would change
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

from corpus import CASE_FILE, Case, case_folders, dump_case, expectation, load_case, read_text, step_files, write_text
from engine_py import run_case


@dataclass
class Rewrite:
    """What a case's folder should hold after regenerating: case.yaml and the step files."""

    case_yaml: str
    steps: dict[str, str] = field(default_factory=dict)  # file name -> text

    def differs(self, folder: Path) -> bool:
        if read_text(folder / CASE_FILE) != self.case_yaml or step_files(folder) != set(self.steps):
            return True
        return any(read_text(folder / name) != text for name, text in self.steps.items())

    def write(self, folder: Path) -> None:
        for stale in step_files(folder) - set(self.steps):
            (folder / stale).unlink()
        for name, text in self.steps.items():
            write_text(folder / name, text)
        write_text(folder / CASE_FILE, self.case_yaml)


def regenerate(case: Case) -> Rewrite:
    outcomes = run_case(case.index, case.job_text, [step.as_data() for step in case.steps])
    rewrite = Rewrite(case_yaml="")
    text = case.job_text
    for number, (step, outcome) in enumerate(zip(case.steps, outcomes, strict=True), start=1):
        step.expect, step_text = expectation(case, number, outcome, text)
        if step_text is not None:
            rewrite.steps[case.step_file(number)] = step_text
        text = outcome.get("text", text)
    rewrite.case_yaml = dump_case(case)
    return rewrite


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prefixes", nargs="*", help="only the cases whose folder name starts with one of these")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a case would change")
    args = parser.parse_args(argv)
    folders = [f for f in case_folders() if not args.prefixes or f.name.startswith(tuple(args.prefixes))]
    changed = []
    for folder in folders:
        rewrite = regenerate(load_case(folder))
        if rewrite.differs(folder):
            changed.append(folder.name)
            if not args.check:
                rewrite.write(folder)
    verb = "would change" if args.check else "changed"
    for name in changed:
        print(f"{verb}: {name}")
    print(f"{len(folders)} cases, {len(changed)} {verb}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
