"""IR armies → the army documents a roster validator and the army builder read.

Reads a checked :class:`rulebook.compiler.ir.Program` (its :attr:`~rulebook.compiler.ir.Program.armies`,
the catalogs they field, the enums and rules their cards name). Entry points:

* :func:`documents(program, content_hash) -> dict[str, dict]` — ``armies/<army>.json`` under
  ``json/``, one per ``army`` declaration;
* :func:`schemas(program) -> dict[str, dict]` — ``armies/army.schema.json`` (the
  shape of those documents) and ``roster.schema.json`` (the roster format) under
  ``schemas/``.

:mod:`rulebook.compiler.emit.data.to_json` validates and writes them with the other documents and
lists them in the manifest. The format is a contract with the browser army
builder: it changes only by adding (``format`` says which version).

Costs, from the document alone (integers only; ``round_half_up(n / d)`` is
``floor((2n + d) / (2d))`` for n ≥ 0):

* own cost = ``entry.cost + entry.per_model × (models − entry.models.min)``;
* with ``quality``: ``round_half_up(own × (100 + percent[quality]) / 100)``;
* unit cost = that + Σ ``options[key].cost`` for each option taken (each time);
* budget = ``size.points`` (a number, or ``{role: number}``), or the agreed
  points ``p + round_half_up(p × bonus_percent[role] / 100)``.

Each document says so itself in ``costing`` (:func:`costing_doc`), as data and formulas.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from rulebook.compiler.support import i18n
from rulebook.compiler import ir
from rulebook.compiler.emit.data import schemas as sch
from rulebook.compiler.support.i18n import N_, _
from rulebook.compiler.ir.types import T

FORMAT = 1
"""Version of the army documents and rosters (added to, never changed)."""

ARMY_SCHEMA = "armies/army.schema.json"
ROSTER_SCHEMA = "roster.schema.json"

# The validator's messages, by error code; placeholders are ``{name}``, replaced by the
# texts in an error's ``params`` (see compiler/commands/roster.py). English message ids, translated
# by the gettext catalogs of compiler/i18n.py into the rulebook's ``lang``.
MESSAGES: dict[str, str] = {
    "rulebook-mismatch": N_("The roster is for the rulebook '{roster}', not '{rulebook}'."),
    "stale-rulebook": N_("The roster was made with another version of the rulebook; the current costs and rules are used."),
    "side-required": N_("Choose a side: {choices}."),
    "unknown-side": N_("Unknown side '{value}'; the sides are: {choices}."),
    "side-not-allowed": N_("This army has no sides; remove 'side'."),
    "role-required": N_("Say the role in the game: {choices}."),
    "unknown-role": N_("Unknown role '{value}'; the roles are: {choices}."),
    "role-not-allowed": N_("This army has no roles; remove 'role'."),
    "budget-required": N_("Give the game size (size: {choices}) or the agreed points (points)."),
    "budget-both": N_("Give the game size or the agreed points, not both."),
    "unknown-size": N_("Unknown game size '{value}'; the sizes are: {choices}."),
    "agreed-not-allowed": N_("This army takes no agreed points; choose a size: {choices}."),
    "points-too-low": N_("The agreed points must be at least {min}; they are {value}."),
    "no-units": N_("The roster has no units."),
    "unknown-entry": N_("Unknown unit '{value}'."),
    "entry-wrong-side": N_("{entry} belongs to {entry_side}, not {side}."),
    "quality-required": N_("Give the {quality} of {entry}: {choices}."),
    "unknown-quality": N_("Unknown {quality} '{value}' for {entry}; it may be: {choices}."),
    "quality-not-allowed": N_("The units of this army have no quality; remove 'quality' from {entry}."),
    "models-required": N_("Say how many models {entry} has (from {min} to {max})."),
    "models-range": N_("{entry} has from {min} to {max} models, not {value}."),
    "models-not-allowed": N_("{entry} has a fixed number of models; remove 'models'."),
    "unknown-option": N_("{entry} has no option '{value}'."),
    "option-not-allowed": N_("{entry} cannot take {option}."),
    "option-max": N_("{entry} takes {option} {count} times; the most is {max}."),
    "choices-count": N_("{entry} takes one choice per 'choose one' line of its composition ({expected}) and has {count}."),
    "choice-not-allowed": N_("'{value}' is not one of the troops to choose from in that line of {entry}: {choices}."),
    "option-remove-missing": N_("{option} removes {troop}, and {entry} no longer has that troop."),
    "category-min": N_("{category}: there are {count} and the least is {min}."),
    "category-max": N_("{category}: there are {count} and the most is {max}."),
    "entry-min": N_("{entry}: there are {count} and the least is {min}."),
    "entry-max": N_("{entry}: there are {count} and the most is {max}."),
    "units-min": N_("The roster has {count} units and the least is {min}."),
    "units-max": N_("The roster has {count} units and the most is {max}."),
    "over-budget": N_("The roster costs {total} points and the budget is {budget}: {excess} too many."),
}

# Words of the printed sheet and of the validator's report.
LABELS: dict[str, str] = {
    "yes": N_("yes"),
    "no": N_("no"),
    "cost": N_("Cost"),
    "total": N_("Total"),
    "budget": N_("Budget"),
    "side": N_("Side"),
    "role": N_("Role"),
    "size": N_("Size"),
    "points": N_("Agreed points"),
    "quality": N_("Quality"),
    "options": N_("Options"),
    "troops": N_("Troops"),
    "legal": N_("Legal roster"),
    "illegal": N_("Illegal roster"),
    "errors": N_("Errors"),
    "warnings": N_("Warnings"),
    "unit": N_("Unit"),
    "did_you_mean": N_("Did you mean '{suggestion}'?"),
    "rule": N_("Rule"),
    "source": N_("Section"),
    "models": N_("Models"),
    "remaining": N_("Points left: {remaining}"),
}


def _language(program: ir.Program) -> i18n.Language:
    return i18n.language(i18n.of_rulebook(program))


def _translated(texts: dict[str, str], language: i18n.Language) -> dict[str, str]:
    return {key: language.gettext(text) for key, text in texts.items()}


class _Cards:
    """Catalog entries as card lines: (field title, value as text)."""

    def __init__(self, program: ir.Program):
        self.program = program
        language = _language(program)
        self.labels = _translated(LABELS, language)
        self.decimal_comma = language.code == "es"

    def name_of(self, catalog: str, ident: str) -> str:
        decl = self.program.get(catalog, ir.Catalog)
        if decl is None or ident not in decl.entries:
            return str(ident)
        record = self.program.get(decl.record, ir.Record)
        text = next((f.name for f in record.fields if f.type.inner.kind == "text"), None) if record else None
        return str(decl.entries[ident].get(text) or ident) if text else str(ident)

    def text(self, value: Any, t: T) -> str:
        """A value of type ``t`` as a player reads it."""
        if value is None:
            return "–"
        t = t.inner
        if isinstance(value, bool):
            return self.labels["yes" if value else "no"]
        if isinstance(value, Fraction):
            shown = str(float(value))
            return shown.replace(".", ",") if self.decimal_comma else shown
        if isinstance(value, ir.RuleApp):
            rule = self.program.get(value.rule, ir.Rule)
            title = rule.title if rule else value.rule
            return title + (f" ({', '.join(self.text(a, T('any')) for _, a in value.args)})" if value.args else "")
        if isinstance(value, (list, tuple)):
            item = t.args[0] if t.kind == "list" and t.args else T("any")
            return ", ".join(self.text(v, item) for v in value) or "–"
        if isinstance(value, dict) and t.kind == "rule" and "rule" in value:  # a rule application in data
            rule = self.program.get(value["rule"], ir.Rule)
            args = value.get("args") or {}
            args = args.values() if isinstance(args, dict) else [a for _, a in args]
            return (rule.title if rule else str(value["rule"])) + (f" ({', '.join(self.text(a, T('any')) for a in args)})" if args else "")
        if isinstance(value, dict):
            if t.kind == "record":
                record = self.program.get(t.name, ir.Record)
                fields = {f.name: f for f in record.fields} if record else {}
                return " · ".join(self.text(v, fields[k].type) if k in fields else str(v) for k, v in value.items())
            if t.kind == "map":
                enum = self.program.get(t.name, ir.Enum)
                titles = {m.name: m.title for m in enum.members} if enum else {}
                item = t.args[0] if t.args else T("any")
                return " · ".join(f"{titles.get(k, k)}: {self.text(v, item)}" for k, v in value.items())
            return " · ".join(f"{k}: {self.text(v, T('any'))}" for k, v in value.items())
        if t.kind == "enum":
            enum = self.program.get(t.name, ir.Enum)
            return next((m.title for m in enum.members if m.name == value), str(value)) if enum else str(value)
        if t.kind == "ref":
            return self.name_of(t.name, value)
        if t.kind == "rule":
            rule = self.program.get(value, ir.Rule)
            return rule.title if rule else str(value)
        return str(value)

    def card(self, catalog: str, ident: str, skip: tuple[str, ...] = ()) -> list[dict]:
        decl = self.program.get(catalog, ir.Catalog)
        record = self.program.get(decl.record, ir.Record) if decl else None
        if record is None or ident not in decl.entries:
            return []
        rec = decl.entries[ident]
        name_field = next((f.name for f in record.fields if f.type.inner.kind == "text"), None)
        return [
            {"field": f.name, "title": f.title or f.name, "value": self.text(rec.get(f.name), f.type)}
            for f in record.fields if f.name != name_field and f.name not in skip
        ]


def _rule(source: ir.ArmySource | None) -> dict | None:
    return {"id": source.id, "title": source.title, "source": source.source} if source else None


def army_doc(program: ir.Program, army: ir.Army, content_hash: str) -> dict:
    """The document of one army (see the module docstring and ``schemas/armies/army.schema.json``);
    ``content_hash`` is the rulebook's (:func:`rulebook.compiler.emit.data.to_json.content_hash`)."""
    with sch.language_of(program):
        return _army_doc(program, army, content_hash)


