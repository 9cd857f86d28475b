"""Diagnostics a designer trusts, one case file each: tests/data/diagnostics/<case>.rules.

Each case is a small rulebook whose expected diagnostics are written inline, as mypy's
tests do, in a comment at the end of the line they are reported on::

    let roll = roll 2d6   # E: 'roll' is a reserved word   # H: e.g. 'roll_'

``# E: text`` expects an error on that line whose message holds ``text``; ``# W: text``
a warning; ``# H: text`` after one of them, that its hint holds ``text``. The errors
of a check must be exactly the expected ones (one per cause, no knock-on errors); a
warning not written is allowed (the unused-declaration lints are not the point here).
"""

from __future__ import annotations

import re

import pytest

from conftest import DATA

CASES = sorted((DATA / "diagnostics").glob("*.rules"))
_MARK = re.compile(r"#\s*([EWH]):\s*(.*?)\s*(?=#\s*[EWH]:|$)")


def expectations(text: str) -> list[tuple[int, str, str, str | None]]:
    """(line, severity, message fragment, hint fragment or None) of each ``# E:``/``# W:``."""
    out: list[tuple[int, str, str, str | None]] = []
    for number, line in enumerate(text.splitlines(), 1):
        for kind, fragment in _MARK.findall(line):
            if kind == "H":
                assert out and out[-1][0] == number, f"line {number}: # H: needs an # E: or # W: before it on its line"
                out[-1] = (*out[-1][:3], fragment)
            else:
                out.append((number, "error" if kind == "E" else "warning", fragment, None))
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_case(case):
    from rulebook.compiler.pipeline import driver
    from rulebook.rules_dsl.diagnostics import render_all

    result = driver.check(case)
    shown = render_all(result.diagnostics, result.sources)
    expected = expectations(case.read_text(encoding="utf-8"))
    assert any(severity == "error" for _, severity, _, _ in expected), "a case expects at least one error"
    left = list(result.diagnostics)
    for line, severity, fragment, hint in expected:
        found = next((d for d in left if d.span.line == line and d.severity == severity and fragment in d.message
                      and (hint is None or (d.hint and hint in d.hint))), None)
        assert found is not None, f"line {line}: no {severity} with {fragment!r}" + (f" and hint {hint!r}" if hint else "") + "\n" + shown
        left.remove(found)
    extra = [d for d in left if d.severity == "error"]
    assert not extra, "errors no comment expects:\n" + "\n\n".join(d.render(result.sources) for d in extra)
