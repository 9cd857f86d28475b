"""The objects a generated package is made of: procedures, worked examples and odds tables.

Takes: what the compiler writes into a generated package — ``__init__.py``
builds one :class:`Procedure` per procedure, ``examples.py`` one
:class:`Example` per worked example, ``odds.py`` one :class:`Odds` per odds
table — with names, titles, source positions (``"file.rules:LINE"``), the
resolver functions and small functions over results.
Produces: those objects, read by ``rulebook test``, ``rulebook resolve``, the
odds tables and the site. :meth:`Procedure.convert` turns JSON input into
resolver arguments; :meth:`Procedure.in_outcome_order` lists a distribution
in the order of the procedure's results. Messages are in Spanish, for players.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .dice import COMPARISONS
from .distribution import Distribution
from .errors import InputError
from .messages import N_, language_of
from .records import Schema, from_input, shown

__all__ = ["Param", "Procedure", "Expectation", "Example", "OddsAxis", "Odds"]


@dataclass(frozen=True, slots=True)
class Param:
    """A parameter of a procedure: its name in the rules (and in JSON input), its
    type descriptor (see :mod:`rulebook.runtime.records`), whether it has a default, and the
    resolver's keyword for it when that differs from the name."""

    name: str
    type: tuple
    has_default: bool = False
    keyword: str | None = None

    @property
    def argument(self) -> str:
        """The keyword argument of the resolver function."""
        return self.keyword or self.name

    @property
    def required(self) -> bool:
        return not self.has_default and self.type[0] != "opt"


@dataclass(frozen=True, slots=True)
class Procedure:
    """A procedure of the rulebook: its resolver ``function(ctx, **arguments)``,
    parameters and result type (as written in the rules). ``result_order`` lists
    the values of the result, in order, when it is an ordered enum; ``status`` is
    the procedure's ``@status`` (``active``, ``deferred`` or ``not_playable``)."""

    name: str
    title: str
    ref: str
    src: str
    function: Callable[..., Any]
    params: tuple[Param, ...]
    result: str
    schema: Schema
    result_order: tuple[str, ...] | None = None
    status: str = "active"

    def __post_init__(self) -> None:
        """A checked resolver (:func:`rulebook.runtime.checks.resolver`) checks a direct call's
        arguments against this procedure's parameters."""
        mine = getattr(self.function, "_procedure", None)
        if mine is not None and not mine:
            mine.append(self)

    def __repr__(self) -> str:
        """Short: the name, parameters, result type and source line (not the schema and
        function the dataclass repr would print, hundreds of thousands of characters)."""
        params = ", ".join(p.name for p in self.params)
        return f"<Procedure {self.name}({params}) -> {self.result} at {self.src}>"

    def convert(self, inputs: Any) -> dict[str, Any]:
        """JSON inputs (a dict by parameter name) → keyword arguments for ``function``;
        :class:`~rulebook.runtime.errors.InputError` names the bad JSON path. A parameter left
        out takes its default; an optional one (``T?``) without a default is none."""
        try:
            return self._convert(inputs)
        except InputError as err:
            err.in_language(language_of(self.function))  # read in the package's language
            raise

    def _convert(self, inputs: Any) -> dict[str, Any]:
        if not isinstance(inputs, dict):
            raise InputError(N_("$: a JSON object with the parameters was expected"), None, {})
        known = {p.name for p in self.params}
        for key in inputs:
            if key not in known:
                raise InputError(N_("$: %(key)s is not a parameter of %(procedure)s"), None, {"key": shown(key), "procedure": self.name})
        arguments = {}
        for p in self.params:
            if p.name in inputs:
                arguments[p.argument] = from_input(inputs[p.name], p.type, self.schema, f"$.{p.name}")
            elif p.required:
                raise InputError(N_("$.%(param)s: the parameter is missing"), None, {"param": p.name})
            elif not p.has_default:  # optional without a default: left out means none
                arguments[p.argument] = None
        return arguments

    def in_outcome_order(self, distribution: Distribution) -> list[tuple[Any, Fraction]]:
        """``(outcome, probability)`` pairs in the order of the results: numbers and
        true/false by value, an ordered enum by its order (none first); other results
        in the distribution's own order."""
        items = list(distribution.items())
        if self.result_order is None:
            return items
        position = {value: i for i, value in enumerate(self.result_order)}
        return sorted(items, key=lambda item: -1 if item[0] is None else position.get(item[0], len(position)))


