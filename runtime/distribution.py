"""Exact distributions and sampling of resolvers.

Takes: a resolver ``fn(ctx, *args, **kwargs)`` (generated code, or any
function that gets its randomness only from ``ctx.roll``) and its arguments.
Produces:

* :func:`exact` — the exact :class:`Distribution` of ``fn``'s result, found by
  running ``fn`` once per possible sequence of roll outcomes (depth-first,
  iterative, with an :class:`~runtime.context.ExactContext`);
* :func:`sample` — one random result and its :class:`~runtime.trace.Trace`;
* :func:`sample_many` — result frequencies over many random runs.

Results must be hashable values (ints, Fractions, strs, bools, None, tuples,
Counts, frozen dataclasses) so equal results can be merged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

from .context import ExactContext, SampleContext
from .errors import RuleError
from .numbers import normalize
from .trace import Trace
from .values import sort_key, to_jsonable

__all__ = ["Distribution", "exact", "sample", "sample_many", "DEFAULT_MAX_PATHS"]

DEFAULT_MAX_PATHS = 2_000_000
"""Default limit on the number of paths :func:`exact` explores."""


class Distribution:
    """An immutable finite distribution: outcomes with exact probabilities.

    Behaves like a read-only mapping ``outcome -> Fraction``: iteration yields
    the outcomes (sorted by :func:`runtime.values.sort_key`), ``d[x]`` is the
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
        items = tuple(sorted(merged.items(), key=lambda item: sort_key(item[0])))
        object.__setattr__(self, "_items", items)
        object.__setattr__(self, "_map", dict(items))

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
                raise RuleError(f"no se puede promediar el resultado {o!r}: no es un número")
            total += o * p
        return normalize(total)

    def to_json(self) -> list[dict]:
        """``[{"outcome": jsonable, "probability": "n/d", "p": float}, ...]``."""
        return [
            {
                "outcome": to_jsonable(o),
                "probability": f"{p.numerator}/{p.denominator}",
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


def exact(
    fn: Callable[..., Any],
    *args: Any,
    max_paths: int = DEFAULT_MAX_PATHS,
    **kwargs: Any,
) -> Distribution:
    """Exact distribution of ``fn(ctx, *args, **kwargs)``.

    ``fn`` is run once per path, i.e. per sequence of outcomes of its
    branching rolls, in depth-first order; a path's probability is the product
    of its chosen outcomes' probabilities. Equal results are merged.

    Raises:
        RuleError: more than ``max_paths`` paths, an unhashable result, a
            non-deterministic ``fn``, or any RuleError ``fn`` raises on some path.
    """
    ctx = ExactContext()
    # result -> {path denominator: sum of numerators}: integer arithmetic only
    acc: dict[Any, dict[int, int]] = {}
    paths = 0
    while True:
        paths += 1
        if paths > max_paths:
            raise RuleError(
                f"la distribución exacta de {getattr(fn, '__name__', fn)} necesita más de "
                f"{max_paths} caminos de tiradas; reduce el número de dados o sube max_paths"
            )
        ctx.start_run()
        result = fn(ctx, *args, **kwargs)
        num, den = ctx.finish_run()
        try:
            bucket = acc.get(result)
        except TypeError:
            raise RuleError(
                f"el resultado {result!r} no se puede agrupar (no es hashable)"
            ) from None
        if bucket is None:
            acc[result] = {den: num}
        else:
            bucket[den] = bucket.get(den, 0) + num
        if not ctx.advance():
            break
    return Distribution(
        (result, sum((Fraction(num, den) for den, num in bucket.items()), Fraction(0)))
        for result, bucket in acc.items()
    )


def sample(
    fn: Callable[..., Any],
    *args: Any,
    seed: int | None = None,
    trace: bool = True,
    **kwargs: Any,
) -> tuple[Any, Trace | None]:
    """Run ``fn(ctx, *args, **kwargs)`` once with ``random.Random(seed)``.

    Returns ``(result, trace)``; ``trace`` is ``None`` when ``trace=False``.
    """
    ctx = SampleContext(seed, trace=trace)
    result = fn(ctx, *args, **kwargs)
    return result, ctx.trace


def sample_many(fn: Callable[..., Any], n: int, seed: int | None, *args: Any, **kwargs: Any) -> dict[Any, int]:
    """Run ``fn`` ``n`` times (one ``random.Random(seed)`` for all runs, no trace).

    Returns ``{result: how_many_times}`` ordered by result.
    """
    ctx = SampleContext(seed, trace=False)
    counts: dict[Any, int] = {}
    for _ in range(n):
        result = fn(ctx, *args, **kwargs)
        counts[result] = counts.get(result, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: sort_key(item[0])))