def _army_doc(program: ir.Program, army: ir.Army, content_hash: str) -> dict:
    cards = _Cards(program)
    language = _language(program)
    titles = {c.name: c.title for c in program.of(ir.Catalog)}
    troops: dict[str, dict] = {}
    entries = []
    for e in army.entries:
        for slot in e.composition:
            for t in slot.alternatives:
                troops.setdefault(t, {})
        entries.append({
            "id": e.id, "catalog": e.catalog, "catalog_title": titles.get(e.catalog, e.catalog), "name": e.name,
            "side": e.side, "cost": e.cost, "per_model": e.per_model,
            "models": {"min": e.models_min, "max": e.models_max} if e.models_min is not None else None,
            "category": e.category, "weight": e.weight,
            "composition": [{"count": s.count, "alternatives": list(s.alternatives)} for s in e.composition],
            "options": list(e.options), "rule": _rule(e.rule), "card": cards.card(e.catalog, e.id),
        })
    for o in army.options.values():
        for t in o.remove + o.add:
            troops.setdefault(t, {})
    troop_docs = {}
    if army.troop_catalog:
        decl = program.get(army.troop_catalog, ir.Catalog)
        for t in (decl.entries if decl else ()):
            if t in troops:
                troop_docs[t] = {"name": cards.name_of(army.troop_catalog, t), "card": cards.card(army.troop_catalog, t)}
    info = program.rulebook
    return {
        "$schema": sch.schema_id(program, ARMY_SCHEMA),
        "format": FORMAT,
        "id": army.name, "kind": "army", "title": army.title, "doc": army.doc, "source": army.ref, "status": army.status,
        "rulebook": info.name if info else "", "version": info.version if info else "", "lang": language.code,
        "content_hash": content_hash,
        "rule": _rule(ir.ArmySource(army.name, army.title, army.ref)),
        "sides": [{"id": s.id, "title": s.title} for s in army.sides],
        "roles": [{"id": r.id, "title": r.title} for r in army.roles],
        "budget": {
            "sizes": [{"id": s.id, "title": s.title, "points": s.points} for s in army.sizes],
            "sizes_rule": _rule(army.sizes_rule),
            "agreed": army.agreed, "agreed_min": army.agreed_min,
            "bonus_percent": dict(army.bonus),
        },
        "quality": {"title": army.quality_title, "values": [{"id": q.id, "title": q.title, "percent": q.percent} for q in army.quality],
                    "rule": _rule(army.quality_rule)} if army.quality else None,
        "costing": costing_doc(),
        "categories": [{"id": c.id, "title": c.title} for c in army.categories],
        "entries": entries,
        "options": {
            key: {"key": o.key, "id": o.id, "title": o.title, "cost": o.cost, "max": o.max, "remove": list(o.remove), "add": list(o.add), "rule": _rule(o.rule)}
            for key, o in army.options.items()
        },
        "troop_catalog": army.troop_catalog,
        "troops": troop_docs,
        "limits": [{"kind": x.kind, "target": x.target, "min": x.min, "max": x.max, "rule": _rule(x.rule)} for x in army.limits],
        "messages": _translated(MESSAGES, language),
        "labels": _translated(LABELS, language),
    }


