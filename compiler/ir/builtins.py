"""The built-in functions of the rules language: one table, read by the checker
(names, arity), the Python emitter (how a call is written) and the language
reference (``LANGUAGE.md`` lists each with its documentation; a test checks it).

A :class:`Builtin`'s ``python`` is a template for the generated call: ``{args}``
is every argument, ``{0}``/``{1}`` one argument, ``{enum}`` the Python name of
the enum of the first argument, ``{rule}``/``{param}`` the ``repr`` of the
special rule and parameter named, ``{src}`` the ``repr`` of the source position.
Types are checked in :mod:`rulebook.compiler.check.expressions`.
"""

from __future__ import annotations

from dataclasses import dataclass

MANY = 99  # "or more" arguments


@dataclass(frozen=True, slots=True)
class Builtin:
    name: str
    signature: str
    arity: tuple[int, int]
    python: str
    doc: str


_TABLE = (
    Builtin("min", "min(a, b, …) · min(list)", (1, MANY), "_min({args})", "The smallest of the numbers, or of a list."),
    Builtin("max", "max(a, b, …) · max(list)", (1, MANY), "_max({args})", "The largest of the numbers, or of a list."),
    Builtin("clamp", "clamp(x, lo, hi)", (3, 3), "_rt.clamp({args})", "x kept within lo..hi."),
    Builtin("abs", "abs(x)", (1, 1), "_abs({args})", "The absolute value."),
    Builtin("floor", "floor(x)", (1, 1), "_rt.floor_({0})", "Rounds down to a whole number."),
    Builtin("ceil", "ceil(x)", (1, 1), "_rt.ceil_({0})", "Rounds up to a whole number."),
    Builtin("round", "round(x)", (1, 1), "_rt.round_({0})", "Rounds to the nearest whole number, halves away from zero."),
    Builtin("trunc", "trunc(x)", (1, 1), "_rt.trunc_({0})", "Drops the fraction (rounds towards zero)."),
    Builtin(
        "capped_sum", "capped_sum(cap, a, b, …)", (2, MANY), "_rt.capped_sum({args})",
        "The positive terms a, b, … added up to at most cap, plus every negative term (bonuses capped, penalties not).",
    ),
    Builtin("len", "len(list)", (1, 1), "_len({args})", "The number of elements of a list."),
    Builtin("sum", "sum(list)", (1, 1), "_sum({args})", "The sum of a list of numbers."),
    Builtin("any", "any(list)", (1, 1), "_any({args})", "True when some element of a list of true/false values is true."),
    Builtin("all", "all(list)", (1, 1), "_all({args})", "True when every element of a list of true/false values is true."),
    Builtin("ord", "ord(value)", (1, 1), "_t.ORD_{enum}[{0}]", "The position (from 0) of a value of an ordered enum."),
    Builtin(
        "shift", "shift(value, n)", (2, 2), "_rt.shift(_t.VALUES_{enum}, {0}, {1}, {src})",
        "The value n places further in an ordered enum (back when n < 0), kept within its ends.",
    ),
    Builtin(
        "probability", "probability(condition)", (1, 1), "_dist.probability(lambda result: bool({0}))",
        "The exact probability that a condition on `result` holds (in an example's expect or an odds table).",
    ),
    Builtin("has_rule", "has_rule(rules, rule)", (2, 2), "_rt.has_rule({0}, {rule})", "True when a list of special rules includes rule."),
    Builtin(
        "rule_param", "rule_param(rules, rule, PARAM)", (3, 3), "_rt.rule_param({0}, {rule}, {param})",
        "The value of a parameter of a special rule in a list of special rules, or none when the rule is absent.",
    ),
)

BUILTINS: dict[str, Builtin] = {b.name: b for b in _TABLE}
