"""Dice and bag distributions, cross-checked against icepool and brute force."""

import itertools
import math
import operator
import random
import time
from fractions import Fraction as F

import icepool
import pytest

from rulebook.runtime import (
    Bag,
    Counts,
    Die,
    RandomVariable,
    RuleError,
    bag_draw,
    constant,
    pool_count,
    pool_faces,
    pool_sum,
    roll_one,
    std_die,
)

SHOOTING = Die("Dado de disparo", (1, 1, 0, 0, -1, -1))
SKEWED = Die("sesgado", (0, 0, 0, 1, 2, 5))
DICE = {
    "d4": std_die(4),
    "d6": std_die(6),
    "d10": std_die(10),
    "shooting": SHOOTING,
    "skewed": SKEWED,
}
OPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def ice(die: Die) -> icepool.Die:
    return icepool.Die(list(die.faces))


def ice_dist(d: icepool.Die) -> dict:
    total = d.denominator()
    return {o: F(q, total) for o, q in zip(d.outcomes(), d.quantities()) if q}


def dist(rv: RandomVariable) -> dict:
    return dict(rv.outcomes())


def check_outcomes_invariants(rv: RandomVariable) -> None:
    outs = rv.outcomes()
    assert sum(p for _, p in outs) == 1
    assert all(p > 0 for _, p in outs)
    values = [v for v, _ in outs]
    assert len(values) == len(set(values))
    assert outs is rv.outcomes()  # cached


@pytest.mark.parametrize("name", DICE)
def test_roll_one_matches_icepool(name):
    die = DICE[name]
    rv = roll_one(die)
    check_outcomes_invariants(rv)
    assert dist(rv) == ice_dist(ice(die))


def test_2d6_matches_icepool():
    rv = pool_sum(std_die(6), 2)
    assert dist(rv) == ice_dist(2 @ icepool.d6)
    assert rv.probability(7) == F(1, 6)
    assert rv.describe() == "2d6"


@pytest.mark.parametrize("name", DICE)
@pytest.mark.parametrize("count", [0, 1, 2, 3, 5])
def test_pool_sum_matches_icepool(name, count):
    die = DICE[name]
    rv = pool_sum(die, count)
    check_outcomes_invariants(rv)
    assert dist(rv) == ice_dist(ice(die).pool(count).sum())


@pytest.mark.parametrize("name", DICE)
@pytest.mark.parametrize("count, keep_n", [(1, 1), (2, 1), (3, 1), (3, 2), (4, 2), (5, 3), (6, 1), (6, 5)])
@pytest.mark.parametrize("keep", ["highest", "lowest"])
def test_pool_keep_matches_icepool(name, count, keep_n, keep):
    die = DICE[name]
    rv = pool_sum(die, count, keep, keep_n)
    check_outcomes_invariants(rv)
    pool = ice(die).pool(count)
    expected = (pool.highest(keep_n) if keep == "highest" else pool.lowest(keep_n)).sum()
    assert dist(rv) == ice_dist(expected)


def test_keep_edge_cases():
    assert dist(pool_sum(SHOOTING, 2, "lowest", 5)) == dist(pool_sum(SHOOTING, 2))
    assert dist(pool_sum(SHOOTING, 3, "highest", 0)) == {0: 1}
    assert dist(pool_sum(SHOOTING, 0)) == {0: 1}
    assert pool_sum(SHOOTING, 3, "lowest", 2).describe() == "3×Dado de disparo, conserva 2 peores"
    assert pool_sum(std_die(6), 4, "highest", 3).describe() == "4d6, conserva 3 mejores"


@pytest.mark.parametrize(
    "args",
    [
        (SHOOTING, -1),
        (SHOOTING, 2, "middle", 1),
        (SHOOTING, 2, "highest"),
        (SHOOTING, 2, None, 1),
        (SHOOTING, 2, "highest", -1),
        (SHOOTING, F(1, 2)),
        (Die("caras", ("a", "b")), 2),
    ],
)
def test_pool_sum_errors(args):
    with pytest.raises(RuleError):
        pool_sum(*args)


