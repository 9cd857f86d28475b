"""The HTTP side of ``rulebook serve``: the site's files and the event stream, with bounds.

Reads: HTTP requests on a listening socket; a :class:`rulebook.compiler.commands.serve.Preview`
(its site folder, version, history and the pages open in a browser). Produces: answers —
files of the site (HTML pages with the reload script), a 404 page, 400 for a request that
names nothing servable, 403 for another host's name, 503 past the connection cap — and the
Server-Sent Events stream (:data:`EVENTS`). Entry point: :func:`make_server`.

Every request ends in an answer or a closed connection within bounded time and memory, and
nothing a request holds reaches the terminal (:meth:`Server.handle_error` prints one escaped
line, never a traceback):

* at most :data:`MAX_CONNECTIONS` connections are served at once (one thread each); past it a
  connection is answered 503 and closed at once. The event streams of open pages are long-lived
  by design and counted apart (:data:`MAX_STREAMS`); a stream past that cap is told to retry
  later (``retry:``), which the browser's ``EventSource`` does;
* a request's line and headers must arrive within :data:`REQUEST_SECONDS` of the moment the
  server starts waiting for them (an idle kept-alive connection included), however slowly
  they trickle in, and hold at most :data:`MAX_HEAD_BYTES` (431 past it); a client that does
  not read what it is sent is dropped after :data:`REQUEST_SECONDS` too;
* a path or ``page`` that cannot name a file (a component over 255 bytes, a NUL byte) is 404
  or 400, and so are a ``v`` that is not a plain number of at most 15 ASCII digits and a
  ``Host`` that does not parse.
"""

from __future__ import annotations

import http.server
import io
import os
import posixpath
import re
import socket
import threading
import time
import urllib.parse
from pathlib import Path

from rulebook.rules_dsl.diagnostics import escaped

EVENTS = "/__rulebook__/events"
"""The Server-Sent Events stream pages listen on."""

KEEPALIVE_SECONDS = 15.0
"""How often a quiet event stream sends a comment (and so notices a closed page)."""

MAX_CONNECTIONS = 128
"""Connections served at once, event streams aside (each has a thread)."""

MAX_STREAMS = 128
"""Event streams (open pages) at once, each with a thread."""

REQUEST_SECONDS = 15.0
"""How long a connection may take to send a request's line and headers (idle time included)."""

MAX_HEAD_BYTES = 256 * 1024
"""The most a request's line and headers may hold (http.server's own limits, 64 KiB a line and
100 headers, would let one request hold 6.5 MB)."""

DRAIN_BYTES, DRAIN_SECONDS = 1 << 20, 1.0
"""What a connection refused for its request's size may still send before it is closed."""

STREAM_RETRY_MS = 5000
"""When a page whose stream was refused (past :data:`MAX_STREAMS`) asks again."""

NAME_MAX = 255
"""The longest file name (in bytes) a path component may have."""

_VERSION = re.compile(r"[0-9]{1,15}")


class _HeadTooLarge(ConnectionError):
    """A request's line and headers went past :data:`MAX_HEAD_BYTES`."""


class _Deadline(io.RawIOBase):
    """A socket read until a deadline and a budget of bytes (both set again for each request by
    :meth:`start`): each read waits at most what is left of the time, so a request that trickles
    in a byte at a time is cut as one that never comes, and a request head past the budget is
    refused however it is split into lines. Writes keep the socket's own timeout."""

    def __init__(self, sock: socket.socket, timeout: float) -> None:
        self.sock = sock
        self.timeout = timeout
        self.start()

    def start(self) -> None:
        self.deadline = time.monotonic() + self.timeout
        self.left = MAX_HEAD_BYTES

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request took too long to arrive")
        if self.left <= 0:
            raise _HeadTooLarge("the request's head is too large")
        self.sock.settimeout(left)
        try:
            with memoryview(buffer) as view:
                got = self.sock.recv_into(view[: self.left])
        finally:
            self.sock.settimeout(self.timeout)
        self.left -= got
        return got