@dataclass(frozen=True, slots=True)
class Expectation:
    """One ``expect`` of a worked example, ``text`` as written in the rules.

    Either a comparison of two values of the distribution (``op`` with
    ``actual(dist)`` and ``expected(dist)``; ``actual`` is the side reading
    ``probability(…)`` when one does, so a failure can show both values), or a
    ``check(result, dist)`` that must be true — for every outcome when
    ``per_outcome`` (it reads ``result``), else once.
    """

    text: str
    src: str
    check: Callable[[Any, Distribution], Any] | None = None
    per_outcome: bool = False
    op: str | None = None
    actual: Callable[[Distribution], Any] | None = None
    expected: Callable[[Distribution], Any] | None = None

    def __post_init__(self) -> None:
        comparison = self.op is not None and self.actual is not None and self.expected is not None
        if comparison == (self.check is not None) or (comparison and self.per_outcome):
            raise ValueError(f"{self.src}: an expectation is either a check or a comparison of two values")

    def holds(self, result: Any, distribution: Distribution) -> bool:
        """Whether the expectation holds for one outcome ``result`` of ``distribution``."""
        if self.check is not None:
            return bool(self.check(result, distribution))
        return bool(COMPARISONS[self.op](self.actual(distribution), self.expected(distribution)))


@dataclass(frozen=True, slots=True)
class Example:
    """A worked example: ``procedure`` resolved with ``inputs`` (keyword arguments of
    its function) must meet every expectation, or, when ``expected_error`` is a text,
    stop with a rule error whose message contains it."""

    procedure: str
    title: str
    src: str
    inputs: Mapping[str, Any]
    expectations: tuple[Expectation, ...] = ()
    expected_error: str | None = None


@dataclass(frozen=True, slots=True)
class OddsAxis:
    """One axis of an odds table: the variable ``name`` takes each of ``values``."""

    name: str
    title: str
    values: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Odds:
    """An odds table: exact probabilities of ``procedure`` over a grid of inputs.

    ``inputs(row, column, group)`` gives the procedure's keyword arguments
    (``column`` and ``group`` are None without ``columns``/``each``). ``kind`` is
    ``"value"`` (``cell(result, dist, row, column, group)`` is the same for every
    result, e.g. a probability) or ``"outcomes"`` (``cell(result, row, column, group)``
    is grouped into columns by its value); the cell reads the axes' values as the
    inputs do. ``each`` makes one grid per value, e.g. per catalog entry.
    """

    name: str
    title: str
    ref: str
    src: str
    procedure: str
    rows: OddsAxis
    inputs: Callable[[Any, Any, Any], dict[str, Any]]
    cell: Callable[..., Any]
    kind: str = "value"
    columns: OddsAxis | None = None
    each: OddsAxis | None = None


@dataclass(frozen=True, slots=True)
class MatchupSide:
    """A side of a matchup: ``name`` takes each entry of the ``catalogs`` (only ``ids``, when
    given); ``data`` holds each catalog's entries (id → record), in the same order."""

    name: str
    title: str
    catalogs: tuple[str, ...]
    ids: tuple[str, ...] | None = None
    data: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class Matchup:
    """A matchup: how a pairing (attacker, its weapon, target, quality) is resolved by
    ``procedure`` and what is measured. Every callable takes the axes' values in the
    order (attacker, weapon, target, quality, state, option), None where the matchup has no
    such axis (``option``: every value is tried, the best taken): ``inputs`` the procedure's keyword arguments, ``when`` whether the
    pairing is fought, ``cost`` and ``category`` the attacker's (None: its catalog's
    ``@cost_field``, its catalog); ``weight(target)`` its weight in the field (None: 1);
    ``weapons(attacker)`` the list ``weapon`` goes
    through; ``measure(result, …)`` the value read on each outcome (``measure_kind``
    "mean": its expected value; "probability": the chance it is true). An engagement
    (``start`` given) repeats the procedure from ``start(…)`` until one of ``ends``
    ((kind, condition(state, …))) holds (``measure_kind`` "win")."""

    name: str
    title: str
    ref: str
    src: str
    procedure: str
    attacker: MatchupSide
    target: MatchupSide
    inputs: Callable[..., dict[str, Any]]
    measure_kind: str = "mean"
    measure: Callable[..., Any] | None = None
    weapon: OddsAxis | None = None
    weapons: Callable[[Any], Any] | None = None
    combine: str = "best"
    quality: OddsAxis | None = None
    option: OddsAxis | None = None
    when: Callable[..., Any] | None = None
    cost: Callable[..., Any] | None = None
    category: Callable[..., Any] | None = None
    weight: Callable[[Any], Any] | None = None
    start: Callable[..., Any] | None = None
    ends: tuple[tuple[str, Callable[..., Any]], ...] = ()
    rounds: int = 10
