"""Contexts: what generated resolvers receive as their first argument ``ctx``.

Takes: the calls a resolver makes — ``ctx.roll(rv)`` is its ONLY source of
randomness; ``ctx.enter``/``ctx.leave`` wrap each procedure body,
``ctx.step`` marks numbered steps, ``ctx.let`` records local bindings.
Produces, depending on the implementation:

* :class:`SampleContext` — one random run, with ``random.Random(seed)``; the
  values drawn by simulating the dice, and (optionally) a :class:`Trace`;
* :class:`ExactContext` — used by :func:`runtime.distribution.exact` to
  enumerate every possible run: each ``roll`` returns the next choice of the
  path being explored and the tracing calls do nothing.

A resolver is written once, as ordinary straight-line Python, and works with
both contexts::

    def resolver(ctx, p):
        ctx.enter("resolver", "Resolución", "II.4", "03-ejemplo.rules:10", {"p": p})
        ctx.step(1, "Tirada", "II.4", "03-ejemplo.rules:11")
        tirada = ctx.let("tirada", ctx.roll(std_die(6), "tirada"))
        return ctx.leave(tirada >= p)
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from .dice import RandomVariable
from .errors import RuleError
from .trace import Trace

__all__ = ["Context", "SampleContext", "ExactContext"]


class Context:
    """The interface generated resolvers use. Subclasses implement :meth:`roll`."""

    __slots__ = ()

    def roll(self, rv: RandomVariable, label: str = "", src: str | None = None) -> Any:
        """Obtain a value of the random variable ``rv``."""
        raise NotImplementedError

    def enter(self, proc_name: str, title: str, ref: str, src: str, args: dict) -> None:
        """A procedure body starts (``args``: its arguments by name)."""

    def leave(self, result: Any) -> Any:
        """The current procedure returns ``result``; returns ``result`` unchanged."""
        return result

    def step(self, number: int, label: str, ref: str, src: str) -> None:
        """A numbered step of the current procedure starts."""

    def let(self, name: str, value: Any, src: str | None = None) -> Any:
        """Record the local binding ``name = value``; returns ``value`` unchanged."""
        return value


class SampleContext(Context):
    """Resolves one random run.

    Args:
        seed: seed of the ``random.Random`` used for every roll (``None``: from the OS).
        trace: record a :class:`Trace` (``self.trace``); when False the tracing
            calls are cheap no-ops and ``self.trace`` is ``None``.
    """

    __slots__ = ("rng", "trace")

    def __init__(self, seed: int | None = None, trace: bool = True) -> None:
        self.rng = random.Random(seed)
        self.trace: Trace | None = Trace() if trace else None

    def roll(self, rv: RandomVariable, label: str = "", src: str | None = None) -> Any:
        if not isinstance(rv, RandomVariable):
            raise RuleError(f"no se puede tirar {rv!r}: no es aleatorio", src)
        value = rv.sample(self.rng)
        if self.trace is not None:
            self.trace.roll(label, rv.describe(), value, src)
        return value

    def enter(self, proc_name: str, title: str, ref: str, src: str, args: dict) -> None:
        if self.trace is not None:
            self.trace.enter(proc_name, title, ref, src, args)

    def leave(self, result: Any) -> Any:
        if self.trace is not None:
            self.trace.leave(result)
        return result

    def step(self, number: int, label: str, ref: str, src: str) -> None:
        if self.trace is not None:
            self.trace.step(number, label, ref, src)

    def let(self, name: str, value: Any, src: str | None = None) -> Any:
        if self.trace is not None:
            self.trace.let(name, value, src)
        return value


class ExactContext(Context):
    """Replays one path of choices; driven by :func:`runtime.distribution.exact`.

    The current path is stored as parallel lists, one entry per *branching*
    roll (rolls with a single outcome never branch and are not recorded):
    the random variable, its outcome values and integer weights (see
    :meth:`RandomVariable.weighted`), the index chosen, and the path's
    probability up to that choice as an integer fraction ``num / den``.

    A run replays the recorded choices in order; the first roll past the end
    of the path appends a new node choosing outcome 0. After a run,
    :meth:`advance` moves to the next path in depth-first order (the last
    node that still has untried outcomes moves to its next outcome; exhausted
    nodes are popped), without copying the path.
    """

    __slots__ = ("_rvs", "_values", "_nums", "_dens", "_idx", "_pnum", "_pden", "_pos")

    def __init__(self) -> None:
        self._rvs: list[RandomVariable] = []
        self._values: list[tuple] = []
        self._nums: list[tuple[int, ...]] = []
        self._dens: list[int] = []
        self._idx: list[int] = []
        # prefix products of the path probability; may lag behind _idx
        self._pnum: list[int] = []
        self._pden: list[int] = []
        self._pos = 0

    # Hot path: keep these short.
    def roll(self, rv: RandomVariable, label: str = "", src: str | None = None) -> Any:
        try:
            values, nums, den = rv.weighted()
        except AttributeError:
            if isinstance(rv, RandomVariable):
                raise
            raise RuleError(f"no se puede tirar {rv!r}: no es aleatorio", src) from None
        if len(values) == 1:
            return values[0]
        pos = self._pos
        self._pos = pos + 1
        if pos < len(self._idx):
            if rv is not self._rvs[pos] and (values, nums, den) != (
                self._values[pos], self._nums[pos], self._dens[pos]
            ):
                raise RuleError(
                    "el procedimiento no es determinista: al repetir un camino "
                    f"tiró {rv.describe()} donde antes tiró {self._rvs[pos].describe()}",
                    src,
                )
            return values[self._idx[pos]]
        self._rvs.append(rv)
        self._values.append(values)
        self._nums.append(nums)
        self._dens.append(den)
        self._idx.append(0)
        return values[0]

    def enter(self, proc_name: str, title: str, ref: str, src: str, args: dict) -> None:
        pass

    def leave(self, result: Any) -> Any:
        return result

    def step(self, number: int, label: str, ref: str, src: str) -> None:
        pass

    def let(self, name: str, value: Any, src: str | None = None) -> Any:
        return value

    # Driving the enumeration -----------------------------------------------
    def start_run(self) -> None:
        """Prepare to replay the current path from its first choice."""
        self._pos = 0

    def finish_run(self) -> tuple[int, int]:
        """Check the run consumed the whole path; return its probability as ``(num, den)``."""
        idx = self._idx
        if self._pos != len(idx):
            raise RuleError(
                "el procedimiento no es determinista: al repetir un camino hizo menos tiradas"
            )
        pnum, pden = self._pnum, self._pden
        if pnum:
            num, den = pnum[-1], pden[-1]
        else:
            num, den = 1, 1
        nums, dens = self._nums, self._dens
        for i in range(len(pnum), len(idx)):
            num *= nums[i][idx[i]]
            den *= dens[i]
            pnum.append(num)
            pden.append(den)
        return num, den

    def path_probability(self) -> Fraction:
        """Probability of the path of the last finished run."""
        num, den = self.finish_run()
        return Fraction(num, den)

    def advance(self) -> bool:
        """Move to the next path; False when every path has been explored."""
        idx, values, pnum, pden = self._idx, self._values, self._pnum, self._pden
        while idx:
            last = len(idx) - 1
            nxt = idx[last] + 1
            if nxt < len(values[last]):
                idx[last] = nxt
                del pnum[last:], pden[last:]
                return True
            idx.pop()
            values.pop()
            self._nums.pop()
            self._dens.pop()
            self._rvs.pop()
            del pnum[last:], pden[last:]
        return False

    @property
    def depth(self) -> int:
        """Number of branching rolls on the current path."""
        return len(self._idx)
