"""Random variables: dice, dice pools, bags of tokens.

Takes: die and bag descriptions (a name and faces / token counts) and the
parameters of a roll (how many dice, which to keep, what to count...).
Produces: :class:`RandomVariable` objects. Each one has

* ``outcomes()``: its exact finite distribution, a tuple of
  ``(value, Fraction)`` pairs sorted by :func:`runtime.values.sort_key`,
  identical values merged, probabilities summing to exactly 1 (computed once
  and cached; pools use dynamic programming, never enumerate ``sides ** n``
  tuples);
* ``sample(rng)``: one value drawn by simulating the physical process (each
  die rolled, each token drawn) with a ``random.Random``;
* ``describe()``: a short text for traces (``"3×Dado especial, conserva 2 peores"``).

Constructors (``pool_sum``, ``bag_draw``...) are memoised: calling one twice
with the same arguments returns the same object, so resolvers may build their
random variables inline without recomputing distributions.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Iterator
from fractions import Fraction
from functools import lru_cache
from math import comb, factorial, lcm
from typing import Any

from .errors import RuleError
from .values import Counts, format_value, sort_key

__all__ = [
    "RandomVariable",
    "Die",
    "std_die",
    "roll_one",
    "pool_sum",
    "pool_count",
    "pool_faces",
    "Bag",
    "bag_draw",
    "bag_without",
    "bag_with",
    "constant",
    "Counts",
    "COMPARISONS",
]

Outcomes = tuple[tuple[Any, Fraction], ...]

COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
"""The comparison operators accepted by :func:`pool_count`."""

_OP_TEXT = {"==": "=", "!=": "≠", "<": "<", "<=": "≤", ">": ">", ">=": "≥"}


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, Fraction)) and not isinstance(x, bool)


def _check_count(count: Any, what: str, src: str | None) -> int:
    if isinstance(count, Fraction) and count.denominator == 1:
        count = count.numerator
    if not isinstance(count, int) or isinstance(count, bool):
        raise RuleError(f"{what} debe ser un entero, no {format_value(count)}", src)
    return count


def _from_weights(weights: dict[Any, int], total: int) -> Outcomes:
    """Turn integer weights (out of ``total``) into sorted exact outcomes."""
    items = [(value, Fraction(w, total)) for value, w in weights.items() if w]
    items.sort(key=lambda item: sort_key(item[0]))
    return tuple(items)


class RandomVariable:
    """Base class of every random primitive: an immutable finite distribution.

    Subclasses implement ``_compute_outcomes()`` (exact distribution, any
    order, values may repeat), ``sample(rng)`` and ``describe()``, and
    ``_key()`` (the parameters identifying the variable, for ``==``/``hash``).
    """

    __slots__ = ("_outcomes", "_weighted")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _init(self, **fields: Any) -> None:
        for name, value in fields.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_outcomes", None)
        object.__setattr__(self, "_weighted", None)

    def outcomes(self) -> Outcomes:
        """Exact distribution: ``((value, probability), ...)`` sorted by value."""
        cached = self._outcomes
        if cached is None:
            merged: dict[Any, Fraction] = {}
            for value, p in self._compute_outcomes():
                if p:
                    merged[value] = merged.get(value, 0) + p
            cached = tuple(sorted(merged.items(), key=lambda item: sort_key(item[0])))
            if sum(p for _, p in cached) != 1:  # pragma: no cover - internal invariant
                raise AssertionError(f"probabilities of {self.describe()} do not sum to 1")
            object.__setattr__(self, "_outcomes", cached)
        return cached

    def weighted(self) -> tuple[tuple[Any, ...], tuple[int, ...], int]:
        """The outcomes as integers over a common denominator (cached).

        Returns ``(values, numerators, denominator)`` with
        ``probability(values[i]) == numerators[i] / denominator``; exact
        enumeration multiplies and adds these integers instead of Fractions.
        """
        cached = self._weighted
        if cached is None:
            outs = self.outcomes()
            den = lcm(*(p.denominator for _, p in outs))
            cached = (
                tuple(v for v, _ in outs),
                tuple(p.numerator * (den // p.denominator) for _, p in outs),
                den,
            )
            object.__setattr__(self, "_weighted", cached)
        return cached

    def probability(self, value: Any) -> Fraction:
        """Probability that the variable takes ``value`` (0 if impossible)."""
        for v, p in self.outcomes():
            if v == value:
                return p
        return Fraction(0)

    def _compute_outcomes(self) -> Outcomes:
        raise NotImplementedError

    def sample(self, rng: random.Random) -> Any:
        """Draw one value with ``rng`` by simulating the physical process."""
        raise NotImplementedError

    def describe(self) -> str:
        """Short text for traces, e.g. ``"2d6"``."""
        raise NotImplementedError

    def _key(self) -> tuple:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.describe()}>"


# ---------------------------------------------------------------------------
# Dice
# ---------------------------------------------------------------------------

class Die(RandomVariable):
    """A die: a name and its faces (ints, exact fractions or named faces as str).

    Faces may repeat (``Die("Dado especial", (1, 1, 0, 0, -1, -1))``); every
    face is equally likely. A die is itself the random variable "roll it once".
    """

    __slots__ = ("name", "faces")
    name: str
    faces: tuple

    def __init__(self, name: str, faces: tuple) -> None:
        faces = tuple(faces)
        if not faces:
            raise RuleError(f"el dado {name} no tiene caras")
        for face in faces:
            if not (_is_number(face) or isinstance(face, str)):
                raise RuleError(f"cara no válida {face!r} en el dado {name}")
        self._init(name=name, faces=faces)

    def _key(self) -> tuple:
        return (self.name, self.faces)

    def distinct_faces(self) -> tuple[tuple[Any, int], ...]:
        """Distinct faces in first-appearance order, with how many times each appears."""
        counts: dict[Any, int] = {}
        for face in self.faces:
            counts[face] = counts.get(face, 0) + 1
        return tuple(counts.items())

    def is_numeric(self) -> bool:
        """True when every face is a number."""
        return all(_is_number(f) for f in self.faces)

    def is_standard(self) -> bool:
        """True for ``dN`` dice with faces ``1..N``."""
        return self.name == f"d{len(self.faces)}" and self.faces == tuple(range(1, len(self.faces) + 1))

    def _compute_outcomes(self) -> Outcomes:
        n = len(self.faces)
        return tuple((face, Fraction(k, n)) for face, k in self.distinct_faces())

    def sample(self, rng: random.Random) -> Any:
        return rng.choice(self.faces)

    def describe(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Die({self.name!r}, {self.faces!r})"


@lru_cache(maxsize=None)
def std_die(sides: int) -> Die:
    """The standard die ``d{sides}`` with faces ``1..sides`` (one shared instance per size)."""
    if not isinstance(sides, int) or isinstance(sides, bool) or sides < 1:
        raise RuleError(f"un dado estándar necesita al menos una cara, no {sides!r}")
    return Die(f"d{sides}", tuple(range(1, sides + 1)))


def roll_one(die: Die) -> RandomVariable:
    """Roll one die: the random variable of one of its faces (the die itself)."""
    if not isinstance(die, Die):
        raise RuleError(f"roll_one necesita un dado, no {die!r}")
    return die


def _pool_text(die: Die, count: int) -> str:
    if die.is_standard():
        return f"{count}{die.name}"
    return f"{count}×{die.name}"


class _PoolSum(RandomVariable):
    """Sum of ``count`` dice, optionally keeping only the highest/lowest ``keep_n``."""

    __slots__ = ("die", "count", "keep", "keep_n")
    die: Die
    count: int
    keep: str | None
    keep_n: int

    def __init__(self, die: Die, count: int, keep: str | None, keep_n: int) -> None:
        self._init(die=die, count=count, keep=keep, keep_n=keep_n)

    def _key(self) -> tuple:
        return (self.die, self.count, self.keep, self.keep_n)

    def _compute_outcomes(self) -> Outcomes:
        total = len(self.die.faces) ** self.count
        if self.keep is None:
            weights = _sum_weights(self.die.distinct_faces(), self.count)
        else:
            weights = _keep_weights(
                self.die.distinct_faces(), self.count, self.keep_n, highest=self.keep == "highest"
            )
        return _from_weights(weights, total)

    def sample(self, rng: random.Random) -> Any:
        faces = self.die.faces
        rolls = [rng.choice(faces) for _ in range(self.count)]
        if self.keep is not None:
            rolls.sort(reverse=self.keep == "highest")
            rolls = rolls[: self.keep_n]
        return sum(rolls, 0)

    def describe(self) -> str:
        text = _pool_text(self.die, self.count)
        if self.keep is not None:
            text += f", conserva {self.keep_n} {'mejores' if self.keep == 'highest' else 'peores'}"
        return text


def _sum_weights(faces: tuple[tuple[Any, int], ...], count: int) -> dict[Any, int]:
    """Ways to obtain each sum of ``count`` dice (convolution, integer weights)."""
    weights: dict[Any, int] = {0: 1}
    for _ in range(count):
        nxt: dict[Any, int] = {}
        for s, w in weights.items():
            for face, k in faces:
                t = s + face
                nxt[t] = nxt.get(t, 0) + w * k
        weights = nxt
    return weights


def _keep_weights(
    faces: tuple[tuple[Any, int], ...], count: int, keep_n: int, highest: bool
) -> dict[Any, int]:
    """Ways to obtain each sum of the ``keep_n`` highest (lowest) of ``count`` dice.

    Multiset dynamic programming: faces are visited from best to worst; the
    state is (dice placed so far, sum of the kept ones). Placing ``c`` dice on
    a face has ``comb(remaining, c) * multiplicity ** c`` ordered ways. Once
    ``keep_n`` dice are placed the kept sum is final, and the remaining dice
    may show any worse face: the state is closed at once.
    """
    order = sorted(faces, key=lambda fk: fk[0], reverse=highest)
    # weight of the faces strictly worse than order[i]
    worse = [0] * len(order)
    acc = 0
    for i in range(len(order) - 1, -1, -1):
        worse[i] = acc
        acc += order[i][1]
    result: dict[Any, int] = {}
    states: dict[tuple[int, Any], int] = {(0, 0): 1}
    for i, (face, mult) in enumerate(order):
        nxt: dict[tuple[int, Any], int] = {}
        w_worse = worse[i]
        for (placed, s), w in states.items():
            remaining = count - placed
            kept = placed  # placed < keep_n for every open state
            for c in range(remaining + 1):
                ways = w * comb(remaining, c) * mult**c
                new_placed = placed + c
                new_kept = min(new_placed, keep_n)
                t = s + face * (new_kept - kept)
                if new_placed >= keep_n:
                    closed = ways * w_worse ** (count - new_placed)
                    if closed:
                        result[t] = result.get(t, 0) + closed
                else:
                    nxt[(new_placed, t)] = nxt.get((new_placed, t), 0) + ways
        states = nxt
    return result


def pool_sum(
    die: Die,
    count: int,
    keep: str | None = None,
    keep_n: int | None = None,
    *,
    src: str | None = None,
) -> RandomVariable:
    """Roll ``count`` dice and sum them, optionally keeping the ``keep_n`` ``"highest"``/``"lowest"``.

    ``count == 0`` (or ``keep_n == 0``) gives the constant 0; ``keep_n > count``
    keeps every die. Only numeric faces can be summed.

    Raises:
        RuleError: negative or non-integer counts, unknown ``keep``, named faces.
    """
    if not isinstance(die, Die):
        raise RuleError(f"se esperaba un dado, no {die!r}", src)
    count = _check_count(count, "el número de dados", src)
    if count < 0:
        raise RuleError(f"no se puede tirar un número negativo de dados ({count})", src)
    if not die.is_numeric():
        raise RuleError(f"no se pueden sumar las caras del dado {die.name}", src)
    if keep is None:
        if keep_n is not None:
            raise RuleError("keep_n sin keep ('highest' o 'lowest')", src)
        keep_n = count
    else:
        if keep not in ("highest", "lowest"):
            raise RuleError(f"keep debe ser 'highest' o 'lowest', no {keep!r}", src)
        if keep_n is None:
            raise RuleError(f"keep {keep!r} sin número de dados a conservar", src)
        keep_n = _check_count(keep_n, "el número de dados a conservar", src)
        if keep_n < 0:
            raise RuleError(f"no se puede conservar un número negativo de dados ({keep_n})", src)
        if keep_n >= count:
            keep, keep_n = None, count
    if count == 0 or keep_n == 0:
        return constant(0)
    return _pool_sum_cached(die, count, keep, keep_n)


@lru_cache(maxsize=4096)
def _pool_sum_cached(die: Die, count: int, keep: str | None, keep_n: int) -> _PoolSum:
    return _PoolSum(die, count, keep, keep_n)


class _PoolCount(RandomVariable):
    """Number of dice, out of ``count``, whose face satisfies ``face <op> threshold``."""

    __slots__ = ("die", "count", "op", "threshold")
    die: Die
    count: int
    op: str
    threshold: Any

    def __init__(self, die: Die, count: int, op: str, threshold: Any) -> None:
        self._init(die=die, count=count, op=op, threshold=threshold)

    def _key(self) -> tuple:
        return (self.die, self.count, self.op, self.threshold)

    def _test(self, face: Any) -> bool:
        return COMPARISONS[self.op](face, self.threshold)

    def _compute_outcomes(self) -> Outcomes:
        sides = len(self.die.faces)
        good = sum(1 for f in self.die.faces if self._test(f))
        bad = sides - good
        n = self.count
        weights = {k: comb(n, k) * good**k * bad ** (n - k) for k in range(n + 1)}
        return _from_weights(weights, sides**n)

    def sample(self, rng: random.Random) -> int:
        faces = self.die.faces
        return sum(1 for _ in range(self.count) if self._test(rng.choice(faces)))

    def describe(self) -> str:
        return f"{_pool_text(self.die, self.count)}, cuenta {_OP_TEXT[self.op]} {format_value(self.threshold)}"


def pool_count(
    die: Die, count: int, op: str, threshold: Any, *, src: str | None = None
) -> RandomVariable:
    """Roll ``count`` dice and count those whose face satisfies ``face <op> threshold``.

    ``op`` is one of ``== != < <= > >=``; ordering operators need numeric faces.
    The result is binomial, computed exactly.
    """
    if not isinstance(die, Die):
        raise RuleError(f"se esperaba un dado, no {die!r}", src)
    count = _check_count(count, "el número de dados", src)
    if count < 0:
        raise RuleError(f"no se puede tirar un número negativo de dados ({count})", src)
    if op not in COMPARISONS:
        raise RuleError(f"comparación desconocida {op!r}", src)
    if op not in ("==", "!=") and not (die.is_numeric() and _is_number(threshold)):
        raise RuleError(f"no se pueden ordenar las caras del dado {die.name} con {op}", src)
    return _pool_count_cached(die, count, op, threshold)


@lru_cache(maxsize=4096)
def _pool_count_cached(die: Die, count: int, op: str, threshold: Any) -> _PoolCount:
    return _PoolCount(die, count, op, threshold)


def _compositions(total: int, bounds: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every tuple ``(k_1..k_m)`` with ``0 <= k_i <= bounds[i]`` and ``sum == total``.

    Recursion depth is the number of parts (faces or token kinds), which is small.
    """
    capacity = sum(bounds)
    if total < 0 or total > capacity:
        return
    if not bounds:
        yield ()
        return
    first, rest = bounds[0], bounds[1:]
    rest_capacity = capacity - first
    for k in range(min(first, total), max(0, total - rest_capacity) - 1, -1):
        for tail in _compositions(total - k, rest):
            yield (k, *tail)


