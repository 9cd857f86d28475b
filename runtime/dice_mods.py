"""Dice with modifiers: re-rolls, explosions, several counts from one roll.

Takes: a die, a number of dice and the modifiers of a roll (``roll d6 times 20
reroll 1 explode 6 count >= 4``): the faces re-rolled once, the faces that
explode (and how many dice one die may add, ``chain``), the dice kept, and the
per-die tests counted. Each test is ``(op, value)`` (``(">=", 4)``) or a
function of one face returning true/false (a per-die condition); it is turned
at once into the set of faces that pass it.
Produces: a :class:`~rulebook.runtime.dice.RandomVariable` (:func:`dice_pool`),
exact like every other: the distribution of *one* die with its modifiers is
worked out first (a re-roll is a mixture of the die with itself, an explosion
a convolution with the die, a test a score per face), then the pool of ``n``
such dice is its ``n``-th power by the generating polynomials and dynamic
programming of :mod:`.dice` (never ``sides ** n`` tuples); ``cost()`` is known
before computing. ``sample(rng)`` rolls each die, each re-roll and each added
die with the rng; ``describe()`` says it in words (``"20d6, re-roll 1,
explode 6, count ≥ 4"``).

Semantics (one die, as the rules language states them): a die whose face is a
re-roll face is rolled once more and the new face stands; then a die whose
face explodes adds one more die (itself subject to the re-roll); an added die
explodes again only with ``chain K``, and one original die adds at most ``K``
dice (``K`` is 1 without ``chain``). The sum adds every face; a count counts
every die, added ones included; ``keep`` keeps the dice whose totals (the die
with the dice it added) are highest/lowest.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable
from math import comb, gcd
from typing import Any

from .dice import (
    COMPARISONS,
    Die,
    RandomVariable,
    _big_ints,
    _check_count,
    _is_number,
    _keep_weights,
    _pool_text,
    _power_weights,
    _remembered,
    _sum_weights,
    constant,
)
from .errors import RuleError
from .messages import DEFAULT_LANGUAGE, N_, Phrase, translate
from .values import Counts, format_value

__all__ = ["dice_pool", "MAX_CHAIN"]

MAX_CHAIN = 100
"""Most dice one die may add by exploding (``chain K``)."""

_EXACT_SHAPE = 100_000  # one die's work below which cost() works the die out, to know its shape exactly
_OP_TEXT = {"==": "=", "!=": "≠", "<": "<", "<=": "≤", ">": ">", ">=": "≥"}

Faces = tuple  # the distinct faces that pass a test, in the die's order


def _passing(die: Die, test: Any, what: str, src: str | None) -> Faces:
    """The distinct faces of ``die`` that pass ``test``: ``(op, value)`` or a function of a face."""
    faces = tuple(f for f, _ in die.distinct_faces())
    if callable(test):
        out = []
        for face in faces:
            passed = test(face)
            if not isinstance(passed, bool):
                raise RuleError(N_("the condition of %(what)s must be true or false, not %(value)s"), src,
                                {"what": what, "value": format_value(passed)})
            if passed:
                out.append(face)
        return tuple(out)
    if not (isinstance(test, tuple) and len(test) == 2 and test[0] in COMPARISONS):
        raise RuleError(N_("invalid test %(test)r of %(what)s"), src, {"test": test, "what": what})
    op, value = test
    if op not in ("==", "!=") and not (die.is_numeric() and _is_number(value)):
        raise RuleError(N_("the faces of the die %(die)s cannot be ordered with %(op)s"), src, {"die": die.name, "op": op})
    if isinstance(value, bool) or not (_is_number(value) or isinstance(value, str)):
        raise RuleError(N_("cannot compare with %(value)s"), src, {"value": format_value(value)})
    compare = COMPARISONS[op]
    return tuple(f for f in faces if compare(f, value))


def dice_pool(
    die: Die,
    count: int,
    *,
    reroll: Any = None,
    explode: Any = None,
    chain: int = 1,
    keep: str | None = None,
    keep_n: int | None = None,
    test: Any = None,
    tests: dict[str, Any] | None = None,
    tally: bool = False,
    src: str | None = None,
) -> RandomVariable:
    """Roll ``count`` dice with modifiers (see the module docstring).

    ``reroll``/``explode``/``test`` and the values of ``tests`` are ``(op, value)``
    or a function of one face. The outcome is: with ``test``, how many dice pass
    it (an int); with ``tests`` (name → test), a :class:`Counts` of how many
    pass each; with ``tally`` (named faces), a :class:`Counts` of each face; else
    the sum of the faces (numeric dice; ``keep``/``keep_n`` as in
    :func:`~rulebook.runtime.dice.pool_sum`) or, for one named-face die, its face.

    Raises:
        RuleError: a negative or non-integer number of dice, a chain outside
            1..MAX_CHAIN, a test that cannot be applied to the die's faces.
    """
    if not isinstance(die, Die):
        raise RuleError(N_("a die was expected, not %(value)r"), src, {"value": die})
    count = _check_count(count, Phrase(N_("the number of dice")), src)
    if count < 0:
        raise RuleError(N_("cannot roll a negative number of dice (%(count)s)"), src, {"count": count})
    re_faces = _passing(die, reroll, "reroll", src) if reroll is not None else ()
    ex_faces = _passing(die, explode, "explode", src) if explode is not None else ()
    chain = _check_count(chain, Phrase(N_("the chain of an explosion")), src) if ex_faces else 0
    if ex_faces and not 1 <= chain <= MAX_CHAIN:
        raise RuleError(N_("an exploding die adds from 1 to %(max)s dice, not %(n)s"), src, {"max": MAX_CHAIN, "n": chain})
    numeric = die.is_numeric()
    names: tuple[tuple[str, Faces], ...] = ()
    if test is not None:
        mode, names = "count", (("", _passing(die, test, "count", src)),)
    elif tests is not None:
        mode = "counts"
        names = tuple((str(name), _passing(die, t, "count", src)) for name, t in tests.items())
    elif tally:
        mode = "counts"
        names = tuple((face, (face,)) for face, _ in die.distinct_faces())
        if numeric:
            raise RuleError(N_("the die %(die)s has no named faces"), src, {"die": die.name})
    elif numeric:
        mode = "sum"
    else:
        mode = "face"
        if count != 1 or ex_faces:
            raise RuleError(N_("the faces of the die %(die)s cannot be added"), src, {"die": die.name})
    if mode == "sum" and keep is not None:
        if keep not in ("highest", "lowest"):
            raise RuleError(N_("keep must be 'highest' or 'lowest', not %(keep)r"), src, {"keep": keep})
        keep_n = _check_count(keep_n, Phrase(N_("the number of dice to keep")), src)
        if keep_n < 0:
            raise RuleError(N_("cannot keep a negative number of dice (%(count)s)"), src, {"count": keep_n})
        if keep_n >= count:
            keep, keep_n = None, 0
    else:
        keep, keep_n = None, 0
    if mode == "sum" and (count == 0 or (keep is not None and keep_n == 0)):
        return constant(0)
    key = ("mods", count, re_faces, ex_faces, chain, keep, keep_n, mode, names)
    return _remembered(die, (key,), lambda: _ModdedPool(die, count, re_faces, ex_faces, chain, keep, keep_n, mode, names))


class _ModdedPool(RandomVariable):
    """``count`` dice, each re-rolled on ``reroll`` faces and exploding on ``explode``
    faces (up to ``chain`` added dice); their sum (``mode`` "sum", optionally
    keeping ``keep_n`` of the dice's totals), how many pass one test ("count",
    ``names`` holds one), how many pass each named test ("counts"), or the face
    of one die ("face")."""

    __slots__ = ("die", "count", "reroll", "explode", "chain", "keep", "keep_n", "mode", "names", "size", "_one_die")
    die: Die
    count: int
    reroll: Faces
    explode: Faces
    chain: int
    keep: str | None
    keep_n: int
    mode: str
    names: tuple[tuple[str, Faces], ...]

    def __init__(self, die: Die, count: int, reroll: Faces, explode: Faces, chain: int, keep: str | None,
                 keep_n: int, mode: str, names: tuple) -> None:
        size = count * (chain + 1) * (2 if reroll else 1)  # the most dice one roll draws
        self._init(die=die, count=count, reroll=reroll, explode=explode, chain=chain, keep=keep, keep_n=keep_n,
                   mode=mode, names=names, size=size, _one_die=None)

    def _key(self) -> tuple:
        return (self.die, self.count, self.reroll, self.explode, self.chain, self.keep, self.keep_n, self.mode, self.names)

    # One die ---------------------------------------------------------------
    def _unit(self) -> tuple[list[tuple[Any, int]], int]:
        """One die with its re-roll: ``[(face, weight)]`` over a denominator (a mixture:
        a re-roll face stands only when rolled again)."""
        faces = self.die.distinct_faces()
        sides = len(self.die.faces)
        if not self.reroll:
            return list(faces), sides
        again = sum(m for f, m in faces if f in self.reroll)
        return [(f, m * again + (0 if f in self.reroll else m * sides)) for f, m in faces], sides * sides

    def _score(self, face: Any) -> Any:
        """What one die showing ``face`` adds to the outcome."""
        if self.mode == "sum" or self.mode == "face":
            return face
        if self.mode == "count":
            return 1 if face in self.names[0][1] else 0
        return tuple(1 if face in passing else 0 for _, passing in self.names)

    def _one(self) -> tuple[dict[Any, int], int]:
        """The outcome of one original die with the dice it adds: ``({score: weight}, denominator)``."""
        unit, den = self._unit()
        vector = self.mode == "counts"
        plus: Callable[[Any, Any], Any] = (lambda a, b: tuple(x + y for x, y in zip(a, b))) if vector else (lambda a, b: a + b)
        scored = [(f, self._score(f), w) for f, w in unit if w]
        dist: dict[Any, int] = {}
        for _, s, w in scored:
            dist[s] = dist.get(s, 0) + w
        total = den
        for _ in range(self.chain if self.explode else 0):  # dist: one die with k explosions left
            nxt: dict[Any, int] = {}
            for face, s, w in scored:
                if face in self.explode:
                    for t, v in dist.items():
                        u = plus(s, t)
                        nxt[u] = nxt.get(u, 0) + w * v
                else:
                    nxt[s] = nxt.get(s, 0) + w * total
            dist, total = nxt, total * den
        common = gcd(total, *dist.values())
        return {s: w // common for s, w in dist.items()}, total // common

    # The pool ----------------------------------------------------------------
    def _bounds(self) -> tuple[int, int]:
        """Known before computing: how many scores one die may have, and how far
        apart its scores may be (in one dimension)."""
        added = self.chain if self.explode else 0
        distinct = len(self.die.distinct_faces())
        if self.mode in ("sum", "face") and self.die.is_numeric():
            values = [f for f, _ in self.die.distinct_faces()]
            lo, hi = min(values), max(values)
            spread = int(max(hi, hi * (added + 1)) - min(lo, lo * (added + 1))) + 1
            if all(isinstance(f, int) for f in values):
                return spread, spread
            return min(distinct ** (added + 1) * (added + 1), 10**9), spread
        if self.mode == "face":
            return distinct, 1
        if self.mode == "count":
            return added + 2, added + 2
        vectors = min(2 ** len(self.names), distinct)
        return min((added + 2) ** len(self.names), comb(added + 1 + vectors, vectors)), added + 2

    def _one_die_work(self) -> int:
        """The work of :meth:`_one` (a bound known before computing it)."""
        added = self.chain if self.explode else 0
        distinct = len(self.die.distinct_faces())
        return distinct + added * distinct * self._bounds()[0]

    def _shape(self) -> tuple[int, int]:
        """How many scores one die has, and how far apart (in one dimension): worked out
        exactly when one die is little work (it is then computed once), else bounded."""
        support, spread = self._bounds()
        if self._one_die_work() > _EXACT_SHAPE or self.mode == "counts":
            return support, spread
        scores = list(self._one_cached()[0])
        if self.mode == "face" or not all(_is_number(v) for v in scores):
            return len(scores), spread
        return len(scores), int(max(scores) - min(scores)) + 1

    def _vector_shape(self) -> tuple[int, tuple[int, ...], int]:
        """For vectors of counts: how many vectors one die has, the largest count of each
        name, and the largest total of one vector (exact when one die is little work)."""
        dims = len(self.names)
        added = self.chain if self.explode else 0
        if self._one_die_work() > _EXACT_SHAPE:
            return self._bounds()[0], (added + 1,) * dims, (added + 1) * dims
        vectors = list(self._one_cached()[0])
        return len(vectors), tuple(max(v[i] for v in vectors) for i in range(dims)), max(sum(v) for v in vectors)

    def _base(self) -> int:
        """More than the most dice of the pool that may pass one test: the base of the
        digits of a vector of counts (:func:`_digits_power`)."""
        return max(2, self.count * max(self._vector_shape()[1]) + 1)

    def _vector_costs(self) -> tuple[int, int]:
        """The work of a vector of counts as the digits of one number (a polynomial power,
        dense up to the largest number) and one die at a time (over the vectors reached)."""
        support, most, total = self._vector_shape()
        n, dims, base = self.count, len(self.names), self._base()
        largest = 0
        for m in most:
            largest = largest * base + m  # one die's largest vector, as digits (a bound)
        states = comb(n * total + dims, dims)  # vectors whose counts add up to n * total at most
        for m in most:
            states = min(states, (n * m + 1) ** dims)
        states = min(states, comb(n + support - 1, support - 1))
        return (n * largest + 1) * support, n * states * support

    def _one_cached(self) -> tuple[dict[Any, int], int]:
        if self._one_die is None:
            object.__setattr__(self, "_one_die", self._one())
        return self._one_die

    def cost(self) -> int:
        one_die = self._one_die_work()
        support, spread = self._shape()
        n = self.count
        big = _big_ints(n)
        if self.mode == "face":
            return one_die
        if self.keep is not None:
            states = self.keep_n * (self.keep_n * spread + 1)
            return one_die + support * states * (n + 1) * big
        if self.mode == "counts" and len(self.names) > 1:
            return one_die + min(self._vector_costs()) * big
        if self.mode == "sum" and not all(isinstance(f, int) for f in self.die.faces):
            return one_die + comb(n + support - 1, support - 1) * support * n * big
        return one_die + (n * spread + 1) * support * big

    def _weights(self) -> tuple[dict[Any, int], int]:
        one, den = self._one_cached()
        n = self.count
        total = den**n
        if self.mode == "face":
            return one, total
        if self.keep is not None:
            return _keep_weights(tuple(one.items()), n, self.keep_n, highest=self.keep == "highest"), total
        if self.mode == "counts":
            if len(self.names) == 1:
                name = self.names[0][0]
                counted = _power_weights(tuple((s[0], w) for s, w in one.items()), n)
                return {Counts(((name, k),)): w for k, w in counted.items()}, total
            names = tuple(m for m, _ in self.names)
            by_digits, by_dice = self._vector_costs()
            if by_digits <= by_dice:
                return {Counts(zip(names, v)): w for v, w in _digits_power(one, n, self._base()).items()}, total
            return {Counts(zip(names, v)): w for v, w in _vector_power(one, n).items()}, total
        if all(isinstance(s, int) for s in one):
            return _power_weights(tuple(one.items()), n), total
        return _sum_weights(tuple(one.items()), n), total

    def counting(self, kinds: tuple[str, ...]) -> RandomVariable:
        if self.mode != "counts":
            return self
        known = tuple(name for name, _ in self.names)
        unknown = set(kinds) - set(known)
        if unknown:
            raise RuleError(N_("there is no %(kind)r among %(known)s"), None,
                            {"kind": sorted(unknown)[0], "known": ", ".join(known)})
        names = tuple((name, faces) for name, faces in self.names if name in kinds)
        if names == self.names:
            return self
        key = ("mods", self.count, self.reroll, self.explode, self.chain, None, 0, "counts", names)
        return _remembered(self.die, (key,), lambda: _ModdedPool(self.die, self.count, self.reroll, self.explode,
                                                                  self.chain, None, 0, "counts", names))

    # Rolling -------------------------------------------------------------------
    def _roll_one(self, rng: random.Random) -> list:
        """The faces that stand for one original die: its own, then those of the dice it added."""
        die, reroll, explode = self.die, self.reroll, self.explode
        face = die.sample(rng)
        if face in reroll:
            face = die.sample(rng)
        faces = [face]
        added = 0
        while face in explode and added < self.chain:
            face = die.sample(rng)
            if face in reroll:
                face = die.sample(rng)
            faces.append(face)
            added += 1
        return faces

    def sample(self, rng: random.Random) -> Any:
        dice = [self._roll_one(rng) for _ in range(self.count)]
        if self.mode == "face":
            return dice[0][0]
        if self.mode == "sum":
            totals = [sum(faces, 0) for faces in dice]
            if self.keep is not None:
                best = heapq.nlargest if self.keep == "highest" else heapq.nsmallest
                totals = best(self.keep_n, totals)
            return sum(totals, 0)
        rolled = [face for faces in dice for face in faces]
        if self.mode == "count":
            passing = self.names[0][1]
            return sum(1 for face in rolled if face in passing)
        return Counts((name, sum(1 for face in rolled if face in passing)) for name, passing in self.names)

    def describe(self, lang: str = DEFAULT_LANGUAGE) -> str:
        text = _pool_text(self.die, self.count)
        if self.reroll:
            text = translate(N_("%(pool)s, re-roll %(faces)s"), {"pool": text, "faces": _faces_text(self.die, self.reroll)}, lang)
        if self.explode:
            params = {"pool": text, "faces": _faces_text(self.die, self.explode), "n": self.chain}
            if self.chain == 1:
                text = translate(N_("%(pool)s, explode %(faces)s"), params, lang)
            else:
                text = translate(N_("%(pool)s, explode %(faces)s, chain %(n)s"), params, lang)
        if self.keep == "highest":
            text = translate(N_("%(pool)s, keep %(n)s highest"), {"pool": text, "n": self.keep_n}, lang)
        elif self.keep == "lowest":
            text = translate(N_("%(pool)s, keep %(n)s lowest"), {"pool": text, "n": self.keep_n}, lang)
        if self.mode == "count":
            counted = _faces_text(self.die, self.names[0][1], True)
            text = translate(N_("%(pool)s, count %(faces)s"), {"pool": text, "faces": counted}, lang)
        elif self.mode == "counts" and any(name != faces[0] or len(faces) != 1 for name, faces in self.names):
            tests = ", ".join(f"{name} {_faces_text(self.die, faces, True)}" for name, faces in self.names)
            text = translate(N_("%(pool)s, count %(faces)s"), {"pool": text, "faces": tests}, lang)
        return text


def _vector_power(one: dict[tuple, int], n: int) -> dict[tuple, int]:
    """Ways to reach each vector of totals with ``n`` dice of per-die scores ``one``
    (dynamic programming, one die at a time, over the totals reached so far)."""
    dims = len(next(iter(one)))
    states: dict[tuple, int] = {(0,) * dims: 1}
    items = list(one.items())
    for _ in range(n):
        nxt: dict[tuple, int] = {}
        for s, w in states.items():
            for v, k in items:
                t = tuple(a + b for a, b in zip(s, v))
                nxt[t] = nxt.get(t, 0) + w * k
        states = nxt
    return states


def _digits_power(one: dict[tuple, int], n: int, base: int) -> dict[tuple, int]:
    """:func:`_vector_power` with each vector written as the digits of one number in ``base``
    (no digit reaches ``base``: adding vectors adds the numbers, without carries), so that
    the power is that of a polynomial in one variable (:func:`.dice._power_weights`)."""
    dims = len(next(iter(one)))

    def number(v: tuple) -> int:
        out = 0
        for digit in v:
            out = out * base + digit
        return out

    def digits(x: int) -> tuple:
        out = []
        for _ in range(dims):
            x, digit = divmod(x, base)
            out.append(digit)
        return tuple(reversed(out))

    return {digits(x): w for x, w in _power_weights(tuple((number(v), w) for v, w in one.items()), n).items()}


def _faces_text(die: Die, faces: Faces, counted: bool = False) -> str:
    """The faces that pass a test, short: ``6``, ``≥ 4``, ``≤ 2``, ``1/3/5`` (named faces: ``Blanco/Escudo``);
    ``counted``: one face reads ``= 6``."""
    if not faces:
        return "∅"
    if counted and len(faces) == 1:
        return f"{_OP_TEXT['==']} {format_value(faces[0]) if die.is_numeric() else faces[0]}"
    if die.is_numeric():
        values = sorted(f for f, _ in die.distinct_faces())
        chosen = sorted(faces)
        if len(chosen) > 1 and chosen == [v for v in values if v >= chosen[0]]:
            return f"{_OP_TEXT['>=']} {format_value(chosen[0])}"
        if len(chosen) > 1 and chosen == [v for v in values if v <= chosen[-1]]:
            return f"{_OP_TEXT['<=']} {format_value(chosen[-1])}"
        return "/".join(format_value(f) for f in chosen)
    return "/".join(str(f) for f in faces)
