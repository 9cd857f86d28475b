"""The army builder and ``rulebook roster validate`` agree on every roster (issue 14 §4).

For each bundled rulebook with an army, a few hundred rosters are generated
(seeded): random lists built from the army document, most of them then
broken on purpose — over budget, an option the entry does not allow, unknown
or misspelt ids, options taken too often, limits broken, wrong sides, missing
or unknown quality, models and choices, values of the wrong type. Each is
checked by the builder page's own script in headless Chromium (reading the
army document embedded in the built page) and by ``rulebook.compiler.commands.roster``; the
results must be equal: each unit's cost, the total, the budget and every error
and warning (code, path, message, params, rule, did-you-mean). Rosters that do
not follow the roster schema must be refused by both, at the same JSON paths.
A sample also goes through the command line (``--format json``).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT / "tests" / "site"))

from bundled import bundled_builds  # noqa: E402,F401 - the fixture
from chromium import ARMY_BOOKS, AVAILABLE, BUILDER_PAGE, SKIP_REASON, chromium, open_builder, served  # noqa: E402

if not AVAILABLE:
    pytest.skip(SKIP_REASON, allow_module_level=True)
pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")

ROSTERS = 300  # per rulebook
CLI_EVERY = 20  # every n-th roster also through `rulebook roster validate --format json`
SEED = 14


# ---------------------------------------------------------------------- rosters


def _typo(rng: random.Random, text: str) -> str:
    """A near miss of an id (did-you-mean material), or a case change."""
    kind = rng.randrange(4)
    if kind == 0 and len(text) > 2:
        i = rng.randrange(len(text))
        return text[:i] + text[i + 1:]
    if kind == 1:
        return text.upper() if text != text.upper() else text + "x"
    if kind == 2:
        return text + rng.choice("sxñ_")
    return rng.choice(["zzz", "", "ñandú", "__proto__", "constructor", "x" * 250, "a" * 120 + text, text[::-1]])


class Generator:
    """Random rosters of one army document: built legally, then broken on purpose."""

    def __init__(self, army: dict, seed: int):
        self.army, self.rng = army, random.Random(seed)
        self.entries = army["entries"]
        self.option_ids = sorted({o["id"] for o in army["options"].values()})

    def allowed(self, entry: dict) -> list[dict]:
        return [self.army["options"][k] for k in entry["options"]]

    def unit(self, entry: dict) -> dict:
        rng, army = self.rng, self.army
        unit: dict = {"entry": entry["id"]}
        if army["quality"]:
            unit["quality"] = rng.choice(army["quality"]["values"])["id"]
        if entry["models"]:
            unit["models"] = rng.randint(entry["models"]["min"], entry["models"]["max"])
        options = []
        for o in self.allowed(entry):
            if rng.random() < 0.3:
                options += [o["id"]] * rng.randint(1, min(o["max"], 2))
        if options:
            unit["options"] = options
        choosing = [s for s in entry["composition"] if len(s["alternatives"]) > 1]
        if choosing:
            unit["choices"] = [rng.choice(s["alternatives"]) for s in choosing]
        if rng.random() < 0.15:
            unit["name"] = rng.choice(["Primera", "</script><b>x</b>", "«Los de siempre» & cía", "😀 unit"])
        return unit

    def base(self) -> dict:
        rng, army = self.rng, self.army
        roster: dict = {"format": 1, "rulebook": army["rulebook"], "army": army["id"]}
        if rng.random() < 0.5:
            roster["content_hash"] = army["content_hash"]
        if army["sides"]:
            roster["side"] = rng.choice(army["sides"])["id"]
        if army["roles"]:
            roster["role"] = rng.choice(army["roles"])["id"]
        budget = army["budget"]
        if budget["agreed"] and (not budget["sizes"] or rng.random() < 0.3):
            roster["points"] = rng.randint(budget["agreed_min"], 4000)
        elif budget["sizes"]:
            roster["size"] = rng.choice(budget["sizes"])["id"]
        eligible = [e for e in self.entries if e["side"] in (None, roster.get("side"))]
        roster["units"] = [self.unit(rng.choice(eligible)) for _ in range(rng.randint(1, 6))]
        return roster

    def roster(self) -> dict:
        roster = self.base()
        for _ in range(self.rng.choice([0, 0, 1, 1, 1, 2, 3])):
            self.rng.choice(self.MUTATIONS)(self, roster)
        if self.rng.random() < 0.08:
            self.wrong_types(roster)
        return roster

    # ---- mutations: each breaks one thing

    def _a_unit(self, roster: dict) -> tuple[dict | None, dict | None]:
        known = {e["id"]: e for e in self.entries}
        units = [u for u in roster.get("units", []) if isinstance(u, dict) and u.get("entry") in known]
        if not units:
            return None, None
        unit = self.rng.choice(units)
        return unit, known[unit["entry"]]

    def over_budget(self, roster):
        if roster.get("units"):
            roster["units"] = roster["units"] * self.rng.randint(3, 8)

    def option_not_allowed(self, roster):
        unit, entry = self._a_unit(roster)
        if unit:
            mine = {o["id"] for o in self.allowed(entry)}
            others = [o for o in self.option_ids if o not in mine]
            if others:
                unit.setdefault("options", []).append(self.rng.choice(others))

    def unknown_option(self, roster):
        unit, entry = self._a_unit(roster)
        if unit:
            allowed = [o["id"] for o in self.allowed(entry)] or ["granadas"]
            unit.setdefault("options", []).insert(0, _typo(self.rng, self.rng.choice(allowed)))

    def option_max(self, roster):
        unit, entry = self._a_unit(roster)
        if unit and self.allowed(entry):
            o = self.rng.choice(self.allowed(entry))
            unit["options"] = unit.get("options", []) + [o["id"]] * (o["max"] + 1)

    def remove_missing(self, roster):
        with_remove = [e for e in self.entries if any(self.army["options"][k]["remove"] for k in e["options"])]
        if with_remove:
            e = self.rng.choice(with_remove)
            ids = [self.army["options"][k]["id"] for k in e["options"] if self.army["options"][k]["remove"]]
            roster.setdefault("units", []).append({"entry": e["id"], "options": ids * 2})

    def unknown_entry(self, roster):
        roster.setdefault("units", []).append({"entry": _typo(self.rng, self.rng.choice(self.entries)["id"])})

    def wrong_side(self, roster):
        others = [e for e in self.entries if e["side"] is not None and e["side"] != roster.get("side")]
        if others:
            roster.setdefault("units", []).append(self.unit(self.rng.choice(others)))

    def side(self, roster):
        choice = self.rng.randrange(3)
        if choice == 0:
            roster.pop("side", None)
        else:
            roster["side"] = _typo(self.rng, roster.get("side") or "bando")

    def role(self, roster):
        if self.rng.random() < 0.5:
            roster.pop("role", None)
        else:
            roster["role"] = _typo(self.rng, roster.get("role") or "atacante")

    def budget(self, roster):
        choice = self.rng.randrange(5)
        sizes = [s["id"] for s in self.army["budget"]["sizes"]] or ["grande"]
        if choice == 0:
            roster["size"], roster["points"] = self.rng.choice(sizes), 500
        elif choice == 1:
            roster.pop("size", None)
            roster.pop("points", None)
        elif choice == 2:
            roster.pop("size", None)
            roster["points"] = self.rng.choice([0, -5, 1, 7, 1025, 99999])
        else:
            roster.pop("points", None)
            roster["size"] = _typo(self.rng, self.rng.choice(sizes))

    def quality(self, roster):
        unit, _entry = self._a_unit(roster)
        if unit is None:
            return
        values = [q["id"] for q in (self.army["quality"] or {"values": [{"id": "veteran"}]})["values"]]
        if self.rng.random() < 0.4:
            unit.pop("quality", None)
        else:
            unit["quality"] = _typo(self.rng, self.rng.choice(values))

    def models(self, roster):
        unit, entry = self._a_unit(roster)
        if unit is None:
            return
        choice = self.rng.randrange(3)
        if choice == 0:
            unit.pop("models", None)
        elif choice == 1:
            unit["models"] = (entry["models"]["max"] + 1) if entry["models"] else 3
        else:
            unit["models"] = 0

    def choices(self, roster):
        unit, entry = self._a_unit(roster)
        if unit is None:
            return
        choice = self.rng.randrange(3)
        if choice == 0:
            unit.pop("choices", None)
        elif choice == 1:
            unit["choices"] = unit.get("choices", []) + ["tercio"]
        else:
            lines = [s for s in entry["composition"] if len(s["alternatives"]) > 1]
            if lines:
                unit["choices"] = [_typo(self.rng, s["alternatives"][0]) for s in lines]

    def limits(self, roster):
        categories = [c["id"] for c in self.army["categories"]]
        if categories and self.rng.random() < 0.5:
            cat = self.rng.choice(categories)
            pool = [e for e in self.entries if e["category"] == cat and e["side"] in (None, roster.get("side"))]
            if pool:
                roster.setdefault("units", []).extend(self.unit(self.rng.choice(pool)) for _ in range(self.rng.randint(2, 5)))
        elif roster.get("units"):
            roster["units"] = roster["units"][:1]

    def no_units(self, roster):
        roster["units"] = []

    def rulebook(self, roster):
        if self.rng.random() < 0.5:
            roster["rulebook"] = _typo(self.rng, roster["rulebook"])
        else:
            roster["content_hash"] = "sha256:0000"

    def wrong_types(self, roster):
        """Break the roster schema (the command refuses these with exit 2)."""
        choice = self.rng.randrange(12)
        units = roster.setdefault("units", [])
        if choice == 0 and units:
            units[0]["entry"] = 5
        elif choice == 1 and units:
            units[0]["options"] = "granadas"
        elif choice == 2:
            roster["colour"] = "red"
        elif choice == 3 and units:
            units[-1]["cost"] = 10
        elif choice == 4:
            del roster["units"]
        elif choice == 5:
            roster["format"] = 2
        elif choice == 6:
            roster["army"] = "zzz"
        elif choice == 7 and units:
            units[0]["models"] = -1
        elif choice == 8:
            roster["points"] = "100"
        elif choice == 9 and units:
            units[0]["quality"] = None
        elif choice == 10:
            roster["units"] = {"entry": "x"}
        else:
            roster["side"], roster["name"] = 1, ["x"]

    MUTATIONS = [over_budget, option_not_allowed, unknown_option, option_max, remove_missing, unknown_entry, wrong_side,
                 side, role, budget, quality, models, choices, limits, no_units, rulebook, over_budget,
                 option_not_allowed, limits]


def possible_codes(army: dict) -> set[str]:
    """The error codes a roster of this army can produce (the others need data it does not have)."""
    codes = {"rulebook-mismatch", "stale-rulebook", "budget-both", "budget-required", "no-units", "unknown-entry",
             "unknown-option", "over-budget", "choices-count"}
    codes |= {"side-required", "unknown-side"} if army["sides"] else {"side-not-allowed"}
    codes |= {"role-required", "unknown-role"} if army["roles"] else {"role-not-allowed"}
    codes |= {"quality-required", "unknown-quality"} if army["quality"] else {"quality-not-allowed"}
    codes |= {"unknown-size"} if army["budget"]["sizes"] else set()
    codes |= {"points-too-low"} if army["budget"]["agreed"] else {"agreed-not-allowed"}
    entries, options = army["entries"], army["options"]
    if any(e["models"] for e in entries):
        codes |= {"models-required", "models-range"}
    if any(not e["models"] for e in entries):
        codes.add("models-not-allowed")
    if options:
        codes.add("option-max")
    if any({o["id"] for o in options.values()} - {options[k]["id"] for k in e["options"]} for e in entries):
        codes.add("option-not-allowed")
    if any(o["remove"] for o in options.values()):
        codes.add("option-remove-missing")
    if any(len(s["alternatives"]) > 1 for e in entries for s in e["composition"]):
        codes.add("choice-not-allowed")
    if any(e["side"] is not None for e in entries):
        codes.add("entry-wrong-side")
    for limit in army["limits"]:
        codes |= {f"{limit['kind']}-min"} if limit["min"] else set()
        codes |= {f"{limit['kind']}-max"} if limit["max"] is not None else set()
    return codes


def schema_keywords(schema: dict) -> set[str]:
    """Every keyword a JSON Schema uses (property names and $defs names are not keywords)."""
    found = set(schema)
    for key in ("properties", "$defs"):
        for sub in schema.get(key, {}).values():
            found |= schema_keywords(sub)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            found |= schema_keywords(schema[key])
    return found


# ---------------------------------------------------------------------- the test

JS_CHECK = """
const data = window.rbArmyData;
return arguments[0].map(r => {
  const problems = rbArmyCore.schemaProblems(data.schema, r);
  return problems.length ? {schema: problems.map(p => p.path).sort()} : rbArmyCore.validate(data.army, r);
});
"""


@pytest.mark.parametrize("rulebook", ARMY_BOOKS)
def test_builder_and_validator_agree_on_random_rosters(bundled_builds, tmp_path, rulebook):
    from jsonschema import Draft202012Validator

    from rulebook.compiler.commands import roster as rosters

    build = bundled_builds[rulebook]
    (army_file,) = sorted((build / "json" / "armies").glob("*.json"))
    army = json.loads(army_file.read_text(encoding="utf-8"))
    schema = json.loads((build / "schemas" / "roster.schema.json").read_text(encoding="utf-8"))
    validator = Draft202012Validator(schema)
    generator = Generator(army, SEED)
    cases = [generator.roster() for _ in range(ROSTERS)]

    expected = []
    for case in cases:
        problems = sorted(e.json_path for e in validator.iter_errors(case))
        expected.append({"schema": problems} if problems else rosters.validate(army, case))
    with served(build / "site") as url, chromium() as driver:
        open_builder(driver, url + BUILDER_PAGE)
        embedded = driver.execute_script("return window.rbArmyData.army")
        assert embedded == army, "the page must load the army document the command line reads"
        supported = set(driver.execute_script("return rbArmyCore.SCHEMA_KEYWORDS"))
        assert schema_keywords(schema) <= supported, "the roster schema uses keywords the page cannot check"
        got = driver.execute_script(JS_CHECK, cases)

    mismatches = [(i, cases[i], e, g) for i, (e, g) in enumerate(zip(expected, got)) if e != g]
    assert not mismatches, json.dumps(mismatches[:3], ensure_ascii=False, indent=1)[:6000]

    # the mix is real: legal lists, illegal ones, refused files, and every error the army can produce
    legal = sum(1 for e in expected if e.get("legal"))
    refused = sum(1 for e in expected if "schema" in e)
    assert legal >= ROSTERS // 10 and refused >= ROSTERS // 50 and ROSTERS - legal - refused >= ROSTERS // 2, (legal, refused)
    seen = {x["code"] for e in expected if "schema" not in e for x in e["errors"] + e["warnings"]}
    assert possible_codes(army) <= seen, sorted(possible_codes(army) - seen)
    assert any(x["suggestion"] for e in expected if "schema" not in e for x in e["errors"]), "no did-you-mean was exercised"

    # a sample through the command line, as a tool would call it
    for i in range(0, ROSTERS, CLI_EVERY):
        path = tmp_path / f"roster-{i}.json"
        path.write_text(json.dumps(cases[i], ensure_ascii=False), encoding="utf-8")
        proc = subprocess.run([sys.executable, "-m", "rulebook.compiler.commands.cli", "roster", "validate", str(path), "--rulebook", str(build), "--format", "json"],
                              capture_output=True, text=True, cwd=ROOT)
        if "schema" in got[i]:
            assert proc.returncode == 2 and "Traceback" not in proc.stderr, (i, proc.returncode, proc.stderr[-500:])
            continue
        assert proc.returncode == (0 if got[i]["legal"] else 1), (i, proc.stderr[-500:])
        cli = json.loads(proc.stdout)
        assert cli.pop("file") == str(path)
        assert cli == got[i], i
