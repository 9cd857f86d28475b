"""Random rosters of an army document, for the agreement tests of the roster validators.

Reads an army document (``json/armies/<army>.json``, as :mod:`rulebook.compiler.emit.data.to_armies`
writes it). Produces, seeded (:class:`Generator`): lists built legally from the document, most of
them then broken on purpose — over budget, an option the entry does not allow, unknown or misspelt
ids (near misses, case changes, ids missing their first letter — a tie for did-you-mean
between ids that differ only there —, ids that are names of JavaScript's object prototype, text outside
the Basic Multilingual Plane, texts long enough for difflib's autojunk), options taken too often,
limits broken, wrong sides, missing or unknown quality, models and choices, budgets at and under
their least, values of the wrong type; and :func:`too_large`, units made of more troops than a
roster may hold. Also :func:`possible_codes` (the error codes an army can produce) and
:func:`schema_keywords` (the JSON Schema keywords a schema uses).
"""

from __future__ import annotations

import random

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
    return rng.choice(["zzz", "", "ñandú", "__proto__", "constructor", "toString", "hasOwnProperty", "x" * 250, "a" * 120 + text,
                       text[::-1], text[1:], text[1:] + "x", "😀" + text, text + "\U0001d518", "İ" + text, text.replace("i", "ı"), "ß" + text.upper()])


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

    def boundaries(self, roster):
        """Values at the edge: the least agreed points and one under, the least and most models, no choices."""
        budget, choice = self.army["budget"], self.rng.randrange(3)
        if choice == 0 and budget["agreed"]:
            roster.pop("size", None)
            roster["points"] = budget["agreed_min"] - self.rng.randrange(2)
            return
        unit, entry = self._a_unit(roster)
        if unit is None:
            return
        if choice == 1 and entry["models"]:
            unit["models"] = entry["models"][self.rng.choice(["min", "max"])]
        else:
            unit["choices"] = []

    def prototype_ids(self, roster):
        """Ids that are names of JavaScript's Object.prototype, where a port could look them up by mistake."""
        name = self.rng.choice(["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"])
        unit, _entry = self._a_unit(roster)
        where = self.rng.randrange(5)
        if where == 0 or unit is None:
            roster.setdefault("units", []).append({"entry": name})
        elif where == 1:
            unit.setdefault("options", []).append(name)
        elif where == 2:
            unit["quality"] = name
        elif where == 3:
            unit["choices"] = [name] * max(1, len(unit.get("choices", [])))
        else:
            key = self.rng.choice(["side", "role", "size"])
            roster[key] = name
            if key == "size":
                roster.pop("points", None)

    def many_units(self, roster):
        """A long list (limits and totals of hundreds of units)."""
        if roster.get("units"):
            roster["units"] = [dict(self.rng.choice(roster["units"])) for _ in range(self.rng.randint(40, 200))]

    MUTATIONS = [over_budget, option_not_allowed, unknown_option, option_max, remove_missing, unknown_entry, wrong_side,
                 side, role, budget, quality, models, choices, limits, no_units, rulebook, over_budget,
                 option_not_allowed, limits, boundaries, prototype_ids, boundaries, many_units]


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


def _plain_unit(army: dict, entry: dict) -> dict:
    """A unit of ``entry`` with its first quality, least models and first choices."""
    unit: dict = {"entry": entry["id"]}
    if army["quality"]:
        unit["quality"] = army["quality"]["values"][0]["id"]
    if entry["models"]:
        unit["models"] = entry["models"]["min"]
    choosing = [s for s in entry["composition"] if len(s["alternatives"]) > 1]
    if choosing:
        unit["choices"] = [s["alternatives"][0] for s in choosing]
    return unit


def too_large(army: dict, over: bool, max_troops: int) -> dict | None:
    """A roster whose units place and take away exactly ``max_troops`` troops (the most a
    roster may hold), or one more (``over``): a unit taking an option that adds or removes
    troops again and again, then units of one troop each (when the army has such an entry,
    else the count is only close). None when no option of the army adds or removes troops."""
    ones = [e for e in army["entries"] if [s["count"] for s in e["composition"]] == [1]]
    for entry in army["entries"]:
        for key in entry["options"]:
            option = army["options"][key]
            steps = len(option["add"]) + len(option["remove"])
            if not steps:
                continue
            base = sum(s["count"] for s in entry["composition"])
            times = (max_troops - base) // steps
            rest = max_troops - base - times * steps + (1 if over else 0)
            unit = {**_plain_unit(army, entry), "options": [option["id"]] * times}
            units = [unit] + ([_plain_unit(army, ones[0])] * rest if ones else [])
            if not ones and over:
                unit["options"].append(option["id"])
            return {"format": 1, "rulebook": army["rulebook"], "army": army["id"], "units": units}
    return None
