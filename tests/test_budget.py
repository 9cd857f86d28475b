"""The work limit: every runaway case ends in a result or a clear error.

Each case of ``tests/data/budget/runaway.json`` resolves a procedure (exactly or
sampled, with the default limit or the one given) and expects either a result
or a :class:`rulebook.runtime.WorkLimitError` whose message holds the given fragments:
the procedure, the step, the roll and the inputs that made the work grow. An
input ``{"repeat": x, "times": n}`` stands for a list of ``n`` copies of ``x``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from functools import lru_cache

import pytest

from conftest import DATA, ROOT

CASES = json.loads((DATA / "budget" / "runaway.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _package(rulebook: str):
    from rulebook.compiler.pipeline import driver, pyload

    checked = driver.check(ROOT / rulebook)
    assert checked.ok
    return pyload.compile_and_load(checked.program)


def _expanded(value):
    if isinstance(value, dict) and set(value) == {"repeat", "times"}:
        return [value["repeat"]] * value["times"]
    if isinstance(value, dict):
        return {k: _expanded(v) for k, v in value.items()}
    return value


def _resolve(case):
    from rulebook import runtime

    proc = _package(case["rulebook"]).PROCEDURES[case["procedure"]]
    kwargs = proc.convert(_expanded(case["input"]))
    limit = case.get("max_work", runtime.DEFAULT_MAX_WORK)
    if case["mode"] == "exact":
        return runtime.exact(proc.function, max_work=limit, **kwargs)
    return runtime.sample(proc.function, seed=1, trace=False, max_work=limit, **kwargs)[0]


@pytest.mark.parametrize("case", CASES, ids=[f"{c['procedure']}-{c['mode']}-{i}" for i, c in enumerate(CASES)])
def test_runaway_case(case):
    from rulebook import runtime

    if case["expect"] == "result":
        assert _resolve(case) is not None
        return
    with pytest.raises(runtime.WorkLimitError) as failure:
        _resolve(case)
    message = str(failure.value)
    for fragment in case["expect"]:
        assert fragment in message, f"{fragment!r} not in {message!r}"


def test_traced_sampling_names_the_step_too():
    from rulebook import runtime

    proc = _package("content/1936").PROCEDURES["bajas_transporte_destruido"]
    with pytest.raises(runtime.WorkLimitError, match="en bajas_transporte_destruido, paso 1"):
        runtime.sample(proc.function, seed=1, puntos_baja_restantes=1, transportes_destruidos=10**9)


def test_a_context_counts_everything_run_with_it():
    """A SampleContext used for many resolutions counts them all; sample_many gives each run its own limit."""
    from rulebook import runtime

    fn = _package("content/1936").PROCEDURES["bajas_transporte_destruido"].function
    ctx = runtime.SampleContext(1, trace=False, max_work=100)
    for _ in range(50):
        fn(ctx, puntos_baja_restantes=12)  # 2 dice each: 100 in all
    with pytest.raises(runtime.WorkLimitError):
        fn(ctx, puntos_baja_restantes=12)
    assert sum(runtime.sample_many(fn, 200, 1, puntos_baja_restantes=12).values()) == 200


def test_the_command_line_raises_the_limit():
    def resolve(*extra):
        return subprocess.run(
            [sys.executable, "-m", "rulebook.compiler.commands.cli", "resolve", "bajas_transporte_destruido", "--exact", "--format", "text",
             "--input", '{"puntos_baja_restantes": 12, "transportes_destruidos": 40}', *extra],
            cwd=ROOT, capture_output=True, text=True,
        )

    refused = resolve("--max-work", "500")
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "trabajo excesivo" in refused.stderr and "--max-work" in refused.stderr
    raised = resolve("--max-work", "100000")
    assert raised.returncode == 0 and len(raised.stdout.splitlines()) == 161
