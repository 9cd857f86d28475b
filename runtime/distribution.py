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
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from .checks import checked_call
from .context import DEFAULT_MAX_PATHS, DEFAULT_MAX_WORK, Context, ExactContext, SampleContext, WorkLimitError, _Session, _where
from .errors import RuleError
from .messages import N_, language_of
from .numbers import normalize
from .trace import Trace
from .values import number_text, sort_key, sorted_by_key, to_jsonable

__all__ = ["Distribution", "exact", "sample", "sample_many", "traced_by", "traced"]

T = TypeVar("T")
U = TypeVar("U")
P = ParamSpec("P")
R = TypeVar("R")

_SHOWN = 8
"""Outcomes a distribution's repr shows before it counts the rest."""


class Distribution(Generic[T]):
    """An immutable finite distribution: outcomes with exact probabilities.

    Behaves like a read-only mapping ``outcome -> Fraction``: iteration yields
    the outcomes (sorted by :func:`rulebook.runtime.values.sort_key`), ``d[x]`` is the
    probability of ``x`` (``0`` for an impossible outcome), ``x in d`` tells
    whether ``x`` is possible, ``items()`` gives ``(outcome, probability)``.
    For type checkers, ``Distribution[R]`` holds outcomes of type ``R``: what
    :func:`exact` gives for a resolver whose result is an ``R``.
    """

    __slots__ = ("_items", "_map")

    def __init__(self, weights: Mapping[T, Fraction | int] | Iterable[tuple[T, Fraction | int]] = ()) -> None:
        merged: dict[Any, Fraction] = {}
        pairs = weights.items() if isinstance(weights, dict) else weights
        for outcome, p in pairs:  # type: ignore[union-attr]
            if p < 0:
                raise ValueError(f"negative probability {p} for {outcome!r}")
            if p:
                merged[outcome] = merged.get(outcome, 0) + Fraction(p)
        self._set(merged)

    @classmethod
    def from_weights(cls, weights: Mapping[T, int] | Iterable[tuple[T, int]], denominator: int) -> Distribution[T]:
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
    def items(self) -> tuple[tuple[T, Fraction], ...]:
        """``((outcome, probability), ...)`` sorted by outcome."""
        return self._items

    def outcomes(self) -> tuple[T, ...]:
        """The possible outcomes, sorted."""
        return tuple(o for o, _ in self._items)

    def __getitem__(self, outcome: object) -> Fraction:
        return self._map.get(outcome, Fraction(0))

    def __contains__(self, outcome: object) -> bool:
        return outcome in self._map

    def __iter__(self) -> Iterator[T]:
        return (o for o, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def total(self) -> Fraction:
        """Sum of all probabilities (1 for a distribution from :func:`exact`)."""
        return sum((p for _, p in self._items), Fraction(0))

    def probability(self, pred: Callable[[T], object]) -> Fraction:
        """Probability that ``pred(outcome)`` is true."""
        return sum((p for o, p in self._items if pred(o)), Fraction(0))

    def map(self, f: Callable[[T], U]) -> Distribution[U]:
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
        """``Distribution({outcome: probability, …})``, short: the first outcomes (each cut
        short, see :func:`rulebook.runtime.records.shown`) and how many more there are."""
        from .records import shown

        inner = ", ".join(f"{shown(o)}: {p}" for o, p in self._items[:_SHOWN])
        more = len(self._items) - _SHOWN
        return f"Distribution({{{inner}{f', … {more} more' if more > 0 else ''}}})"


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


@overload
def exact(fn: Callable[Concatenate[Context, P], R], /, *args: P.args, **kwargs: P.kwargs) -> Distribution[R]: ...
@overload
def exact(fn: Callable[..., R], /, *args: Any, max_paths: int, max_work: int = ..., every_path: bool = ...,
          lang: str | None = ..., **kwargs: Any) -> Distribution[R]: ...
@overload
def exact(fn: Callable[..., R], /, *args: Any, max_work: int, every_path: bool = ..., lang: str | None = ...,
          **kwargs: Any) -> Distribution[R]: ...
@overload
def exact(fn: Callable[..., R], /, *args: Any, every_path: bool, lang: str | None = ..., **kwargs: Any) -> Distribution[R]: ...
@overload
def exact(fn: Callable[..., R], /, *args: Any, lang: str | None, **kwargs: Any) -> Distribution[R]: ...
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

    Errors read in ``lang`` (by default the language of ``fn``'s package). A generated
    resolver's arguments are checked first (InputError: :mod:`rulebook.runtime.checks`).
    For type checkers, the distribution of a resolver whose result is an ``R`` is a
    ``Distribution[R]``, and its arguments are checked against its parameters when no
    option (``max_work``…) is given.
    """
    with _in_language(lang or language_of(fn)), _collector_paused(), _nesting_bounded(fn, kwargs):
        fn, args, kwargs = checked_call(fn, args, kwargs)
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


@overload
def sample(fn: Callable[Concatenate[Context, P], R], /, *args: P.args, **kwargs: P.kwargs) -> tuple[R, Trace | None]: ...
@overload
def sample(fn: Callable[..., R], /, *args: Any, seed: int | None, trace: bool = ..., max_work: int = ...,
           lang: str | None = ..., **kwargs: Any) -> tuple[R, Trace | None]: ...
@overload
def sample(fn: Callable[..., R], /, *args: Any, trace: bool, max_work: int = ..., lang: str | None = ...,
           **kwargs: Any) -> tuple[R, Trace | None]: ...
@overload
def sample(fn: Callable[..., R], /, *args: Any, max_work: int, lang: str | None = ...,
           **kwargs: Any) -> tuple[R, Trace | None]: ...
@overload
def sample(fn: Callable[..., R], /, *args: Any, lang: str | None, **kwargs: Any) -> tuple[R, Trace | None]: ...
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
        fn, args, kwargs = checked_call(fn, args, kwargs)
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


@overload
def sample_many(fn: Callable[Concatenate[Context, P], R], n: int, seed: int | None, /, *args: P.args,
                **kwargs: P.kwargs) -> dict[R, int]: ...
@overload
def sample_many(fn: Callable[..., R], n: int, seed: int | None, /, *args: Any, max_work: int,
                lang: str | None = ..., **kwargs: Any) -> dict[R, int]: ...
@overload
def sample_many(fn: Callable[..., R], n: int, seed: int | None, /, *args: Any, lang: str | None,
                **kwargs: Any) -> dict[R, int]: ...
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
        fn, args, kwargs = checked_call(fn, args, kwargs)
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
