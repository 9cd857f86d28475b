"""Fuzzing ``rulebook resolve --batch``: streams of request lines made at random, read in random pieces.

Takes: a ``random.Random`` (a case is its seed and can be replayed) and the procedures of a
compiled rulebook. Produces: :func:`make_case(rng, procedures) -> (reads, how)`, the input as
the reads the command gets (each ``bytes``; a line may be split anywhere across them, a read
may end on a newline or hold many lines), mixing

* requests for the rulebook's procedures with valid inputs, then mutated (a field dropped,
  a value replaced by a hostile one: huge or long numbers, NaN, nested arrays, lone surrogates,
  control characters), with ``seed``, ``exact`` and ``explain`` at random;
* random JSON values, invalid UTF-8, raw surrogate bytes, binary noise, blank lines, ``\\r\\n``;
* lines over the 1 MiB limit (and exactly at it), whose newline is the last byte of a read, or the
  first of the next;

and the oracle: :func:`expected(reads)` splits the whole stream at once (the command reads it
piece by piece), :func:`batch_failure(resolver, reads)` runs :meth:`Resolver.run_batch` in this
process and :func:`command_failure(rulebook, reads, env)` runs the command with the reads written
to its pipe one by one; each returns the class of the failure, None when the batch behaved:
one JSON answer line per non-blank input line, in order; an error answer (with its line number)
exactly for the lines over the limit and the bad ones; exit status 1 exactly when a line failed;
no exception (no traceback on stderr), nothing left unanswered.

``tests/test_fuzz_batch.py`` runs a few hundred cases in CI; ``bench/fuzz_batch.py`` thousands.
"""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULEBOOK = ROOT / "tests" / "data" / "python" / "shooting.rules"
LIMIT = 1024 * 1024  # rulebook.compiler.commands.resolve.MAX_INPUT_BYTES (checked by the tests)

HOSTILE_VALUES = (
    0, -1, 1, 2, 6, 10**15, -(10**15), 10**40, 1.5, -0.0, 1e308, True, False, None, "", "x", "ñ", "\u202e", "\x1b[2J", "\x00",
    [], {}, [1, 2], {"a": 1}, "regular", "veterano", "a" * 5000, [[[[[]]]]],
)
RAW_VALUES = (
    "NaN", "Infinity", "-Infinity", "1e999", "9" * 5000, "-" + "9" * 4400, "0." + "3" * 5000, '"\\ud800"', '"\\udc80x"',
    '"\\u0000"', "[" * 70 + "]" * 70, "[" * 5000 + "]" * 5000, '{"a":' * 100 + "1" + "}" * 100, "1" * 20, "00", "+1", ".5",
    '"\\uZZZZ"', "'x'", "tru", "nul", "[1,]", '{"a" 1}',
)
NOISE = (
    b"\xff\xfe", b"\xed\xa0\x80", b"\xc3", b"\xc3\x28", b"\xf4\x90\x80\x80", b"\x00", b"\r", b"\x1b[31m", b"\t", b" ",
    b"{", b"}", b"[", b"]", b'"', b"\\", b",", b":", "ñ".encode(), "😀".encode(), b"\xe2\x80\xae",
)


def procedures_of(resolver) -> list[tuple[str, dict]]:
    """(name, a valid input) for each procedure of ``resolver`` (a
    :class:`rulebook.compiler.commands.resolve.Resolver`)."""
    import fuzzing

    out = []
    for name, proc in sorted(resolver.package.PROCEDURES.items()):
        out.append((name, {p.name: fuzzing.valid_input(p.type, proc.schema) for p in proc.params}))
    return out


