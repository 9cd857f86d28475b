"""Never a Python traceback, whatever the input.

Every bundled ``.rules`` file (content/1936 and tests/data) is mutated
deterministically (seeded ``random.Random``): a character deleted, a line
duplicated, two tokens swapped, the file truncated, punctuation inserted.
``driver.check`` must return diagnostics (possibly none) without raising, and
they must render as text and JSON with positions inside the mutated file.
A sample of the mutants also goes through ``python -m rulebook.compiler.commands.cli check``,
which must exit with 0 or 1 and never print a traceback.

Inputs that once crashed the compiler are kept at the end as regression tests.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CONTENT, DATA, ROOT

SEED = 1936
N_MUTANTS = 300
N_CLI = 20  # mutants that also go through the command line

SOURCES: list[Path] = sorted(CONTENT.glob("*.rules")) + sorted(DATA.rglob("*.rules"))
random.Random(SEED).shuffle(SOURCES)

_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|\w+|\.\.|->|[^\w\s]')
_PUNCT = [
    "{", "}", "(", ")", "[", "]", "|", ",", ":", ".", "..", "@", "#", '"', "<", ">", "-", "=", "+", "*", "/",
    "?", "!", "`", "'", "->", "“", "”", "—", "\\", "\n", "\t", "```", "```rules\n", "[[", "]]", "**",
]


def _delete_char(text: str, rng: random.Random) -> tuple[str, str]:
    if not text:
        return text, "delete (empty)"
    i = rng.randrange(len(text))
    return text[:i] + text[i + 1 :], f"delete {text[i]!r} at offset {i}"


def _duplicate_line(text: str, rng: random.Random) -> tuple[str, str]:
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    lines.insert(i, lines[i])
    return "\n".join(lines), f"duplicate line {i + 1}"


def _swap_tokens(text: str, rng: random.Random) -> tuple[str, str]:
    toks = list(_TOKEN.finditer(text))
    if len(toks) < 2:
        return text, "swap (too few tokens)"
    a = rng.randrange(len(toks))
    # mostly nearby tokens (a plausible typo), sometimes anywhere in the file
    b = min(len(toks) - 1, a + rng.randint(1, 6)) if rng.random() < 0.7 else rng.randrange(len(toks))
    if a == b:
        b = a - 1 if a else a + 1
    a, b = sorted((a, b))
    ta, tb = toks[a], toks[b]
    out = text[: ta.start()] + tb.group() + text[ta.end() : tb.start()] + ta.group() + text[tb.end() :]
    return out, f"swap {ta.group()!r} and {tb.group()!r} at offsets {ta.start()}, {tb.start()}"


def _truncate(text: str, rng: random.Random) -> tuple[str, str]:
    i = rng.randrange(len(text) + 1)
    return text[:i], f"truncate at offset {i}"


def _insert_punct(text: str, rng: random.Random) -> tuple[str, str]:
    i = rng.randrange(len(text) + 1)
    p = rng.choice(_PUNCT)
    return text[:i] + p + text[i:], f"insert {p!r} at offset {i}"


MUTATIONS = (_delete_char, _duplicate_line, _swap_tokens, _truncate, _insert_punct)


def _source(i: int) -> Path:
    return SOURCES[i % len(SOURCES)]  # every source in turn


def _mutation(i: int):
    return MUTATIONS[(i + i // len(SOURCES)) % len(MUTATIONS)]  # a different one on each pass


def make_mutant(i: int) -> tuple[str, str]:
    """The i-th mutant (text, description); the same for every run."""
    src = _source(i)
    rel = src.relative_to(ROOT).as_posix()
    rng = random.Random(f"{SEED}:{i}:{rel}")
    text = src.read_text(encoding="utf-8")
    steps = []
    ops = [_mutation(i)]
    if i % 4 == 3:  # a quarter of the mutants get one or two more random mutations
        ops += [rng.choice(MUTATIONS) for _ in range(rng.randint(1, 2))]
    for op in ops:
        text, what = op(text, rng)
        steps.append(what)
    return text, f"{rel}: " + "; ".join(steps)


def _id(i: int) -> str:
    return f"{i:03d}-{_mutation(i).__name__.strip('_')}-{_source(i).stem}"


def _write(tmp_path: Path, i: int) -> tuple[Path, str, str]:
    text, what = make_mutant(i)
    path = tmp_path / f"mutant_{i:03d}.rules"
    path.write_text(text, encoding="utf-8")
    return path, text, what


def _check_never_raises(path: Path, text: str, what: str) -> None:
    from rulebook.compiler.pipeline import driver
    from rulebook.rules_dsl.diagnostics import Diagnostic, render_all

    try:
        result = driver.check(path)
        rendered = render_all(result.diagnostics, result.sources)
        as_json = json.loads(render_all(result.diagnostics, result.sources, "json") or "[]")
    except Exception as exc:  # pragma: no cover - the failure report
        import traceback

        pytest.fail(f"{type(exc).__name__} on mutant ({what}):\n{traceback.format_exc()}\n--- mutant file: {path}")
    assert isinstance(result.diagnostics, list)
    assert len(as_json) == len(result.diagnostics)
    n_lines = len(text.splitlines())
    for d in result.diagnostics:
        assert isinstance(d, Diagnostic), d
        assert d.severity in ("error", "warning"), d
        assert d.message.strip(), d
        if d.span.file.endswith(path.name):
            assert 1 <= d.span.line <= n_lines + 1 and d.span.col >= 1, f"{what}: diagnostic outside the file: {d}"
    if result.diagnostics:
        assert rendered.endswith(("warning", "warnings")), rendered[-200:]


@pytest.mark.parametrize("i", range(N_MUTANTS), ids=[_id(i) for i in range(N_MUTANTS)])
def test_check_never_raises(i, tmp_path):
    path, text, what = _write(tmp_path, i)
    _check_never_raises(path, text, what)


CLI_CASES = [k * (N_MUTANTS // N_CLI) + k % len(MUTATIONS) for k in range(N_CLI)]


@pytest.fixture(scope="module")
def cli_runs(tmp_path_factory) -> dict[int, tuple[str, subprocess.CompletedProcess]]:
    """`python -m rulebook.compiler.commands.cli check <mutant>` for every CLI case, a few at a time."""
    from concurrent.futures import ThreadPoolExecutor

    folder = tmp_path_factory.mktemp("cli_mutants")

    def run(i: int) -> tuple[str, subprocess.CompletedProcess]:
        path, _, what = _write(folder, i)
        proc = subprocess.run(
            [sys.executable, "-m", "rulebook.compiler.commands.cli", "check", str(path)],
            cwd=ROOT, capture_output=True, text=True, timeout=120,
        )
        return what, proc

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return dict(zip(CLI_CASES, pool.map(run, CLI_CASES)))


@pytest.mark.parametrize("i", CLI_CASES, ids=[_id(i) for i in CLI_CASES])
def test_cli_check_never_prints_a_traceback(i, cli_runs):
    what, proc = cli_runs[i]
    assert "Traceback" not in proc.stderr, f"{what}\n{proc.stderr}"
    assert "internal error" not in proc.stderr, f"{what}\n{proc.stderr}"
    assert proc.returncode in (0, 1), f"{what}: exit {proc.returncode}\n{proc.stderr}"
    if proc.returncode == 1:
        assert re.search(r"\b\d+ errors?, \d+ warnings?$", proc.stdout.rstrip()), f"{what}: exit 1 without diagnostics\n{proc.stdout[-500:]}"


def test_mutants_are_deterministic_and_varied():
    texts = [make_mutant(i) for i in range(0, N_MUTANTS, 10)]
    assert texts == [make_mutant(i) for i in range(0, N_MUTANTS, 10)]
    assert len({t for t, _ in texts}) == len(texts)
    assert len(SOURCES) >= 10


# ---------------------------------------------------------------------------- former crashers
# Minimal inputs that once made `rulebook check` or `rulebook test` fail with an
# internal error; each must now be answered with diagnostics only.

_RB = '```rules\nrulebook t "T"\n\n{}\n```\n'

KNOWN_CRASHERS = {
    # a die `of` an undeclared enum: rolling it gives enum 'Caras', then `<` looks up self.decls['Caras']
    "die_of_unknown_enum_compared": _RB.format(
        'die D "D" of Caras = [a, b]\n\nprocedure p () -> bool {\n  return roll D < roll D\n}'
    ),
    # same, through shift()
    "die_of_unknown_enum_shifted": _RB.format(
        'die D "D" of Caras = [a, b]\n\nprocedure p () -> bool {\n  return shift(roll D, 1) == roll D\n}'
    ),
    # a die `of` a record: AttributeError 'RecordDecl' object has no attribute 'ordered'
    "die_of_record_compared": _RB.format(
        'record R { x: int }\ndie D "D" of R = [a]\n\nprocedure p () -> bool {\n  return roll D < roll D\n}'
    ),
    # deep nesting: RecursionError in the Lark transformer (about 140 levels of parentheses)
    "deeply_nested_parentheses": _RB.format("procedure p () -> int {\n  return " + "(" * 200 + "1" + ")" * 200 + "\n}"),
    # a long sum: RecursionError in the checker (left-deep Binary tree)
    "long_sum": _RB.format("procedure p () -> int {\n  return " + " + ".join(["1"] * 600) + "\n}"),
}


@pytest.mark.parametrize("name", sorted(KNOWN_CRASHERS))
def test_known_crashers(name, tmp_path):
    path = tmp_path / f"{name}.rules"
    text = KNOWN_CRASHERS[name]
    path.write_text(text, encoding="utf-8")
    _check_never_raises(path, text, name)