def test_large_pools_are_fast_and_match_icepool():
    start = time.perf_counter()
    keep = pool_sum(std_die(6), 20, "highest", 2).outcomes()
    total = pool_sum(std_die(6), 30).outcomes()
    elapsed = time.perf_counter() - start
    assert elapsed < 0.05, elapsed
    assert dict(keep) == ice_dist(icepool.d6.pool(20).highest(2).sum())
    assert dict(total) == ice_dist(30 @ icepool.d6)


@pytest.mark.parametrize("name", DICE)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("count", [0, 1, 4])
def test_pool_count_matches_icepool(name, op, count):
    die = DICE[name]
    threshold = 1
    rv = pool_count(die, count, op, threshold)
    check_outcomes_invariants(rv)
    hits = ice(die).map(lambda f: 1 if OPS[op](f, threshold) else 0)
    assert dist(rv) == ice_dist(hits.pool(count).sum())


def test_pool_count_named_faces_and_errors():
    die = Die("órdenes", ("a", "b", "b", "c"))
    assert dist(pool_count(die, 2, "==", "b")) == {0: F(1, 4), 1: F(1, 2), 2: F(1, 4)}
    with pytest.raises(RuleError):
        pool_count(die, 2, ">=", "b")
    with pytest.raises(RuleError):
        pool_count(std_die(6), 2, "=>", 3)
    assert pool_count(std_die(6), 3, ">=", 5).describe() == "3d6, cuenta ≥ 5"


NAMED = Die("órdenes", ("a", "b", "b", "c", "d", "d"))


@pytest.mark.parametrize("count", [0, 1, 2, 3, 4])
def test_pool_faces_matches_brute_force(count):
    rv = pool_faces(NAMED, count)
    check_outcomes_invariants(rv)
    expected: dict = {}
    for rolls in itertools.product(NAMED.faces, repeat=count):
        key = Counts((face, rolls.count(face)) for face in ("a", "b", "c", "d"))
        expected[key] = expected.get(key, 0) + F(1, len(NAMED.faces) ** count)
    assert dist(rv) == expected
    for value, _ in rv.outcomes():
        assert list(value) == ["a", "b", "c", "d"]


def test_pool_faces_needs_named_faces():
    with pytest.raises(RuleError):
        pool_faces(std_die(6), 2)


SMALL_BAG = Bag("pequeña", (("x", 3), ("y", 2), ("z", 1)))
BIG_BAG = Bag("grande", (("x", 8), ("y", 10), ("z", 6)))


@pytest.mark.parametrize("n", range(0, 7))
def test_bag_draw_matches_brute_force(n):
    tokens = [kind for kind, k in SMALL_BAG.tokens for _ in range(k)]
    expected: dict = {}
    draws = list(itertools.permutations(range(len(tokens)), n))
    for draw in draws:
        key = Counts((kind, sum(1 for i in draw if tokens[i] == kind)) for kind in SMALL_BAG.kinds())
        expected[key] = expected.get(key, 0) + F(1, len(draws))
    rv = bag_draw(SMALL_BAG, n)
    check_outcomes_invariants(rv)
    assert dist(rv) == expected


@pytest.mark.parametrize("n", range(0, 7))
def test_bag_draw_big_bag_sums_to_one(n):
    rv = bag_draw(BIG_BAG, n)
    check_outcomes_invariants(rv)
    assert all(v.total() == n for v, _ in rv.outcomes())
    assert len(rv.outcomes()) == sum(1 for a in range(n + 1) for b in range(n + 1 - a) if n - a - b <= 6)


def test_bag_draw_hypergeometric_value():
    rv = bag_draw(BIG_BAG, 3)
    assert rv.probability(Counts({"x": 3, "y": 0, "z": 0})) == F(math.comb(8, 3), math.comb(24, 3))
    assert rv.describe() == "saca 3 de grande"


def test_bag_draw_limits():
    with pytest.raises(RuleError):
        bag_draw(SMALL_BAG, 7)
    assert dist(bag_draw(SMALL_BAG, -2)) == {Counts({"x": 0, "y": 0, "z": 0}): 1}