def documents(program: ir.Program, content_hash: str) -> dict[str, dict]:
    """One document per army by path under ``json/`` (``content_hash``: see :func:`army_doc`)."""
    return {f"armies/{name}.json": army_doc(program, army, content_hash) for name, army in program.armies.items()}


# ---------------------------------------------------------------------------- schemas

def _s(description: str, **more) -> dict:
    return {"type": "string", "description": description, **more}


def _n(description: str, minimum: int | None = 0) -> dict:
    return {"type": "integer", **({"minimum": minimum} if minimum is not None else {}), "description": description}


def _obj(props: dict, description: str | None = None, optional: tuple[str, ...] = ()) -> dict:
    out = {"type": "object", "properties": props, "required": [k for k in props if k not in optional], "additionalProperties": False}
    if description:
        out["description"] = description
    return out


def _rule_schema(description: str) -> dict:
    return _obj({
        "id": _s(_("The declaration's id.")), "title": _s(_("Its title.")), "source": _s(_("The section of the manual it comes from.")),
    }, description)


def _choice(description: str) -> dict:
    return _obj({"id": _s(_("What a roster writes.")), "title": _s(_("Its name as the manual prints it."))}, description)


def _card(description: str) -> dict:
    return {"type": "array", "description": description, "items": _obj({
        "field": _s(_("The field's name in the catalog's record.")), "title": _s(_("The field's printed title.")),
        "value": _s(_("Its value as a player reads it.")),
    }, _("A line of a card."))}