class _PoolFaces(RandomVariable):
    """How many of ``count`` dice show each distinct face (a :class:`Counts`)."""

    __slots__ = ("die", "count")
    die: Die
    count: int

    def __init__(self, die: Die, count: int) -> None:
        self._init(die=die, count=count)

    def _key(self) -> tuple:
        return (self.die, self.count)

    def _compute_outcomes(self) -> Outcomes:
        faces = self.die.distinct_faces()
        names = tuple(f for f, _ in faces)
        mults = tuple(k for _, k in faces)
        n = self.count
        n_fact = factorial(n)
        weights: dict[Counts, int] = {}
        for parts in _compositions(n, (n,) * len(faces)):
            w = n_fact
            for k, mult in zip(parts, mults):
                w = w * mult**k // factorial(k)
            weights[Counts(zip(names, parts))] = w
        return _from_weights(weights, len(self.die.faces) ** n)

    def sample(self, rng: random.Random) -> Counts:
        counts = {face: 0 for face, _ in self.die.distinct_faces()}
        faces = self.die.faces
        for _ in range(self.count):
            counts[rng.choice(faces)] += 1
        return Counts(counts)

    def describe(self) -> str:
        return _pool_text(self.die, self.count)


def pool_faces(die: Die, count: int, *, src: str | None = None) -> RandomVariable:
    """Roll ``count`` named-face dice: a :class:`Counts` of how many show each face.

    Keys follow the die's face order and every face is present (zeros included).
    """
    if not isinstance(die, Die):
        raise RuleError(f"se esperaba un dado, no {die!r}", src)
    count = _check_count(count, "el número de dados", src)
    if count < 0:
        raise RuleError(f"no se puede tirar un número negativo de dados ({count})", src)
    if not all(isinstance(f, str) for f in die.faces):
        raise RuleError(f"el dado {die.name} no tiene caras con nombre", src)
    return _pool_faces_cached(die, count)


