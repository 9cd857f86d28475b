"""An arithmetic operator right after the last value of a roll (``count``, ``keep``, ``reroll``,
``explode``, ``chain``) is an error at the operator with the two rewrites (LANGUAGE.md, "What the
compiler reports": the cookbook's ``roll TwoD6 times n count > leadership - 1`` read as
``(roll … count > leadership) - 1``). Brackets on either side, and ``times n + n``, keep their meaning."""

from __future__ import annotations

import pytest

from test_data_types import _errors, _load, _run


def _proc(expr: str) -> str:
    return f'procedure p "P" (n: int, l: int) -> int {{\n  return {expr}\n}}\n'


@pytest.mark.parametrize("expr, op, word, rewrite", [
    ("roll d6 times n count > l - 1", "-", "count", "roll d6 times n count > (l - 1)"),
    ("roll d6 times n count >= l + 1", "+", "count", "roll d6 times n count >= (l + 1)"),
    ("1 + roll d6 times n count 6 * 2", "*", "count", "roll d6 times n count (6 * 2)"),
    ("roll d6 times n reroll 1 + l", "+", "reroll", "roll d6 times n reroll (1 + l)"),
    ("roll d6 times n explode 6 - l", "-", "explode", "roll d6 times n explode (6 - l)"),
    ("roll d6 times n explode 6 chain 2 + l", "+", "chain", "roll d6 times n explode 6 chain (2 + l)"),
    ("roll d6 times 3 keep highest 2 * 2", "*", "keep", None),
])
def test_an_operator_after_a_rolls_last_value_is_an_error_at_the_operator(tmp_path, expr, op, word, rewrite):
    errors = _errors(tmp_path, _proc(expr))
    assert len(errors) == 1, errors
    message, hint, line = errors[0]
    assert f"'{op}' here applies to the whole roll, not to the value after '{word}'" in message
    assert line == 2
    if rewrite:
        assert f"write '{rewrite}'" in hint, hint
    assert "put the roll in brackets" in hint


@pytest.mark.parametrize("expr, n, l, value", [
    ("(roll d6 times n count > l) - 1", 0, 3, -1),
    ("roll d6 times n count > (l - 1)", 0, 3, 0),
    ("roll d6 times n + n", 0, 1, 0),
    ("(roll d6 times n reroll 1\n  ) + l", 0, 4, 4),
])
def test_brackets_and_times_keep_their_meaning(tmp_path, expr, n, l, value):
    package = _load(tmp_path, _proc(expr))
    assert _run(package, "p", n=n, l=l) == value