def costing_doc() -> dict:
    """How a roster's costs and budget are worked out from an army document: the rules the
    roster validators (``rulebook roster``, js/armies.js) apply, as data."""
    return {
        "rounding": "half_up",
        "quality_percent_of": "own_cost",
        "options_take_quality": False,
        "agreed_bonus_percent_of": "agreed_points",
        "formulas": {
            "round_half_up": _("round_half_up(n / d) = floor((2n + d) / (2d)), for n ≥ 0: halves go up."),
            "own_cost": _("own cost = entry.cost + entry.per_model × (models − entry.models.min); without models, entry.cost."),
            "quality_cost": _("with quality q: round_half_up(own cost × (100 + quality.values[q].percent) / 100); without quality, the own cost."),
            "unit_cost": _("unit cost = that + the cost of each option taken, once per time taken (options take no quality percent)."),
            "roster_cost": _("roster cost = the sum of its units' costs; it may not exceed the budget."),
            "budget": _("budget = budget.sizes[size].points (a number, or one per role: points[role]); or, with agreed points p, "
                        "p + round_half_up(p × budget.bonus_percent[role] / 100) (no role: no bonus)."),
        },
    }


def _costing_schema() -> dict:
    formula = _s(_("The formula, in the rulebook's language."))
    names = ("round_half_up", "own_cost", "quality_cost", "unit_cost", "roster_cost", "budget")
    return _obj({
        "rounding": {"const": "half_up", "description": _("How divisions are rounded: to the nearest whole number, halves up (formulas.round_half_up).")},
        "quality_percent_of": {"const": "own_cost", "description": _(
            "What the quality percent applies to: the own cost (base cost plus the extra models), not the options.")},
        "options_take_quality": {"const": False, "description": _("Whether options' costs take the quality percent: no, they are added after it.")},
        "agreed_bonus_percent_of": {"const": "agreed_points", "description": _(
            "What budget.bonus_percent applies to: the agreed points, by the roster's role.")},
        "formulas": _obj({name: formula for name in names}, _("Each cost and the budget as a formula over this document's fields.")),
    }, _("How costs and the budget are worked out from this document (the same rules rulebook roster and js/armies.js apply)."))


