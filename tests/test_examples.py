"""The rulebook's worked examples, and properties of every procedure's distributions."""

from __future__ import annotations

import pytest


def _examples(package):
    return list(package.examples.EXAMPLES)


def test_every_example_of_the_rulebook_passes(package):
    from rulebook.compiler.analysis.examples import run_examples

    results = run_examples(package)
    assert len(results) >= 50
    failed = [(r.title, r.src, r.failures, r.error) for r in results if not r.ok]
    assert not failed


def test_examples_are_in_rulebook_order(program, package):
    assert [(e.procedure, e.src) for e in _examples(package)] == [(x.procedure, x.span.src) for x in program.examples]


def test_an_expectation_is_a_check_or_a_comparison():
    from rulebook import runtime

    with pytest.raises(ValueError):
        runtime.Expectation(text="x", src="f.rules:1")
    with pytest.raises(ValueError):
        runtime.Expectation(text="x", src="f.rules:1", check=lambda result, _dist: True, op="==",
                            actual=lambda _dist: 1, expected=lambda _dist: 1)
    same = runtime.Expectation(text="x", src="f.rules:1", op="<=", actual=lambda _dist: 1, expected=lambda _dist: 2)
    assert same.holds(None, runtime.Distribution({0: 1}))


def test_example_distributions_sum_to_exactly_one(package):
    from rulebook import runtime

    for example in _examples(package):
        try:
            dist = runtime.exact(package.PROCEDURES[example.procedure].function, **example.inputs)
        except runtime.RuleError:
            continue
        assert sum(p for _, p in dist.items()) == 1


def test_every_procedure_has_an_example(package):
    with_examples = {e.procedure for e in _examples(package)}
    missing = sorted(set(package.PROCEDURES) - with_examples)
    assert not missing, missing


def test_manual_statement_regular_i6_vs_p7_is_one_third(package):
    from rulebook import runtime

    proc = package.PROCEDURES["resolucion_impacto"]
    dist = runtime.exact(proc.function, **proc.convert({"i_base": 6, "m": 0, "p": 7, "calidad": "regular"}))
    assert dist.probability(lambda r: r.impacto) == runtime.Fraction(1, 3)
    auto = runtime.exact(proc.function, **proc.convert({"i_base": 9, "m": 0, "p": 7, "calidad": "green"}))
    assert auto.probability(lambda r: r.impacto and r.automatico) == 1


@pytest.mark.parametrize("d_normal,m", [(4, -2), (4, 3), (3, 0), (6, -9)])
def test_damage_never_above_base_nor_negative(package, d_normal, m):
    from rulebook import runtime

    proc = package.PROCEDURES["resolucion_danio"]
    for modo in ("preciso", "area"):
        dist = runtime.exact(proc.function, **proc.convert({"d_normal": d_normal, "d_reducido": 2, "m": m, "modo": modo}))
        assert all(0 <= d <= d_normal for d in dist)


def test_examples_with_the_same_inputs_share_one_resolution():
    """Several examples about one roll (the same procedure and inputs) are resolved once per
    package; an input that is equal but not the same (``True`` and ``1``) is resolved on its own."""
    import types

    from rulebook import runtime
    from rulebook.compiler.analysis.examples import evaluate

    calls = []

    def resolver(ctx, x):
        calls.append(x)
        return x

    package = types.ModuleType("generated")
    package.PROCEDURES = {"p": types.SimpleNamespace(function=resolver)}

    def example(x):
        return runtime.Example("p", "t", "f.rules:1", {"x": x})

    first, second, other = evaluate(package, example(1)), evaluate(package, example(1)), evaluate(package, example(True))
    assert first.distribution is second.distribution
    assert calls == [1, True] and list(other.distribution) == [True] and type(next(iter(other.distribution))) is bool
    again = types.ModuleType("generated")
    again.PROCEDURES = package.PROCEDURES
    evaluate(again, example(1))  # another package: its own resolution
    assert calls == [1, True, 1]
