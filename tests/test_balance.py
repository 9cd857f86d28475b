"""Matchups, engagements and ``rulebook balance``: exact values against hand computations.

The small rulebook ``tests/data/balance`` declares volleys (a matchup whose weapons add up),
the chance of at least one kill (each unit's best weapon), a shoot-out and a melee fought to
the break (engagements). The tests compare the analysis with sums and chains worked out here
in plain Python, check the outlier rule on that rulebook and on constructed values, and run
the command line in its three formats (the JSON against ``schemas/balance.schema.json``).
"""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from functools import lru_cache
from itertools import product

import pytest

from conftest import DATA

BOOK = DATA / "balance"
F = Fraction


@pytest.fixture(scope="module")
def analysed():
    from rulebook.compiler.commands.balance import analyse_folder

    return analyse_folder(BOOK)


def _unit(analysed, matchup: str, unit: str):
    m = analysed.balance.get(matchup)
    return next(u for u in m.units if u.attacker == unit)


# ---------------------------------------------------------------------------- matchups by hand


def _unsaved(shots: int, hit: int, save: int) -> Fraction:
    """The expected unsaved wounds of ``shots`` shots: each hits on ``hit``+ and is saved on ``save``+."""
    return shots * F(7 - hit, 6) * F(save - 1, 6)


def test_volleys_add_up_every_weapon(analysed):
    # Guards: Halberd (2 shots, 4+) and Sword (1 shot, 3+) against Spears (save 5+)
    guards = _unit(analysed, "volleys", "guards")
    assert guards.effects["spears"] == _unsaved(2, 4, 5) + _unsaved(1, 3, 5) == F(10, 9)
    archers = _unit(analysed, "volleys", "archers")
    assert archers.effects["spears"] == _unsaved(2, 4, 5) == F(2, 3)
    # the field: the mean over the 8 targets; per 100 points
    expected = sum((_unsaved(2, 4, save) for save in (6, 5, 4, 6, 4, 6, 5, 4)), F(0)) / 8
    assert archers.effect == expected and archers.per_point == expected * 100 / 10


def test_probability_of_a_kill_takes_the_best_weapon(analysed):
    # P(at least one unsaved wound) = 1 − (1 − p)^shots, with p = P(hit) × P(failed save)
    def at_least_one(shots, hit, save):
        p = F(7 - hit, 6) * F(save - 1, 6)
        return 1 - (1 - p) ** shots

    guards = _unit(analysed, "kills", "guards")
    assert guards.effects["spears"] == max(at_least_one(2, 4, 5), at_least_one(1, 3, 5)) == F(5, 9)
    assert guards.weapons["spears"] == "Halberd"
    # the field is weighted by the targets' points (weight: t.points)
    points = {"archers": 10, "spears": 10, "guards": 20, "militia": 5, "elite": 10, "levy": 10, "riders": 20, "knights": 30}
    field = sum((guards.effects[t] * p for t, p in points.items()), F(0)) / sum(points.values())
    assert guards.effect == field != sum(guards.effects.values(), F(0)) / len(points)


# ---------------------------------------------------------------------------- engagements by hand


def _melee_odds(a: dict, b: dict):
    """P(win), P(loss), P(draw) of a melee to the break, enumerated round by round: each band
    rolls its fight dice against the other's defence, wear is capped at stamina + 1, a band over
    its stamina holds on a d6 up to its nerve. Solved by recursion (a round that changes
    nothing repeats: its chance is divided out)."""

    def hits(dice, defence):
        p = F(7 - defence, 6)
        return {k: F(_choose(dice, k)) * p ** k * (1 - p) ** (dice - k) for k in range(dice + 1)}

    def broken(wear, band):
        return {False: F(1)} if wear <= band["stamina"] else {True: 1 - F(band["nerve"], 6), False: F(band["nerve"], 6)}

    def step(state):
        wl, wr = state
        out = {}
        for (hr, pr), (hl, pl) in product(hits(a["fight"], b["defence"]).items(), hits(b["fight"], a["defence"]).items()):
            nl, nr = min(wl + hl, a["stamina"] + 1), min(wr + hr, b["stamina"] + 1)
            for (bl, pbl), (br, pbr) in product(broken(nl, a).items(), broken(nr, b).items()):
                key = (nl, nr, bl, br)
                out[key] = out.get(key, 0) + pr * pl * pbl * pbr
        return out

    @lru_cache(maxsize=None)
    def odds(state):
        stay, acc = F(0), [F(0), F(0), F(0)]
        for (nl, nr, bl, br), p in step(state).items():
            if bl or br:
                acc[0 if br and not bl else 1 if bl and not br else 2] += p
            elif (nl, nr) == state:
                stay += p
            else:
                sub = odds((nl, nr))
                for i in range(3):
                    acc[i] += p * sub[i]
        return tuple(x / (1 - stay) for x in acc)

    return odds((0, 0))


def _choose(n, k):
    from math import comb

    return comb(n, k)


BANDS = {
    "pikes": {"fight": 1, "defence": 4, "stamina": 1, "nerve": 3},
    "swords": {"fight": 2, "defence": 5, "stamina": 1, "nerve": 2},
    "veterans": {"fight": 2, "defence": 4, "stamina": 2, "nerve": 4},
}


