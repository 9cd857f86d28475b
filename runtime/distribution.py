"""Exact distributions and sampling of resolvers.

Takes: a resolver ``fn(ctx, *args, **kwargs)`` (generated code, or any
function that gets its randomness only from ``ctx``) and its arguments.
Generated packages come in two forms (see :func:`traced_by`): fast resolvers,
which only roll dice, and their traced twins, which also report every step,
binding and roll and say what each roll's future depends on.
Produces:

* :func:`exact` — the exact :class:`Distribution` of ``fn``'s result, found by
  replaying the traced twin over the outcomes of its rolls, each distinct
  state explored once (see :class:`~rulebook.runtime.context.ExactContext`);
* :func:`sample` — one random result and, with ``trace=True``, its
  :class:`~rulebook.runtime.trace.Trace` (recorded by the traced twin);
* :func:`sample_many` — result frequencies over many random runs.

All three stop with a :class:`~rulebook.runtime.context.WorkLimitError` past
``max_work`` units of work. Results must be hashable values (ints, Fractions,
strs, bools, None, tuples, Counts, frozen dataclasses) so equal results can be
merged.
"""

from __future__ import annotations

import gc
import random
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

from .context import DEFAULT_MAX_PATHS, DEFAULT_MAX_WORK, ExactContext, SampleContext, WorkLimitError, _Session, _where
from .errors import RuleError
from .messages import N_, language_of
from .numbers import normalize
from .trace import Trace
from .values import number_text, sort_key, sorted_by_key, to_jsonable

__all__ = ["Distribution", "exact", "sample", "sample_many", "traced_by", "traced"]


