"""SampleContext traces: structure, JSON and text rendering."""

import json
from dataclasses import dataclass
from fractions import Fraction as F

import pytest

from rulebook.runtime import (
    Bag,
    Counts,
    ExactContext,
    SampleContext,
    Trace,
    bag_draw,
    constant,
    pool_sum,
    sample,
    std_die,
)

SRC = "content/1936/06-disparo.rules"


@dataclass(frozen=True)
class Result:
    ok: bool
    ratio: F
    counts: Counts


def inner(ctx, n: int):
    ctx.enter("inner", "Tirada interna", "VI.14", f"{SRC}:200", {"n": n})
    ctx.step(1, "Dados", "VI.14", f"{SRC}:201")
    r = ctx.let("r", ctx.roll(pool_sum(std_die(6), n), "r", f"{SRC}:202"), f"{SRC}:202")
    return ctx.leave(r)


def outer(ctx, i_base: int, m: int):
    ctx.enter("outer", "Resolución", "VI.13", f"{SRC}:100", {"i_base": i_base, "m": m})
    ctx.step(1, "I efectivo = I base + M", "VI.13", f"{SRC}:120")
    i_efectivo = ctx.let("i_efectivo", i_base + m, f"{SRC}:121")
    ctx.step(2, "Tirada", "VI.13", f"{SRC}:122")
    t = ctx.let("t", inner(ctx, 2), f"{SRC}:123")
    c = ctx.roll(bag_draw(Bag("bolsa", (("a", 2), ("b", 2))), 2), "saca")
    return ctx.leave(Result(i_efectivo + t > 8, F(t, 3), c))


def test_trace_structure():
    result, trace = sample(outer, 6, 0, seed=5)
    root = trace.root
    assert root.name == "outer" and root.finished and root.result == result
    assert root.args == {"i_base": 6, "m": 0}
    assert [s.number for s in root.steps] == [1, 2]
    assert root.steps[0].events[0].name == "i_efectivo" and root.steps[0].events[0].value == 6
    nested = root.steps[1].events[0]
    assert nested.name == "inner" and nested.finished
    roll = nested.steps[0].events[0]
    assert roll.label == "r" and roll.description == "2d6" and roll.value == nested.result


def test_trace_json_is_serialisable():
    _, trace = sample(outer, 6, 0, seed=5)
    data = trace.to_json()
    text = json.dumps(data)
    assert json.loads(text) == data
    root = data["events"][0]
    assert root["kind"] == "procedure"
    assert isinstance(root["result"]["counts"], dict)
    assert isinstance(root["result"]["ratio"], (str, int))


def test_trace_text():
    _, trace = sample(outer, 6, 0, seed=5)
    text = trace.render_text()
    assert "1. I efectivo = I base + M [VI.13] (06-disparo.rules:120)\n     i_efectivo = 6" in text
    assert text.startswith("Resolución (outer) [VI.13] (06-disparo.rules:100)\n     datos: i_base = 6, m = 0")
    assert "     Tirada interna (inner) [VI.14] (06-disparo.rules:200)" in text
    assert "          r: 2d6 → " in text
    assert "saca: saca 2 de bolsa → (a: " in text
    assert "⇒ resultado: Result(ok: " in text


def test_trace_disabled_and_unfinished():
    ctx = SampleContext(1, trace=False)
    assert outer(ctx, 1, 1).ok in (True, False)
    assert ctx.trace is None
    ctx = SampleContext(1)
    ctx.enter("p", "P", "", "", {})
    ctx.roll(constant(3))
    assert "⇒ (sin resultado)" in ctx.trace.render_text()
    with pytest.raises(RuntimeError):
        Trace().leave(1)


def test_context_helpers_return_values():
    for ctx in (SampleContext(0), SampleContext(0, trace=False), ExactContext()):
        ctx.enter("p", "P", "", "", {})
        ctx.step(1, "s", "", "")
        assert ctx.let("x", 5) == 5
        assert ctx.leave("r") == "r"


def test_sample_context_rejects_non_random_values():
    from rulebook.runtime import RuleError

    with pytest.raises(RuleError):
        SampleContext(0).roll(3)
    with pytest.raises(RuleError):
        ExactContext().roll(3)


def test_compact_trace():
    _, trace = sample(outer, 6, 0, seed=5)
    lines = trace.render_compact().splitlines()
    assert lines[0] == "Resolución [VI.13]: i_base = 6, m = 0"
    assert lines[1] == "  1. I efectivo = I base + M: i_efectivo = 6"
    # a procedure that rolls dice is shown indented, bound to the name that keeps its result
    assert lines[3] == "     t = Tirada interna [VI.14]: n = 2" and lines[4].startswith("       1. Dados: 2d6 → ")
    assert lines[-1].startswith("⇒ resultado: Result(ok: ")
    assert "(06-disparo.rules" not in "\n".join(lines)  # positions are in the JSON form
    assert trace.render_compact(lang="en").splitlines()[-1].startswith("⇒ result: ")


def test_compact_values_are_abbreviated():
    from rulebook.runtime.trace import brief

    assert brief(tuple(range(100)), 30).endswith("… (+93)]") and len(brief(tuple(range(100)), 30)) <= 30
    assert brief("x" * 100, 20) == "x" * 19 + "…"

    @dataclass(frozen=True)
    class Perfil:
        nombre: str
        alcance: int

    @dataclass(frozen=True)
    class Efectos:
        a: int | None
        b: int | None
        c: tuple

    assert brief(Perfil("Sección de fusileros", 80)) == "Perfil «Sección de fusileros»"  # a catalog entry by its name
    assert brief(Efectos(None, 2, ())) == "Efectos(b: 2)"  # a record by the fields that hold something


def test_compact_lines_are_bounded():
    def wide(ctx):
        ctx.enter("wide", "Amplio " * 40, "I", f"{SRC}:1", {f"p{i}": "v" * 30 for i in range(10)})
        ctx.step(1, "Paso " * 60, "I", f"{SRC}:2")
        for i in range(300):
            ctx.let(f"valor_{i}", tuple(range(50)), f"{SRC}:3")
        return ctx.leave(tuple(range(1000)))

    _, trace = sample(wide, seed=1)
    text = trace.render_compact(width=100)
    assert max(len(line) for line in text.splitlines()) <= 100
    assert len(text) < 2000 and "(+" in text
