"""CI fuzzing of ``rulebook resolve --batch`` (:mod:`fuzz_batch`): request lines made at random,
read in random pieces. Case ``i`` is ``random.Random(i)``; ``bench/fuzz_batch.py`` runs thousands.

Each case, run in this process, must give one JSON answer line per non-blank input line, an error
with its line number for each bad or over-long line, the exit status of what failed, and no
exception, within the hang guard; a few cases run through the command itself, written to its
pipe read by read, and must leave nothing on stderr.
"""

from __future__ import annotations

import os
import random

import pytest

import fuzz_batch
from guards import deadline

CASES = 300  # in this process: about 4 s
COMMAND_CASES = 4  # through the command: about 1 s each


@pytest.fixture(scope="module")
def resolver():
    from rulebook.compiler.commands import resolve

    loaded = resolve.load(fuzz_batch.RULEBOOK, "json")
    assert loaded is not None
    return resolve.Resolver(*loaded)


def test_the_fuzzers_limit_is_the_commands():
    from rulebook.compiler.commands.resolve import MAX_INPUT_BYTES

    assert fuzz_batch.LIMIT == MAX_INPUT_BYTES


def test_batch_cases_in_process(resolver):
    procedures = fuzz_batch.procedures_of(resolver)
    failures = []
    for i in range(CASES):
        reads, how = fuzz_batch.make_case(random.Random(i), procedures)
        with deadline(what=f"case {i} ({how})"):
            problem = fuzz_batch.batch_failure(resolver, reads)
        if problem:
            failures.append(f"case {i}: {problem} ({how})")
    assert failures == []


def test_batch_cases_through_the_command(resolver, tmp_path):
    procedures = fuzz_batch.procedures_of(resolver)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    failures = []
    for i in range(COMMAND_CASES):
        reads, how = fuzz_batch.make_case(random.Random(10_000 + i), procedures)
        problem = fuzz_batch.command_failure(fuzz_batch.RULEBOOK, reads, env)
        if problem:
            failures.append(f"case {10_000 + i}: {problem} ({how})")
    assert failures == []


def test_the_oracle_sees_a_batch_that_stops_early(resolver):
    """The check fails a batch that drops lines (B1: the lines after a huge one) or a wrong status."""
    import io

    reads = [b'{"procedure": "impacto", "input": {"i": 1, "p": 1}, "seed": 1}\n']
    out = io.StringIO()
    assert resolver.run_batch(fuzz_batch._Args(), fuzz_batch._Reads(reads), out) == 0
    assert fuzz_batch.output_failure(reads, out.getvalue(), 0) is None
    assert fuzz_batch.output_failure(reads * 2, out.getvalue(), 0) == "1 answers for 2 lines"
    assert fuzz_batch.output_failure(reads, out.getvalue(), 1).startswith("exit status 1")
    assert fuzz_batch.output_failure(reads, "", 0) == "0 answers for 1 lines"