class Server(http.server.ThreadingHTTPServer):
    """A threading HTTP server with a cap on connections and one on event streams."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = 128  # connections the system holds until they are accepted

    def __init__(self, address, handler, *, connections: int = MAX_CONNECTIONS, streams: int = MAX_STREAMS,
                 log=print) -> None:
        super().__init__(address, handler)
        self.max_connections, self.max_streams = connections, streams
        self.connections = 0  # connections being served, streams aside
        self.streams = 0
        self.counting = threading.Lock()
        self.log = log
        self._local = threading.local()

    def process_request(self, request, client_address) -> None:
        with self.counting:
            full = self.connections >= self.max_connections
            if not full:
                self.connections += 1
        if full:
            self._refuse(request)
            return
        thread = threading.Thread(target=self.process_request_thread, args=(request, client_address), daemon=True)
        try:
            thread.start()
        except RuntimeError:  # the system gives no more threads
            with self.counting:
                self.connections -= 1
            self._refuse(request)

    def process_request_thread(self, request, client_address) -> None:
        self._local.stream = False
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self.counting:
                if self._local.stream:
                    self.streams -= 1
                else:
                    self.connections -= 1

    def to_stream(self) -> bool:
        """The calling connection becomes an event stream, counted as one; False when
        :attr:`max_streams` are open."""
        with self.counting:
            if self.streams >= self.max_streams:
                return False
            self.streams += 1
            self.connections -= 1
        self._local.stream = True
        return True

    def _refuse(self, request) -> None:
        """503 and close, from the accepting thread: never waits on the client."""
        try:
            request.setblocking(False)
            request.send(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
                         b"Content-Length: 36\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
                         b"too many connections; try again soon")
        except OSError:
            pass
        self.shutdown_request(request)

    def handle_error(self, request, client_address) -> None:
        """A request that failed: a dropped connection is nothing to report; anything else is one
        line in the terminal (the request's thread ends, the server goes on)."""
        import sys

        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        self.log(f"internal error while answering a request: {type(exc).__name__}: {escaped(str(exc))[:300]}")


def make_server(preview, stopping: threading.Event, host: str, port: int, *, connections: int = MAX_CONNECTIONS,
                streams: int = MAX_STREAMS, request_seconds: float = REQUEST_SECONDS) -> Server:
    """The server of ``preview``'s site on ``host``:``port`` (0: a free port), not yet serving.
    Raises OSError when it cannot listen."""
    return Server((host, port), handler_for(preview, stopping, request_seconds), connections=connections,
                  streams=streams, log=preview.log)


def _host_allowed(host: str | None, bound: str) -> bool:
    """The ``Host`` header names this machine: ``localhost``, a loopback address or the address the
    server is bound to (any port). Refusing other names stops DNS rebinding: a page on another
    origin whose name resolves to 127.0.0.1 cannot read the preview."""
    if not host:
        return False
    try:
        name = urllib.parse.urlsplit("//" + host).hostname or ""
    except ValueError:  # "[", a name that changes under NFKC…: not this machine's
        return False
    return name in ("localhost", "127.0.0.1", "::1", bound.strip("[]")) or name.endswith(".localhost")


def handler_for(preview, stopping: threading.Event, request_seconds: float = REQUEST_SECONDS):
    """The request handler: files of the site (pages with the reload script), and the events."""

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = request_seconds  # the socket's: a client that reads nothing is dropped after it
        head_only = False
        sent = False  # whether this request's answer has begun

        def setup(self) -> None:
            super().setup()
            self.rfile.close()  # the socket's own reader, replaced by one with a deadline
            self.incoming = _Deadline(self.connection, request_seconds)
            self.rfile = io.BufferedReader(self.incoming)

        def handle_one_request(self) -> None:
            self.incoming.start()  # the time and bytes of this request's line and headers
            self.sent = False
            try:
                super().handle_one_request()
            except _HeadTooLarge:
                self.close_connection = True
                if not self.sent:
                    self.send_error(431, "Request Header Fields Too Large")
                self.drain()

        def drain(self) -> None:
            """Read and drop what the client is still sending (at most :data:`DRAIN_BYTES`, for at
            most :data:`DRAIN_SECONDS`) before the connection is closed: closed with unread bytes,
            it would be reset, and the client could lose the answer before reading it."""
            try:
                self.connection.shutdown(socket.SHUT_WR)
                end, left = time.monotonic() + DRAIN_SECONDS, DRAIN_BYTES
                while left > 0 and end > time.monotonic():
                    self.connection.settimeout(end - time.monotonic())
                    data = self.connection.recv(min(left, 1 << 16))
                    if not data:
                        break
                    left -= len(data)
            except OSError:
                pass

        def log_message(self, *args) -> None:  # noqa: D401 - no access log in the terminal
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            try:
                self.answer()
            except (ConnectionError, TimeoutError):
                raise
            except Exception as exc:  # a bug: one line in the terminal, 500 to the browser
                preview.log(f"internal error while answering {escaped(self.path[:200])}: {type(exc).__name__}: {escaped(str(exc))[:300]}")
                if not self.sent:
                    self.send(500, "text/plain; charset=utf-8", b"internal error\n")
                self.close_connection = True

        def answer(self) -> None:
            if not _host_allowed(self.headers.get("Host"), self.server.server_address[0]):
                self.send(403, "text/plain; charset=utf-8", b"forbidden: this preview answers only to localhost\n")
                return
            try:
                url = urllib.parse.urlsplit(self.path)
            except ValueError:
                self.send(400, "text/plain; charset=utf-8", b"bad request: the path does not parse\n")
                return
            path = urllib.parse.unquote(url.path)
            if path == EVENTS and not self.head_only:
                self.events(urllib.parse.parse_qs(url.query))
                return
            rel = _site_path(path, preview.site)
            target = preview.site / rel if rel is not None else None
            try:
                if target is None:
                    raise ValueError(path)
                target.resolve().relative_to(preview.site.resolve())
                data = target.read_bytes()
            except (OSError, ValueError):
                missing = preview.site / "404.html"
                data = missing.read_bytes() if missing.is_file() else b"not found"
                self.send(404, "text/html; charset=utf-8", preview.page(data))
                return
            kind = _content_type(target.name)
            if kind.startswith("text/html"):
                data = preview.page(data)
            self.send(200, kind, data)

        def do_HEAD(self) -> None:  # noqa: N802 - http.server's name
            self.head_only = True  # one handler answers every request of a kept-alive connection
            try:
                self.do_GET()
            finally:
                self.head_only = False

        def send(self, status: int, kind: str, data: bytes, *, extra: tuple[tuple[str, str], ...] = ()) -> None:
            self.sent = True
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            for name, value in extra:
                self.send_header(name, value)
            self.end_headers()
            if not self.head_only:
                self.wfile.write(data)

        def events(self, query: dict[str, list[str]]) -> None:
            """The site's versions as Server-Sent Events. A stream that says which page it is
            (``page``, its URL path) and the version that page shows (``v``), as the reload
            script does, is sent that version first and then a newer one only once the page
            is stale (:meth:`Preview.update`), followed by `` page`` when only the page's own
            HTML changed (the script then puts it in place); that page counts as open meanwhile
            (rendered first after an edit). Without them, every version is sent, as a number.
            A ``page`` that names no file of the site, or a ``v`` that is not a version, is 400; so is
            a request in HTTP/0.9, which has no headers to say what the stream is."""
            if self.request_version == "HTTP/0.9":
                self.send(400, "text/plain; charset=utf-8", b"bad request: an event stream needs HTTP/1.0 or later\n")
                return
            page = None
            if query.get("page"):  # location.pathname is %-encoded
                page = _site_path(urllib.parse.unquote(query["page"][0]), preview.site)
                if page is None:
                    self.send(400, "text/plain; charset=utf-8", b"bad request: page names no file of the site\n")
                    return
            version = query.get("v", [""])[0]
            if version and not _VERSION.fullmatch(version):
                self.send(400, "text/plain; charset=utf-8", b"bad request: v is not a version number\n")
                return
            shown = int(version) if page is not None and version else None
            stream = self.server.to_stream()
            self.sent = True
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            if not stream:  # too many open pages: this one asks again later
                self.wfile.write(f"retry: {STREAM_RETRY_MS}\n\n".encode())
                return
            self._stream(page, shown)

        def _stream(self, page: str | None, shown: int | None) -> None:
            checked, sent = -1, None  # the last version looked at; the last one announced
            if page is not None:
                with preview.ready:
                    preview.viewing[page] += 1
            try:
                while not stopping.is_set():
                    announce, how = None, None
                    with preview.ready:
                        if preview.version == checked:
                            preview.ready.wait(KEEPALIVE_SECONDS)
                        if preview.version != checked:
                            checked = preview.version
                            how = None if shown is None else preview.update(page, shown)
                            if shown is None or how is not None:
                                announce = checked
                            elif sent is None:
                                announce = shown  # this page is as it was
                    if announce is not None and announce != sent:
                        data = f"{announce} page" if how == "page" else str(announce)
                        self.wfile.write(f"event: version\ndata: {data}\n\n".encode())
                        sent = announce
                    else:
                        self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
            except OSError:  # the page was closed (or stopped reading)
                pass
            finally:
                if page is not None:
                    with preview.ready:
                        preview.viewing[page] -= 1
                        if preview.viewing[page] <= 0:
                            del preview.viewing[page]

    return Handler


def _site_path(path: str, site: Path) -> str | None:
    """A URL path's file in the site (relative): ``/`` and folders are their ``index.html``;
    None when no file can have that name (a NUL byte, a component over :data:`NAME_MAX` bytes)."""
    rel = posixpath.normpath("/" + path).lstrip("/")
    if rel in ("", "."):
        return "index.html"
    try:
        if "\x00" in rel or any(len(os.fsencode(part)) > NAME_MAX for part in rel.split("/")):
            return None
        folder = (site / rel).is_dir()
    except (OSError, ValueError):  # not encodable, too long for the system, or refused by it
        return None
    return posixpath.join(rel, "index.html") if folder else rel


def _content_type(name: str) -> str:
    import mimetypes

    if name.endswith((".js", ".mjs")):
        return "text/javascript; charset=utf-8"
    kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
    return kind + "; charset=utf-8" if kind.startswith("text/") or kind == "application/json" else kind