@pytest.mark.parametrize("left,right", [("pikes", "swords"), ("veterans", "swords"), ("veterans", "veterans")])
def test_melee_to_the_break_matches_the_chain_enumerated_by_hand(analysed, left, right):
    e = _unit(analysed, "melee", left).engagements[right]
    win, loss, draw = _melee_odds(BANDS[left], BANDS[right])
    assert (e.win, e.loss, e.draw) == (win, loss, draw)
    assert e.win + e.loss + e.draw == 1 and e.never == 0 and e.expected_rounds is not None


def test_shoot_out_still_fighting_after_n_rounds(analysed):
    # Spears against Spears: each round each side loses one of its 2 models with 1/3 (one shot:
    # 1/2 to hit, 2/3 the save fails), so after 3 rounds nobody is gone unless a side lost both
    e = _unit(analysed, "duel", "spears").engagements["spears"]
    p = F(1, 3)
    alive = {(2, 2): F(1)}
    for _ in range(3):
        nxt = {}
        for (left, right), q in alive.items():
            for dl, dr in product((0, 1), repeat=2):
                pq = q * (p if dl else 1 - p) * (p if dr else 1 - p)
                key = (max(left - dl, 0), max(right - dr, 0))
                if key[0] and key[1]:
                    nxt[key] = nxt.get(key, 0) + pq
        alive = nxt
    assert e.unfinished == sum(alive.values())
    assert e.win == e.loss  # the same unit on both sides


def test_an_engagement_past_the_work_limit_is_a_clear_error():
    from rulebook.compiler.commands.balance import BalanceError, analyse_folder

    with pytest.raises(BalanceError, match=r"engagement (duel|melee) \(.* × .*\): too much work"):
        analyse_folder(BOOK, max_work=3)


# ---------------------------------------------------------------------------- outliers


def test_outlier_rule_on_constructed_values():
    from rulebook.compiler.analysis.balance import fences

    s = fences([F(v) for v in (1, 2, 2, 2, 2, 3, 10)])  # Q1 2, Q3 3: fences 0.5 and 4.5
    assert (s.rule, s.low, s.high) == ("iqr", F(1, 2), F(9, 2))
    s = fences([F(1), F(4)])  # median 5/2: half and twice
    assert (s.rule, s.low, s.high) == ("factor", F(5, 4), F(5))
    assert fences([F(3)]).rule == "none"


def test_outliers_of_the_constructed_rulebook(analysed):
    m = analysed.balance.get("volleys")
    flagged = {u.attacker: u.outlier for u in m.units if u.outlier}
    assert flagged == {"elite": "high"}  # 22.2 per 100 points; the Foot category's fences are 10/9 … 10
    assert m.categories["Foot"].rule == "iqr" and m.categories["Horse"].rule == "factor"
    elite = _unit(analysed, "volleys", "elite")
    assert (elite.rank, elite.category_rank, elite.category_size) == (1, 1, 6)


# ---------------------------------------------------------------------------- the command line


def test_cli_formats(tmp_path, capsys):
    from jsonschema import Draft202012Validator

    from rulebook.compiler.analysis.balance import BALANCE_BODY, CSV_HEADER, MATRIX_HEADER
    from rulebook.compiler.commands.cli import main

    assert main(["balance", str(BOOK), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    Draft202012Validator({"$schema": "https://json-schema.org/draft/2020-12/schema", **BALANCE_BODY}).validate(doc)
    volleys = next(m for m in doc["matchups"] if m["name"] == "volleys")
    archers = next(u for u in volleys["units"] if u["id"] == "archers")
    assert archers["effects"]["spears"] == "2/3" and archers["outlier"] is None
    melee = next(m for m in doc["matchups"] if m["name"] == "melee")
    assert melee["kind"] == "win" and set(melee["units"][0]["engagements"]["pikes"]) >= {"win", "loss", "draw", "unfinished", "expected_rounds"}

    assert main(["balance", str(BOOK), "--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert tuple(rows[0]) == CSV_HEADER and any(r[1] == "elite" and r[-1] == "high" for r in rows)
    assert main(["balance", str(BOOK), "--format", "csv", "--matrix"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert tuple(rows[0]) == MATRIX_HEADER and ["volleys", "guards", "", "spears", "10/9", "1.111111", ""] in rows

    assert main(["balance", str(BOOK)]) == 0
    text = capsys.readouterr().out
    assert "1. Elite: 22.222" in text and "high: Elite" in text


def test_cli_bad_matchup_is_a_diagnostic(tmp_path, capsys):
    from rulebook.compiler.commands.cli import main

    book = tmp_path / "bad"
    book.mkdir()
    text = (BOOK / "00-balance.rules").read_text(encoding="utf-8").replace("  measure: mean(result)\n", "  measure: result\n", 1)
    (book / "00-balance.rules").write_text(text, encoding="utf-8")
    assert main(["balance", str(book)]) == 1
    err = capsys.readouterr().err
    assert "measure: is mean(e)" in err and "00-balance.rules:" in err
