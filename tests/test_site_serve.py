"""The site through MkDocs itself: a plain mkdocs build shows the last prereq build, and prereq serve
indexes the registry and serves the site."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from prereq.marketplace.publish import build

REPO = Path(__file__).resolve().parents[1]


def _project_copy(tmp_path: Path) -> Path:
    """mkdocs.yml and the site sources in a fresh folder (the hooks file linked)."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(REPO / "mkdocs.yml", project / "mkdocs.yml")
    shutil.copytree(REPO / "site", project / "site")
    (project / "tools").symlink_to(REPO / "tools")
    return project


def _mkdocs_build(project: Path, out: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if True}
    env["NO_MKDOCS_2_WARNING"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(project / "mkdocs.yml"), "-d", str(out)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_plain_mkdocs_shows_the_last_prereq_build(tmp_path: Path) -> None:
    """What a plain `mkdocs serve` does: no index_dir, so the plugin reads build/site."""
    project = _project_copy(tmp_path)
    run = _mkdocs_build(project, tmp_path / "out")
    assert run.returncode != 0 and "prereq serve" in run.stderr and "Traceback" not in run.stderr
    assert build(REPO / "registry", project / "build" / "site", with_site=False).built
    run = _mkdocs_build(project, tmp_path / "out")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "out" / "api" / "v1" / "index.json").is_file()
    assert (tmp_path / "out" / "items" / "mnist-data" / "index.html").is_file()


def test_prereq_serve_indexes_the_registry_and_serves_the_site(tmp_path: Path) -> None:
    import socket
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("prereq")),
            "serve",
            "--registry",
            str(REPO / "registry"),
            "--dev-addr",
            f"127.0.0.1:{port}",
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline, page = time.monotonic() + 120, ""
        while time.monotonic() < deadline and not page:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/items/mnist-data/", timeout=5) as response:
                    page = response.read().decode()
            except OSError:
                assert server.poll() is None, server.communicate()[1]
                time.sleep(0.5)
        assert "MNIST handwritten digits" in page
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/index.json", timeout=5) as response:
            assert json.loads(response.read())["format"] == "prereq-index/2"
    finally:
        server.terminate()
        server.communicate(timeout=30)


def test_theme_folders_without_the_item_template_keep_the_themes_frame(tmp_path: Path) -> None:
    """A repository's own mkdocs.yml may name its own theme folder: its item pages get the theme's
    frame (the drawer too) rather than a build that stops at a missing template."""
    project = _project_copy(tmp_path)
    (project / "site" / "overrides" / "item.html").unlink()
    assert build(REPO / "registry", project / "build" / "site", with_site=False).built
    run = _mkdocs_build(project, tmp_path / "out")
    assert run.returncode == 0, run.stderr
    page = (tmp_path / "out" / "items" / "mnist-data" / "index.html").read_text(encoding="utf-8")
    assert "md-sidebar--primary" in page and 'data-prereq-item="mnist-data"' in page