@lru_cache(maxsize=1024)
def _pool_faces_cached(die: Die, count: int) -> _PoolFaces:
    return _PoolFaces(die, count)


# ---------------------------------------------------------------------------
# Bags
# ---------------------------------------------------------------------------

class Bag:
    """A bag of tokens: a name and ``((kind, how_many), ...)``.

    ``Bag("Bolsa", (("rojo", 8), ("azul", 10), ("blanco", 6)))``. Immutable
    and hashable; draw from it with :func:`bag_draw`.
    """

    __slots__ = ("name", "tokens")
    name: str
    tokens: tuple[tuple[str, int], ...]

    def __init__(self, name: str, tokens: tuple[tuple[str, int], ...]) -> None:
        tokens = tuple((kind, n) for kind, n in tokens)
        seen: set[str] = set()
        for kind, n in tokens:
            if not isinstance(kind, str) or kind in seen:
                raise RuleError(f"tipo de ficha no válido o repetido {kind!r} en la bolsa {name}")
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise RuleError(f"cantidad no válida {n!r} de {kind} en la bolsa {name}")
            seen.add(kind)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "tokens", tokens)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Bag is immutable")

    def total(self) -> int:
        """Number of tokens in the bag."""
        return sum(n for _, n in self.tokens)

    def kinds(self) -> tuple[str, ...]:
        """Token kinds, in order."""
        return tuple(kind for kind, _ in self.tokens)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Bag):
            return NotImplemented
        return (self.name, self.tokens) == (other.name, other.tokens)

    def __hash__(self) -> int:
        return hash(("Bag", self.name, self.tokens))

    def __repr__(self) -> str:
        return f"Bag({self.name!r}, {self.tokens!r})"