def _request(rng: random.Random, procedures: list[tuple[str, dict]]) -> str:
    """One request line (text; may hold raw JSON fragments)."""
    name, valid = rng.choice(procedures)
    request: dict = {"procedure": name, "input": dict(valid)}
    if rng.random() < 0.15:
        request["procedure"] = rng.choice((name + "x", "", None, 1, ["x"], name.upper()))
    if rng.random() < 0.5:
        request["seed"] = rng.randrange(-10, 10**6)
    else:
        request["exact"] = True
    if rng.random() < 0.3:
        request["explain"] = True
    if rng.random() < 0.15:  # a field of the wrong type, or missing
        field = rng.choice(("seed", "exact", "explain"))
        request[field] = rng.choice((True, False, "1", None, 2**70, 1.0, -1))
        if rng.random() < 0.3:
            del request[field]
    if rng.random() < 0.1:
        request[rng.choice(("colour", "Seed", ""))] = 1
    data = request["input"]
    raw = None
    roll = rng.random()
    if roll < 0.35:
        pass  # a valid request
    elif roll < 0.5 and data:
        data[rng.choice(sorted(data))] = rng.choice(HOSTILE_VALUES)
    elif roll < 0.57 and data:
        data.pop(rng.choice(sorted(data)))
    elif roll < 0.62:
        request["input"] = rng.choice(HOSTILE_VALUES)
    elif roll < 0.75 and data:
        raw = rng.choice(sorted(data)), rng.choice(RAW_VALUES)
    if raw is None:
        return json.dumps(request, ensure_ascii=rng.random() < 0.5)
    key, value = raw
    data[key] = "@@RAW@@"
    return json.dumps(request, ensure_ascii=False).replace('"@@RAW@@"', value)


def _line(rng: random.Random, procedures: list[tuple[str, dict]]) -> bytes:
    roll = rng.random()
    if roll < 0.55:
        return _request(rng, procedures).encode("utf-8", "surrogatepass")
    if roll < 0.65:
        return rng.choice(RAW_VALUES).encode()
    if roll < 0.72:
        return rng.choice((b"", b" ", b"\t", b"\r"))
    if roll < 0.85:  # a request with noise put into it
        text = bytearray(_request(rng, procedures).encode("utf-8", "surrogatepass"))
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(text) + 1)
            text[at:at] = rng.choice(NOISE)
        return bytes(text)
    if roll < 0.9:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60))).replace(b"\n", b"")
    size = rng.choice((LIMIT - 1, LIMIT, LIMIT + 1, LIMIT + rng.randrange(2, 300_000), 3 * LIMIT))
    head = json.dumps({"procedure": procedures[0][0], "input": {"x": ""}})[:-3].encode()
    return head + b"a" * max(0, size - len(head) - 3) + b'"}}'


