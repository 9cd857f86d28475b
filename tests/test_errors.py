"""Bad inputs and their diagnostics: tests/data/errors/<case>.rules → <case>.expected.

Each case is a small, complete rulebook file with at least one error. The
expected file holds the rendered diagnostics exactly as `rulebook check`
prints them. Regenerate with ``pytest --update-goldens`` and read the diff.
"""

from __future__ import annotations

import pytest

from conftest import DATA, compare_golden

CASES = sorted((DATA / "errors").glob("*.rules"))


def render_case(path) -> str:
    from rulebook.compiler.pipeline import driver
    from rulebook.rules_dsl.diagnostics import render_all

    result = driver.check(path)
    return render_all(result.diagnostics, result.sources) + "\n"


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_diagnostics(case, update_goldens):
    compare_golden(render_case(case), case.with_suffix(".expected"), update_goldens)


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_every_error_case_reports_an_error_with_position(case):
    from rulebook.compiler.pipeline import driver

    result = driver.check(case)
    assert not result.ok, "an error case must produce at least one error"
    for d in result.diagnostics:
        assert d.span.line >= 1 and d.span.col >= 1, d
