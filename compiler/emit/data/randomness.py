"""``json/randomness.json`` and its schema: the dice of the rulebook with their faces, the
bags with their tokens, and every roll the procedures make (die, count, dice kept, test).

Reads the IR (dice, bags, the procedures' rolls); produces the document and the body of
``schemas/randomness.schema.json`` (descriptions in the current language)."""

from __future__ import annotations

from typing import Any

from rulebook.compiler import ir
from rulebook.compiler.emit.data import schemas as sch
from rulebook.compiler.emit.data.parts import array as _array, fixed_header as _fixed_header, header as _h, keyed as _keyed
from rulebook.compiler.emit.data.parts import nullable as _nullable, obj as _obj, plain, ref_def as _def, string as _str, typed as _typed
from rulebook.compiler.support.i18n import _

RANDOMNESS_FORMAT = 1
"""The version of randomness.json's shape."""


def properties(program: ir.Program) -> dict:
    dice, bags = [d.name for d in program.of(ir.Die)], [b.name for b in program.of(ir.Bag)]
    return {
        "format": {"const": RANDOMNESS_FORMAT, "description": _("The version of this document's shape.")},
        "dice": {**_keyed("DieEntry", _("Each declared die by its name.")), **({"propertyNames": _def("DieId")} if dice else {"maxProperties": 0})},
        "bags": {**_keyed("BagEntry", _("Each bag by its name.")), **({"propertyNames": _def("BagId")} if bags else {"maxProperties": 0})},
        "rolls": _array(_def("RollEntry"), _("Every roll of dice the procedures make, in the rulebook's order (a die of N faces numbered 1 to N when no die is declared).")),
    }


