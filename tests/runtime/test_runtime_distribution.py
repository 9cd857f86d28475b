"""exact(), sample(), sample_many() and Distribution on hand-written resolvers."""

import json
import math
import random
from dataclasses import dataclass
from fractions import Fraction as F

import pytest

from rulebook.runtime import (
    Bag,
    Counts,
    Die,
    Distribution,
    RuleError,
    bag_draw,
    exact,
    pool_faces,
    pool_sum,
    sample,
    sample_many,
    std_die,
)

D6 = std_die(6)
SHOOTING = Die("Dado de disparo", (1, 1, 0, 0, -1, -1))


def exploding(ctx):
    """d6; on a 6 roll again and add."""
    r = ctx.roll(D6, "tirada")
    if r == 6:
        r += ctx.roll(D6, "extra")
    return r


def two_d6(ctx):
    return ctx.roll(D6) + ctx.roll(D6)


@dataclass(frozen=True)
class Outcome:
    hit: bool
    margin: int


def attack(ctx, target: int, bonus: int = 0):
    """Nested procedures, dataclass result, keyword arguments."""
    ctx.enter("attack", "Ataque", "A.1", "content/t/01-a.rules:1", {"target": target, "bonus": bonus})
    ctx.step(1, "Tirada", "A.1", "content/t/01-a.rules:2")
    total = ctx.let("total", quality(ctx) + bonus)
    return ctx.leave(Outcome(total >= target, total - target))


def quality(ctx):
    ctx.enter("quality", "Calidad", "A.2", "content/t/01-a.rules:10", {})
    ctx.step(1, "Dados", "A.2", "content/t/01-a.rules:11")
    r = ctx.let("r", ctx.roll(pool_sum(SHOOTING, 3, "lowest", 2), "r"))
    return ctx.leave(r)


def test_exploding_die_exact():
    d = exact(exploding)
    expected = {k: F(1, 6) for k in range(1, 6)}
    expected.update({6 + k: F(1, 36) for k in range(1, 7)})
    assert dict(d.items()) == expected
    assert d.total() == 1
    assert d.mean() == F(49, 12)
    assert d[6] == 0 and 6 not in d and 7 in d
    assert d.probability(lambda r: r > 6) == F(1, 6)
    assert len(d) == 11 and list(d) == sorted(expected)


def test_two_d6_exact_matches_pool():
    assert exact(two_d6) == Distribution(pool_sum(D6, 2).outcomes())


def test_nested_procedures_with_arguments():
    d = exact(attack, 1, bonus=1)
    # quality: lowest 2 of 3 shooting dice: {-2: 7/27, -1: 1/3, 0: 7/27, 1: 1/9, 2: 1/27}
    assert d.probability(lambda o: o.hit) == F(7, 27) + F(1, 9) + F(1, 27)
    assert d[Outcome(False, -2)] == F(7, 27)
    assert d.map(lambda o: o.hit) == Distribution({True: F(11, 27), False: F(16, 27)})


def test_result_types_are_merged_and_sorted():
    def mixed(ctx):
        r = ctx.roll(D6)
        if r == 1:
            return None
        if r == 2:
            return "dos"
        if r == 3:
            return F(1, 2)
        if r == 4:
            return (1, Counts({"a": 1}))
        return r > 4  # True twice

    d = exact(mixed)
    assert d[True] == F(1, 3)
    assert [o for o, _ in d.items()] == [None, True, F(1, 2), "dos", (1, Counts({"a": 1}))]


def test_bag_inside_exact():
    bag = Bag("b", (("x", 2), ("y", 1)))

    def draw_then_roll(ctx):
        c = ctx.roll(bag_draw(bag, 2))
        return c.x + (ctx.roll(D6) if c.y else 0)

    d = exact(draw_then_roll)
    assert d.total() == 1
    # {x: 2, y: 0} with probability 1/3; else {x: 1, y: 1} and 1 + d6
    assert d[2] == F(1, 3) + F(2, 3) * F(1, 6)
    assert d[1 + 6] == F(2, 3) * F(1, 6)


def test_many_paths_and_max_paths():
    def five_d6(ctx):
        return sum(ctx.roll(D6) for _ in range(5))

    assert exact(five_d6) == Distribution(pool_sum(D6, 5).outcomes())
    with pytest.raises(RuleError, match="1000 caminos"):
        exact(five_d6, max_paths=1000)


def test_deep_paths_do_not_recurse():
    coin = Die("moneda", (0, 1))

    def long_run(ctx):
        # 2000 branching rolls on the first path: depth must not be a problem
        n = 0
        for _ in range(2000):
            n += ctx.roll(coin)
            if n:
                break
        return n

    d = exact(long_run)
    assert d[0] == F(1, 2**2000)
    assert d[1] == 1 - F(1, 2**2000)


def test_non_deterministic_function_is_reported():
    rng = random.Random(1)

    def cheat(ctx):
        if rng.random() < 0.5:
            return ctx.roll(D6)
        return ctx.roll(SHOOTING) + ctx.roll(SHOOTING)

    with pytest.raises(RuleError, match="determinista"):
        for _ in range(20):
            exact(cheat)