def test_constant_and_identity():
    assert dist(constant(3)) == {3: 1}
    assert constant("a").sample(random.Random(0)) == "a"
    assert std_die(6) is std_die(6)
    assert std_die(6) == Die("d6", (1, 2, 3, 4, 5, 6))
    assert pool_sum(SHOOTING, 3, "lowest", 2) is pool_sum(SHOOTING, 3, "lowest", 2)
    assert hash(Die("a", (1, 2))) == hash(Die("a", (1, 2)))


def test_weighted_matches_outcomes():
    rv = pool_sum(SKEWED, 3, "highest", 2)
    values, nums, den = rv.weighted()
    assert tuple(zip(values, (F(n, den) for n in nums))) == rv.outcomes()


RVS = {
    "keep_lowest": pool_sum(SHOOTING, 3, "lowest", 2),
    "keep_highest": pool_sum(SKEWED, 4, "highest", 2),
    "sum": pool_sum(std_die(4), 3),
    "count": pool_count(std_die(6), 4, ">=", 5),
    "faces": pool_faces(NAMED, 2),
    "bag": bag_draw(BIG_BAG, 3),
    "die": roll_one(SKEWED),
}


@pytest.mark.parametrize("name", RVS)
def test_sampling_is_consistent_with_outcomes(name):
    rv = RVS[name]
    n = 100_000
    rng = random.Random(12345)
    seen: dict = {}
    for _ in range(n):
        v = rv.sample(rng)
        seen[v] = seen.get(v, 0) + 1
    outs = dict(rv.outcomes())
    assert set(seen) <= set(outs)
    for value, p in outs.items():
        freq = seen.get(value, 0) / n
        se = math.sqrt(float(p) * (1 - float(p)) / n)
        assert abs(freq - float(p)) <= 4 * se + 1e-12, (value, freq, float(p))


@pytest.mark.parametrize("name", ["shooting", "skewed", "d4"])
def test_large_pool_sums_match_icepool(name):
    die = DICE[name]
    rv = pool_sum(die, 150)
    check_outcomes_invariants(rv)
    assert dist(rv) == ice_dist(150 @ ice(die))


def test_counting_kinds_is_the_marginal():
    """Reading only some counts of a roll or draw: the projection of the whole distribution."""
    for rv, kinds in ((pool_faces(NAMED, 4), ("b",)), (pool_faces(NAMED, 4), ("d", "a")),
                      (bag_draw(BIG_BAG, 5), ("x",)), (bag_draw(BIG_BAG, 5), ("z", "y"))):
        expected: dict = {}
        for value, p in rv.outcomes():
            key = Counts((k, n) for k, n in value.items() if k in kinds)  # in the die's or bag's order
            expected[key] = expected.get(key, 0) + p
        marginal = rv.counting(kinds)
        check_outcomes_invariants(marginal)
        assert dist(marginal) == expected
        assert marginal.cost() <= rv.cost()
    assert pool_faces(NAMED, 3).counting(("a", "b", "c", "d")) is pool_faces(NAMED, 3)
    with pytest.raises(RuleError):
        pool_faces(NAMED, 3).counting(("zz",))


def test_the_cost_is_known_before_computing():
    rv = pool_sum(SHOOTING, 10**40)
    assert not rv.is_computed() and rv.cost() > 10**40
    small = pool_sum(SHOOTING, 3)
    small.weighted()
    assert small.is_computed()


@pytest.mark.parametrize("name", RVS)
def test_dice_are_rolled_as_random_choice_rolls_them(name):
    """One die after another, the same faces ``rng.choice`` would give for the same seed."""
    rv = RVS[name]
    if not hasattr(rv, "die"):
        return
    ours, theirs = random.Random(7), random.Random(7)
    for _ in range(200):
        value = rv.sample(ours)
        faces = [theirs.choice(rv.die.faces) for _ in range(getattr(rv, "count", 1))]
        if getattr(rv, "keep", None) is not None:
            faces = sorted(faces, reverse=rv.keep == "highest")[: rv.keep_n]
        if isinstance(value, Counts):
            assert value == Counts((k, faces.count(k)) for k in value)
        elif getattr(rv, "op", None) is not None:
            assert value == sum(1 for f in faces if OPS[rv.op](f, rv.threshold))
        else:
            assert value == sum(faces)
