"""The house rules a newcomer relies on, checked: what each package says it owns, sizes, who prints,
module names that tell modules apart, no helper copied, and that every shared case runs in both engines
(the layering: tests/test_house_layers.py)."""

from __future__ import annotations

import ast
import copy
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "tools" / "prereq"
MAX_MODULE_LINES = 400  # "about 400": a module over this says why in its docstring
MAX_FUNCTION_LINES = 60
MAX_MODULES_PER_FOLDER = 12  # "about 10"
LONGER = "Longer than usual:"


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_package_says_what_it_owns_and_may_import() -> None:
    packages = sorted({path.parent for path in _modules()})
    assert {p.name for p in packages} >= {
        "prereq",
        "core",
        "registry",
        "openpai",
        "index",
        "jobs",
        "marketplace",
        "cli",
    }
    for package in packages:
        if package == PACKAGE:
            continue
        docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
        assert "May import:" in docstring, f"{package.relative_to(REPO)}/__init__.py"


def test_folders_modules_and_functions_stay_small() -> None:
    for folder in sorted({path.parent for path in _modules()}):
        count = len([p for p in folder.glob("*.py") if p.name != "__init__.py"])
        assert count <= MAX_MODULES_PER_FOLDER, f"{folder.relative_to(REPO)} holds {count} modules"
    tests = sorted((REPO / "tests").rglob("*.py"))  # the tests are held to the same sizes
    for path in _modules() + tests:  # the site's JS: tests/js/house.test.js
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        assert lines <= MAX_MODULE_LINES or LONGER in text[:2000], f"{path.relative_to(REPO)}: {lines} lines"
    for path in _modules() + tests:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                reason = LONGER in (ast.get_docstring(node) or "")
                assert length <= MAX_FUNCTION_LINES or reason, f"{path.relative_to(REPO)}:{node.lineno} {node.name}"


# Where each third-party library may be imported (paths under tools/prereq): the core package's
# docstring promises it, so that each can be measured and replaced in one place.
LIBRARIES = {
    "yaml": {"core/yamlload.py", "core/yamledit.py", "core/yamlsplice.py", "core/yamlrender.py", "openpai/runtime.py"},
    "networkx": {"core/graph.py"},
    "nodesemver": {"core/versions.py"},
    "git": {"core/gitrepo.py"},
    "jsonschema": {"registry/schemas.py", "openpai/jobschema.py"},
    "jsonschema_rs": {"registry/schemas.py"},
    "mkdocs": {"marketplace/plugin.py", "marketplace/site.py"},
    "jinja2": {"marketplace/pages.py"},
    "markupsafe": {
        "marketplace/pages.py",
        "marketplace/itempage.py",
        "marketplace/render.py",
        "marketplace/diagram.py",
        "marketplace/plugin.py",
    },
    "pygments": {"marketplace/render.py"},
    "markdown": {"marketplace/render.py"},
    "detect_secrets": {"registry/secretscan.py"},
    "resolvelib": {"index/resolver.py"},
}


def _imported_libraries(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"prereq", "__future__"}


def test_each_library_is_imported_only_where_the_core_docstring_says() -> None:
    for path in _modules():
        rel = path.relative_to(PACKAGE).as_posix()
        for library in sorted(_imported_libraries(path)):
            assert library in LIBRARIES, f"{rel} imports {library}, which LIBRARIES does not list"
            assert rel in LIBRARIES[library], f"{rel} imports {library}; only {sorted(LIBRARIES[library])} may"


def test_only_the_cli_prints() -> None:
    """The core returns data; only the CLI prints and picks exit codes."""
    for path in _modules():
        if "cli" in path.relative_to(PACKAGE).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            called = node.func if isinstance(node, ast.Call) else None
            name = getattr(called, "id", None) or getattr(called, "attr", None)
            assert name not in ("print", "exit"), f"{path.relative_to(REPO)}:{node.lineno} calls {name}"


# --------------------------------------------------------------------------- names and copies

# The file names several modules may share: a package's own, and each layer's rule table
# (registry/rules/, review/rules.py, execution/rules/), which are one role in every layer.
SHARED_NAMES = {"__init__.py", "rules.py"}
# A copied helper has as few as two statements (the review's copy of the position helper had two);
# one statement is delegation (``return getattr(self._stream, name)``), not a copy worth sharing.
MIN_COPIED_STATEMENTS = 2


def shared_names(package: Path) -> dict[str, list[str]]:
    """Each module file name that two modules or more under ``package`` hold (SHARED_NAMES aside)."""
    where: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        if path.name not in SHARED_NAMES:
            where.setdefault(path.name, []).append(path.relative_to(package).as_posix())
    return {name: paths for name, paths in where.items() if len(paths) > 1}


class _ByPosition(ast.NodeTransformer):
    """Names a function's parameters by their position: a copy whose arguments were renamed is found."""

    def __init__(self, arguments: ast.arguments) -> None:
        every = [*arguments.posonlyargs, *arguments.args, arguments.vararg, *arguments.kwonlyargs, arguments.kwarg]
        self.names = {arg.arg: f"_{index}" for index, arg in enumerate(every) if arg is not None}

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.Name(self.names.get(node.id, node.id), node.ctx)


