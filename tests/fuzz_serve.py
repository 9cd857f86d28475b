"""Fuzzing ``rulebook serve`` over HTTP: raw requests made at random, sent on raw sockets.

Takes: a ``random.Random`` (a case is its seed and can be replayed). Produces:
:func:`make_request(rng) -> (data, how)`, the bytes of one connection, mixing

* request lines: odd or lower-case methods, bad and missing versions, HTTP/0.9, no spaces,
  many spaces, ``\\n`` or bare ``\\r`` line ends, NUL and control bytes, a request line over
  64 KiB;
* targets: the site's pages and the event stream (``v`` and ``page`` valid, ``²``, 5,000 digits,
  over 255 bytes, NUL), traversal (``..``, ``%2e%2e``, backslashes, ``//``), path components over
  255 bytes, invalid %-escapes, raw UTF-8 and invalid bytes, absolute URIs, ``*``;
* headers: ``Host`` of this machine or another (``[``, unicode, empty), a header of 70,000 bytes,
  200 headers, lines without a colon, folded lines, ``Content-Length`` with a body or a lie,
  ``Transfer-Encoding: chunked``, ``Expect: 100-continue``;
* requests cut anywhere (the connection then half-closed), two requests on one connection;

and :func:`exchange(port, data) -> outcome`: the request is sent, the connection half-closed and
read until it answers (a status line and its headers, or an HTTP/0.9 body and the close) or
closes; ``"timeout"`` past :data:`SECONDS`. :func:`failure(port, data, alive)` is the class of
what went wrong (no answer nor close in time, the server gone, a normal request no longer
answered), None otherwise. The terminal of the serve holding no traceback is checked by the
callers, which own the process.

``tests/test_fuzz_serve.py`` runs a few hundred cases in CI against a running serve;
``bench/fuzz_serve.py`` thousands.
"""

from __future__ import annotations

import random
import socket
import time

SECONDS = 5.0
"""How long a case may take to be answered or closed."""

PAGES = ("/", "/index.html", "/01-disparo.html", "/404.html", "/assets/", "/search/search_index.json", "/sitemap.xml", "/nope.html")
METHODS = ("GET", "GET", "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "CONNECT", "get", "G\x00T", "", "GET GET",
           "PRI", "X" * 300, "ÑÑ")
VERSIONS = ("HTTP/1.1", "HTTP/1.1", "HTTP/1.0", "", "HTTP/2.0", "HTTP/0.9", "HTTP/1.1.1", "HTTP/1", "HTTP/a.b", "http/1.1",
            "HTTP/1.10", "HTTP/99999999999999999999.1", "HTTP/1.1 extra")
HOSTS = ("localhost", "localhost", "127.0.0.1", "localhost:8000", "a.localhost", "evil.example", "[", "[::1]", "", "ＬＯＣＡＬＨＯＳＴ",
         "localhost\x00", "127.0.0.1:99999", "x" * 1000, "[::1", "local host")
SEGMENTS = ("..", "%2e%2e", "%2E%2e%2f", ".", "", "a" * 256, "b" * 300, "%00", "\x00", "%", "%zz", "%ff%fe", "ñ", "%C3%B1", "²",
            "\\..\\", "..%5c", "index.html", "01-disparo.html", "assets", "javascripts", "%2f", "//", "etc", "passwd", "😀", "\x7f",
            "\xff", "con", "a?b", "#frag", ";x", "~", "*")


def _events_query(rng: random.Random) -> str:
    parts = []
    if rng.random() < 0.8:
        parts.append("v=" + rng.choice(("0", "1", "7", "%C2%B2", "²", "9" * 5000, "9" * 16, "-1", "", "1.5", "0x10", "１", "1&v=2")))
    if rng.random() < 0.8:
        parts.append("page=" + rng.choice(("/", "%2F01-disparo.html", "/01-disparo.html", "/" + "p" * 300, "%00", "/../../etc/passwd",
                                           "", "/%ff", "/" + "a/" * 3000, "%2F%2E%2E")))
    if rng.random() < 0.2:
        parts.append(rng.choice(("x=1", "&&&", "=", "v", "page")))
    rng.shuffle(parts)
    return "&".join(parts)