class Distribution:
    """An immutable finite distribution: outcomes with exact probabilities.

    Behaves like a read-only mapping ``outcome -> Fraction``: iteration yields
    the outcomes (sorted by :func:`rulebook.runtime.values.sort_key`), ``d[x]`` is the
    probability of ``x`` (``0`` for an impossible outcome), ``x in d`` tells
    whether ``x`` is possible, ``items()`` gives ``(outcome, probability)``.
    """

    __slots__ = ("_items", "_map")

    def __init__(self, weights: dict[Any, Fraction] | Iterator[tuple[Any, Fraction]] | tuple = ()) -> None:
        merged: dict[Any, Fraction] = {}
        pairs = weights.items() if isinstance(weights, dict) else weights
        for outcome, p in pairs:
            if p < 0:
                raise ValueError(f"negative probability {p} for {outcome!r}")
            if p:
                merged[outcome] = merged.get(outcome, 0) + Fraction(p)
        self._set(merged)

    @classmethod
    def from_weights(cls, weights: dict[Any, int] | Iterable[tuple[Any, int]], denominator: int) -> Distribution:
        """The distribution ``outcome -> weight / denominator`` (positive integer weights),
        from a dict or from ``(outcome, weight)`` pairs of distinct outcomes."""
        dist = cls.__new__(cls)
        pairs = weights.items() if isinstance(weights, dict) else weights
        dist._set({outcome: Fraction(w, denominator) for outcome, w in pairs})
        return dist

    def _set(self, merged: dict[Any, Fraction]) -> None:
        """Take ``merged`` (a dict no one else holds) as the distribution's mapping."""
        object.__setattr__(self, "_items", tuple(sorted_by_key(merged.items())))
        object.__setattr__(self, "_map", merged)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Distribution is immutable")

    # Reading ---------------------------------------------------------------
    def items(self) -> tuple[tuple[Any, Fraction], ...]:
        """``((outcome, probability), ...)`` sorted by outcome."""
        return self._items

    def outcomes(self) -> tuple[Any, ...]:
        """The possible outcomes, sorted."""
        return tuple(o for o, _ in self._items)

    def __getitem__(self, outcome: Any) -> Fraction:
        return self._map.get(outcome, Fraction(0))

    def __contains__(self, outcome: object) -> bool:
        return outcome in self._map

    def __iter__(self) -> Iterator[Any]:
        return (o for o, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def total(self) -> Fraction:
        """Sum of all probabilities (1 for a distribution from :func:`exact`)."""
        return sum((p for _, p in self._items), Fraction(0))

    def probability(self, pred: Callable[[Any], Any]) -> Fraction:
        """Probability that ``pred(outcome)`` is true."""
        return sum((p for o, p in self._items if pred(o)), Fraction(0))

    def map(self, f: Callable[[Any], Any]) -> Distribution:
        """Distribution of ``f(outcome)`` (outcomes with equal images are merged)."""
        return Distribution((f(o), p) for o, p in self._items)

    def mean(self) -> int | Fraction:
        """Expected value (outcomes must be numbers; bools count as 0/1)."""
        total = Fraction(0)
        for o, p in self._items:
            if not isinstance(o, (int, Fraction)):
                raise RuleError(N_("cannot average the result %(result)r: it is not a number"), None, {"result": o})
            total += o * p
        return normalize(total)

    def to_json(self) -> list[dict]:
        """``[{"outcome": jsonable, "probability": "n/d", "p": float}, ...]``."""
        return [
            {
                "outcome": to_jsonable(o),
                "probability": number_text(p),
                "p": float(p),
            }
            for o, p in self._items
        ]

    # Value semantics -------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Distribution):
            return NotImplemented
        return self._map == other._map

    def __hash__(self) -> int:
        return hash(frozenset(self._map.items()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{o!r}: {p}" for o, p in self._items)
        return f"Distribution({{{inner}}})"


def traced_by(twin: Callable[..., Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator of a fast generated resolver: ``twin`` is the same procedure,
    traced (it reports steps, bindings and rolls, and the state of each roll).
    :func:`sample` with a trace and :func:`exact` run the twin; the decorated
    function itself is returned unchanged (no wrapper, no cost)."""

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.traced = twin
        return fn

    return mark


def traced(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The traced twin of a fast generated resolver, or ``fn`` itself."""
    return getattr(fn, "traced", fn)


def exact(
    fn: Callable[..., Any],
    *args: Any,
    max_paths: int = DEFAULT_MAX_PATHS,
    max_work: int = DEFAULT_MAX_WORK,
    every_path: bool = False,
    lang: str | None = None,
    **kwargs: Any,
) -> Distribution:
    """Exact distribution of ``fn(ctx, *args, **kwargs)``.

    ``fn`` (its traced twin, for a generated resolver) is replayed over the
    outcomes of its rolls; a path's probability is the product of its chosen
    outcomes' probabilities, and paths that reach a roll in equal states are
    explored once. Equal results are merged. With ``every_path``, states are
    ignored and every path of every roll is explored (much slower: a check of
    the states the compiler writes).

    Raises:
        RuleError: more than ``max_paths`` replays, an unhashable result, a
            non-deterministic ``fn``, or any RuleError ``fn`` raises on some path.
        WorkLimitError: more than ``max_work`` units of work.

    Errors read in ``lang`` (by default the language of ``fn``'s package).
    """
    with _in_language(lang or language_of(fn)), _collector_paused(), _nesting_bounded(fn, kwargs):
        ctx = ExactContext(_Session(max_work, max_paths), every_path)
        pairs, denominator = ctx.weighted_results(traced(fn), args, kwargs)
        return Distribution.from_weights(pairs, denominator)


@contextmanager
def _in_language(lang: str) -> Iterator[None]:
    """A rule error leaving a package's resolver reads in the package's language (see :mod:`rulebook.runtime.messages`)."""
    try:
        yield
    except RuleError as err:
        err.in_language(lang)
        raise


@contextmanager
def _nesting_bounded(fn: Callable[..., Any], kwargs: dict) -> Iterator[None]:
    """Procedures may call themselves: nested too deep, Python's recursion limit
    becomes a :class:`WorkLimitError` naming the procedure and its inputs."""
    try:
        yield
    except RecursionError:
        name = getattr(fn, "__name__", "procedimiento")
        raise WorkLimitError(
            N_("too much work: the resolution nests more procedure calls than fit "
               "(%(limit)s at most; %(where)s). Reduce the data"),
            None, {"limit": sys.getrecursionlimit(), "where": _where(None, "", [(name, kwargs)])},
        ) from None


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector: enumeration builds many small tuples (states,
    sort keys) that hold no cycles, and each pass of the collector would walk every
    object of the process (the program, its packages), several times per second."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def sample(
    fn: Callable[..., Any],
    *args: Any,
    seed: int | None = None,
    trace: bool = True,
    max_work: int = DEFAULT_MAX_WORK,
    lang: str | None = None,
    **kwargs: Any,
) -> tuple[Any, Trace | None]:
    """Run ``fn(ctx, *args, **kwargs)`` once with ``random.Random(seed)``.

    With ``trace`` the traced twin runs and records its :class:`Trace`; without,
    the fast resolver runs. Returns ``(result, trace)``; ``trace`` is ``None``
    when ``trace=False``. A failure of the fast resolver is replayed, with the
    same dice, by the traced twin, whose error names the rule and step. The
    trace and the errors read in ``lang`` (by default the language of ``fn``'s
    package, see :mod:`rulebook.runtime.messages`).
    """
    lang = lang or language_of(fn)
    with _in_language(lang), _nesting_bounded(fn, kwargs):
        if trace:
            ctx = SampleContext(seed, trace=True, max_work=max_work, lang=lang)
            result = traced(fn)(ctx, *args, **kwargs)
            return result, ctx.trace
        if seed is None:
            seed = random.SystemRandom().getrandbits(64)
        try:
            return fn(SampleContext(seed, trace=False, max_work=max_work, lang=lang), *args, **kwargs), None
        except Exception as failure:
            raise _explained(failure, fn, 0, seed, max_work, args, kwargs) from None


def sample_many(fn: Callable[..., Any], n: int, seed: int | None, *args: Any, max_work: int = DEFAULT_MAX_WORK,
                lang: str | None = None, **kwargs: Any) -> dict[Any, int]:
    """Run the fast ``fn`` ``n`` times (one ``random.Random(seed)`` for all runs, no
    trace, each run with its own work limit).

    Returns ``{result: how_many_times}`` ordered by result. Errors read in ``lang``
    (by default the language of ``fn``'s package).
    """
    if seed is None:
        seed = random.SystemRandom().getrandbits(64)
    ctx = SampleContext(seed, trace=False, max_work=max_work)
    counts: dict[Any, int] = {}
    run = 0
    with _in_language(lang or language_of(fn)), _nesting_bounded(fn, kwargs):
        try:
            for run in range(n):
                ctx.work = 0
                result = fn(ctx, *args, **kwargs)
                counts[result] = counts.get(result, 0) + 1
        except Exception as failure:
            raise _explained(failure, fn, run, seed, max_work, args, kwargs) from None
    return dict(sorted(counts.items(), key=lambda item: sort_key(item[0])))


def _explained(failure: Exception, fn: Callable[..., Any], run: int, seed: int, max_work: int,
               args: tuple, kwargs: dict) -> Exception:
    """The error of a fast resolver's failure, with its position: the traced twin
    replays the failing run (after ``run`` runs that succeeded) with the same
    dice; its rule error, if it raises one, replaces ``failure``."""
    twin = traced(fn)
    positioned = isinstance(failure, RuleError) and failure.src and not isinstance(failure, WorkLimitError)
    if twin is fn or positioned:
        return failure
    ctx = SampleContext(seed, trace=False, max_work=max_work)
    for _ in range(run):
        ctx.work = 0
        fn(ctx, *args, **kwargs)
    ctx.work = 0
    ctx.trace = Trace(ctx.lang)
    try:
        twin(ctx, *args, **kwargs)
    except RuleError as located:
        return located
    except Exception:  # the twin fails the same way: nothing to add
        return failure
    return failure
