"""Rewrite every case's expectations from the Python engine (the reference) and PyYAML.

Keeps each case's description, index, steps and job.yaml; rewrites the
``expect`` blocks of case.yaml, the step-N.yaml files and the meaning files
(``step-N.json``, ``job.json``: what PyYAML loads from each text a step yields,
see meaning.py), and deletes those no step refers to any more.  Cases marked
``hand_written: true`` are never touched: a person wrote their expectations.
Prints the cases that changed.

    python tests/cases/regen.py            # every case
    python tests/cases/regen.py 012 040    # cases whose folder name starts with these
    python tests/cases/regen.py --check    # change nothing; exit 1 when a case would change
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

from corpus import (
    CASE_FILE,
    JOB_FILE,
    JOBS,
    Case,
    case_folders,
    dump_case,
    expectation,
    expectation_files,
    load_case,
    read_text,
    write_text,
)
from engine_py import run_case
from meaning import MeaningError, dump, meaning


@dataclass
class Rewrite:
    """What a case's folder should hold after regenerating: case.yaml, the step texts and meaning files."""

    case_yaml: str
    files: dict[str, str] = field(default_factory=dict)  # file name -> text

    def differs(self, folder: Path) -> bool:
        if read_text(folder / CASE_FILE) != self.case_yaml or expectation_files(folder) != set(self.files):
            return True
        return any(read_text(folder / name) != text for name, text in self.files.items())

    def write(self, folder: Path) -> None:
        for stale in expectation_files(folder) - set(self.files):
            (folder / stale).unlink()
        for name, text in self.files.items():
            write_text(folder / name, text)
        write_text(folder / CASE_FILE, self.case_yaml)


def regenerate(case: Case) -> Rewrite:
    outcomes = run_case(case.index, case.job_text, [step.as_data() for step in case.steps])
    rewrite = Rewrite(case_yaml="")
    texts = {JOB_FILE: case.job_text}
    text = case.job_text
    for number, (step, outcome) in enumerate(zip(case.steps, outcomes, strict=True), start=1):
        step.expect, step_text = expectation(case, number, outcome, text)
        if step_text is not None:
            texts[case.step_file(number)] = rewrite.files[case.step_file(number)] = step_text
        text = outcome.get("text", text)
    for text_file, meaning_file in case.meaning_files().items():
        try:
            rewrite.files[meaning_file] = dump(meaning(texts[text_file]))
        except MeaningError as exc:
            raise SystemExit(f"{case.name}/{text_file}: {exc}") from exc
    rewrite.case_yaml = dump_case(case)
    return rewrite


def main(argv: list[str] | None = None, *, jobs: Path = JOBS) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prefixes", nargs="*", help="only the cases whose folder name starts with one of these")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a case would change")
    args = parser.parse_args(argv)
    folders = [f for f in case_folders(jobs) if not args.prefixes or f.name.startswith(tuple(args.prefixes))]
    changed, kept = [], 0
    for folder in folders:
        case = load_case(folder)
        if case.hand_written:
            kept += 1
            continue
        rewrite = regenerate(case)
        if rewrite.differs(folder):
            changed.append(folder.name)
            if not args.check:
                rewrite.write(folder)
    verb = "would change" if args.check else "changed"
    for name in changed:
        print(f"{verb}: {name}")
    print(f"{len(folders)} cases, {len(changed)} {verb}, {kept} hand-written left as they are")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
