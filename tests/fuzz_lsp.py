"""Fuzzing the language server's input: LSP frames made at random, sent to a real
``rulebook lsp`` process over its stdin.

Takes: a ``random.Random`` (so a batch is its seed and can be replayed).
Produces: :func:`make_batch(rng) -> (frames, how)`, a few frames (bytes) of

* JSON-RPC messages with a method of the protocol or a made-up one, and params
  well-formed for the method (documents opened, edited and asked about at random
  places, some huge, non-``file:`` or outside any folder; renamed to good, clashing,
  reserved and malformed names; asked for code actions, inlay hints and formatting
  over random ranges) or random JSON (deep,
  huge numbers, lone surrogates), ids of every JSON type;
* broken frames: a missing, misspelt, doubled, negative, non-numeric or huge
  ``Content-Length``, a length shorter or longer than the body, a truncated body,
  bytes between frames, a body that is not UTF-8 or not JSON, a header with bare
  line feeds;

:class:`LspServer`, a ``rulebook lsp`` child process with the client's side of
the connection (a thread reads its answers, another its stderr); and
:func:`failure(server, frames) -> str | None`, the class of the server's
misbehaviour on a batch, None when it behaved: after the batch the server must
still run, answer a request within :data:`ANSWER_SECONDS`, have answered every
request of the batch that was well-formed, and never have written a traceback.

``shutdown`` and ``exit`` are not sent at random (after them a server rightly
answers nothing more); :func:`ends_cleanly` checks them once, at the end.

``tests/test_fuzz_lsp.py`` sends a few hundred frames in CI; ``bench/fuzz_lsp.py``
sends thousands and counts the failures by class.
"""

from __future__ import annotations

import json
import queue
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

from lsprotocol import types

ANSWER_SECONDS = 10.0
"""How long the server may take to answer the request after a batch (it answers in
milliseconds; the margin is for a loaded machine)."""

START_SECONDS = 60.0
"""How long the server may take to start and answer ``initialize``."""

RULEBOOK = {
    "a.rules": '```rules\nrulebook prueba "Prueba" version "1.0" lang "es"\nsection I "Uno"\nconst alcance "Alcance" = 3\n```\n\nVer [[alcance]].\n',
    "b.rules": '```rules\nprocedure doble "Doble" (n: int) -> int {\n  return n * alcance\n}\n```\n',
}
"""The rulebook the server works on: two small files, one of them kept open."""

METHODS = tuple(m for m in sorted(types.METHOD_TO_TYPES) if m not in ("shutdown", "exit"))
MADE_UP_METHODS = ("", "rulebook/ping", "textDocument/", "$/x", "a" * 300, "textDocument/hover/x", "ñ", "\u202e")
NEW_NAMES = ("nuevo", "alcance", "doble", "n", "roll", "1a", "", "ñandú", "a b", "\x00", "x" * 300, "\ud800", "result", "min", "_")
"""What a rename asks for: fresh names, names taken, reserved words, built-ins and things that are no names."""
EDITING_METHODS = ("textDocument/rename", "textDocument/prepareRename", "textDocument/codeAction", "textDocument/signatureHelp", "textDocument/inlayHint")
FORMATTING_METHODS = ("textDocument/formatting", "textDocument/rangeFormatting")
"""The formatter's requests (compiler/lsp/formatting.py), fuzzed with well-formed params (in :func:`_params`)
and chosen as often as the editing methods."""
TEXT_PIECES = ("```rules\n", "```\n", "const x = 1\n", "[[", "]]", "[[alcance]]", "procedure p(", "{", "}", "\n", " ", "😀", "\x00", "\ud800", "é", "x" * 100, "\r\n", "\t")


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def encode(message: dict) -> bytes:
    """A message as JSON bytes (lone surrogates escaped, as JSON allows)."""
    return json.dumps(message).encode()


# ---------------------------------------------------------------------------- random JSON


