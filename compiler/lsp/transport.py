"""The server's end of the stdio connection: the bytes an editor writes, cut into
checked LSP messages for pygls, whatever the bytes are.

Reads: the server's stdin. Produces: each well-formed message, handed to the pygls
protocol; an LSP error answer for a request that cannot be read (not JSON, not
JSON-RPC, parameters of the wrong shape); and a one-line description of each piece
of the input that is not a message, for the log.

Entry points: :func:`stdin_reader` → :class:`FrameReader` (``next_frame()``,
blocking, run in a thread of its own) and :class:`Connection` (``run()``, the
coroutine that hands the messages to pygls; ``waiting()``, whether input is on its way).

A frame is ``Content-Length: N`` (other header fields are ignored), a blank line and
``N`` bytes of JSON. What a frame may be is bounded before anything is allocated:
a header of at most :data:`MAX_HEADER_BYTES`, a body of at most
:data:`MAX_FRAME_BYTES` (a larger one is read past and dropped, a few kilobytes at a
time). After a broken frame (a header that is not ``Name: value`` lines, no or two
``Content-Length``, a length that is not a number, a body shorter or longer than its
length) the reader resynchronises on the next ``Content-Length:`` header line: such
a line (with its carriage return and line feed) cannot occur in any JSON text, so
where it occurs inside a body, the body was cut short and the next frame begins
there. A broken frame costs that message and no other.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import select
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

from pygls.exceptions import JsonRpcException

from rulebook.compiler.check.loader import MAX_FILE_BYTES

MAX_FRAME_BYTES = 8 * MAX_FILE_BYTES
"""The largest message read: an open document of the largest ``.rules`` file the
loader reads, with room for JSON escapes (a larger document is answered with a
diagnostic that it is too large, see :mod:`rulebook.compiler.lsp.workspace`)."""

MAX_HEADER_BYTES = 8 * 1024
"""The longest header of a frame (editors send one or two short lines)."""

CHUNK_BYTES = 64 * 1024
"""How much is read from the input at a time."""

HEADER_END = b"\r\n\r\n"
HEADER_FIELD = re.compile(rb"([!-9;-~]+):[ \t]*([^\r\n]*)")
FRAME_START = re.compile(rb"Content-Length:", re.IGNORECASE)
NEXT_FRAME = re.compile(rb"Content-Length:[ \t]{0,8}[0-9]{1,18}\r\n", re.IGNORECASE)
"""A frame's header line: no JSON text holds one (a string cannot hold a line break), so
one inside a body means the body was cut short and a new frame begins there."""
NEXT_FRAME_BYTES = 48  # the longest match of NEXT_FRAME


def _prefixes(word: bytes, rest: bytes) -> bytes:
    """A pattern of any prefix of ``word`` followed by a prefix of the pattern ``rest``."""
    pattern = rest
    for byte in reversed(word):
        pattern = b"(?:" + re.escape(bytes([byte])) + pattern + b")?"
    return pattern


HEADER_BEGUN = re.compile(_prefixes(b"Content-Length:", b"(?:[ \t]{0,8}[0-9]{0,18}\r?)?")[3:-2] + rb"\Z", re.IGNORECASE)
"""The start of a frame's header line, at the end of what was read: no JSON text ends so
(a JSON text ends with a bracket, a quote, a digit, a lower-case letter or a space, and
a header line is not in a string); the bytes that follow tell whether a frame begins."""


class Frame(NamedTuple):
    """The body of one well-formed frame, or what was wrong with a piece of the input."""

    body: bytes | None
    problem: str | None = None


def _shown(data: bytes, limit: int = 40) -> str:
    """A piece of the input for a log line: ASCII, escapes for the rest, cut to ``limit``."""
    text = repr(bytes(data[:limit]))[2:-1]
    return text + ("…" if len(data) > limit else "")


def content_length(header: bytes) -> tuple[int | None, str | None]:
    """The length a frame's header gives its body, or what is wrong with the header."""
    lengths = []
    for line in header.split(b"\r\n"):
        field = HEADER_FIELD.fullmatch(line)
        if field is None:
            return None, f"a header line that is not 'Name: value' ('{_shown(line)}')"
        if field[1].lower() == b"content-length":
            lengths.append(field[2].strip())
    if len(lengths) != 1:
        return None, "a header without Content-Length" if not lengths else "a header with two Content-Length"
    value = lengths[0]
    if not value or not value.isdigit():
        return None, f"a Content-Length that is not a number of bytes ('{_shown(value)}')"
    return (int(value) if len(value) <= 18 else 10**18), None


