"""Reading an index over HTTP from servers that are slow or send too much: a whole-file deadline
($PREREQ_HTTP_TIMEOUT, or ``Fetching(deadline=...)``) and a size cap per kind of file
($PREREQ_HTTP_MAX_MIB, or ``Fetching(max_bytes=...)``), each a clear error and exit 2, never a hang.

Every server here is a real one on localhost, in a thread."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gitrepo import GitRepo, item_yaml
from job_helpers import copy_job, prereq_cli
from prereq.cli import main
from prereq.core.errors import PrereqError
from prereq.index.fetch import Fetching
from prereq.index.reader import Index
from prereq.index.trust import Trust
from prereq.marketplace.build import build

Behaviour = Callable[[http.server.BaseHTTPRequestHandler], None]
GENEROUS = 20.0  # seconds: far above every deadline set here, far below a hang


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("http")
    repo = GitRepo(root / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write("registry/prerequisites/base.yaml", item_yaml("base", "1.0.0"))
    repo.write("registry/prerequisites/one.yaml", item_yaml("one", "1.0.0", require=["base"]))
    repo.commit("items")
    assert build(repo.root / "registry", root / "out", with_site=False).built
    return root / "out" / "api" / "v1"


def _drip(body: bytes, *, every: float, times: int = 300) -> Behaviour:
    """Send ``body`` (status line and headers included, as written), then a byte every ``every`` s."""

    def behave(handler: http.server.BaseHTTPRequestHandler) -> None:
        handler.wfile.write(body)
        for _ in range(times):
            handler.wfile.write(b" ")
            handler.wfile.flush()
            time.sleep(every)

    return behave


def _endless(handler: http.server.BaseHTTPRequestHandler) -> None:
    """A 200 with no Content-Length and a body that never ends."""
    handler.send_response(200)
    handler.end_headers()
    while True:
        handler.wfile.write(b"x" * (1 << 16))


@pytest.fixture
def serve(api: Path) -> Iterator[Callable[[dict[str, Behaviour]], str]]:
    """Serve the built index, some of its files (by path below api/v1) replaced by a behaviour; the URL."""
    servers: list[http.server.ThreadingHTTPServer] = []

    def start(behaviours: dict[str, Behaviour]) -> str:
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                rel = self.path.removeprefix("/api/v1/")
                try:
                    if rel in behaviours:
                        behaviours[rel](self)
                    elif (api / rel).is_file():
                        self.send_response(200)
                        self.send_header("Content-Length", str((api / rel).stat().st_size))
                        self.end_headers()
                        self.wfile.write((api / rel).read_bytes())
                    else:
                        self.send_error(404)
                except OSError:
                    pass  # the client gave up, as it should

            def log_message(self, *args: object) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_port}/api/v1"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _timed_error(load: Callable[[], object]) -> tuple[PrereqError, float]:
    started = time.monotonic()
    with pytest.raises(PrereqError) as caught:
        load()
    return caught.value, time.monotonic() - started


def test_a_healthy_server_still_serves_the_whole_index(serve, monkeypatch: pytest.MonkeyPatch) -> None:
    url = serve({})
    assert Index.load(url).fetching == Fetching(deadline=60, max_bytes=None)  # the default: a minute
    monkeypatch.setenv("PREREQ_HTTP_TIMEOUT", "5")
    index = Index.load(url)
    assert [item.name for item in index.closure(["one"])] == ["base", "one"]
    assert index.fetching.deadline == 5


def test_headers_trickled_in_are_cut_at_the_deadline(serve) -> None:
    """The old per-read timeout never fired here: each byte of the status line came within it."""
    url = serve({"index.json": _drip(b"HTTP/1.0 200 OK\r\nX-Slow: ", every=0.2)})
    error, seconds = _timed_error(lambda: Index.load(url, fetching=Fetching(deadline=1)))
    assert f"fetching {url}/index.json took more than 1 s" in error.message
    assert "PREREQ_HTTP_TIMEOUT=SECONDS" in error.hint and error.exit_code == 2
    assert 1 <= seconds < GENEROUS


def test_a_chunked_body_trickled_in_is_cut_at_the_deadline_set_in_the_environment(
    serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREREQ_HTTP_TIMEOUT", "1.5")
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1"  # a chunk-size line that never ends
    url = serve({"prerequisites/one.json": _drip(head, every=0.2)})
    index = Index.load(url)  # the root comes quickly
    error, seconds = _timed_error(lambda: index.closure(["one"]))
    assert "prerequisites/one.json took more than 1.5 s" in error.message
    assert 1.5 <= seconds < GENEROUS


def test_an_endless_item_file_stops_at_its_default_cap(serve) -> None:
    url = serve({"prerequisites/base.json": _endless})
    index = Index.load(url)
    error, _ = _timed_error(lambda: index.versions("base"))
    assert (
        error.message == f"{url}/prerequisites/base.json is larger than 64 MiB, the cap for an index file but the root"
    )
    assert "PREREQ_HTTP_MAX_MIB=MIB (more than 64)" in error.hint and error.exit_code == 2


def test_a_file_announced_larger_than_the_cap_is_refused_before_it_is_read(serve) -> None:
    huge = b"HTTP/1.0 200 OK\r\nContent-Length: 1000000000000\r\n\r\n"
    url = serve({"index.json": _drip(huge, every=1)})
    error, seconds = _timed_error(lambda: Index.load(url, fetching=Fetching(deadline=30)))
    assert error.message == f"{url}/index.json is larger than 256 MiB, the cap for the root index"
    assert seconds < 15  # not waiting for the deadline


def test_the_signature_has_a_small_cap_of_its_own(serve, tmp_path: Path) -> None:
    url = serve({"index.json.sig": _endless})
    trust = Trust(tmp_path / "allowed_signers", "a test")
    error, _ = _timed_error(lambda: Index.load(url, trust=trust))
    assert error.message == f"{url}/index.json.sig is larger than 64 KiB, the cap for its signature"


def test_a_cap_set_in_the_library_or_the_environment_holds_for_every_file(
    serve, api: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = serve({})
    root_size = (api / "index.json").stat().st_size
    assert root_size > 1000
    error, _ = _timed_error(lambda: Index.load(url, fetching=Fetching(max_bytes=1000)))
    assert error.message == f"{url}/index.json is larger than 1,000 bytes, the cap set for every index file"
    assert Index.load(url, fetching=Fetching(max_bytes=root_size)).versions("base") == ["1.0.0"]
    monkeypatch.setenv("PREREQ_HTTP_MAX_MIB", str((root_size - 1) / (1 << 20)))
    assert "the cap set for every index file" in _timed_error(lambda: Index.load(url))[0].message


@pytest.mark.parametrize("value", ["abc", "0", "-5", "nan", "inf", "1e9"])
@pytest.mark.parametrize("variable", ["PREREQ_HTTP_TIMEOUT", "PREREQ_HTTP_MAX_MIB"])
def test_a_bad_setting_is_a_clear_usage_error(
    variable: str, value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(variable, value)
    assert main(["search", "base", "--index", "http://127.0.0.1:9/api/v1"]) == 2  # never reached
    err = capsys.readouterr().err
    assert f"prereq: error: ${variable} is {value!r}, not a number of" in err
    assert "hint: set it to a number of" in err and f"e.g. {variable}=120" in err and "Traceback" not in err


def test_a_local_index_does_not_read_the_http_settings(api: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PREREQ_HTTP_TIMEOUT", "abc")
    assert Index.load(api).versions("one") == ["1.0.0"]


@pytest.mark.parametrize(
    "command",
    [["search", "base"], ["show", "one"], ["job", "add", "{job}", "one"], ["job", "lock", "{job}"]],
    ids=["search", "show", "job-add", "job-lock"],
)
def test_every_command_reading_a_dripping_index_exits_2_with_the_fix(command: list[str], serve, tmp_path: Path) -> None:
    url = serve({"index.json": _drip(b"HTTP/1.0 200 OK\r\n\r\n", every=0.2)})
    job = copy_job(tmp_path, "two-roles.yaml")
    argv = [part.replace("{job}", str(job)) for part in command]
    started = time.monotonic()
    cli = prereq_cli(*argv, "--index", url, env={"PREREQ_HTTP_TIMEOUT": "2"})
    assert time.monotonic() - started < GENEROUS
    assert cli.returncode == 2, cli.stderr
    assert f"prereq: error: fetching {url}/index.json took more than 2 s" in cli.stderr
    assert "hint: if the server is only slow, allow it more: PREREQ_HTTP_TIMEOUT=SECONDS" in cli.stderr
    assert "Traceback" not in cli.stderr and "internal error" not in cli.stderr
