"""The layering, as the code and its docs state it: the import-linter contract in pyproject.toml holds,
every module's "May import:" names each prereq module it imports and no layer above its own, and the
README's package table lists the contract's layers in order, so none of them can drift from the others."""

from __future__ import annotations

import ast
import itertools
import re
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # import-linter brings tomli on 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "tools" / "prereq"
MAY_IMPORT = "May import:"
EVERY = "every prereq package"  # the CLI's line: every layer below its own
NAMED = re.compile(r"prereq(?:\.\w+)+(?:/\w+)*")  # prereq.jobs.records/document names two modules


def contract_layers(pyproject: Path) -> list[set[str]]:
    """The contract's layers, the top first; a layer holds one package or independent siblings (a | b)."""
    contract = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"][0]
    assert contract["type"] == "layers", contract
    return [{name.strip() for name in layer.split("|")} for layer in contract["layers"]]


def _module(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str, package: Path) -> bool:
    path = package.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def prereq_imports(path: Path, package: Path) -> set[str]:
    """Every prereq module the file imports, relative imports resolved, ``from a import b`` as ``a.b``
    when b is a module; imports under TYPE_CHECKING or in a function count too, as for import-linter."""
    here = _module(path, package).split(".")
    if path.name != "__init__.py":
        here = here[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == package.name)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(here[: len(here) - node.level + 1]) if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            if module.split(".")[0] != package.name:
                continue
            for alias in node.names:
                child = f"{module}.{alias.name}"
                found.add(child if _is_module(child, package) else module)
    return found


def may_import_line(path: Path) -> str | None:
    """The paragraph of the module's docstring after "May import:", or None when it has none."""
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return docstring.split(MAY_IMPORT, 1)[1].split("\n\n", 1)[0] if MAY_IMPORT in docstring else None


def named(line: str) -> set[str]:
    names: set[str] = set()
    for token in NAMED.findall(line):
        first, *more = token.split("/")
        names.add(first)
        names.update(f"{first.rsplit('.', 1)[0]}.{name}" for name in more)
    return names


def _stated(path: Path, package: Path) -> tuple[str | None, set[str], Path]:
    """What a module states it may import: its own line, else its nearest package's (which covers that
    package's own modules too); an ``__init__`` may always import its own package's modules."""
    source = path
    line = may_import_line(path)
    while line is None and source != package / "__init__.py":
        source = (source.parent.parent if source.name == "__init__.py" else source.parent) / "__init__.py"
        line = may_import_line(source)
    names = named(line or "")
    if source.name == "__init__.py" and source.parent != package:
        names.add(_module(source, package))
    return line, names, source


def _layer(module: str) -> str:
    return ".".join(module.split(".")[:2])


def drift(package: Path, layers: list[set[str]]) -> list[str]:
    """Every way the package's "May import:" lines differ from its imports and from the layers."""
    rank = {name: depth for depth, layer in enumerate(layers) for name in layer}  # 0 is the top
    problems: list[str] = []
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package.parent).as_posix()
        line, names, source = _stated(path, package)
        stated_in = source.relative_to(package.parent).as_posix()
        own = _layer(_module(path, package))
        if line is None:
            problems.append(f"{where}: no {MAY_IMPORT!r} in it or in a package above it")
        elif EVERY in line:
            names |= {name for name in rank if rank[name] > rank.get(own, len(layers))}
        for name in sorted(names):
            if not _is_module(name, package):
                problems.append(f"{stated_in}: names {name}, no such module")
            elif own in rank and _layer(name) != own and rank.get(_layer(name), -1) <= rank[own]:
                problems.append(f"{stated_in}: may import {name}, a layer above {own} or beside it")
        for module in sorted(prereq_imports(path, package)):
            # Any module may read the root package's version; the root's own line says it imports nothing.
            if module != package.name and not any(module == n or module.startswith(n + ".") for n in names):
                problems.append(f"{where}: imports {module}, which its {MAY_IMPORT!r} does not name")
    return list(dict.fromkeys(problems))  # a package's line, once for all the modules it speaks for


def readme_layers(readme: Path) -> list[str]:
    """The packages of the README's table under "| package | owns |", in its order (the data flow's)."""
    lines = readme.read_text(encoding="utf-8").splitlines()
    rows = itertools.takewhile(lambda line: line.startswith("|"), lines[lines.index("| package | owns |") + 2 :])
    return [row.split("`")[1] if row.startswith("| `") else row for row in rows]


def test_the_layers_hold() -> None:
    """import-linter keeps pyproject.toml's contract: nothing imports a layer above its own."""
    lint = Path(sys.executable).with_name("lint-imports")
    run = subprocess.run(
        [str(lint), "--config", str(REPO / "pyproject.toml")], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 kept, 0 broken" in run.stdout


def test_every_may_import_names_what_the_module_imports_and_no_layer_above() -> None:
    problems = drift(PACKAGE, contract_layers(REPO / "pyproject.toml"))
    assert not problems, "\n".join(problems)


def test_the_readme_lists_the_contract_layers_in_order() -> None:
    listed = readme_layers(REPO / "README.md")
    depth = {name: depth for depth, layer in enumerate(contract_layers(REPO / "pyproject.toml")) for name in layer}
    assert sorted(listed) == sorted(depth), "the README's table and pyproject.toml's layers name other packages"
    # The table reads from the bottom layer up; independent siblings (a | b) in either order.
    assert [depth[name] for name in listed] == sorted((depth[name] for name in listed), reverse=True), listed


def test_a_drift_of_each_kind_is_found(tmp_path: Path) -> None:
    """The check itself, on a small package that drifts in every way it looks for."""
    files = {
        "__init__.py": '"""The root.  May import: nothing of prereq."""\n',
        "core/__init__.py": '"""The bottom.  May import: nothing of prereq."""\n',
        "core/base.py": "from prereq.jobs import b\n",  # speaks through core's line, which names no jobs
        "jobs/__init__.py": '"""Jobs.\n\nMay import: prereq.core, prereq.cli.\n"""\n',
        "jobs/b.py": '"""B.\n\nMay import: prereq.core.gone.\n"""\nfrom . import c\n',
        "jobs/c.py": '"""C: through jobs."""\nfrom prereq.core import base\nfrom prereq import __version__\n',
        "site/__init__.py": '"""Beside jobs.  May import: prereq.jobs."""\n',
        "cli/__init__.py": '"""May import: every prereq package."""\nfrom prereq.jobs import b\n',
    }
    package = tmp_path / "prereq"
    for rel, text in files.items():
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text(text, encoding="utf-8")
    assert drift(package, [{"prereq.cli"}, {"prereq.jobs", "prereq.site"}, {"prereq.core"}]) == [
        "prereq/core/base.py: imports prereq.jobs.b, which its 'May import:' does not name",
        "prereq/jobs/__init__.py: may import prereq.cli, a layer above prereq.jobs or beside it",
        "prereq/jobs/b.py: names prereq.core.gone, no such module",
        "prereq/jobs/b.py: imports prereq.jobs.c, which its 'May import:' does not name",
        "prereq/site/__init__.py: may import prereq.jobs, a layer above prereq.site or beside it",
    ]
