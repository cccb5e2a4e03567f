"""Fetching one index file over http(s), bounded: a whole-file deadline and a size cap.

A per-read timeout alone lets a server that sends a byte every few seconds (in its headers, its TLS
handshake or its body) hold a reader for ever; here a watchdog shuts the connection when the file's
deadline passes, and a body larger than its cap is refused as it arrives.  ``Fetching`` carries the
settings a caller (``reader.Index``) gives or $PREREQ_HTTP_TIMEOUT and $PREREQ_HTTP_MAX_MIB set.

May import: prereq.core.
"""

from __future__ import annotations

import contextlib
import http.client
import math
import os
import socket
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from prereq.core.errors import PrereqError

TIMEOUT_VARIABLE = "PREREQ_HTTP_TIMEOUT"  # seconds one index file may take
SIZE_VARIABLE = "PREREQ_HTTP_MAX_MIB"  # MiB one index file may hold
READ_SECONDS = 30.0  # for one connect or read, within the deadline
_LONGEST_DEADLINE = 86_400.0
_LARGEST_MIB = float(1 << 20)


class NotFound(PrereqError):
    """An index file the server says it does not have (HTTP 404)."""


def _setting(variable: str, unit: str, *, most: float) -> float | None:
    """$``variable`` as a number of ``unit`` above 0 and at most ``most``; None when unset or empty."""
    text = os.environ.get(variable, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= most:  # nan and inf fail here too
        raise PrereqError(
            f"${variable} is {text!r}, not a number of {unit} above 0 and at most {int(most):,}",
            hint=f"set it to a number of {unit}, e.g. {variable}=120, or unset it for the default",
        )
    return value


@dataclass(frozen=True)
class Fetching:
    """How long one index file may take over http(s), however slowly it arrives (``deadline``, in
    seconds), and how large it may be (``max_bytes``); None: the environment's, else the reader's."""

    deadline: float | None = None
    max_bytes: int | None = None

    def settled(self, *, deadline: float) -> Fetching:
        """These settings, else $PREREQ_HTTP_TIMEOUT's and $PREREQ_HTTP_MAX_MIB's, else ``deadline``
        (``max_bytes`` stays None when nothing sets it: each kind of file then has its own cap)."""
        seconds = self.deadline or _setting(TIMEOUT_VARIABLE, "seconds", most=_LONGEST_DEADLINE) or deadline
        if self.max_bytes is not None:
            return Fetching(deadline=seconds, max_bytes=self.max_bytes)
        mebibytes = _setting(SIZE_VARIABLE, "MiB", most=_LARGEST_MIB)
        return Fetching(deadline=seconds, max_bytes=None if mebibytes is None else max(1, int(mebibytes * (1 << 20))))


def size_text(count: int) -> str:
    """``count`` bytes as a person reads it, exactly: 256 MiB, 64 KiB, 1,000 bytes."""
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if count and count % (1 << shift) == 0:
            return f"{count >> shift:,} {unit}"
    return f"{count:,} bytes"


class _Watchdog:
    """Shuts the connections of one fetch when its deadline passes, so that a reply trickling in (the
    headers, a TLS handshake, the body) cannot outlast it whatever each read's own timeout."""

    def __init__(self, seconds: float) -> None:
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self.expired = False
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        with self._lock:
            for sock in self._sockets:
                sock.close()
            self._sockets.clear()

    def connect(self, *args: Any, **kwargs: Any) -> socket.socket:
        """``socket.create_connection``, the socket watched (through a duplicate: TLS takes it over)."""
        sock = socket.create_connection(*args, **kwargs)
        with self._lock:
            self._sockets.append(sock.dup())
            if self.expired:
                _shut(self._sockets[-1])
        return sock

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed by the other side
        sock.shutdown(socket.SHUT_RDWR)


def _watched(kind: type[http.client.HTTPConnection], watchdog: _Watchdog) -> Any:
    """A connection factory for ``do_open``: connections of ``kind`` whose sockets ``watchdog`` holds."""

    def connection(host: str, **options: Any) -> http.client.HTTPConnection:
        made = kind(host, **options)
        made._create_connection = watchdog.connect  # type: ignore[attr-defined]  # every socket it opens
        return made

    return connection


class _Plain(urllib.request.HTTPHandler):
    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self.watchdog = watchdog

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_watched(http.client.HTTPConnection, self.watchdog), req)


class _Secure(urllib.request.HTTPSHandler):
    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self.watchdog = watchdog

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_watched(http.client.HTTPSConnection, self.watchdog), req)


def fetch(url: str, *, deadline: float, cap: int, capped: str) -> bytes:
    """The body at ``url`` within ``deadline`` seconds and ``cap`` bytes (``capped`` says which cap,
    for the message): a server that drips bytes or sends without end is an error, not a hang."""
    failed: PrereqError | None = None
    with _Watchdog(deadline) as watchdog:
        try:
            body = _download(url, watchdog, min(READ_SECONDS, deadline), cap)
        except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as exc:  # ValueError: a bad URL
            missing = isinstance(exc, urllib.error.HTTPError) and exc.code == 404
            failed = (NotFound if missing else PrereqError)(
                f"cannot fetch {url}: {exc}", hint="check the index URL and your network"
            )
    if watchdog.expired:  # the deadline ended it, whatever the socket said then
        raise PrereqError(
            f"fetching {url} took more than {deadline:g} s, the deadline for one index file",
            hint=f"if the server is only slow, allow it more: {TIMEOUT_VARIABLE}=SECONDS (more than {deadline:g});"
            " else check the index URL and your network",
        )
    if failed is not None:
        raise failed
    if body is None:
        raise PrereqError(
            f"{url} is larger than {capped}",
            hint=f"if the index really holds a file this large, raise the cap: {SIZE_VARIABLE}=MIB"
            f" (more than {cap / (1 << 20):g}); else check the index URL",
        )
    return body


def _download(url: str, watchdog: _Watchdog, timeout: float, cap: int) -> bytes | None:
    """The body at ``url``, each read within ``timeout``; None when it is larger than ``cap``."""
    opener = urllib.request.build_opener(_Plain(watchdog), _Secure(watchdog))
    chunks: list[bytes] = []
    size = 0
    with opener.open(url, timeout=timeout) as response:
        if (getattr(response, "length", None) or 0) > cap:  # as its Content-Length says
            return None
        while chunk := response.read1(1 << 16):  # what has arrived, however little
            size += len(chunk)
            if size > cap:
                return None
            chunks.append(chunk)
    return b"".join(chunks)
