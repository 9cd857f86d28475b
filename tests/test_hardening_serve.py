"""Issue 29: ``rulebook serve`` and ``rulebook resolve --batch`` under hostile input, each case
ending in a result or a clear error within bounded time and memory.

* B1 — a ``--batch`` line over 1 MiB whose newline is the last byte of a read no longer ends
  the batch: the lines after it are answered; only the end of the input ends a batch.
* SV1 — a path component over 255 bytes, ``v=²``, a 5,000-digit ``v``, a ``page`` over 255 bytes,
  a NUL, a ``Host`` or path that does not parse: each an HTTP answer (404/400/403), no traceback.
* SV2 — the rulebook folder removed and copied back while served: the serve says so, watches the
  new folder and rebuilds; later edits are rebuilt.
* SV3 — the folder of a serve killed with ``kill -9`` is removed by the next serve; a live
  serve's folder, an older rulebook's (no owner file) and links are left alone.
* SV4 — connections past the cap are answered 503 and threads stay bounded; an idle or trickling
  connection is dropped after the request deadline, a request head is bounded in bytes (431);
  event streams outlive the deadline, with their own cap; a handler that breaks answers 500 and
  prints one line.

The serve-level cases run against one ``rulebook serve`` of a small rulebook (module fixture);
the bounds of SV4 are measured on a server in this process with small caps and deadlines.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from conftest import ROOT
from test_serve import PAGE, RULES, Served

# ---------------------------------------------------------------------------- B1: --batch


def test_batch_lines_end_only_at_the_end_of_the_input():
    """A line over the limit whose newline ends a read, then more lines: every line is counted once."""
    from rulebook.compiler.commands.resolve import batch_lines

    def lines(reads, limit=10):
        pieces = iter(reads + [b""])
        return [line for group in batch_lines(lambda: next(pieces), limit) for line in group]

    assert lines([b"x" * 8, b"x" * 8 + b"\n", b"ok\n"]) == [None, b"ok"]  # B1: "ok" was never read
    assert lines([b"x" * 11, b"\n", b"a\nb"]) == [None, b"a", b"b"]
    assert lines([b"x" * 10 + b"\n" + b"y" * 11 + b"\nz"]) == [b"x" * 10, None, b"z"]
    assert lines([b"a", b"b\n\n", b"c\n"]) == [b"ab", b"", b"c"]
    assert lines([b"\n"]) == [b""] and lines([]) == []


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """The command's environment, with a resolver cache of its own (filled by the first test)."""
    return {**os.environ, "XDG_CACHE_HOME": str(tmp_path_factory.mktemp("xdg"))}


