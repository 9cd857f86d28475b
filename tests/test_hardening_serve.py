"""Issue 29: ``rulebook serve`` and ``rulebook resolve --batch`` under hostile input, each case
ending in a result or a clear error within bounded time and memory.

* B1 — a ``--batch`` line over 1 MiB whose newline is the last byte of a read no longer ends
  the batch: the lines after it are answered; only the end of the input ends a batch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

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