def make_case(rng: random.Random, procedures: list[tuple[str, dict]]) -> tuple[list[bytes], str]:
    """(the reads of one batch, how it was made)."""
    lines = [_line(rng, procedures) for _ in range(rng.randint(1, 12))]
    huge = sum(len(line) > LIMIT - 2 for line in lines)
    if huge > 1:  # one huge line a case is enough (and keeps a case fast)
        lines = [line for line in lines if len(line) <= LIMIT - 2] + [next(line for line in lines if len(line) > LIMIT - 2)]
        rng.shuffle(lines)
    ending = rng.choice((b"\n", b"\r\n"))
    stream = ending.join(lines) + (ending if rng.random() < 0.8 else b"")
    reads: list[bytes] = []
    at = 0
    style = rng.choice(("lines", "random", "tiny", "whole"))
    newlines = [m.end() for m in re.finditer(b"\n", stream)] if style == "lines" else []
    while at < len(stream):
        if style == "whole":
            step = 1 << 16
        elif style == "lines" and newlines:  # each line in one write, as a program talking line by line
            nxt = next((n for n in newlines if n > at), len(stream))
            step = min(nxt - at, 1 << 16) if rng.random() < 0.8 else max(1, (nxt - at) // 2)
        elif style == "tiny" and len(stream) < 4096:
            step = rng.randint(1, 7)
        else:
            step = rng.choice((1, 2, 17, 4096, 65535, 1 << 16, rng.randrange(1, 1 << 17)))
        reads.append(stream[at : at + step])
        at += step
    return reads, f"{len(lines)} lines, {len(stream)} bytes, {len(reads)} reads ({style})"


def expected(reads: list[bytes]) -> list[tuple[int, str]]:
    """(line number, "too long" or "answer") for each line the batch must answer, from the
    whole stream split at once."""
    stream = b"".join(reads)
    lines = stream.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    out = []
    for number, line in enumerate(lines, 1):
        if len(line) > LIMIT:
            out.append((number, "too long"))
        elif line.strip():
            out.append((number, "answer"))
    return out


def output_failure(reads: list[bytes], out: str, status: int | None) -> str | None:
    """The class of what is wrong with ``out`` (and the exit ``status``) for ``reads``, or None."""
    want = expected(reads)
    got = out.split("\n")
    if got and got[-1] == "":
        got.pop()
    else:
        return "output does not end with a newline" if got else ("no answer" if want else None)
    if len(got) != len(want):
        return f"{len(got)} answers for {len(want)} lines"
    failed = False
    for text, (number, kind) in zip(got, want):
        try:
            answer = json.loads(text)
        except ValueError:
            return "an answer is not JSON"
        if not isinstance(answer, dict):
            return "an answer is not an object"
        if "error" in answer:
            failed = True
            if answer.get("line") != number:
                return "an error names the wrong line"
            if kind == "too long" and "larger than" not in answer["error"]:
                return "a line over the limit answered otherwise"
            if any(ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 or 0x202A <= ord(ch) <= 0x202E for ch in answer["error"]):
                return "control character in an error"
        elif kind == "too long":
            return "a line over the limit was resolved"
        elif "procedure" not in answer:
            return "an answer is neither a result nor an error"
    if status is not None and status != (1 if failed else 0):
        return f"exit status {status} (a line {'failed' if failed else 'did not fail'})"
    return None


class _Reads:
    """A stream whose ``read`` gives the case's reads one by one, then b"" (no fileno)."""

    def __init__(self, reads: list[bytes]) -> None:
        self.reads = list(reads)

    def read(self, size: int = -1) -> bytes:
        return self.reads.pop(0) if self.reads else b""


class _Args:
    seed = None
    exact = False
    explain = False
    max_work = 2_000_000


def batch_failure(resolver, reads: list[bytes]) -> str | None:
    """Run the batch in this process, each read as the command would get it."""
    out = io.StringIO()
    try:
        status = resolver.run_batch(_Args(), _Reads(reads), out)
    except Exception as exc:
        return f"run_batch raised {type(exc).__name__}"
    return output_failure(reads, out.getvalue(), status)


def command_failure(rulebook: Path, reads: list[bytes], env: dict, pause: float = 0.002) -> str | None:
    """Run ``rulebook resolve --batch`` with ``reads`` written one by one (a short pause after each,
    so that the command's reads mostly end where the writes do)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "rulebook.compiler.commands.cli", "resolve", "--rulebook", str(rulebook), "--batch"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env,
    )
    import threading

    got: dict[str, bytes] = {}
    readers = [threading.Thread(target=lambda name, stream: got.__setitem__(name, stream.read()), args=(name, stream), daemon=True)
               for name, stream in (("out", proc.stdout), ("err", proc.stderr))]
    for reader in readers:
        reader.start()
    try:
        for data in reads:
            proc.stdin.write(data)
            proc.stdin.flush()
            time.sleep(pause)
        proc.stdin.close()
    except BrokenPipeError:
        proc.wait(timeout=60)
        return "the command stopped reading its input"
    try:
        status = proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return "timeout"
    for reader in readers:
        reader.join(timeout=10)
    err = got.get("err", b"").decode("utf-8", "replace")
    if "Traceback" in err or "internal error" in err:
        return "traceback on stderr"
    try:
        out = got.get("out", b"").decode("utf-8")
    except UnicodeDecodeError:
        return "output is not UTF-8"
    return output_failure(reads, out, status)
