"""Property tests: random and mutated input to the loader, the validator, the job editor and the
index client gives clean errors (PrereqError, YamlLoadError) or results, never another exception."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prereq import jobs
from prereq.core.errors import PrereqError
from prereq.core.yamlload import YamlLoadError, load_yaml
from prereq.index.reader import Index
from prereq.registry.validate import validate

CASES = Path(__file__).resolve().parent / "cases"
JOB = (CASES / "jobs" / "002-add-with-requirements" / "job.yaml").read_text(encoding="utf-8")
ITEM = (Path(__file__).resolve().parent / "fixtures" / "rules" / "clean" / "prerequisites" / "digits.yaml").read_text()
EXAMPLES = int(os.environ.get("PREREQ_EXAMPLES", "60"))  # more for a longer hunt
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# Characters that matter to YAML, shells and prereq's own syntax, and some that should never appear.
ALPHABET = st.sampled_from(list(":-[]{}#&*!|>'\"%@`,?\n\t <%>$\\~0123456789abcxyz") + ["\x00", "\x1b", "é", "\ufeff"])


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    """``text`` with a few characters replaced, inserted or deleted."""
    chars = list(text)
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(chars)))
        action = draw(st.sampled_from(["insert", "replace", "delete"]))
        if action == "insert" or at == len(chars):
            chars.insert(at, draw(st.text(ALPHABET, min_size=1, max_size=4)))
        elif action == "replace":
            chars[at] = draw(st.text(ALPHABET, min_size=1, max_size=3))
        else:
            del chars[at]
    return "".join(chars)


@SETTINGS
@given(
    st.one_of(st.binary(max_size=300), st.text(ALPHABET, max_size=200).map(str.encode), mutated(ITEM).map(str.encode))
)
def test_the_loader_refuses_cleanly(raw: bytes) -> None:
    try:
        load_yaml(raw)
    except YamlLoadError as exc:
        assert exc.issues and all(issue.message for issue in exc.issues)


@SETTINGS
@given(st.lists(mutated(ITEM), min_size=1, max_size=3), mutated("users: [alice, bob]\nteams: {data-team: [alice]}\n"))
def test_the_validator_reports_problems_for_any_registry(
    make_registry, tmp_path: Path, items: list[str], owners: str
) -> None:
    root = tmp_path / "registry"
    shutil.rmtree(root, ignore_errors=True)
    files = {f"prerequisites/item{i}.yaml": text for i, text in enumerate(items)}
    result = validate(make_registry(files, root=root, owners=owners))
    assert all(p.rule and p.message and p.hint for p in result.problems)


@SETTINGS
@given(mutated(JOB), st.sampled_from(["mnist-data", "output-dir@^1.0", "enable-ssh", "pytorch-official", "nope"]))
def test_the_job_editor_refuses_cleanly(text: str, name: str) -> None:
    index = Index.load(CASES / "indexes" / "story")
    try:
        edit = jobs.add_to_text(text, [name], index=index)
    except PrereqError as exc:
        assert exc.message
        return
    load_yaml(edit.after)  # what it writes is YAML again
    jobs.remove_from_text(edit.after, [name], index=index)


@SETTINGS
@given(st.data())
def test_the_index_client_refuses_a_tampered_index_cleanly(tmp_path: Path, data: st.DataObject) -> None:
    folder = tmp_path / "index"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(CASES / "indexes" / "tiny", folder)
    root = folder / "api" / "v1" / "index.json"
    text = root.read_text(encoding="utf-8")
    if data.draw(st.booleans()):
        root.write_text(data.draw(mutated(text)), encoding="utf-8")
    else:  # a well-formed root whose values are swapped for others
        document = json.loads(text)
        key = data.draw(st.sampled_from(sorted(document)))
        document[key] = data.draw(st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers())))
        root.write_text(json.dumps(document), encoding="utf-8")
    try:
        index = Index.load(folder)
        index.closure(["alpha", "beta"])
    except PrereqError as exc:
        assert exc.message


@pytest.fixture
def make_registry(tmp_path: Path):
    def make(files: dict[str, str], *, root: Path, owners: str) -> Path:
        (root / "prerequisites").mkdir(parents=True, exist_ok=True)
        (root / "owners.yaml").write_text(owners, encoding="utf-8")
        for rel, content in files.items():
            (root / rel).write_text(content, encoding="utf-8")
        return root

    return make


@SETTINGS
@given(st.dictionaries(st.sampled_from("abcdefgh"), st.lists(st.sampled_from("abcdefgh"), max_size=3), min_size=1))
def test_what_items_require_is_shared_work_with_the_walk_s_answer(edges: dict[str, list[str]]) -> None:
    """graph.reachable_union (one pass over the components) gives what a walk from each node gives."""
    from prereq.core.graph import build_graph, post_order, reachable_union

    own = {node: [f"{node.upper()}_DIR"] for node in edges}
    shared = reachable_union(build_graph(edges), own)
    for node in edges:

        def requires_of(name: str) -> list[str]:
            return [r for r in edges.get(name, []) if r in edges]

        walked = {value for reached in post_order(requires_of(node), requires_of) for value in own[reached]}
        assert shared[node] == walked, node