def test_unhashable_result():
    with pytest.raises(RuleError, match="hashable"):
        exact(lambda ctx: [ctx.roll(D6)])


def test_distribution_json_and_mean_errors():
    d = exact(exploding)
    data = d.to_json()
    json.dumps(data)
    assert data[0] == {"outcome": 1, "probability": "1/6", "p": 1 / 6}
    with pytest.raises(RuleError):
        Distribution({"a": F(1)}).mean()


def test_rule_errors_propagate():
    def failing(ctx):
        if ctx.roll(D6) == 6:
            raise RuleError("seis", "f.rules:3")
        return 0

    with pytest.raises(RuleError, match="seis"):
        exact(failing)


@pytest.mark.parametrize("fn, args", [(exploding, ()), (attack, (1,)), (two_d6, ())])
def test_sampling_agrees_with_exact(fn, args):
    n = 100_000
    counts = sample_many(fn, n, 2024, *args)
    assert sum(counts.values()) == n
    d = exact(fn, *args)
    assert set(counts) <= set(d)
    for outcome, p in d.items():
        freq = counts.get(outcome, 0) / n
        se = math.sqrt(float(p) * (1 - float(p)) / n)
        assert abs(freq - float(p)) <= 4 * se, (outcome, freq, float(p))


def test_sample_is_reproducible():
    a = sample(attack, 1, seed=7, bonus=1)
    b = sample(attack, 1, seed=7, bonus=1)
    assert a[0] == b[0]
    assert a[1].to_json() == b[1].to_json()
    result, trace = sample(exploding, seed=7, trace=False)
    assert trace is None and 1 <= result <= 12
    assert sample_many(exploding, 500, 3) == sample_many(exploding, 500, 3)


# --------------------------------------------------------------------------- states and calls


def _counted_exact(fn, *args, **kwargs):
    """``exact`` of ``fn`` and the number of times it replayed ``fn``."""
    from rulebook.runtime.context import ExactContext, _Session

    session = _Session(10**7, 10**7)
    weights, den = ExactContext(session).distribution(fn, args, kwargs)
    return Distribution.from_weights(weights, den), session.runs


def test_equal_states_are_explored_once():
    """Eight d6 added one by one: the state after each roll is the running total."""

    def running_total(ctx):
        total = 0
        for k in range(8):
            total += ctx.roll(D6, f"d{k}", "t.rules:1", state=lambda v, total=total, k=k: (k, total + v))
        return total

    def every_path(ctx):
        return sum(ctx.roll(D6) for _ in range(3))

    d, runs = _counted_exact(running_total)
    assert d == Distribution(pool_sum(D6, 8).outcomes())
    assert runs < 400  # 6^8 = 1,679,616 paths
    assert _counted_exact(every_path)[1] == 6**3


def test_a_state_that_forgets_the_roll_merges_its_outcomes():
    def parity(ctx):
        first = ctx.roll(D6, "a", "t.rules:1", state=lambda v: (v % 2,))
        return (first % 2) + ctx.roll(SHOOTING, "b", "t.rules:2")

    d, runs = _counted_exact(parity)
    assert d == Distribution({-1: F(1, 6), 0: F(1, 3), 1: F(1, 3), 2: F(1, 6)})
    assert runs == 2 * 3  # two states, three shooting outcomes each


def test_a_called_procedure_is_one_choice_among_its_results():
    calls = []

    def quality_roll(ctx, dice):
        calls.append(dice)
        return ctx.roll(pool_sum(SHOOTING, dice, "lowest", 2), "calidad", "t.rules:5")

    def two_attacks(ctx):
        a = ctx.call(quality_roll, {"dice": 3}, "t.rules:9", state=lambda v: (v,))
        b = ctx.call(quality_roll, {"dice": 3}, "t.rules:10", state=lambda v: (a + v,))
        return a + b

    d = exact(two_attacks)
    single = dict(pool_sum(SHOOTING, 3, "lowest", 2).outcomes())
    expected: dict = {}
    for x, p in single.items():
        for y, q in single.items():
            expected[x + y] = expected.get(x + y, 0) + p * q
    assert dict(d.items()) == expected
    assert len(calls) == 5  # the callee's own paths, once: its results are then reused
    result, _ = sample(two_attacks, seed=3)
    assert -4 <= result <= 4


def test_reads_project_a_roll_of_named_faces():
    faces = Die("órdenes", ("combate", "moral", "friccion", "friccion", "moral", "moral"))

    def frictions(ctx):
        counts = ctx.roll(pool_faces(faces, 40), "caras", "t.rules:1", reads=("friccion",))
        return counts.friccion

    d = exact(frictions)
    assert len(d) == 41 and d[0] == F(2, 3) ** 40
    assert sample(frictions, seed=1)[0] in d


def test_replays_check_the_same_choices_with_states():
    rng = random.Random(4)

    def cheat(ctx):
        first = ctx.roll(D6, "a", "t.rules:1", state=lambda v: (v,))
        return first + ctx.roll(D6 if rng.random() < 0.5 else SHOOTING, "b", "t.rules:2")

    with pytest.raises(RuleError, match="determinista"):
        for _ in range(20):
            exact(cheat)
