"""Work a one-shot build hands to a second core: a forked worker that computes one value
while the build goes on, and writes it, pickled, to a pipe.

Reads: a function and its arguments, in the build's process (the worker is a fork: it
sees the build's state as it was). Produces: :meth:`Ahead.answer`, the function's value,
or None when the worker failed, was not started, or is slow; the caller then computes
it itself with the same function, so the build's output is the same bytes either way.
Entry point: :meth:`Ahead.start(task, *args) -> Ahead | None`.

The worker is a plain fork that waits on nothing: it ends by itself even when the build
is killed (its write then fails). Only for processes without other threads (a fork
copies none of them, and a lock one held would stay held) and with two cores or more:
``rulebook build`` (:class:`rulebook.compiler.pipeline.driver.Stages`); ``rulebook serve``
remembers its results instead. The task must be a module-level function (the tests
replace it by name).
"""

from __future__ import annotations

import os
from typing import Any, Callable

WAIT_SECONDS = 60.0
"""How long :meth:`Ahead.answer` waits by default for the worker before the caller does the work."""


class Ahead:
    """``task(*args)`` computed in a forked worker; :meth:`answer` is its value or None.
    ``wait``: how long :meth:`answer` waits for it (None: until the worker ends, for a task
    as long as the caller's own would be: doing it again after a timeout would only add)."""

    def __init__(self, task: Callable[..., Any], *args: Any, wait: float | None = WAIT_SECONDS) -> None:
        self._wait = wait
        self._done = False
        self._value: Any = None
        self._pid: int | None = None
        self._read: int | None = None
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: answer, then leave at once (no cleanup of the build's state)
            code = 1
            try:
                import gc
                import pickle

                gc.disable()  # short-lived: no collection touching the build's copied objects
                os.close(read)
                data = pickle.dumps(task(*args), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write, "wb") as out:
                    out.write(data)
                code = 0
            finally:
                os._exit(code)
        os.close(write)
        self._pid, self._read = pid, read

    @classmethod
    def start(cls, task: Callable[..., Any], *args: Any, wait: float | None = WAIT_SECONDS) -> Ahead | None:
        """A worker computing ``task(*args)`` when it can help (two cores or more, no other thread)."""
        import threading

        if (os.cpu_count() or 1) < 2 or threading.active_count() > 1 or not hasattr(os, "fork"):
            return None
        try:
            return cls(task, *args, wait=wait)
        except OSError:  # no process or pipe to be had: the build works it out
            return None

    def answer(self) -> Any:
        """The worker's value, or None when it fails or is not done within its wait."""
        if not self._done:
            self._value, self._done = self._receive(), True
        return self._value

    def _receive(self) -> Any:
        import pickle
        import select
        import time

        chunks: list[bytes] = []
        deadline = None if self._wait is None else time.monotonic() + self._wait
        try:
            while self._read is not None:
                left = None if deadline is None else deadline - time.monotonic()
                if (left is not None and left <= 0) or not select.select([self._read], [], [], left)[0]:
                    break
                chunk = os.read(self._read, 1 << 20)
                if not chunk:  # the worker closed its end: the whole answer is here
                    _, status = os.waitpid(self._pid, 0)  # type: ignore[arg-type]
                    self._pid = None
                    return pickle.loads(b"".join(chunks)) if status == 0 else None
                chunks.append(chunk)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            pass
        finally:
            self.close()
        return None

    def close(self) -> None:
        """Stop the worker if it is still at its task (the build went on without it, or
        failed), so that it does not outlive the build."""
        if self._pid is not None:
            import signal

            try:
                os.kill(self._pid, signal.SIGKILL)
                os.waitpid(self._pid, 0)
            except OSError:
                pass
            self._pid = None
        if self._read is not None:
            os.close(self._read)
            self._read = None
