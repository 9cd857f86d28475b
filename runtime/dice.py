"""Random variables: dice, dice pools, bags of tokens.

Takes: die and bag descriptions (a name and faces / token counts) and the
parameters of a roll (how many dice, which to keep, what to count...).
Produces: :class:`RandomVariable` objects. Each one has

* ``weighted()``: its exact finite distribution as integers over one
  denominator, ``(values, weights, denominator)``, values sorted by
  :func:`rulebook.runtime.values.sort_key` (computed once and cached; pools use
  generating polynomials and dynamic programming, never ``sides ** n``
  tuples); ``outcomes()`` gives the same as ``(value, Fraction)`` pairs;
* ``cost()``: the work of computing that distribution, known before computing
  it, so that callers can refuse a roll of 10¹⁰⁰ dice instead of hanging;
* ``size``: how many dice or tokens one ``sample`` draws;
* ``sample(rng)``: one value drawn by simulating the physical process (each
  die rolled, each token drawn) with a ``random.Random``; with a plain
  ``random.Random`` a die is rolled exactly as ``rng.choice(faces)`` would;
* ``counting(kinds)``: for rolls of named faces and bag draws, the same roll
  seen only through the counts of ``kinds`` (its marginal distribution, with
  far fewer outcomes);
* ``describe()``: a short text for traces (``"3×Dado especial, conserva 2 peores"``).

Constructors (``pool_sum``, ``bag_draw``...) are memoised: calling one twice
with the same arguments returns the same object, so resolvers may build their
random variables inline without recomputing distributions. :class:`Pools`
keeps the rolls of one place in a resolver by number of dice, so that a roll
whose number of dice varies is validated once per number, not on every roll.
"""

from __future__ import annotations

import heapq
import operator
import random
from bisect import bisect_right
from collections.abc import Callable, Iterator
from fractions import Fraction
from functools import lru_cache
from math import comb, factorial, gcd
from typing import Any

from .errors import RuleError
from .messages import DEFAULT_LANGUAGE, N_, Phrase, translate
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
    "Pools",
    "Counts",
    "COMPARISONS",
]

Outcomes = tuple[tuple[Any, Fraction], ...]
Weighted = tuple[tuple[Any, ...], tuple[int, ...], int]

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
_PLAIN_RANDOM = random.Random
_CACHE_PER_DIE = 1024  # pools remembered per die; the cache starts over when full


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, Fraction)) and not isinstance(x, bool)


def _check_count(count: Any, what: Phrase, src: str | None) -> int:
    if isinstance(count, Fraction) and count.denominator == 1:
        count = count.numerator
    if not isinstance(count, int) or isinstance(count, bool):
        raise RuleError(N_("%(what)s must be an integer, not %(value)s"), src, {"what": what, "value": format_value(count)})
    return count


def _big_ints(count: int) -> int:
    """Work factor of exact arithmetic on numbers of about ``count`` digits (1 for small ones)."""
    return 1 + count // 16