class _BagDraw(RandomVariable):
    """Draw ``n`` tokens without replacement: a :class:`Counts` per kind (hypergeometric)."""

    __slots__ = ("bag", "n")
    bag: Bag
    n: int

    def __init__(self, bag: Bag, n: int) -> None:
        self._init(bag=bag, n=n)

    def _key(self) -> tuple:
        return (self.bag, self.n)

    def _compute_outcomes(self) -> Outcomes:
        kinds = self.bag.kinds()
        sizes = tuple(k for _, k in self.bag.tokens)
        weights: dict[Counts, int] = {}
        for parts in _compositions(self.n, sizes):
            w = 1
            for k, size in zip(parts, sizes):
                w *= comb(size, k)
            weights[Counts(zip(kinds, parts))] = w
        return _from_weights(weights, comb(self.bag.total(), self.n))

    def sample(self, rng: random.Random) -> Counts:
        tokens = [kind for kind, k in self.bag.tokens for _ in range(k)]
        counts = {kind: 0 for kind in self.bag.kinds()}
        for kind in rng.sample(tokens, self.n):
            counts[kind] += 1
        return Counts(counts)

    def describe(self) -> str:
        return f"saca {self.n} de {self.bag.name}"


def bag_draw(bag: Bag, n: int, *, src: str | None = None) -> RandomVariable:
    """Draw ``n`` tokens from ``bag`` without replacement; the outcome is a :class:`Counts`.

    ``n <= 0`` gives all-zero counts.

    Raises:
        RuleError: ``n`` larger than the number of tokens in the bag.
    """
    if not isinstance(bag, Bag):
        raise RuleError(f"se esperaba una bolsa, no {bag!r}", src)
    n = _check_count(n, "el número de fichas", src)
    if n > bag.total():
        raise RuleError(f"no se pueden sacar {n} fichas de {bag.name}: solo hay {bag.total()}", src)
    if n <= 0:
        return constant(Counts((kind, 0) for kind in bag.kinds()))
    return _bag_draw_cached(bag, n)