def army_schema(program: ir.Program) -> dict:
    """The shape of every army document of the rulebook; descriptions in its language."""
    with sch.language_of(program):
        return _army_schema(program)


def _army_schema(program: ir.Program) -> dict:
    codes = sorted(MESSAGES)
    nullable_int = {"type": ["integer", "null"]}
    entry = _obj({
        "id": _s(_("What a roster writes in units[].entry: the catalog entry's id.")),
        "catalog": _s(_("The catalog the entry is from.")), "catalog_title": _s(_("That catalog's title.")),
        "name": _s(_("The unit's name as the manual prints it.")),
        "side": {"type": ["string", "null"], "description": _("The side that fields it; null: every side.")},
        "cost": _n(_("Base cost (before quality, options and extra models).")),
        "per_model": _n(_("Cost of each model over models.min.")),
        "models": {"oneOf": [{"type": "null"}, _obj({"min": _n(_("The fewest models.")), "max": _n(_("The most models."))}, _("How many models it may have."))],
                   "description": _("How many models the unit may have (a roster says it in units[].models); null: a fixed number.")},
        "category": {"type": ["string", "null"], "description": _("Its category (categories[].id), counted by the limits; null: none.")},
        "weight": _n(_("How much the unit counts towards category limits.")),
        "composition": {"type": "array", "items": _obj({
            "count": _n(_("How many troops of the line.")),
            "alternatives": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": _("The troops (troops keys) it may be: one, or a choice.")},
        }, _("A line of troops.")), "description": _("Lines of troops; a line with several alternatives is a choice the roster makes.")},
        "options": {"type": "array", "items": {"type": "string"}, "description": _("Keys of the options (in 'options') this entry may take.")},
        "rule": _rule_schema(_("The rule the entry comes from.")), "card": _card(_("The entry's fields as a player reads them (the name field left out).")),
    }, _("A unit a roster may field."))
    option = _obj({
        "key": _s(_("The option's key in options.")), "id": _s(_("What a roster writes in units[].options.")), "title": _s(_("Its name as the manual prints it.")),
        "cost": _n(_("What it adds to the unit's cost, each time taken.")), "max": _n(_("The most times a unit may take it."), minimum=1),
        "remove": {"type": "array", "items": {"type": "string"}, "description": _("Troops it takes out of the unit.")},
        "add": {"type": "array", "items": {"type": "string"}, "description": _("Troops it adds to the unit.")},
        "rule": _rule_schema(_("The rule the option comes from.")),
    }, _("Something a unit may take."))
    points = {"oneOf": [_n(_("Points.")), {"type": "object", "additionalProperties": _n(_("Points.")), "description": _("Points for each role.")}],
              "description": _("The points of the size: one number, or one per role (roles[].id → points).")}
    body = _obj({
        "$schema": _s(_("The $id of this document's schema.")), "format": {"const": FORMAT, "description": _("The version of the army documents' format (added to, never changed).")},
        "id": _s(_("The army's id: what a roster writes in army.")), "kind": {"const": "army", "description": _("What this document is.")},
        "title": _s(_("The title printed in the manual.")),
        "doc": {"type": ["string", "null"], "description": _("The rulebook's note on it (@doc); null: none.")},
        "source": _s(_("The section of the manual it comes from.")), "status": _s(_("Whether it is in play: active, deferred or not playable.")),
        "rulebook": _s(_("The rulebook's id.")), "version": _s(_("The rulebook's version.")), "lang": _s(_("The language of its texts.")),
        "content_hash": _s(_("The rulebook's content hash (json/manifest.json); a roster made with another one is warned.")),
        "rule": _rule_schema(_("The army declaration itself, named by roster errors with no more precise rule.")),
        "sides": {"type": "array", "items": _choice(_("A side.")), "description": _("The sides a roster chooses from (units[].side); empty: none.")},
        "roles": {"type": "array", "items": _choice(_("A role.")), "description": _("The roles in the game a roster chooses from (role); empty: none.")},
        "budget": _obj({
            "sizes": {"type": "array", "items": _obj({"id": _s(_("What a roster writes in size.")), "title": _s(_("Its name as the manual prints it.")), "points": points},
                                                     _("A game size.")), "description": _("The game sizes a roster may choose (size).")},
            "sizes_rule": {"oneOf": [{"type": "null"}, _rule_schema(_("The rule of the sizes."))], "description": _("Where the sizes come from; null: the army's rule.")},
            "agreed": {"type": "boolean", "description": _("Whether a roster may give agreed points (points) instead of a size.")},
            "agreed_min": _n(_("The fewest agreed points.")),
            "bonus_percent": {"type": "object", "additionalProperties": _n(_("A percent.")), "description": _(
                "Percent of the agreed points added to the budget of each role (roles[].id → percent); see costing.")},
        }, _("What a roster may spend: a game size or agreed points.")),
        "quality": {"oneOf": [{"type": "null"}, _obj({
            "title": _s(_("The quality's name as the manual prints it.")),
            "values": {"type": "array", "items": _obj({"id": _s(_("What a roster writes in units[].quality.")), "title": _s(_("Its name as the manual prints it.")),
                                                       "percent": _n(_("Percent added to the own cost (negative: taken off); see costing."), minimum=None)}, _("A quality.")),
                       "description": _("The qualities a unit may have, with their cost percent.")},
            "rule": _rule_schema(_("The rule of the qualities.")),
        }, _("The quality each unit is given."))], "description": _("The quality a roster gives each unit (units[].quality); null: none.")},
        "costing": _costing_schema(),
        "categories": {"type": "array", "items": _choice(_("A category.")), "description": _("The categories of units, as the limits count them.")},
        "entries": {"type": "array", "items": entry, "description": _("The units a roster may field.")},
        "options": {"type": "object", "additionalProperties": option, "description": _("What units may take, by key (entries[].options).")},
        "troop_catalog": {"type": ["string", "null"], "description": _("The catalog the compositions' troops are from; null: none.")},
        "troops": {"type": "object", "additionalProperties": _obj({"name": _s(_("The troop's name.")), "card": _card(_("The troop's fields as a player reads them."))},
                                                                    _("A troop.")), "description": _("The troops the compositions and options name, by id.")},
        "limits": {"type": "array", "items": _obj({
            "kind": {"enum": ["units", "category", "entry"], "description": _("What is counted: all units, the units of a category (by weight) or of one entry.")},
            "target": {"type": ["string", "null"], "description": _("The category or entry counted; null: all units.")},
            "min": {**nullable_int, "description": _("The fewest; null: no least.")}, "max": {**nullable_int, "description": _("The most; null: no most.")},
            "rule": _rule_schema(_("The rule of the limit.")),
        }, _("A limit on how many units a roster fields.")), "description": _("How many units a roster may field, in all, by category or by entry.")},
        "messages": _obj({c: _s(_("The message of the error %(code)s.") % {"code": c}) for c in codes},
                         _("Validation messages by error code; {name} is replaced by the error's params[name].")),
        "labels": {"type": "object", "additionalProperties": {"type": "string"}, "description": _("The words of the printed sheet and of the validator's report, by key.")},
    })
    return sch.generic_schema(program, ARMY_SCHEMA, "ArmyDocument",
                              _("How a force is built: sides, budget, units with their costs, options and choices, limits, and how costs are worked out (costing)."), body)