def test_batch_goes_on_after_a_huge_line_fed_line_by_line(env):
    """As a program feeding ``--batch`` one line at a time: the huge line is refused, the next answered."""
    big = json.dumps({"procedure": "chequeo", "input": {"moral": 4, "x": "a" * 1_200_000}, "seed": 1})
    good = json.dumps({"procedure": "chequeo", "input": {"moral": 4}, "seed": 5})
    proc = subprocess.Popen(
        [sys.executable, "-m", "rulebook.compiler.commands.cli", "resolve", "--rulebook",
         str(ROOT / "tests" / "data" / "cli" / "failing_example.rules"), "--batch"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env,
    )
    proc.stdin.write(big.encode() + b"\n")
    proc.stdin.flush()
    first = json.loads(proc.stdout.readline())  # answered before the next line is written
    proc.stdin.write(good.encode() + b"\n")
    out, err = proc.communicate(timeout=60)
    assert first == {"line": 1, "error": "line 1 is larger than 1048576 bytes"}
    assert json.loads(out)["seed"] == 5 and proc.returncode == 1
    assert err == b""


def test_batch_survives_a_reader_that_goes_away(env):
    """The reader closes the output mid-batch: the command stops quietly, no traceback."""
    line = json.dumps({"procedure": "chequeo", "input": {"moral": 4}, "seed": 1}) + "\n"
    script = ("import subprocess, sys\n"
              "p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
              f"p.stdin.write({line!r}.encode()); p.stdin.flush(); p.stdout.readline(); p.stdout.close()\n"
              f"p.stdin.write({line!r}.encode() * 2000); p.stdin.close()\n"
              "sys.stderr.write(p.stderr.read().decode()); sys.exit(p.wait())\n")
    proc = subprocess.run([sys.executable, "-c", script, sys.executable, "-m", "rulebook.compiler.commands.cli", "resolve",
                           "--rulebook", str(ROOT / "tests" / "data" / "cli" / "failing_example.rules"), "--batch"],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)
    assert proc.stderr == "" and proc.returncode == 0


# ---------------------------------------------------------------------------- the serve


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hardening-serve")
    folder = tmp / "reglas"
    folder.mkdir()
    shutil.copy(RULES, folder / "reglas.rules")
    running = Served(folder, tmp)
    running.tmp = tmp
    yield running
    if running.proc.poll() is None:
        running.proc.kill()
        running.proc.wait()


def raw(port: int, data: bytes, seconds: float = 10.0) -> bytes:
    """Send ``data``, half-close, and read the answer until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=seconds) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        got = b""
        while chunk := sock.recv(65536):
            got += chunk
        return got


def status(port: int, target: str | bytes, host: str = "localhost") -> int:
    target = target.encode("latin-1") if isinstance(target, str) else target
    answer = raw(port, b"GET " + target + b" HTTP/1.1\r\nHost: " + host.encode() + b"\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 "), answer[:200]
    return int(answer[9:12])


def test_requests_that_named_nothing_servable_are_answered_without_a_traceback(served):
    mark = len(served.output)
    events = "/__rulebook__/events?"
    cases = {
        "/" + "a" * 300: 404,  # OSError: [Errno 36] File name too long
        "/x/" + "a" * 256 + "/y.html": 404,
        events + "v=%C2%B2&page=/": 400,  # '²'.isdigit()
        events + "v=" + "9" * 5000 + "&page=/": 400,  # int() refuses 5,000 digits
        events + "v=1&page=/" + "b" * 300: 400,
        events + "v=1&page=%00": 400,
        "/%00": 404,
        "//[x": 404,  # the path as an authority: urlsplit raised "Invalid IPv6 URL"
        "/" + "a/" * 3000: 404,
    }
    for target, expected in cases.items():
        assert status(served.port, target) == expected, target[:80]
    assert status(served.port, "/" + PAGE, host="[") == 403  # a Host that does not parse is no name of this machine
    assert status(served.port, "/" + PAGE) == 200
    time.sleep(0.3)  # anything the request threads print
    text = "".join(served.output[mark:])
    assert "Traceback" not in text and "Error" not in text, text[-3000:]


def test_idle_connections_are_capped_and_threads_stay_bounded(served):
    """2,000 idle connections once made 2,003 threads; now at most MAX_CONNECTIONS serve at once."""
    from rulebook.compiler.commands.serve_http import MAX_CONNECTIONS

    def threads() -> int:
        with open(f"/proc/{served.proc.pid}/status", encoding="ascii") as f:
            return int(next(line for line in f if line.startswith("Threads:")).split()[1])

    if not os.path.exists(f"/proc/{served.proc.pid}/status"):
        pytest.skip("no /proc")
    before = threads()
    idle = [socket.create_connection(("127.0.0.1", served.port), timeout=10) for _ in range(MAX_CONNECTIONS + 60)]
    try:
        time.sleep(0.5)
        assert threads() <= before + MAX_CONNECTIONS
        refused = idle[-1].recv(200)
        assert refused.startswith(b"HTTP/1.1 503 "), refused
    finally:
        for sock in idle:
            sock.close()
    deadline = time.monotonic() + 10
    while threads() > before + 2:
        assert time.monotonic() < deadline, threads()
        time.sleep(0.1)
    assert status(served.port, "/" + PAGE) == 200


def test_a_live_serves_folder_is_not_taken_for_a_leftover(served):
    from rulebook.compiler.commands import serve_work

    (mine,) = [p for p in served.tmp.iterdir() if p.name.startswith(serve_work.PREFIX)]
    assert (mine / serve_work.OWNER).read_text().strip() == str(served.proc.pid)
    assert serve_work.clean_leftovers(served.tmp) == []
    assert mine.is_dir()


def test_the_rulebook_folder_removed_and_put_back_is_watched_again(served):
    folder = served.folder
    saved = folder.parent / "saved"
    shutil.copytree(folder, saved)
    mark = len(served.output)
    shutil.rmtree(folder)
    served.wait_for_output("is gone", 30, mark)
    shutil.copytree(saved, folder)
    served.wait_for_output("is back; rebuilding", 30, mark)
    served.wait_for_output("reloading", 60, mark)
    served.edit("### 11. Dados de disparo", "### 11. Dados de disparo tras la copia", seconds=60)
    status_code, page = served.get(PAGE)
    assert status_code == 200 and "Dados de disparo tras la copia" in page


def test_a_killed_serves_folder_is_removed_by_the_next_serve(served):
    """kill -9 leaves the folder; the next serve removes it (before its own first build)."""
    from rulebook.compiler.commands import serve_work

    (left,) = [p for p in served.tmp.iterdir() if p.name.startswith(serve_work.PREFIX)]
    served.proc.kill()
    served.proc.wait()
    assert left.is_dir()
    env = {**os.environ, "TMPDIR": str(served.tmp)}
    proc = subprocess.Popen([sys.executable, "-m", "rulebook.compiler.commands.cli", "serve", str(served.folder), "--port", "0"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        first = proc.stdout.readline()
        assert "removed 1 folder" in first and "killed" in first, first
        assert not left.exists()
        assert "building" in proc.stdout.readline()
        assert [p for p in served.tmp.iterdir() if p.name.startswith(serve_work.PREFIX)]  # its own, while it runs
    finally:
        proc.send_signal(signal.SIGINT)
        rest = proc.communicate(timeout=60)[0]
    assert "Traceback" not in rest
    assert not [p for p in served.tmp.iterdir() if p.name.startswith(serve_work.PREFIX)]


# ---------------------------------------------------------------------------- SV3 in detail


def test_only_the_folders_of_dead_serves_are_removed(tmp_path):
    import fcntl

    from rulebook.compiler.commands import serve_work

    def folder(name: str, owner: bool = True):
        path = tmp_path / name
        path.mkdir()
        (path / "live").mkdir()
        (path / "live" / "big").write_bytes(b"x" * 1000)
        if owner:
            (path / serve_work.OWNER).write_text("1\n")
        return path

    dead = folder("rulebook-serve-dead")
    live = folder("rulebook-serve-live")
    older = folder("rulebook-serve-older", owner=False)  # an older rulebook's: no lock to ask
    unfinished = folder(".rulebook-serve-new-old", owner=False)
    os.utime(unfinished, (time.time() - 3600, time.time() - 3600))
    starting = folder(".rulebook-serve-new-now", owner=False)
    elsewhere = folder("elsewhere")
    (tmp_path / "rulebook-serve-link").symlink_to(elsewhere)
    (tmp_path / "rulebook-serve-file").write_text("not a folder")
    held = os.open(live, os.O_RDONLY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        removed = serve_work.clean_leftovers(tmp_path)
    finally:
        os.close(held)
    assert sorted(removed) == [".rulebook-serve-new-old", "rulebook-serve-dead"]
    assert not dead.exists() and not unfinished.exists()
    assert live.is_dir() and older.is_dir() and starting.is_dir() and (elsewhere / "live" / "big").is_file()
    assert (tmp_path / "rulebook-serve-file").is_file()


def test_a_claimed_folder_is_locked_while_held_and_gone_after(tmp_path, monkeypatch):
    from rulebook.compiler.commands import serve_work

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    logs: list[str] = []
    with serve_work.claimed(logs.append) as work:
        assert work.parent == tmp_path and work.name.startswith(serve_work.PREFIX)
        assert serve_work.clean_leftovers(tmp_path) == [] and work.is_dir()
    assert not work.exists() and list(tmp_path.iterdir()) == [] and logs == []


# ---------------------------------------------------------------------------- SV4 bounds, in this process


@pytest.fixture
def small_server(tmp_path):
    """A server of a two-page site with small caps: 4 connections, 2 streams, 1 s to send a request."""
    from rulebook.compiler.commands import serve_http
    from rulebook.compiler.commands.serve import Preview

    logs: list[str] = []
    preview = Preview(tmp_path / "reglas", tmp_path / "work", log=logs.append)
    preview.site.mkdir(parents=True)
    (preview.site / "index.html").write_text("<html><body>portada</body></html>", encoding="utf-8")
    stopping = threading.Event()
    server = serve_http.make_server(preview, stopping, "127.0.0.1", 0, connections=4, streams=2, request_seconds=1.0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server, preview, logs
    stopping.set()
    with preview.ready:
        preview.ready.notify_all()
    server.shutdown()
    server.server_close()


def _get(port: int) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
        return r.status


def _closed_by_the_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(100) == b""  # closed, without an answer
    except ConnectionResetError:
        return True


def test_idle_and_trickling_connections_are_dropped_at_the_request_deadline(small_server):
    server, preview, logs = small_server
    port = server.server_address[1]
    t0 = time.monotonic()
    idle = socket.create_connection(("127.0.0.1", port), timeout=3)
    trickle = socket.create_connection(("127.0.0.1", port), timeout=3)
    for byte in b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: sssss":  # a byte every 0.1 s: 4 s for the head
        try:
            trickle.send(bytes([byte]))
        except OSError:  # the server closed it
            break
        time.sleep(0.1)
    assert _closed_by_the_server(idle) and _closed_by_the_server(trickle)
    assert time.monotonic() - t0 < 4.5
    idle.close()
    trickle.close()
    assert _get(port) == 200
    assert logs == []


def test_a_request_head_is_bounded_in_bytes_however_it_is_split(small_server):
    """http.server alone takes 100 headers of 64 KiB (6.5 MB held by one request); now 256 KiB in all."""
    from rulebook.compiler.commands.serve_http import MAX_HEAD_BYTES

    server, preview, logs = small_server
    port = server.server_address[1]

    def head(headers: int, size: int) -> bytes:
        return b"GET / HTTP/1.1\r\nHost: localhost\r\n" + b"".join(b"X-%d: %s\r\n" % (i, b"h" * size) for i in range(headers)) + b"\r\n"

    assert len(head(60, 3000)) < MAX_HEAD_BYTES < len(head(90, 3000))
    assert raw(port, head(60, 3000)).startswith(b"HTTP/1.1 200 ")
    assert raw(port, head(90, 3000)).startswith(b"HTTP/1.1 431 ")
    assert raw(port, b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n" * 3).count(b"HTTP/1.1 200 ") == 3  # each request its own budget
    assert logs == []


def test_connections_past_the_cap_are_refused_and_come_back(small_server):
    server, preview, logs = small_server
    port = server.server_address[1]
    before = threading.active_count()
    held = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(4)]
    time.sleep(0.2)
    extra = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(20)]
    for sock in extra:
        assert sock.recv(200).startswith(b"HTTP/1.1 503 ")
    assert threading.active_count() <= before + 4 and server.connections == 4
    for sock in held + extra:
        sock.close()
    deadline = time.monotonic() + 5
    while server.connections:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert _get(port) == 200


def _stream(port: int):
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(b"GET /__rulebook__/events?v=0&page=%2F HTTP/1.1\r\nHost: localhost\r\n\r\n")
    return sock, sock.makefile("rb")


def _event(reader) -> bytes:
    while True:
        line = reader.readline()
        if not line or line.startswith((b"data: ", b"retry: ")):
            return line.strip()


def test_event_streams_outlive_the_request_deadline_with_their_own_cap(small_server):
    server, preview, logs = small_server
    port = server.server_address[1]
    streams = [_stream(port) for _ in range(2)]
    assert [_event(reader) for _, reader in streams] == [b"data: 0", b"data: 0"]
    refused, refused_reader = _stream(port)
    assert _event(refused_reader) == b"retry: 5000" and refused_reader.read() == b"\n"  # then closed: asks again later
    assert [_get(port) for _ in range(6)] == [200] * 6  # the streams hold no connection slot
    time.sleep(1.5)  # past the request deadline
    preview._bump(frozenset({"index.html"}))
    assert [_event(reader) for _, reader in streams] == [b"data: 1 page", b"data: 1 page"]
    assert server.streams == 2 and preview.viewing["index.html"] == 2
    for sock, reader in streams + [(refused, refused_reader)]:
        reader.close()
        sock.close()


def test_a_request_that_breaks_the_handler_is_a_500_and_one_line(small_server, monkeypatch):
    server, preview, logs = small_server
    monkeypatch.setattr(type(preview), "page", lambda self, data: 1 / 0)
    answer = raw(server.server_address[1], b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 500 ")
    assert len(logs) == 1 and logs[0].startswith("internal error while answering /: ZeroDivisionError")