@lru_cache(maxsize=1024)
def _bag_draw_cached(bag: Bag, n: int) -> _BagDraw:
    return _BagDraw(bag, n)


# ---------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------

class _Constant(RandomVariable):
    """A value that is not random."""

    __slots__ = ("value",)
    value: Any

    def __init__(self, value: Any) -> None:
        self._init(value=value)

    def _key(self) -> tuple:
        return (type(self.value).__name__, self.value)

    def _compute_outcomes(self) -> Outcomes:
        return ((self.value, Fraction(1)),)

    def sample(self, rng: random.Random) -> Any:
        return self.value

    def describe(self) -> str:
        return f"valor fijo {format_value(self.value)}"


def constant(value: Any) -> RandomVariable:
    """The random variable that always takes ``value``."""
    return _Constant(value)


def bag_without(bag: Bag, removed: dict[str, int], src: str | None = None) -> Bag:
    """The bag with some tokens already taken out (``removed``: kind → how many).

    Taking out more tokens of a kind than the bag holds is a :class:`RuleError`.
    """
    tokens = []
    for kind, count in bag.tokens:
        out = removed.get(kind, 0)
        if not isinstance(out, int) or isinstance(out, bool) or out < 0:
            raise RuleError(f"no se pueden quitar {out!r} fichas de {kind}", src)
        if out > count:
            raise RuleError(f"la bolsa {bag.name} sólo tiene {count} fichas de {kind}; no se pueden quitar {out}", src)
        tokens.append((kind, count - out))
    unknown = set(removed) - set(bag.kinds())
    if unknown:
        raise RuleError(f"la bolsa {bag.name} no tiene fichas de {sorted(unknown)[0]}", src)
    return Bag(bag.name, tuple(tokens))


def bag_with(bag: Bag, counts: dict[str, int], src: str | None = None) -> Bag:
    """The bag's kinds with the given number of tokens of each (others as declared).

    For bags whose make-up is computed, e.g. from a table row.
    """
    unknown = set(counts) - set(bag.kinds())
    if unknown:
        raise RuleError(f"la bolsa {bag.name} no tiene fichas de {sorted(unknown)[0]}", src)
    tokens = []
    for kind, declared in bag.tokens:
        count = counts.get(kind, declared)
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise RuleError(f"no puede haber {count!r} fichas de {kind} en la bolsa {bag.name}", src)
        tokens.append((kind, count))
    return Bag(bag.name, tuple(tokens))