def _body(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The function's body as its AST, docstring left out and parameters by position; None when short."""
    body = node.body[1:] if ast.get_docstring(node) is not None else node.body
    if len(body) < MIN_COPIED_STATEMENTS:
        return None
    rename = _ByPosition(node.args)
    return "\n".join(ast.dump(rename.visit(copy.deepcopy(statement))) for statement in body)


def copied_bodies(package: Path) -> list[list[str]]:
    """Functions (helpers and methods, private or not) of two modules or more under ``package`` whose
    bodies are the same, each as ``path:line name``."""
    where: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (key := _body(node)) is not None:
                where.setdefault(key, []).append(f"{rel}:{node.lineno} {node.name}")
    return [found for found in where.values() if len({entry.split(":")[0] for entry in found}) > 1]


def test_no_two_modules_share_a_file_name() -> None:
    """A name says what a module holds: three records.py or two base.py said nothing (issue #31)."""
    assert shared_names(PACKAGE) == {}, "name each module after what it holds"


def test_no_function_body_is_copied_into_another_module() -> None:
    """One helper, imported where it is needed (positions: prereq.registry.rules.table's RuleTable.at)."""
    assert copied_bodies(PACKAGE) == [], "keep one and import it (a layer may import those below it)"


def test_shared_names_and_copies_are_found(tmp_path: Path) -> None:
    """The two checks themselves, on a small package with each kind of clash and what they let by."""
    files = {
        "a/__init__.py": "",
        "b/__init__.py": "",
        "a/rules.py": "",
        "b/rules.py": "",
        "a/records.py": "def _at(item, path):\n    line = item.position(path)\n    return line\n",
        "b/records.py": 'def at(thing, where):\n    """Doc."""\n    line = thing.position(where)\n    return line\n',
        "b/other.py": "def short(x):\n    return x\n\n\nclass C:\n    def m(self, y):\n        return y\n",
        "a/same.py": "def f(x):\n    y = x\n    return y\n\n\ndef g(z):\n    y = z\n    return y\n",
    }
    package = tmp_path / "prereq"
    for rel, text in files.items():
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text(text, encoding="utf-8")
    assert shared_names(package) == {"records.py": ["a/records.py", "b/records.py"]}
    # Renamed parameters and a docstring hide no copy; one statement, or a copy in the same module, is let by.
    assert copied_bodies(package) == [["a/records.py:1 _at", "b/records.py:1 at"]]


# --------------------------------------------------------------------------- both engines

CORPORA = {  # folder under tests/cases -> how a case is named in both runners
    "jobs": lambda folder: sorted(p.name for p in folder.iterdir() if p.is_dir()),
    "yamledit": lambda folder: sorted(p.stem for p in folder.glob("*.json")),
    "protocol": lambda folder: sorted(p.stem for p in folder.glob("[0-9]*.json")),
    "reader": lambda folder: sorted(p.stem for p in folder.glob("[0-9]*.json")),
    "rights": lambda folder: sorted(p.stem for p in folder.glob("[0-9]*.json")),
}


JS_TAP = "PREREQ_JS_TAP"  # set by scripts/test.sh: the file of its one run of Node's runner over tests/js/


@pytest.fixture(scope="module")
def node_report() -> str:
    """The TAP report of Node's runner over tests/js/: the one scripts/test.sh wrote (so that its run
    is the only one; $PREREQ_JS_TAP names the file) or, when this file runs without it, a run of its own."""
    if written := os.environ.get(JS_TAP):
        if not Path(written).is_file():
            pytest.fail(f"${JS_TAP} names {written}, no file: scripts/test.sh writes it (unset it to run Node here)")
        return Path(written).read_text(encoding="utf-8")
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed for the JS engine's tests (apt-get install nodejs)")
    run = subprocess.run(
        [node, "--test", "--test-reporter=tap", str(REPO / "tests" / "js")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
    )
    # Node's own errors (a crash, a file that did not load) end the report as TAP comments, for the messages.
    return run.stdout + "".join(f"# stderr: {line}\n" for line in run.stderr.splitlines()[-20:])


@pytest.fixture(scope="module")
def node_results(node_report: str) -> dict[str, str]:
    """Every test the report names (nested ones too): "ok" or "not ok"."""
    results = {m.group(2): m.group(1) for m in re.finditer(r"^\s*(ok|not ok) \d+ - (.+?)\s*$", node_report, re.M)}
    assert results, node_report[-4000:]
    return results


def test_the_js_suite_ran_to_its_end_and_passed(node_report: str, node_results: dict[str, str]) -> None:
    """A report cut short (Node killed, out of time) has no closing summary; a file that does not load
    is a failed test of its own."""
    summary = dict(re.findall(r"^# (tests|pass|fail|cancelled) (\d+)$", node_report, re.M))
    assert summary.keys() == {"tests", "pass", "fail", "cancelled"}, "no summary: " + node_report[-4000:]
    failed = [name for name, status in node_results.items() if status != "ok"]
    assert (summary["fail"], summary["cancelled"], failed) == ("0", "0", []), node_report[-4000:]


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_every_shared_case_runs_and_passes_in_the_js_engine(corpus: str, node_results: dict[str, str]) -> None:
    """The Python runners take every case folder; the JS runner must name and pass the same cases, so
    a case that only one engine runs fails here."""
    cases = CORPORA[corpus](REPO / "tests" / "cases" / corpus)
    assert cases
    ran = {name.split("/", 1)[1]: status for name, status in node_results.items() if name.startswith(corpus + "/")}
    assert sorted(ran) == cases, set(cases) ^ set(ran)
    assert [name for name, status in ran.items() if status != "ok"] == []


def test_the_runtime_values_are_judged_the_same_by_both_engines(node_results: dict[str, str]) -> None:
    """tests/cases/runtime/values.json is one case list: runtime.test.js must judge every value as Python does."""
    values = json.loads((REPO / "tests" / "cases" / "runtime" / "values.json").read_text(encoding="utf-8"))
    assert len(values["cases"]) >= 300
    ran = {name: status for name, status in node_results.items() if name.startswith("runtime/")}
    assert ran, "runtime.test.js ran no test named runtime/..."
    assert [name for name, status in ran.items() if status != "ok"] == []
