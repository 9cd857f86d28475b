"""CI fuzzing of ``rulebook serve`` (:mod:`fuzz_serve`): random and mutated raw HTTP requests to a
running serve of a small rulebook. Case ``i`` is ``random.Random(i)``; ``bench/fuzz_serve.py`` runs
thousands.

Each case must be answered or closed within :data:`fuzz_serve.SECONDS`; the server must stay alive
and answer a normal request every 50 cases and after the last; its terminal must hold no traceback
(checked every 50 cases, so a failure names the cases around it).
"""

from __future__ import annotations

import random


import fuzz_serve
from test_serve import served  # noqa: F401  (the running serve, one per module)

CASES = 1500  # about 2 s once the serve runs


def test_random_requests_are_answered_and_leave_no_traceback(served):
    alive = lambda: served.proc.poll() is None  # noqa: E731
    failures = []
    for i in range(CASES):
        data, how = fuzz_serve.make_request(random.Random(i))
        problem = fuzz_serve.failure(served.port, data, alive)
        if problem:
            failures.append(f"case {i}: {problem} ({how})")
            if problem == "the server died":
                break
        if i % 50 == 49:
            if not fuzz_serve.normal_request(served.port):
                failures.append(f"after case {i}: a normal request is not answered")
            trace = fuzz_serve.terminal_failure(served.text())
            if trace:
                failures.append(f"cases {i - 49}..{i}: {trace}")
                break
    assert failures == [], "\n".join(failures) + "\n--- terminal ---\n" + served.text()[-3000:]
    assert fuzz_serve.normal_request(served.port) and alive()


def test_an_event_stream_asked_in_http_0_9_is_refused(served):
    """Found by a large run (case 2932): an HTTP/0.9 request for the event stream got a stream
    with no status line and no headers, which never ended. It is a 400 now, then closed."""
    outcome, first = fuzz_serve.exchange(served.port, b"GET /__rulebook__/events?v=1&page=/ HTTP/0.9\r\nHost: localhost\r\n\r\n")
    assert outcome == "answered" and first.startswith(b"bad request: an event stream needs HTTP/1.0")


def test_the_fuzzer_sees_a_server_that_neither_answers_nor_closes():
    """Against a socket that accepts and then says nothing, a case fails: the check can fail."""
    import socket
    import threading

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        held = []
        threading.Thread(target=lambda: held.append(listener.accept()), daemon=True).start()
        port = listener.getsockname()[1]
        assert fuzz_serve.failure(port, b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n", lambda: True, seconds=0.5) \
            == "no answer nor close in time"
        assert fuzz_serve.failure(port, b"GET / HTTP/1.1\r\n\r\n", lambda: False, seconds=0.5) == "the server died"
        for conn, _ in held:
            conn.close()