def _random_json(rng: random.Random, depth: int = 0):
    kind = rng.randrange(10 if depth < 4 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice((True, False))
    if kind == 2:
        return rng.choice((0, -1, 1, 2**31, -(2**63), 10**30, 7))
    if kind == 3:
        return rng.choice((0.5, -1e308, 1e-300, 3.0))
    if kind in (4, 5):
        return "".join(rng.choice(TEXT_PIECES) for _ in range(rng.randint(0, 5)))
    if kind in (6, 7):
        return [_random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    keys = ("uri", "textDocument", "position", "line", "character", "text", "range", "start", "end", "contentChanges", "version", "id", "x", "")
    return {rng.choice(keys): _random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def _uri(rng: random.Random, folder: Path) -> str:
    return rng.choice((
        (folder / "a.rules").as_uri(), (folder / "a.rules").as_uri(), (folder / "b.rules").as_uri(), (folder / "nuevo.rules").as_uri(),
        "file:///x.rules", "file:///", "file:///proc/self/x.rules", "untitled:Untitled-1", "http://example.com/a.rules", "",
        "file:///%00.rules", "file://host/share/a.rules", (folder / "a.txt").as_uri(), "file:///" + "a/" * 200 + "x.rules", "not a uri",
    ))


def _position(rng: random.Random) -> dict:
    pick = lambda: rng.choice((0, 0, 1, 2, 5, 40, 10**6, -1, 2**31 - 1))  # noqa: E731
    return {"line": pick(), "character": pick()}


def _text(rng: random.Random) -> str:
    if rng.random() < 0.05:
        return "x" * (1024 * 1024 + rng.randint(1, 2000))  # over the largest file the loader reads
    return "".join(rng.choice(TEXT_PIECES) for _ in range(rng.randint(0, 12)))


def _params(rng: random.Random, method: str, folder: Path):
    """Params shaped for ``method`` (most of the time), else random JSON."""
    if rng.random() < 0.2:
        return _random_json(rng)
    uri = _uri(rng, folder)
    doc = {"uri": uri}
    if method == "textDocument/didOpen":
        return {"textDocument": {"uri": uri, "languageId": "rules", "version": rng.randint(0, 9), "text": _text(rng)}}
    if method == "textDocument/didChange":
        change = {"text": _text(rng)}
        if rng.random() < 0.7:
            change["range"] = {"start": _position(rng), "end": _position(rng)}
        return {"textDocument": {"uri": uri, "version": rng.randint(0, 99)}, "contentChanges": [change for _ in range(rng.randint(0, 3))]}
    if method in ("textDocument/didClose", "textDocument/didSave", "textDocument/documentSymbol", "textDocument/semanticTokens/full"):
        return {"textDocument": doc}
    if method == "textDocument/references":
        return {"textDocument": doc, "position": _position(rng), "context": {"includeDeclaration": rng.random() < 0.5}}
    if method == "textDocument/rename":
        return {"textDocument": doc, "position": _position(rng), "newName": rng.choice(NEW_NAMES)}
    if method == "textDocument/codeAction":
        only = rng.choice((None, ["quickfix"], ["source"], ["source.fixAll"], ["refactor"], []))
        context = {"diagnostics": [], **({"only": only} if only is not None else {})}
        return {"textDocument": doc, "range": {"start": _position(rng), "end": _position(rng)}, "context": context}
    if method == "textDocument/inlayHint":
        return {"textDocument": doc, "range": {"start": _position(rng), "end": _position(rng)}}
    if method in FORMATTING_METHODS:
        options = {"tabSize": rng.choice((2, 4, 0, 2**31 - 1)), "insertSpaces": rng.random() < 0.8}
        if method == "textDocument/rangeFormatting":
            return {"textDocument": doc, "range": {"start": _position(rng), "end": _position(rng)}, "options": options}
        return {"textDocument": doc, "options": options}
    if method.startswith("textDocument/"):
        return {"textDocument": doc, "position": _position(rng)}
    if method == "workspace/didChangeWatchedFiles":
        return {"changes": [{"uri": _uri(rng, folder), "type": rng.randint(1, 3)} for _ in range(rng.randint(0, 3))]}
    if method == "workspace/didChangeWorkspaceFolders":
        added = [{"uri": rng.choice(("file:///", folder.as_uri(), "file:///tmp", "x:y")), "name": "w"}]
        return {"event": {"added": added, "removed": []}}
    if method == "workspace/symbol":
        return {"query": rng.choice(("", "a", "alcance", "\x00" * 50))}
    if method == "initialize":
        return {"capabilities": {}, "rootUri": rng.choice((None, "file:///", folder.as_uri()))}
    return _random_json(rng) if rng.random() < 0.5 else {}


# ---------------------------------------------------------------------------- frames


def _message(rng: random.Random, folder: Path, next_id) -> tuple[dict, bool]:
    """A JSON-RPC message and whether it is a request (has an id)."""
    method = rng.choice(MADE_UP_METHODS) if rng.random() < 0.08 else rng.choice(METHODS)
    if rng.random() < 0.35:
        method = rng.choice(("textDocument/didOpen", "textDocument/didChange", "textDocument/hover", "textDocument/completion", *EDITING_METHODS, *FORMATTING_METHODS))
    message: dict = {"jsonrpc": "2.0", "method": method}
    if rng.random() < 0.9:
        message["params"] = _params(rng, method, folder)
    is_request = rng.random() < 0.5
    if is_request:
        message["id"] = next_id() if rng.random() < 0.9 else rng.choice((None, 1.5, [1], {"a": 1}, True, "id-ñ", -5, 10**30))
    if rng.random() < 0.03:
        message["jsonrpc"] = rng.choice(("1.0", 2, None))
    return message, is_request


def _broken(rng: random.Random, body: bytes) -> tuple[bytes, str]:
    """A frame of ``body`` broken one way, and which."""
    kind = rng.randrange(13)
    n = len(body)
    if kind == 0:
        return b"Content-Length: %d\r\n\r\n" % max(0, n - rng.randint(1, 20)) + body, "short length"
    if kind == 1:
        return b"Content-Length: %d\r\n\r\n" % (n + rng.randint(1, 20)) + body, "long length"
    if kind == 2:
        return b"\r\n" + body, "no header"
    if kind == 3:
        return b"Content-Lenght: %d\r\n\r\n" % n + body, "misspelt header"
    if kind == 4:
        return b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % (n, n) + body, "two lengths"
    if kind == 5:
        return rng.choice((b"Content-Length: -5\r\n\r\n", b"Content-Length: abc\r\n\r\n", b"Content-Length: \r\n\r\n", b"Content-Length: 1e3\r\n\r\n")) + body, "bad length"
    if kind == 6:
        return rng.choice((b"Content-Length: 99999999999999\r\n\r\n", b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n")) + body, "huge length"
    if kind == 7:
        return frame(body)[: rng.randint(1, 20 + n)], "truncated"
    if kind == 8:
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 64))) + frame(body), "garbage before"
    if kind == 9:
        junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 200)))
        return frame(rng.choice((junk, b"\xff\xfe" + body, body.decode().encode("utf-16"), body[: n // 2]))), "body not JSON or not UTF-8"
    if kind == 10:
        return b"Content-Length: %d\n\n" % n + body, "bare line feeds"
    if kind == 11:
        return frame(b"[" * 100_000 + b"]" * 100_000), "deep JSON"
    return b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n" % n + body, "content type first (well-formed)"


def make_batch(rng: random.Random, folder: Path, next_id) -> tuple[list[tuple[bytes, int | None]], str]:
    """A few frames, each with the id of the request it carries when it is a well-formed
    request (the server must answer it); and how the batch was made."""
    frames: list[tuple[bytes, int | None]] = []
    how = []
    for _ in range(rng.randint(1, 8)):
        message, is_request = _message(rng, folder, next_id)
        body = encode(message)
        if rng.random() < 0.25:
            data, kind = _broken(rng, body)
            frames.append((data, None))
            how.append(f"{kind} {message.get('method', '')[:40]}")
        else:
            request_id = message.get("id")
            readable = isinstance(request_id, int) and not isinstance(request_id, bool) and message.get("jsonrpc") == "2.0"
            wanted = request_id if is_request and readable else None
            frames.append((frame(body), wanted))
            how.append(str(message.get("method", ""))[:40])
    return frames, "; ".join(how)


# ---------------------------------------------------------------------------- the server


class LspServer:
    """``rulebook lsp`` as a child process, initialized on a small rulebook in ``folder``
    (the workspace folder, unless ``workspace`` is given), ``a.rules`` open."""

    def __init__(self, folder: Path, workspace: Path | None = None):
        self.folder = folder
        for name, text in RULEBOOK.items():
            (folder / name).write_text(text, encoding="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rulebook.compiler.commands.cli", "lsp"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=folder,
        )
        self.answers: dict[object, dict] = {}
        self.published: list[tuple[str, list[str]]] = []  # (uri, messages) of each publishDiagnostics, the last 1,000
        self._arrived: queue.Queue = queue.Queue()
        self.stderr = bytearray()
        self.traceback = False
        self._ids = 1000
        threading.Thread(target=self._read_answers, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        self.request("initialize", {"processId": None, "rootUri": (workspace or folder).as_uri(), "capabilities": {}}, START_SECONDS)
        self.send(frame(encode({"jsonrpc": "2.0", "method": "initialized", "params": {}})))
        uri = (folder / "a.rules").as_uri()
        self.send(frame(encode({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "rules", "version": 1, "text": RULEBOOK["a.rules"]}}})))

    def next_id(self) -> int:
        self._ids += 1
        return self._ids

    def _read_answers(self) -> None:
        out = self.process.stdout
        while True:
            header = b""
            while not header.endswith(b"\r\n\r\n"):
                byte = out.read(1)
                if not byte:
                    return
                header += byte
            length = int(header.split(b"Content-Length: ", 1)[1].split(b"\r\n", 1)[0])
            message = json.loads(out.read(length))
            if "id" in message and "method" not in message:
                self.answers[json.dumps(message["id"])] = message
                self._arrived.put(message["id"])
            elif message.get("method") == "textDocument/publishDiagnostics":
                params = message["params"]
                self.published.append((params["uri"], [d["message"] for d in params["diagnostics"]]))
                del self.published[:-1000]

    def _read_stderr(self) -> None:
        while True:
            line = self.process.stderr.readline()
            if not line:
                return
            self.traceback |= b"Traceback" in line
            self.stderr += line
            del self.stderr[: max(0, len(self.stderr) - 20_000)]

    def send(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def notify(self, method: str, params) -> None:
        self.send(frame(encode({"jsonrpc": "2.0", "method": method, "params": params})))

    def wait_for(self, condition, seconds: float = ANSWER_SECONDS) -> bool:
        """Wait until ``condition()`` holds (False if it did not in time)."""
        deadline = time.monotonic() + seconds
        while not condition():
            if time.monotonic() > deadline or self.process.poll() is not None:
                return False
            time.sleep(0.02)
        return True

    def answered(self, request_id) -> bool:
        return json.dumps(request_id) in self.answers

    def request(self, method: str, params, seconds: float = ANSWER_SECONDS) -> dict | None:
        """Send a request and wait for its answer (None if it did not come in time)."""
        request_id = self.next_id()
        self.send(frame(encode({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})))
        deadline = time.monotonic() + seconds
        while not self.answered(request_id):
            left = deadline - time.monotonic()
            if left <= 0 or self.process.poll() is not None:
                return None
            try:
                self._arrived.get(timeout=min(left, 0.5))
            except queue.Empty:
                pass
        return self.answers[json.dumps(request_id)]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                stream.close()
            except OSError:
                pass


def failure(server: LspServer, frames: list[tuple[bytes, int | None]]) -> str | None:
    """What went wrong when ``server`` was sent ``frames`` (None: it behaved)."""
    try:
        for data, _ in frames:
            server.send(data)
    except (BrokenPipeError, OSError):
        return "died"
    probe = {"textDocument": {"uri": (server.folder / "a.rules").as_uri()}, "position": {"line": 3, "character": 7}}
    answer = server.request("textDocument/hover", probe)
    if server.process.poll() is not None:
        return f"died (exit status {server.process.returncode})"
    if answer is None:
        return "no answer"
    if "error" in answer:
        return f"an error for a valid request ({answer['error'].get('message', '')[:60]})"
    if server.traceback:
        return "traceback on stderr"
    unanswered = [i for _, i in frames if i is not None and not server.answered(i)]
    if unanswered:
        return "a well-formed request got no answer"
    return None


def ends_cleanly(server: LspServer) -> str | None:
    """``shutdown`` is answered and ``exit`` ends the process with status 0."""
    if server.request("shutdown", None) is None:
        return "shutdown not answered"
    server.send(frame(encode({"jsonrpc": "2.0", "method": "exit"})))
    try:
        status = server.process.wait(ANSWER_SECONDS)
    except subprocess.TimeoutExpired:
        return "exit did not end the process"
    return None if status == 0 else f"exit status {status}"
