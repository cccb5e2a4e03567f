"""Validation warm in a fresh environment with the restored cache: what a CI run of a pull request pays.

CI installs prereq and its libraries into a new environment on every run and restores the cache folder
an earlier run saved.  Here two new virtual environments stand for two runs: the libraries validation's
results depend on are copied into each file by file from their installed records (new paths, new file
times, the same versions), ShellCheck beside them, prereq itself from the checkout's ``tools/`` (as the
other figures run it).  The first validates cold and leaves the cache; before each measured run of the
second, the cache is copied anew (restored) from what the first left.  Measured side by side with the
parse floor, interleaved, on the registries of ``generate.py``: the usual one, and ``--parameters``
(every command reads parameters of what its item requires).

    .venv/bin/python bench/figures.py --only restored --small 1000 --large 10000 --repeat 3
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The distributions registry.validate.identity names (the libraries whose versions are its identity).
LIBRARIES = ("PyYAML", "detect-secrets", "jsonschema", "jsonschema-rs", "node-semver")
VALIDATE = "import sys; from prereq.cli import main; sys.exit(main(['validate', sys.argv[1]]))"


def fresh_environment(folder: Path) -> Path:
    """A new virtual environment in ``folder`` (see the module's docstring); its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    site = Path(
        subprocess.check_output(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], text=True
        ).strip()
    )
    for distribution in LIBRARIES:
        for file in metadata.distribution(distribution).files or ():
            if not str(file).startswith(".."):  # its scripts in bin/ are not what validation runs
                (site / file).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(str(file.locate())), site / file)
    # prereq from the checkout, the other libraries as this environment has them (after the copies).
    (site / "prereq.pth").write_text(f"{REPO / 'tools'}\n{sysconfig.get_path('purelib')}\n")
    binary = shutil.which("shellcheck", path=str(Path(sys.executable).parent)) or shutil.which("shellcheck")
    if binary:
        shutil.copyfile(binary, folder / "bin" / "shellcheck")
        (folder / "bin" / "shellcheck").chmod(0o755)
    return python


def restore(saved: Path, restored: Path) -> None:
    """The cache as CI restores it: the same files, written anew."""
    shutil.rmtree(restored, ignore_errors=True)
    shutil.copytree(saved, restored, copy_function=shutil.copyfile)


def restored_command(python: Path, registry: Path) -> list[str]:
    return [str(python), "-c", VALIDATE, str(registry)]