def _target(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.2:
        return rng.choice(PAGES)
    if roll < 0.35:
        return "/__rulebook__/events?" + _events_query(rng)
    if roll < 0.42:
        return rng.choice(("*", "http://localhost/", "http://[/x", "//[x", "//evil.example/x", "https://localhost:1/01-disparo.html",
                           "", " ", "/" + "a" * 70_000, "/?" + "q" * 70_000))
    path = "/" + "/".join(rng.choice(SEGMENTS) for _ in range(rng.randint(1, 6)))
    if rng.random() < 0.3:
        path += "?" + rng.choice(("v=1", "a=%ff", "x" * 300, "page=/", "²=²", "&"))
    return path


def _headers(rng: random.Random) -> list[str]:
    out = []
    if rng.random() < 0.95:
        out.append("Host: " + (rng.choice(HOSTS) if rng.random() < 0.3 else "localhost"))
    roll = rng.random()
    if roll < 0.05:
        out.append("X-Big: " + "h" * 70_000)
    elif roll < 0.1:
        out += [f"X-{i}: {i}" for i in range(200)]
    elif roll < 0.15:
        out.append("no colon here")
    elif roll < 0.2:
        out += ["X-Folded: a", " folded continuation"]
    elif roll < 0.25:
        out.append("Transfer-Encoding: chunked")
    elif roll < 0.3:
        out.append("Expect: 100-continue")
    elif roll < 0.35:
        out.append("Connection: " + rng.choice(("keep-alive", "close", "upgrade", "x" * 500)))
    elif roll < 0.4:
        out.append("Content-Length: " + rng.choice(("0", "5", "-1", "x", "99999999999999999999", "3, 4")))
    elif roll < 0.45:
        out.append(": empty name")
    elif roll < 0.5:
        out.append("Accept: \x00\x1b[2J\u202e")
    return out


def make_request(rng: random.Random) -> tuple[bytes, str]:
    """(the bytes sent on one connection, how they were made)."""
    well_formed = rng.random() < 0.7  # a request line as a client writes it, to reach the handler with the target
    method = rng.choice(("GET", "GET", "HEAD")) if well_formed else rng.choice(METHODS)
    target = _target(rng)
    version = rng.choice(("HTTP/1.1", "HTTP/1.0")) if well_formed else rng.choice(VERSIONS)
    sep = " " if well_formed else rng.choice((" ", " ", "  ", "\t", ""))
    line = sep.join(part for part in (method, target, version) if part or rng.random() < 0.5)
    end = "\r\n" if well_formed and rng.random() < 0.9 else rng.choice(("\r\n", "\n", "\r"))
    text = line + end + "".join(h + end for h in _headers(rng)) + end
    data = text.encode("utf-8", "surrogatepass") if rng.random() < 0.6 else text.encode("latin-1", "replace")
    how = f"{method[:20]!r} {target[:60]!r} {version[:20]!r}"
    roll = rng.random()
    if roll < 0.1:
        data += b"hello"  # a body (or the next request's garbage)
    elif roll < 0.2:
        cut = rng.randrange(len(data) + 1)
        data, how = data[:cut], how + f", cut at {cut}"
    elif roll < 0.27:
        data += b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"
        how += ", then a second request"
    elif roll < 0.32:
        noise = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400)))
        data, how = noise, f"{len(noise)} random bytes"
    return data, how


def exchange(port: int, data: bytes, seconds: float = SECONDS) -> tuple[str, bytes]:
    """Send ``data`` on a new connection, half-close it, and read: ("answered", the first bytes)
    once a status line and its headers came (or a body then the close, HTTP/0.9), ("closed", b"")
    when the server closed without a word, ("timeout", what came) past ``seconds``."""
    deadline = time.monotonic() + seconds
    got = b""
    with socket.create_connection(("127.0.0.1", port), timeout=seconds) as sock:
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        except OSError:  # the server answered (and closed) before all of it was sent
            pass
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout", got[:200]
            sock.settimeout(left)
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                return "timeout", got[:200]
            except OSError:  # reset: closed with unread data
                chunk = b""
            if not chunk:
                return ("answered", got[:200]) if got else ("closed", b"")
            got += chunk
            if got.startswith(b"HTTP/") and b"\r\n\r\n" in got:
                return "answered", got[:200]
            if len(got) > 1 << 22:
                return "answered", got[:200]


def normal_request(port: int, seconds: float = SECONDS) -> bool:
    """Whether ``GET /`` is answered 200."""
    outcome, first = exchange(port, b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", seconds)
    return outcome == "answered" and first.startswith(b"HTTP/1.1 200 ")


def failure(port: int, data: bytes, alive, seconds: float = SECONDS) -> str | None:
    """The class of the failure of the server on one case, or None. ``alive()`` says whether
    the server's process still runs."""
    try:
        outcome, first = exchange(port, data, seconds)
    except OSError as exc:
        return f"cannot connect: {type(exc).__name__}" if alive() else "the server died"
    if not alive():
        return "the server died"
    if outcome == "timeout":
        return "no answer nor close in time"
    if first.startswith(b"HTTP/") and first[9:12] in (b"500",):
        return "500 answer"
    return None


TRACES = ("Traceback", "internal error", "Exception")


def terminal_failure(text: str) -> str | None:
    """What is wrong with the serve's terminal output ``text`` after fuzzing, or None."""
    for needle in TRACES:
        if needle in text:
            return f"{needle!r} in the terminal"
    return None
