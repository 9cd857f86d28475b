"""Tables keyed by a range beside other keys: the other keys pick the rows, the
range picks the row among them — checked, generated and resolved exactly."""

from __future__ import annotations

from fractions import Fraction

from conftest import DATA


def test_range_beside_another_key_resolves_exactly():
    from rulebook import runtime
    from rulebook.compiler.pipeline import driver, pyload

    result = driver.check(DATA / "tables" / "range_beside_other_keys.rules")
    assert result.ok, [d.render(result.sources) for d in result.diagnostics]
    package = pyload.compile_and_load(result.program)
    proc = package.PROCEDURES["p"]
    a = runtime.exact(proc.function, **proc.convert({"c": "a"}))
    assert {o: a[o] for o in a} == {1: Fraction(1, 2), 2: Fraction(1, 2)}
    b = runtime.exact(proc.function, **proc.convert({"c": "b"}))
    assert {o: b[o] for o in b} == {3: Fraction(1)}