def stdin_reader(stream) -> FrameReader:
    """A :class:`FrameReader` of ``stream``: of its file descriptor when it has one (a thread
    blocked on a buffered stream holds its lock, and Python aborts at exit on a lock held by
    a daemon thread), else of its ``read1``."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return FrameReader(stream.read1)

    def readable() -> bool:
        try:
            return bool(select.select([fd], [], [], 0)[0])
        except (OSError, ValueError):
            return False

    return FrameReader(lambda n: os.read(fd, n), readable)


class FrameReader:
    """Frames from a byte stream (``read_some(n)`` returns up to ``n`` bytes, blocking
    until there is at least one; ``b""`` at the end; ``readable()``, if given, says
    whether bytes are waiting), in bounded memory."""

    def __init__(self, read_some: Callable[[int], bytes], readable: Callable[[], bool] | None = None, max_body: int = MAX_FRAME_BYTES):
        self._read_some = read_some
        self._readable = readable
        self._max_body = max_body
        self._buffer = bytearray()
        self._ended = False

    @property
    def buffered(self) -> int:
        """How many bytes of input are held (read, not yet a frame)."""
        return len(self._buffer)

    def has_input(self) -> bool:
        """Are there bytes read but not yet a frame, or bytes waiting to be read?"""
        return bool(self._buffer) or (self._readable is not None and not self._ended and self._readable())

    def _fill(self) -> bool:
        """Read more input into the buffer (False at the end of the stream)."""
        if self._ended:
            return False
        data = self._read_some(CHUNK_BYTES)
        if not data:
            self._ended = True
            return False
        self._buffer += data
        return True

    def next_frame(self) -> Frame | None:
        """The next frame, or a piece of input skipped with its problem; None at the end."""
        while True:
            end = self._buffer.find(HEADER_END)
            if end < 0:
                if len(self._buffer) > MAX_HEADER_BYTES:
                    return self._skip_long_header()
                if not self._fill():
                    left = bytes(self._buffer)
                    self._buffer.clear()
                    return Frame(None, f"the input ended inside a header ('{_shown(left)}')") if left.strip() else None
                continue
            length, problem = content_length(bytes(self._buffer[:end]))
            if problem is not None:
                return self._skip_broken_header(end, problem)
            del self._buffer[: end + len(HEADER_END)]
            if length > self._max_body:
                return self._read_past(length)
            return self._body(length)

    def _skip_broken_header(self, end: int, problem: str) -> Frame:
        """Drop a broken header (it ends at ``end``): up to a ``Content-Length:`` inside it
        after its first byte, where a frame may begin, else the whole header."""
        start = FRAME_START.search(self._buffer, 1, end)
        skipped = start.start() if start is not None else end + len(HEADER_END)
        del self._buffer[:skipped]
        return Frame(None, f"{problem}; {skipped} bytes skipped")

    def _skip_long_header(self) -> Frame:
        """Drop input where no header ends within :data:`MAX_HEADER_BYTES`: all but the last
        of them, and of those up to a ``Content-Length:``, where a frame may begin."""
        keep_from = len(self._buffer) - MAX_HEADER_BYTES
        start = FRAME_START.search(self._buffer, keep_from)
        skipped = start.start() if start is not None else len(self._buffer) - NEXT_FRAME_BYTES
        del self._buffer[:skipped]
        return Frame(None, f"no header ends within {MAX_HEADER_BYTES} bytes; {skipped} bytes skipped")

    def _body(self, length: int) -> Frame:
        scanned = 0
        while True:
            until = min(len(self._buffer), length + NEXT_FRAME_BYTES)
            cut = NEXT_FRAME.search(self._buffer, max(0, scanned - NEXT_FRAME_BYTES), until)
            if cut is not None and cut.start() < length:
                del self._buffer[: cut.start()]
                return Frame(None, f"a message shorter than its Content-Length ({length} bytes); skipped up to the next message")
            scanned = until
            begun = HEADER_BEGUN.search(self._buffer, max(0, length - NEXT_FRAME_BYTES), length) if len(self._buffer) >= length else None
            if begun is not None and len(self._buffer) < length + NEXT_FRAME_BYTES and self._fill():
                continue  # the body may end inside the next frame's header: read on to tell
            if len(self._buffer) >= length:
                body = bytes(self._buffer[:length])
                del self._buffer[:length]
                return Frame(body)
            if not self._fill():
                got = len(self._buffer)
                self._buffer.clear()
                return Frame(None, f"the input ended inside a message ({got} of {length} bytes)")

    def _read_past(self, length: int) -> Frame:
        """Drop a body over the limit as it arrives (or up to the next frame, if one begins in it)."""
        problem = f"a message of {length} bytes, over the limit of {self._max_body}"
        dropped = 0
        while True:
            cut = NEXT_FRAME.search(self._buffer, 0, min(len(self._buffer), length - dropped + NEXT_FRAME_BYTES))
            if cut is not None and dropped + cut.start() < length:
                del self._buffer[: cut.start()]
                return Frame(None, f"{problem}; skipped up to the next message")
            if dropped + len(self._buffer) >= length:
                del self._buffer[: length - dropped]
                return Frame(None, f"{problem}; skipped")
            keep = min(len(self._buffer), NEXT_FRAME_BYTES)
            dropped += len(self._buffer) - keep
            del self._buffer[: len(self._buffer) - keep]
            if not self._fill():
                self._buffer.clear()
                return Frame(None, f"{problem}; the input ended inside it")


# ---------------------------------------------------------------------------- messages


PARSE_ERROR, INVALID_REQUEST = -32700, -32600


def error_answer(request_id: Any, code: int, message: str) -> bytes:
    """A JSON-RPC error answer as a frame (``request_id`` None when it could not be read)."""
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}).encode()
    return b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" % len(body) + body


def _request_id(raw: dict) -> Any:
    """The id of a request, if it has one a JSON-RPC answer can carry back."""
    value = raw.get("id")
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None


def handle_body(body: bytes, protocol, write: Callable[[bytes], Any]) -> str | None:
    """Hand one message to pygls' ``protocol``; answer a request that cannot be read with
    an LSP error (``write`` sends a frame). Returns what was wrong, for the log."""
    try:
        raw = json.loads(body)
    except (ValueError, RecursionError) as exc:  # not UTF-8 text, not JSON, nested too deeply
        write(error_answer(None, PARSE_ERROR, "the message is not JSON"))
        return f"a message that is not JSON ({type(exc).__name__}: {str(exc)[:80]})"
    if not isinstance(raw, dict) or raw.get("jsonrpc") != "2.0":
        if isinstance(raw, dict) and "method" in raw and _request_id(raw) is not None:
            write(error_answer(_request_id(raw), INVALID_REQUEST, "not a JSON-RPC 2.0 request"))
        return "a message that is not JSON-RPC 2.0"
    try:
        message = protocol.structure_message(raw)
    except JsonRpcException as exc:
        method = raw.get("method")
        if "method" in raw and "id" in raw:
            write(error_answer(_request_id(raw), exc.code, f"{exc.message or 'invalid request'}: the parameters of {str(method)[:80]!r} do not have the right shape"))
        return f"a message whose content does not have the right shape ({str(method)[:80]!r})"
    except (RecursionError, ValueError, TypeError) as exc:
        return f"a message that cannot be read ({type(exc).__name__})"
    if "id" in raw and "method" in raw and getattr(message, "id", None) is None:  # pygls would take it for a notification
        method = str(raw["method"])[:80]
        write(error_answer(_request_id(raw), INVALID_REQUEST, f"{method!r} is a notification: it takes no id"))
        return f"a notification sent as a request ({method!r})"
    protocol.handle_message(message)
    return None


class Connection:
    """The frames of a reader handed to pygls' ``protocol`` one at a time, as they arrive.

    The reader runs in a daemon thread (a blocked read of stdin must not keep the
    process alive once the client said exit), one frame ahead at most: the input
    waits in the pipe, not in memory, while the server is busy."""

    def __init__(self, reader: FrameReader, protocol, write: Callable[[bytes], Any], report: Callable[[str], None]):
        self.reader = reader
        self.protocol = protocol
        self.write = write
        self.report = report
        self._frames: asyncio.Queue[Frame | None] = asyncio.Queue(maxsize=1)
        self._offering = False  # the reading thread holds a frame the queue has no room for yet

    def waiting(self) -> bool:
        """Is input on its way that was not handled yet (a frame read, or bytes buffered or in
        the pipe)? The server waits for a burst of edits to end before checking."""
        return self._offering or not self._frames.empty() or self.reader.has_input()

    def _read_all(self, loop: asyncio.AbstractEventLoop) -> None:
        while True:
            try:
                frame = self.reader.next_frame()
            except OSError as exc:
                frame = Frame(None, f"cannot read the input: {exc.strerror or exc}")
            last = frame is None or frame.problem is not None and frame.problem.startswith("cannot read the input")
            try:
                self._offering = True
                asyncio.run_coroutine_threadsafe(self._frames.put(frame), loop).result()
                self._offering = False
                if last and frame is not None:
                    asyncio.run_coroutine_threadsafe(self._frames.put(None), loop).result()
            except (RuntimeError, asyncio.CancelledError):  # the loop has ended: so does the reading
                return
            if last:
                return

    async def run(self, stop: threading.Event) -> None:
        """Hand every frame to the protocol until the input ends or ``stop`` is set."""
        loop = asyncio.get_running_loop()
        threading.Thread(target=self._read_all, args=(loop,), name="lsp-input", daemon=True).start()
        while not stop.is_set():
            frame = await self._frames.get()
            if frame is None:
                return
            if frame.problem is not None:
                self.report(frame.problem)
                continue
            try:
                problem = handle_body(frame.body, self.protocol, self.write)
            except JsonRpcException as exc:
                problem = f"a message pygls refused ({exc.message})"
            if problem is not None:
                self.report(problem)