class RandomVariable:
    """Base class of every random primitive: an immutable finite distribution.

    Subclasses implement ``_weights()`` (``({value: integer weight}, total)``,
    zeros allowed), ``cost()``, ``sample(rng)``, ``describe()`` and ``_key()``
    (the parameters identifying the variable, for ``==``/``hash``), and set
    ``size``.
    """

    __slots__ = ("_weighted", "_outcomes", "_counting")
    size: int = 1

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _init(self, **fields: Any) -> None:
        for name, value in fields.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_weighted", None)
        object.__setattr__(self, "_outcomes", None)
        object.__setattr__(self, "_counting", None)

    def weighted(self) -> Weighted:
        """The outcomes as integers over a common denominator (cached).

        Returns ``(values, weights, denominator)`` with
        ``probability(values[i]) == weights[i] / denominator``, values sorted;
        exact enumeration multiplies and adds these integers instead of Fractions.
        """
        cached = self._weighted
        if cached is None:
            weights, total = self._weights()
            items = sorted(((v, w) for v, w in weights.items() if w), key=lambda item: sort_key(item[0]))
            nums = tuple(w for _, w in items)
            if sum(nums) != total:  # pragma: no cover - internal invariant
                raise AssertionError(f"probabilities of {self.describe()} do not sum to 1")
            common = gcd(total, *nums)
            if common > 1:
                nums, total = tuple(w // common for w in nums), total // common
            cached = (tuple(v for v, _ in items), nums, total)
            object.__setattr__(self, "_weighted", cached)
        return cached

    def outcomes(self) -> Outcomes:
        """Exact distribution: ``((value, probability), ...)`` sorted by value."""
        cached = self._outcomes
        if cached is None:
            values, nums, den = self.weighted()
            cached = tuple((v, Fraction(w, den)) for v, w in zip(values, nums))
            object.__setattr__(self, "_outcomes", cached)
        return cached

    def is_computed(self) -> bool:
        """Whether the distribution has been computed already (it then costs nothing)."""
        return self._weighted is not None

    def probability(self, value: Any) -> Fraction:
        """Probability that the variable takes ``value`` (0 if impossible)."""
        for v, p in self.outcomes():
            if v == value:
                return p
        return Fraction(0)

    def counting(self, kinds: tuple[str, ...]) -> RandomVariable:
        """The variable seen only through the counts of ``kinds`` (itself unless it counts kinds)."""
        return self

    def cost(self) -> int:
        """Work of computing the distribution (about one unit per small-integer operation)."""
        raise NotImplementedError

    def _weights(self) -> tuple[dict[Any, int], int]:
        raise NotImplementedError

    def sample(self, rng: random.Random) -> Any:
        """Draw one value with ``rng`` by simulating the physical process."""
        raise NotImplementedError

    def describe(self, lang: str = DEFAULT_LANGUAGE) -> str:
        """Short text for traces in ``lang``, e.g. ``"2d6"``."""
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


def _roll_faces(rng: random.Random, faces: tuple, count: int) -> Iterator:
    """``count`` faces rolled one die at a time, as ``rng.choice(faces)`` rolls them,
    one after the other (an iterator: a roll of a million dice holds no list)."""
    if type(rng) is not _PLAIN_RANDOM:
        for _ in range(count):
            yield rng.choice(faces)
        return
    getrandbits, sides = rng.getrandbits, len(faces)
    bits = sides.bit_length()
    for _ in range(count):
        r = getrandbits(bits)
        while r >= sides:
            r = getrandbits(bits)
        yield faces[r]


# ---------------------------------------------------------------------------
# Dice
# ---------------------------------------------------------------------------

class Die(RandomVariable):
    """A die: a name and its faces (ints, exact fractions or named faces as str).

    Faces may repeat (``Die("Dado especial", (1, 1, 0, 0, -1, -1))``); every
    face is equally likely. A die is itself the random variable "roll it once".
    """

    __slots__ = ("name", "faces", "_bits", "_pools")
    name: str
    faces: tuple

    def __init__(self, name: str, faces: tuple) -> None:
        faces = tuple(faces)
        if not faces:
            raise RuleError(N_("the die %(die)s has no faces"), None, {"die": name})
        for face in faces:
            if not (_is_number(face) or isinstance(face, str)):
                raise RuleError(N_("invalid face %(face)r on the die %(die)s"), None, {"face": face, "die": name})
        self._init(name=name, faces=faces, _bits=len(faces).bit_length(), _pools={})

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

    def cost(self) -> int:
        return len(self.faces)

    def _weights(self) -> tuple[dict[Any, int], int]:
        return dict(self.distinct_faces()), len(self.faces)

    def sample(self, rng: random.Random) -> Any:
        if type(rng) is not _PLAIN_RANDOM:
            return rng.choice(self.faces)
        sides, bits = len(self.faces), self._bits  # the draw rng.choice makes, without its call overhead
        r = rng.getrandbits(bits)
        while r >= sides:
            r = rng.getrandbits(bits)
        return self.faces[r]

    def describe(self, lang: str = DEFAULT_LANGUAGE) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Die({self.name!r}, {self.faces!r})"


@lru_cache(maxsize=None)
def std_die(sides: int) -> Die:
    """The standard die ``d{sides}`` with faces ``1..sides`` (one shared instance per size)."""
    if not isinstance(sides, int) or isinstance(sides, bool) or sides < 1:
        raise RuleError(N_("a standard die needs at least one face, not %(sides)r"), None, {"sides": sides})
    return Die(f"d{sides}", tuple(range(1, sides + 1)))


def roll_one(die: Die) -> RandomVariable:
    """Roll one die: the random variable of one of its faces (the die itself)."""
    if not isinstance(die, Die):
        raise RuleError(N_("a die was expected, not %(value)r"), None, {"value": die})
    return die


def _pool_text(die: Die, count: int) -> str:
    if die.is_standard():
        return f"{count}{die.name}"
    return f"{count}×{die.name}"


def _remembered(die: Die, keys: tuple[tuple, ...], make: Callable[[], RandomVariable]) -> RandomVariable:
    """The pool remembered in the die under ``keys[0]`` (the validated, canonical
    arguments), else ``make()``; remembered under every key given, so that the
    arguments as written find it at once next time."""
    pools = die._pools
    rv = pools.get(keys[0]) or make()
    if len(pools) >= _CACHE_PER_DIE:
        pools.clear()
    for key in keys:
        pools[key] = rv
    return rv


class _PoolSum(RandomVariable):
    """Sum of ``count`` dice, optionally keeping only the highest/lowest ``keep_n``."""

    __slots__ = ("die", "count", "keep", "keep_n", "size")
    die: Die
    count: int
    keep: str | None
    keep_n: int

    def __init__(self, die: Die, count: int, keep: str | None, keep_n: int) -> None:
        self._init(die=die, count=count, keep=keep, keep_n=keep_n, size=count)

    def _key(self) -> tuple:
        return (self.die, self.count, self.keep, self.keep_n)

    def _integer_faces(self) -> bool:
        return all(isinstance(f, int) for f in self.die.faces)

    def cost(self) -> int:
        faces = self.die.distinct_faces()
        values = [f for f, _ in faces]
        spread = max(values) - min(values)
        if self.keep is not None:
            # open states (dice placed, kept sum) per face, each tried with every number of dice
            states = self.keep_n * (self.keep_n * spread + 1)
            return len(faces) * states * (self.count + 1) * _big_ints(self.count)
        if self._integer_faces():
            return (self.count * spread + 1) * len(faces) * _big_ints(self.count)
        # fractional faces: at most one sum per multiset of faces, each convolution step
        outcomes = comb(self.count + len(faces) - 1, len(faces) - 1)
        return outcomes * len(faces) * self.count * _big_ints(self.count)

    def _weights(self) -> tuple[dict[Any, int], int]:
        total = len(self.die.faces) ** self.count
        faces = self.die.distinct_faces()
        if self.keep is not None:
            return _keep_weights(faces, self.count, self.keep_n, highest=self.keep == "highest"), total
        if self._integer_faces():
            return _power_weights(faces, self.count), total
        return _sum_weights(faces, self.count), total

    def sample(self, rng: random.Random) -> Any:
        faces, count = self.die.faces, self.count
        if count > 64 or type(rng) is not _PLAIN_RANDOM:
            rolled = _roll_faces(rng, faces, count)
            if self.keep is None:
                return sum(rolled, 0)
            best = heapq.nlargest if self.keep == "highest" else heapq.nsmallest
            return sum(best(self.keep_n, rolled), 0)
        # a few dice, the most frequent roll of all: _roll_faces inlined, into a list
        getrandbits, sides, bits = rng.getrandbits, len(faces), self.die._bits
        kept = []
        for _ in range(count):
            r = getrandbits(bits)
            while r >= sides:
                r = getrandbits(bits)
            kept.append(faces[r])
        if self.keep is not None:
            kept.sort(reverse=self.keep == "highest")
            del kept[self.keep_n:]
        return sum(kept, 0)

    def describe(self, lang: str = DEFAULT_LANGUAGE) -> str:
        pool = _pool_text(self.die, self.count)
        if self.keep is None:
            return pool
        if self.keep == "highest":
            return translate(N_("%(pool)s, keep %(n)s highest"), {"pool": pool, "n": self.keep_n}, lang)
        return translate(N_("%(pool)s, keep %(n)s lowest"), {"pool": pool, "n": self.keep_n}, lang)


def _power_weights(faces: tuple[tuple[int, int], ...], count: int) -> dict[int, int]:
    """Ways to obtain each sum of ``count`` dice with integer faces: the coefficients of
    ``P(x) ** count``, where ``P`` has one term ``mult * x ** (face - lowest)`` per face.

    J. C. P. Miller's recurrence gives each coefficient from the previous ones
    (``k a0 q[k] = Σ ((count + 1) i − k) a[i] q[k − i]``), exactly in integers:
    one pass over the sums, a few operations each, instead of ``count``
    successive convolutions.
    """
    lowest = min(f for f, _ in faces)
    terms = sorted((f - lowest, m) for f, m in faces)
    a0 = terms[0][1]
    higher = terms[1:]
    degree = count * terms[-1][0]
    q = [0] * (degree + 1)
    q[0] = a0**count
    n1 = count + 1
    for k in range(1, degree + 1):
        acc = 0
        for i, ai in higher:
            if i > k:
                break
            acc += (n1 * i - k) * ai * q[k - i]
        q[k] = acc // (k * a0)
    base = lowest * count
    return {base + k: w for k, w in enumerate(q) if w}


def _sum_weights(faces: tuple[tuple[Any, int], ...], count: int) -> dict[Any, int]:
    """Ways to obtain each sum of ``count`` dice (repeated convolution; any numeric faces)."""
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
    if type(count) is int:
        try:
            return die._pools["sum", count, keep, keep_n]
        except (AttributeError, KeyError, TypeError):
            pass
    if not isinstance(die, Die):
        raise RuleError(N_("a die was expected, not %(value)r"), src, {"value": die})
    key = ("sum", count, keep, keep_n)
    count = _check_count(count, Phrase(N_("the number of dice")), src)
    if count < 0:
        raise RuleError(N_("cannot roll a negative number of dice (%(count)s)"), src, {"count": count})
    if not die.is_numeric():
        raise RuleError(N_("the faces of the die %(die)s cannot be added"), src, {"die": die.name})
    if keep is None:
        if keep_n is not None:
            raise RuleError(N_("keep_n without keep ('highest' or 'lowest')"), src, {})
        keep_n = count
    else:
        if keep not in ("highest", "lowest"):
            raise RuleError(N_("keep must be 'highest' or 'lowest', not %(keep)r"), src, {"keep": keep})
        if keep_n is None:
            raise RuleError(N_("keep %(keep)r without a number of dice to keep"), src, {"keep": keep})
        keep_n = _check_count(keep_n, Phrase(N_("the number of dice to keep")), src)
        if keep_n < 0:
            raise RuleError(N_("cannot keep a negative number of dice (%(count)s)"), src, {"count": keep_n})
        if keep_n >= count:
            keep, keep_n = None, count
    if count == 0 or keep_n == 0:
        return _remembered(die, (("sum", 0, None, 0), key), lambda: constant(0))
    return _remembered(die, (("sum", count, keep, keep_n), key), lambda: _PoolSum(die, count, keep, keep_n))


class _PoolCount(RandomVariable):
    """Number of dice, out of ``count``, whose face satisfies ``face <op> threshold``."""

    __slots__ = ("die", "count", "op", "threshold", "size", "_test")
    die: Die
    count: int
    op: str
    threshold: Any

    def __init__(self, die: Die, count: int, op: str, threshold: Any) -> None:
        test = COMPARISONS[op]
        self._init(die=die, count=count, op=op, threshold=threshold, size=count, _test=lambda face: test(face, threshold))

    def _key(self) -> tuple:
        return (self.die, self.count, self.op, self.threshold)

    def cost(self) -> int:
        return (self.count + 1) * _big_ints(self.count)

    def _weights(self) -> tuple[dict[Any, int], int]:
        sides = len(self.die.faces)
        good = sum(1 for f in self.die.faces if self._test(f))
        bad = sides - good
        n = self.count
        return {k: comb(n, k) * good**k * bad ** (n - k) for k in range(n + 1)}, sides**n

    def sample(self, rng: random.Random) -> int:
        test = self._test
        return sum(1 for face in _roll_faces(rng, self.die.faces, self.count) if test(face))

    def describe(self, lang: str = DEFAULT_LANGUAGE) -> str:
        return translate(N_("%(pool)s, count %(op)s %(threshold)s"), {
            "pool": _pool_text(self.die, self.count), "op": _OP_TEXT[self.op], "threshold": format_value(self.threshold)}, lang)


def pool_count(
    die: Die, count: int, op: str, threshold: Any, *, src: str | None = None
) -> RandomVariable:
    """Roll ``count`` dice and count those whose face satisfies ``face <op> threshold``.

    ``op`` is one of ``== != < <= > >=``; ordering operators need numeric faces.
    The result is binomial, computed exactly.
    """
    if type(count) is int:
        try:
            return die._pools["count", count, op, threshold]
        except (AttributeError, KeyError, TypeError):
            pass
    if not isinstance(die, Die):
        raise RuleError(N_("a die was expected, not %(value)r"), src, {"value": die})
    key = ("count", count, op, threshold)
    count = _check_count(count, Phrase(N_("the number of dice")), src)
    if count < 0:
        raise RuleError(N_("cannot roll a negative number of dice (%(count)s)"), src, {"count": count})
    if op not in COMPARISONS:
        raise RuleError(N_("unknown comparison %(op)r"), src, {"op": op})
    if op not in ("==", "!=") and not (die.is_numeric() and _is_number(threshold)):
        raise RuleError(N_("the faces of the die %(die)s cannot be ordered with %(op)s"), src, {"die": die.name, "op": op})
    try:
        hash(threshold)
    except TypeError:
        raise RuleError(N_("cannot compare with %(value)s"), src, {"value": format_value(threshold)}) from None
    return _remembered(die, (("count", count, op, threshold), key), lambda: _PoolCount(die, count, op, threshold))


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


def _kinds_counted(kinds: tuple[str, ...], known: tuple[str, ...]) -> tuple[str, ...]:
    """``kinds`` in the order of ``known`` (the die's faces or the bag's tokens); unknown ones are an error."""
    unknown = set(kinds) - set(known)
    if unknown:
        raise RuleError(N_("there is no %(kind)r among %(known)s"), None, {"kind": sorted(unknown)[0], "known": ", ".join(known)})
    return tuple(k for k in known if k in kinds)


class _PoolFaces(RandomVariable):
    """How many of ``count`` dice show each distinct face (a :class:`Counts`).

    With ``kinds``, only the counts of those faces (the other faces are rolled
    but not counted): a multinomial over ``kinds`` and "any other face".
    """

    __slots__ = ("die", "count", "kinds", "size")
    die: Die
    count: int
    kinds: tuple[str, ...]

    def __init__(self, die: Die, count: int, kinds: tuple[str, ...]) -> None:
        self._init(die=die, count=count, kinds=kinds, size=count)

    def _key(self) -> tuple:
        return (self.die, self.count, self.kinds)

    def _categories(self) -> tuple[tuple[str, ...], tuple[int, ...]]:
        """The faces counted and the multiplicity of each, then of the faces not counted."""
        faces = dict(self.die.distinct_faces())
        mults = tuple(faces[k] for k in self.kinds)
        other = len(self.die.faces) - sum(mults)
        return self.kinds, mults + ((other,) if other else ())

    def cost(self) -> int:
        _, mults = self._categories()
        return comb(self.count + len(mults) - 1, len(mults) - 1) * len(mults) * _big_ints(self.count)

    def _weights(self) -> tuple[dict[Any, int], int]:
        names, mults = self._categories()
        n = self.count
        n_fact = factorial(n)
        weights: dict[Counts, int] = {}
        for parts in _compositions(n, (n,) * len(mults)):
            w = n_fact
            for k, mult in zip(parts, mults):
                w = w * mult**k // factorial(k)
            key = Counts(zip(names, parts))
            weights[key] = weights.get(key, 0) + w
        return weights, len(self.die.faces) ** n

    def counting(self, kinds: tuple[str, ...]) -> RandomVariable:
        kinds = _kinds_counted(kinds, self.kinds)
        if kinds == self.kinds:
            return self
        return _pool_faces_cached(self.die, self.count, kinds)

    def sample(self, rng: random.Random) -> Counts:
        counts = dict.fromkeys(self.kinds, 0)
        for face in _roll_faces(rng, self.die.faces, self.count):
            if face in counts:
                counts[face] += 1
        return Counts(counts)

    def describe(self, lang: str = DEFAULT_LANGUAGE) -> str:
        return _pool_text(self.die, self.count)


def pool_faces(die: Die, count: int, *, src: str | None = None) -> RandomVariable:
    """Roll ``count`` named-face dice: a :class:`Counts` of how many show each face.

    Keys follow the die's face order and every face is present (zeros included).
    """
    if not isinstance(die, Die):
        raise RuleError(N_("a die was expected, not %(value)r"), src, {"value": die})
    count = _check_count(count, Phrase(N_("the number of dice")), src)
    if count < 0:
        raise RuleError(N_("cannot roll a negative number of dice (%(count)s)"), src, {"count": count})
    if not all(isinstance(f, str) for f in die.faces):
        raise RuleError(N_("the die %(die)s has no named faces"), src, {"die": die.name})
    return _pool_faces_cached(die, count, tuple(f for f, _ in die.distinct_faces()))


@lru_cache(maxsize=1024)
def _pool_faces_cached(die: Die, count: int, kinds: tuple[str, ...]) -> _PoolFaces:
    return _PoolFaces(die, count, kinds)


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
                raise RuleError(N_("invalid or repeated kind of token %(kind)r in the bag %(bag)s"), None, {"kind": kind, "bag": name})
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise RuleError(N_("invalid number %(n)r of %(kind)s in the bag %(bag)s"), None, {"n": n, "kind": kind, "bag": name})
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
    """Draw ``n`` tokens without replacement: a :class:`Counts` per kind (hypergeometric).

    With ``kinds``, only the counts of those kinds (the other tokens are drawn
    but not counted).
    """

    __slots__ = ("bag", "n", "kinds", "size")
    bag: Bag
    n: int
    kinds: tuple[str, ...]

    def __init__(self, bag: Bag, n: int, kinds: tuple[str, ...]) -> None:
        self._init(bag=bag, n=n, kinds=kinds, size=n)

    def _key(self) -> tuple:
        return (self.bag, self.n, self.kinds)

    def _categories(self) -> tuple[tuple[str, ...], tuple[int, ...]]:
        """The kinds counted and how many tokens of each, then of the kinds not counted."""
        tokens = dict(self.bag.tokens)
        sizes = tuple(tokens[k] for k in self.kinds)
        other = self.bag.total() - sum(sizes)
        return self.kinds, sizes + ((other,) if other else ())

    def cost(self) -> int:
        _, sizes = self._categories()
        ways = 1
        for size in sizes:
            ways *= min(size, self.n) + 1
        return min(ways, comb(self.n + len(sizes) - 1, max(len(sizes) - 1, 0))) * len(sizes) * _big_ints(self.n)

    def _weights(self) -> tuple[dict[Any, int], int]:
        names, sizes = self._categories()
        weights: dict[Counts, int] = {}
        for parts in _compositions(self.n, sizes):
            w = 1
            for k, size in zip(parts, sizes):
                w *= comb(size, k)
            key = Counts(zip(names, parts))
            weights[key] = weights.get(key, 0) + w
        return weights, comb(self.bag.total(), self.n)

    def counting(self, kinds: tuple[str, ...]) -> RandomVariable:
        kinds = _kinds_counted(kinds, self.kinds)
        if kinds == self.kinds:
            return self
        return _bag_draw_cached(self.bag, self.n, kinds)

    def sample(self, rng: random.Random) -> Counts:
        # the tokens drawn as rng.sample(tokens, n) draws them, by position in the bag,
        # without listing the tokens (a bag's make-up may come from the input)
        kinds, ends, total = [], [], 0
        for kind, k in self.bag.tokens:
            total += k
            kinds.append(kind)
            ends.append(total)
        counts = dict.fromkeys(self.kinds, 0)
        for position in rng.sample(range(total), self.n):
            kind = kinds[bisect_right(ends, position)]
            if kind in counts:
                counts[kind] += 1
        return Counts(counts)

    def describe(self, lang: str = DEFAULT_LANGUAGE) -> str:
        return translate(N_("draw %(n)s from %(bag)s"), {"n": self.n, "bag": self.bag.name}, lang)


def bag_draw(bag: Bag, n: int, *, src: str | None = None) -> RandomVariable:
    """Draw ``n`` tokens from ``bag`` without replacement; the outcome is a :class:`Counts`.

    ``n <= 0`` gives all-zero counts.

    Raises:
        RuleError: ``n`` larger than the number of tokens in the bag.
    """
    if not isinstance(bag, Bag):
        raise RuleError(N_("a bag was expected, not %(value)r"), src, {"value": bag})
    n = _check_count(n, Phrase(N_("the number of tokens")), src)
    if n > bag.total():
        raise RuleError(N_("cannot draw %(n)s tokens from %(bag)s: there are only %(total)s"), src, {"n": n, "bag": bag.name, "total": bag.total()})
    if n <= 0:
        return constant(Counts((kind, 0) for kind in bag.kinds()))
    return _bag_draw_cached(bag, n, bag.kinds())


@lru_cache(maxsize=1024)
def _bag_draw_cached(bag: Bag, n: int, kinds: tuple[str, ...]) -> _BagDraw:
    return _BagDraw(bag, n, kinds)


# ---------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------

class _Constant(RandomVariable):
    """A value that is not random."""

    __slots__ = ("value",)
    size = 0
    value: Any

    def __init__(self, value: Any) -> None:
        self._init(value=value)

    def _key(self) -> tuple:
        return (type(self.value).__name__, self.value)

    def cost(self) -> int:
        return 1

    def _weights(self) -> tuple[dict[Any, int], int]:
        return {self.value: 1}, 1

    def counting(self, kinds: tuple[str, ...]) -> RandomVariable:
        if isinstance(self.value, Counts):
            return constant(Counts((k, v) for k, v in self.value.items() if k in kinds))
        return self

    def sample(self, rng: random.Random) -> Any:
        return self.value

    def describe(self, lang: str = DEFAULT_LANGUAGE) -> str:
        return translate(N_("fixed value %(value)s"), {"value": format_value(self.value)}, lang)


def constant(value: Any) -> RandomVariable:
    """The random variable that always takes ``value``."""
    return _Constant(value)


class Pools(dict):
    """The roll of one place in a resolver whose number of dice varies, by number:
    ``pools[n]`` is ``make(n)`` (e.g. ``pool_sum(die, n, "highest", 2)``), made
    and validated on first use, then found by a plain dictionary lookup.

    Generated resolvers build one per such roll, once (``Pools(lambda _n: …)``),
    instead of calling ``pool_sum`` on every roll. A count that is not an ``int``
    is passed to ``make`` every time (which accepts or refuses it), never
    remembered; at most :data:`_CACHE_PER_DIE` counts are remembered.
    """

    __slots__ = ("make",)

    def __init__(self, make: Callable[[Any], RandomVariable]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, count: Any) -> RandomVariable:
        rv = self.make(count)
        if type(count) is int:
            if len(self) >= _CACHE_PER_DIE:
                self.clear()
            self[count] = rv
        return rv

    def __repr__(self) -> str:
        return f"<Pools of {len(self)} numbers of dice>"


def bag_without(bag: Bag, removed: dict[str, int], src: str | None = None) -> Bag:
    """The bag with some tokens already taken out (``removed``: kind → how many).

    Taking out more tokens of a kind than the bag holds is a :class:`RuleError`.
    """
    tokens = []
    for kind, count in bag.tokens:
        out = removed.get(kind, 0)
        if not isinstance(out, int) or isinstance(out, bool) or out < 0:
            raise RuleError(N_("cannot take out %(n)r tokens of %(kind)s"), src, {"n": out, "kind": kind})
        if out > count:
            raise RuleError(N_("the bag %(bag)s only has %(count)s tokens of %(kind)s; %(n)s cannot be taken out"), src, {"bag": bag.name, "count": count, "kind": kind, "n": out})
        tokens.append((kind, count - out))
    unknown = set(removed) - set(bag.kinds())
    if unknown:
        raise RuleError(N_("the bag %(bag)s has no tokens of %(kind)s"), src, {"bag": bag.name, "kind": sorted(unknown)[0]})
    return Bag(bag.name, tuple(tokens))


def bag_with(bag: Bag, counts: dict[str, int], src: str | None = None) -> Bag:
    """The bag's kinds with the given number of tokens of each (others as declared).

    For bags whose make-up is computed, e.g. from a table row.
    """
    unknown = set(counts) - set(bag.kinds())
    if unknown:
        raise RuleError(N_("the bag %(bag)s has no tokens of %(kind)s"), src, {"bag": bag.name, "kind": sorted(unknown)[0]})
    tokens = []
    for kind, declared in bag.tokens:
        count = counts.get(kind, declared)
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise RuleError(N_("there cannot be %(n)r tokens of %(kind)s in the bag %(bag)s"), src, {"n": count, "kind": kind, "bag": bag.name})
        tokens.append((kind, count))
    return Bag(bag.name, tuple(tokens))
