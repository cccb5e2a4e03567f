"""Reading the index: lookup, search, selection resolution, loading over HTTP."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest

from gitrepo import GitRepo, item_yaml
from prereq.core.errors import PrereqError
from prereq.index.reader import Index
from prereq.marketplace.build import build

REG = "registry/prerequisites/"


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("client")
    repo = GitRepo(root / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write(REG + "base.yaml", item_yaml("base", "1.0.0"))
    repo.write(REG + "one.yaml", item_yaml("one", "1.0.0", require=["base@^1.0"]))
    repo.commit("v1")
    repo.write(REG + "base.yaml", item_yaml("base", "1.4.0"))
    repo.commit("v1.4")
    repo.write(REG + "base.yaml", item_yaml("base", "2.0.0", extra="deprecated: {reason: old, replacement: one}\n"))
    repo.write(REG + "one.yaml", item_yaml("one", "2.0.0", require=["base@^2.0"]))
    repo.write(REG + "two.yaml", item_yaml("two", "1.0.0", require=["base@>=1.2.0"]))
    repo.write(REG + "top.yaml", item_yaml("top", "1.0.0", require=["two", "one"]))
    repo.write(REG + "storage-tools.yaml", item_yaml("storage-tools", "1.0.0", extra="tags: [storage]\n"))
    repo.write(REG + "zebra.yaml", item_yaml("zebra", "1.0.0", extra="tags: [storage-tools]\n"))
    repo.commit("v2")
    out = root / "out"
    # Deprecated items still required warn (PRQ144): published all the same, as a team not strict would.
    assert build(repo.root / "registry", out, with_site=False, strict=False).built
    return out


def test_load_accepts_the_site_root_or_api_folder(index_dir: Path) -> None:
    assert Index.load(index_dir).entries.keys() == Index.load(index_dir / "api" / "v1").entries.keys()
    with pytest.raises(PrereqError, match="no index found"):
        Index.load(index_dir / "nowhere")


def test_version_lookup_and_missing_names(index_dir: Path) -> None:
    index = Index.load(index_dir)
    assert index.versions("base") == ["1.0.0", "1.4.0", "2.0.0"]
    assert index.version("base")["version"] == "2.0.0"
    assert index.version("base", "1.0.0")["item"]["version"] == "1.0.0"
    with pytest.raises(PrereqError, match=r"no published version 9\.9\.9"):
        index.version("base", "9.9.9")
    with pytest.raises(PrereqError, match="no prerequisite named 'Base'") as caught:
        index.version("Base")
    assert "did you mean 'base'" in caught.value.hint


def test_search_ranks_name_matches_first(index_dir: Path) -> None:
    names = [entry["name"] for entry in Index.load(index_dir).search("storage")]
    assert names == ["storage-tools", "zebra"]


def test_resolve_orders_requirements_first_and_records_who_pulled_them(index_dir: Path) -> None:
    resolved = Index.load(index_dir).closure(["top"])
    assert [(r.name, r.version) for r in resolved] == [
        ("base", "2.0.0"),
        ("two", "1.0.0"),
        ("one", "2.0.0"),
        ("top", "1.0.0"),
    ]
    base = resolved[0]
    assert base.required_by == ("two", "one") and not base.selected and base.deprecated["replacement"] == "one"
    assert resolved[-1].selected


def test_shared_requirement_gets_the_highest_version_meeting_every_range(index_dir: Path) -> None:
    resolved = Index.load(index_dir).closure(["one@1.0.0", "two"])
    assert {r.name: r.version for r in resolved}["base"] == "1.4.0"


def test_conflicting_ranges_name_both_requirers(index_dir: Path) -> None:
    with pytest.raises(PrereqError) as caught:
        Index.load(index_dir).closure(["one@1.0.0", "base@^2"])
    message = caught.value.message
    assert "no version of base meets both" in message and "one 1.0.0" in message and "your selection" in message


def test_lock_pins_a_version_that_still_fits(index_dir: Path) -> None:
    index = Index.load(index_dir)
    resolved = index.closure(["two"], locked={"base": "1.4.0"})
    assert {r.name: r.version for r in resolved}["base"] == "1.4.0"
    resolved = index.closure(["two"], locked={"base": "1.0.0"})  # no longer meets >=1.2.0
    assert {r.name: r.version for r in resolved}["base"] == "2.0.0"


def test_a_tampered_item_file_is_refused(index_dir: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(index_dir, copy)
    path = copy / "api" / "v1" / "prerequisites" / "base.json"
    path.write_text(path.read_text().replace("base item", "evil item"))
    with pytest.raises(PrereqError, match="does not match the sha256"):
        Index.load(copy).version("base")


def test_index_loads_over_http(index_dir: Path) -> None:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(index_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        resolved = Index.load(url).closure(["one"])
        assert [r.name for r in resolved] == ["base", "one"]
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    "breakage",
    [
        lambda root: root.pop("items"),
        lambda root: root.update(items=5),
        lambda root: root["items"][0].pop("path"),
    ],
)
def test_a_corrupt_root_is_a_clean_error(index_dir: Path, tmp_path: Path, breakage) -> None:
    import json
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(index_dir, copy)
    path = copy / "api" / "v1" / "index.json"
    root = json.loads(path.read_text())
    breakage(root)
    path.write_text(json.dumps(root))
    with pytest.raises(PrereqError, match="is not a valid prereq index file"):
        Index.load(copy)


def test_an_item_file_without_versions_is_a_clean_error(index_dir: Path, tmp_path: Path) -> None:
    import hashlib
    import json
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(index_dir, copy)
    api = copy / "api" / "v1"
    body = json.dumps({"name": "base", "required_by": [], "versions": []}).encode()
    (api / "prerequisites" / "base.json").write_bytes(body)
    root = json.loads((api / "index.json").read_text())
    next(e for e in root["items"] if e["name"] == "base")["sha256"] = hashlib.sha256(body).hexdigest()
    (api / "index.json").write_text(json.dumps(root))
    with pytest.raises(PrereqError, match=r"prerequisites/base\.json is not a valid prereq index file: versions"):
        Index.load(copy).versions("base")


def _serve(handler_class: type) -> http.server.ThreadingHTTPServer:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_an_index_server_that_drips_or_never_ends_is_an_error_not_a_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from prereq.index import reader

    class Drip(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.end_headers()
            try:
                for _ in range(100):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.2)
            except OSError:
                pass  # the client gave up, as it should

        def log_message(self, *args: object) -> None:
            pass

    server = _serve(Drip)
    try:
        monkeypatch.setattr(reader, "DEADLINE_SECONDS", 1.0)
        started = time.monotonic()
        with pytest.raises(PrereqError, match=r"took more than 1 s"):
            Index.load(f"http://127.0.0.1:{server.server_port}/api/v1")
        assert time.monotonic() - started < 100 * 0.2 / 2  # gave up long before the server's drip ended
        monkeypatch.setattr(reader, "DEADLINE_SECONDS", 60.0)
        monkeypatch.setattr(reader, "MAX_FILE_BYTES", 10)
        with pytest.raises(PrereqError, match=r"is larger than"):
            Index.load(f"http://127.0.0.1:{server.server_port}/api/v1")
    finally:
        server.shutdown()


def test_a_deeply_nested_index_file_is_refused_cleanly(tmp_path: Path) -> None:
    api = tmp_path / "api" / "v1"
    api.mkdir(parents=True)
    (api / "index.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(PrereqError, match=r"is not JSON"):
        Index.load(tmp_path)
