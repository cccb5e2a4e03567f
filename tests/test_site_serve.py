"""The site through MkDocs itself: a plain mkdocs build shows the last prereq build, and prereq serve
indexes the registry and serves the site."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from gitrepo import GitRepo
from prereq.marketplace.build import build
from prereq.scaffold.starter import init_repository

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


def _serving(registry: Path, cwd: Path) -> tuple[subprocess.Popen[str], int]:
    """``prereq serve`` of ``registry`` on a free port, in a process of its own."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [str(Path(sys.executable).with_name("prereq")), "serve", "--registry", str(registry)]
        + ["--dev-addr", f"127.0.0.1:{port}"],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return server, port


def _page_saying(server: subprocess.Popen[str], url: str, text: str) -> str:
    """The page at ``url`` once it holds ``text`` (it is polled until then, for two minutes at most)."""
    deadline, page = time.monotonic() + 120, ""
    while time.monotonic() < deadline and text not in page:
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                page = response.read().decode()
        except OSError:
            assert server.poll() is None, server.communicate()[1]
        if text not in page:
            time.sleep(0.5)
    return page


def test_prereq_serve_indexes_the_registry_and_serves_the_site(tmp_path: Path) -> None:
    server, port = _serving(REPO / "registry", tmp_path)
    try:
        page = _page_saying(server, f"http://127.0.0.1:{port}/items/mnist-data/", "MNIST handwritten digits")
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


def test_prereq_serve_rebuilds_on_every_edit_of_a_page_and_of_an_item(tmp_path: Path) -> None:
    """A team's repository with a site of its own: each edit, of a page or of an item, shows while serving
    (the second page edit once broke MkDocs' plugin list; an item edit once needed a restart)."""
    repo = GitRepo(tmp_path / "team")
    init_repository(repo.root, name="Team prerequisites", owner="alice")
    shutil.copy(REPO / "mkdocs.yml", repo.root / "mkdocs.yml")
    shutil.copytree(REPO / "site", repo.root / "site")
    (repo.root / "tools").symlink_to(REPO / "tools")
    repo.commit("start")
    item = repo.root / "registry" / "prerequisites" / "hello-prereq.yaml"
    page = repo.root / "site" / "authors.md"
    server, port = _serving(repo.root / "registry", repo.root)
    try:
        first = _page_saying(server, f"http://127.0.0.1:{port}/items/hello-prereq/", "Say hello")
        assert "Say hello before the job starts" in first
        for edit in ("first", "second"):
            page.write_text(page.read_text(encoding="utf-8") + f"\nEdited page, {edit} time.\n", encoding="utf-8")
            shown = _page_saying(server, f"http://127.0.0.1:{port}/authors/", f"Edited page, {edit} time.")
            assert f"Edited page, {edit} time." in shown
            text = item.read_text(encoding="utf-8")
            item.write_text(re.sub(r"(?m)^title: .*$", f"title: Say hello, {edit} edit", text), encoding="utf-8")
            shown = _page_saying(server, f"http://127.0.0.1:{port}/items/hello-prereq/", f"Say hello, {edit} edit")
            assert f"Say hello, {edit} edit" in shown
            assert server.poll() is None
    finally:
        server.terminate()
        errors = server.communicate(timeout=30)[1]
    assert "Traceback" not in errors and "Invalid Plugins configuration" not in errors
