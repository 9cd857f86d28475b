"""A hang guard for tests of hostile inputs: :func:`deadline` fails the test when
the code under it runs longer than the limit the issue sets (10 s by default).

It bounds a case, it does not measure speed (benchmarks under ``bench/`` do):
the inputs it guards finish in a small fraction of the limit, and exceed it
only when something went quadratic or unbounded again.
"""

from __future__ import annotations

import contextlib
import signal
import threading

LIMIT_SECONDS = 10.0


class Overtime(BaseException):
    """The guarded code ran past its deadline (a BaseException, so that no
    ``except Exception`` in the code under test swallows it)."""


@contextlib.contextmanager
def deadline(seconds: float = LIMIT_SECONDS, what: str = "this case"):
    """Raise :class:`Overtime` inside the block after ``seconds`` (main thread, POSIX)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def overtime(signum, frame):
        raise Overtime(f"{what} did not finish within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, overtime)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