ROSTER_MAX_BYTES = 1_000_000
"""The largest roster file a tool reads (a list of a thousand units with long names is ~150 kB);
``rulebook roster`` and the site's army builder refuse a larger one before reading it."""
ROSTER_MAX_UNITS = 1000
"""The most units a roster may hold: more is refused before any rule is checked."""


def roster_schema(program: ir.Program) -> dict:
    """The roster format of the rulebook (structure only: ids are checked by the validator)."""
    with sch.language_of(program):
        return _roster_schema(program)


def _roster_schema(program: ir.Program) -> dict:
    unit = _obj({
        "entry": _s(_("An entry id of the army (entries[].id).")),
        "quality": _s(_("Its quality (quality.values[].id), when the army has qualities.")),
        "models": {"type": "integer", "minimum": 0, "description": _("How many models, when the entry's number of models may vary.")},
        "options": {"type": "array", "items": {"type": "string"}, "description": _("Option ids; an id written n times is taken n times.")},
        "choices": {"type": "array", "items": {"type": "string"}, "description": _("One troop id per composition line with several alternatives, in order.")},
        "name": _s(_("A name of the player's own for the unit.")),
    }, _("A unit of the roster."), optional=("quality", "models", "options", "choices", "name"))
    info = program.rulebook
    body = _obj({
        "$schema": _s(_("The $id of this schema (optional).")),
        "format": {"const": FORMAT, "description": _("The version of the roster format.")},
        "rulebook": _s(_("The rulebook id") + (f" ({info.name})." if info else ".")),
        "content_hash": _s(_("The content hash of the rulebook the roster was made with (json/manifest.json).")),
        "army": {"enum": sorted(program.armies), "description": _("The army declaration the roster follows.")},
        "side": _s(_("The side (the army's sides[].id), when it has sides.")), "role": _s(_("The role in the game (roles[].id), when the army has roles.")),
        "size": _s(_("The game size (budget.sizes[].id); or give points.")), "points": {"type": "integer", "description": _("The agreed points, instead of a size.")},
        "name": _s(_("The roster's name.")),
        "units": {"type": "array", "items": unit, "description": _("The units fielded.")},
    }, optional=("$schema", "content_hash", "side", "role", "size", "points", "name"))
    return sch.generic_schema(program, ROSTER_SCHEMA, "Roster", _("A force built with one of the rulebook's armies."), body)


def schemas(program: ir.Program) -> dict[str, dict]:
    """The army and roster schemas by path under ``schemas/`` (none without armies)."""
    if not program.armies:
        return {}
    return {ARMY_SCHEMA: army_schema(program), ROSTER_SCHEMA: roster_schema(program)}