def defs(program: ir.Program) -> dict:
    dice, bags = [d.name for d in program.of(ir.Die)], [b.name for b in program.of(ir.Bag)]
    title, source, doc = _str(_h("title")), _str(_h("source")), _nullable(_str(), _h("doc"))
    status = sch.described(sch.ref(sch.TYPES, "Status"), _h("status"))
    face_value = {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    die_id = sch.described(_def("DieId"), _("The die's name.")) if dice else _str(_("The die's name."))
    bag_id = sch.described(_def("BagId"), _("The bag's name.")) if bags else _str(_("The bag's name."))
    defs = {
        "DieEntry": _obj("DieEntry", _("A declared die: its faces in order, each equally likely."), {
            "id": die_id, "title": title, "source": source, "status": status, "doc": doc,
            "sides": _typed("integer", _("How many faces it has."), minimum=1),
            "face_enum": _nullable(_str(), _("The enumeration its faces are values of (named faces, in enums.json and types.schema.json); null: the faces are numbers.")),
            "values": _array(face_value, _("The value of each face, in order: a number, or a value of face_enum.")),
            "faces": _array(_def("DieFace"), _("Each face with its value and title.")),
        }),
        "DieFace": _obj("DieFace", _("One face of a die."), {
            "index": _typed("integer", _("Its position on the die, from 1."), minimum=1),
            "value": {**face_value, "description": _("What it shows: a number, or a value of the die's face_enum.")},
            "title": _nullable(_str(), _("The title of a named face (its enumeration value's); null: a number.")),
        }),
        "BagEntry": _obj("BagEntry", _("A bag of tokens, drawn without replacement."), {
            "id": bag_id, "title": title, "source": source, "status": status, "doc": doc,
            "total": _typed("integer", _("How many tokens it holds in all."), minimum=0),
            "tokens": _array(_def("BagToken"), _("Each kind of token with its count, in the rulebook's order.")),
        }),
        "BagToken": _obj("BagToken", _("A kind of token in a bag."), {
            "kind": _str(_("The kind, as draws name it.")), "count": _typed("integer", _("How many tokens of that kind the bag holds."), minimum=0)}),
        "RollEntry": _obj("RollEntry", _("A roll of dice in a procedure, as data: which die, how many, which are kept, what is counted."), {
            "procedure": _str(_("The procedure that rolls.")),
            "text": _str(_("The roll as the rulebook writes it.")),
            "die": _nullable(_str(), _("The declared die rolled (in dice); null: plain dice of “sides” faces numbered from 1.")),
            "sides": _nullable(_typed("integer", _("Faces of each die."), minimum=1), _("How many faces each die has.")),
            "count": _nullable(_typed("integer", _("A number of dice."), minimum=0), _("How many dice are rolled; null: a number the procedure works out (see times).")),
            "times": _nullable(_str(), _("The expression that gives how many dice are rolled, as written; null: a fixed count.")),
            "keep": _nullable(_def("RollKeep"), _("Which dice are kept; null: all.")),
            "count_if": _nullable(_def("RollTest"), _("The test each die must pass to be counted (the result is how many pass); null: the values are added.")),
            "reroll": _nullable(_def("RollTest"), _("The faces that are rolled again once; null: none.")),
            "explode": _nullable(_def("RollTest"), _("The faces that add another die; null: none.")),
            "chain": _typed("integer", _("At most how many dice one die may add by exploding."), minimum=0),
            "named_faces": _typed("boolean", _("Whether the die has named faces (the result counts each face).")),
        }),
        "RollKeep": _obj("RollKeep", _("The dice kept of a roll."), {
            "which": {"enum": ["highest", "lowest"], "description": _("Whether the highest or the lowest are kept.")},
            "count": _typed("integer", _("How many dice are kept."), minimum=0),
        }),
        "RollTest": _obj("RollTest", _("A test of one die's face."), {
            "op": _nullable(_str(), _("The comparison (>=, <=, ==, …) with value; null: a condition written as text.")),
            "value": _nullable({"anyOf": [{"type": "integer"}, {"type": "string"}]}, _("The constant it compares with; null: worked out by the procedure (see text).")),
            "text": _str(_("The test as written in the rules.")),
        }),
    }
    if dice:
        defs["DieId"] = {"title": "DieId", "description": _("The name of a declared die."), "enum": dice}
    if bags:
        defs["BagId"] = {"title": "BagId", "description": _("The name of a bag."), "enum": bags}
    return defs


def _literal(program: ir.Program, expr: Any) -> Any:
    """The JSON value of a constant expression (a number, an enum value…), else None."""
    ok, value = sch.default_value(program, expr) if expr is not None else (False, None)
    return value if ok and isinstance(value, (int, str)) and not isinstance(value, bool) else None


def _roll_test(program: ir.Program, test: Any, text: str) -> dict | None:
    """A die test (``count >= 5``, ``reroll == 1``…) as data; ``text``: the roll's text."""
    if test is None:
        return None
    if isinstance(test, tuple):  # the roll's own test: (op, expr)
        op, value = test
    else:  # an ir.DieTest
        op, value = test.op, test.value
    return {"op": op, "value": _literal(program, value) if op is not None else None, "text": text}


def _rolls(program: ir.Program) -> list[dict]:
    from rulebook.compiler.ir.walk import expressions, walk

    out = []
    for proc in program.of(ir.Procedure):
        for top in expressions(proc.body):
            for e in walk(top):
                if not isinstance(e, ir.Roll):
                    continue
                die = program.get(e.die, ir.Die) if e.die else None
                mods = e.mods
                count_test = e.test
                if count_test is None and mods is not None and mods.counts and len(mods.counts) == 1:
                    count_test = mods.counts[0][1]
                out.append({
                    "procedure": proc.name, "text": e.text, "die": e.die,
                    "sides": len(die.faces) if die is not None else e.sides,
                    "count": e.count if e.times is None else None,
                    "times": None if e.times is None else _expr_text(e.times, e.text),
                    "keep": {"which": e.keep[0], "count": e.keep[1]} if e.keep else None,
                    "count_if": _roll_test(program, count_test, e.text),
                    "reroll": _roll_test(program, mods.reroll if mods else None, e.text),
                    "explode": _roll_test(program, mods.explode if mods else None, e.text),
                    "chain": mods.chain if mods and mods.explode else 0,
                    "named_faces": e.named_faces,
                })
    return out


def _expr_text(expr: Any, roll_text: str) -> str:
    """How the number of dice is written: the part of the roll's text after ``times``."""
    after = roll_text.split(" times ", 1)
    return after[1].split(" keep ")[0].split(" count ")[0].strip() if len(after) == 2 else roll_text


def randomness_doc(program: ir.Program) -> dict:
    """The dice, the bags and the rolls of the procedures (see ``schemas/randomness.schema.json``)."""
    titles = {e.name: {m.name: m.title for m in e.members} for e in program.of(ir.Enum)}
    dice = {}
    for d in program.of(ir.Die):
        named = titles.get(d.face_enum or "", {})
        values = [plain(f) for f in d.faces]
        dice[d.name] = {
            "id": d.name, "title": d.title, "source": d.ref, "status": d.status, "doc": d.doc,
            "sides": len(d.faces), "face_enum": d.face_enum, "values": values,
            "faces": [{"index": i, "value": v, "title": named.get(v) if d.face_enum else None} for i, v in enumerate(values, 1)],
        }
    bags = {
        b.name: {"id": b.name, "title": b.title, "source": b.ref, "status": b.status, "doc": b.doc, "total": sum(c for _, c in b.tokens),
                 "tokens": [{"kind": k, "count": c} for k, c in b.tokens]}
        for b in program.of(ir.Bag)
    }
    return {**_fixed_header(program, "randomness"), "format": RANDOMNESS_FORMAT, "dice": dice, "bags": bags, "rolls": _rolls(program)}
