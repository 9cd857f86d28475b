"""IR → JSON documents and their JSON Schemas, validated before writing.

Reads a checked :class:`rulebook.compiler.ir.Program` (catalog entries and table rows
as plain values, rules, enums, procedure signatures, glossary terms), the odds
tables the generated resolvers computed (:class:`rulebook.compiler.analysis.odds.OddsTable`) and
the generated package (for the worked examples, :mod:`rulebook.compiler.emit.data.vectors`).
Entry point: :func:`write_all(program, out_dir, odds_tables, package, memo=None) -> list[str]`
writes ``json/`` and ``schemas/`` and returns the validation problems (empty
when everything was written; nothing is written otherwise). ``memo``
(:class:`JsonMemo`, from ``rulebook serve``) holds what the previous build
serialised, validated and wrote: what is equal is not done again, and the
files are the same bytes.

Layout under the output folder:

* ``json/<id>.json`` — one document per catalog and table (ids as in the rules);
* ``json/rules.json``, ``enums.json``, ``constants.json`` (each value typed by its
  ``type``), ``procedures.json``, ``odds.json`` (every probability a fraction
  ``"n/d"``), ``glossary.json``, ``randomness.json`` (the dice with their faces, the
  bags with their tokens, and every roll the procedures make: die, count, dice kept,
  test), ``examples.json`` (the worked examples as test vectors);
* ``json/logic.json`` — the logic as data (:mod:`rulebook.compiler.emit.data.logic`):
  procedures statement by statement, records, every declaration's digest, the prose;
* ``json/changelog.json`` — the published versions, newest first, each with its changes
  classified MAJOR/MINOR/PATCH (:mod:`rulebook.compiler.pipeline.versioning`);
* ``json/rulebook.json`` — the bundle of the declarations' documents;
* ``json/manifest.json`` — format and compiler versions, rulebook name and
  version (the published semantic version; ``declared_version``: the rules'), a content hash (of the sources by their names inside the rulebook
  folder: the same wherever the folder is), the bundle's hash, every document's
  hash and the map from schema ``$id`` to file;
* ``schemas/…`` — see :mod:`rulebook.compiler.emit.data.schemas`.

Every document's ``$schema`` is its schema's ``$id``
(``https://rulebook.invalid/<rulebook>/<version>/schemas/<file>``).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from rulebook import runtime

from rulebook.compiler import ir
from rulebook.compiler.ir.sources import content_hash, source_names
from rulebook.compiler.analysis import balance
from rulebook.compiler.ir.type_names import DOCUMENT_TYPE_NAMES
from rulebook.compiler.emit.data import changes, fast_validation, logic, randomness
from rulebook.compiler.emit.data.parts import array as _array, fixed_header as _fixed_header, header as _h, keyed as _keyed
from rulebook.compiler.emit.data.parts import nullable as _nullable, obj as _obj, plain, ref_def as _def, string as _str, typed as _typed
from rulebook.compiler.emit.data import schemas as sch
from rulebook.compiler.emit.data import to_armies
from rulebook.compiler.analysis.odds import OddsTable
from rulebook.compiler.emit.data.vectors import FRACTION, vectors_doc, vectors_schema
from rulebook.compiler.support.i18n import _, with_descriptions_translated

if TYPE_CHECKING:  # jsonschema is imported when a document needs its messages (fast_validation finds it invalid)
    from referencing import Registry

FORMAT_VERSION = "2.1"
"""The version of the layout of json/ and schemas/ (major: a reader of the previous major may break).
2.1: json/randomness.json, json/logic.json and json/changelog.json; the manifest's declared_version,
previous_version and change_level; procedures' status; odds.json writes every probability as "n/d"
(its ``format`` 2); the constants typed by their type; a description on every property, in the
rulebook's language."""


def compiler_version() -> str:
    """The installed compiler's version (``unknown`` when it is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rulebook")
    except PackageNotFoundError:
        return "unknown"


def _uri(program: ir.Program, schema_rel: str) -> str:
    return sch.schema_id(program, schema_rel)


def _document_header(program: ir.Program, decl: ir.Catalog | ir.Table) -> dict:
    """What every catalog and table document starts with."""
    return {
        "$schema": _uri(program, f"{decl.name}.schema.json"),
        "id": decl.name,
        "kind": decl.kind,
        "title": decl.title,
        "source": decl.ref,
        "status": decl.status,
        "as_printed": {"ids": list(decl.as_printed), "reason": decl.as_printed_reason or ""} if decl.as_printed else None,
    }


def catalog_doc(program: ir.Program, name: str) -> dict:
    catalog = program.get(name, ir.Catalog)
    return {**_document_header(program, catalog), "record": catalog.record, "entries": plain(catalog.entries)}


def _row_doc(table: ir.Table, row: ir.TableRow) -> dict:
    if table.across:
        values = {label: plain(v) for label, v in zip(sch.across_labels(table), row.across)}
    else:
        values = plain(row.values)
    return {"key": {k.name: plain(v) for k, v in zip(table.keys, row.keys)}, "title": row.title, "values": values}


def _column_doc(column: ir.TableKey | ir.TableColumn) -> dict:
    return {"name": column.name, "type": str(column.type), "title": column.title, "range": getattr(column, "ranged", False)}


def table_doc(program: ir.Program, name: str) -> dict:
    table = program.get(name, ir.Table)
    return {
        **_document_header(program, table),
        "keys": [_column_doc(k) for k in table.keys],
        "across": _column_doc(table.across) if table.across else None,
        "columns": [_column_doc(c) for c in table.columns],
        "rows": [_row_doc(table, row) for row in table.rows],
    }


def rules_doc(program: ir.Program) -> dict:
    rules = {}
    for rule in program.of(ir.Rule):
        rules[rule.name] = {
            "title": rule.title,
            "source": rule.ref,
            "status": rule.status,
            "params": [{"name": p.name, "title": p.title, "type": str(p.type), "required": p.default is None} for p in rule.params],
            "text": list(rule.texts),
            "levels": [{"level": level, "text": text} for level, text in rule.levels],
            "grants": [plain(g) for g in rule.grants],
            "stacking": rule.stacking,
            "doc": rule.doc,
        }
    return {**_fixed_header(program, "rules"), "rules": rules}


def enums_doc(program: ir.Program) -> dict:
    enums = {}
    for enum in program.of(ir.Enum):
        enums[enum.name] = {
            "title": enum.title,
            "source": enum.ref,
            "ordered": enum.ordered,
            "values": [{"id": m.name, "title": m.title} for m in enum.members],
        }
    return {**_fixed_header(program, "enums"), "enums": enums}


def constants_doc(program: ir.Program) -> dict:
    """Named constants (``const``) with their values."""
    constants = {
        c.name: {"title": c.title, "source": c.ref, "type": str(c.type), "value": plain(c.value), "doc": c.doc}
        for c in program.of(ir.Const)
    }
    return {**_fixed_header(program, "constants"), "constants": constants}


def procedures_doc(program: ir.Program) -> dict:
    procedures = {}
    for proc in program.of(ir.Procedure):
        params = []
        for p in proc.params:
            has_default, default = sch.default_value(program, p.default)
            params.append({"name": p.name, "title": p.title, "type": str(p.type), "required": sch.is_required(p), "default": default if has_default else None})
        procedures[proc.name] = {
            "title": proc.title,
            "source": proc.ref,
            "status": proc.status,
            "params": params,
            "result": str(proc.result),
            "steps": [step.label for step in proc.steps],
            "input_schema": _uri(program, f"procedures/{proc.name}.input.schema.json"),
            "result_schema": _uri(program, f"procedures/{proc.name}.result.schema.json"),
        }
    return {**_fixed_header(program, "procedures"), "procedures": procedures}


def glossary_doc(program: ir.Program) -> dict:
    """The glossary (``term`` declarations), in rulebook order."""
    terms = [{"id": t.name, "term": t.title, "definition": t.definition, "source": t.ref} for t in program.of(ir.Term)]
    return {**_fixed_header(program, "glossary"), "terms": terms}


def _fixed(program: ir.Program, kind: str, body: dict, defs: dict) -> dict:
    """The body of a fixed document's schema: its header, ``body`` and ``defs``."""
    props = {
        "$schema": {"const": _uri(program, f"{kind}.schema.json"), "description": _h("$schema")},
        "id": {"const": kind, "description": _h("id")},
        "kind": {"const": kind, "description": _h("kind")},
        **body,
    }
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False, "$defs": defs}


ODDS_FORMAT = 2
"""The version of odds.json's shape: 2 writes every probability as a fraction "n/d" (1 wrote 0 and 1 as numbers)."""

def _fixed_schemas(program: ir.Program) -> dict[str, tuple[str, str, dict]]:
    """(title, description, body) of each fixed document's schema, by file name."""
    types = sch.TYPES
    rule_ids = sch.ref(types, "RuleId")
    title, source, doc = _str(_h("title")), _str(_h("source")), _nullable(_str(), _h("doc"))
    param_title = _nullable(_str(), _("What players read for it, as the rulebook titles it; null: its name spelt out."))
    status = sch.described(sch.ref(types, "Status"), _h("status"))
    out = {}
    out["rules.schema.json"] = ("RulesDocument", _("Special rules: parameters, texts, levels, granted rules and status."), _fixed(program, "rules", {
        "rules": _keyed("RuleEntry", _("Each special rule by its id."), rule_ids),
    }, {
        "RuleEntry": _obj("RuleEntry", _("A special rule."), {
            "title": title, "source": source, "status": status,
            "params": _array(_def("RuleParam"), _("Its parameters, in order.")),
            "text": _array(_str(), _("Its text in the manual, paragraph by paragraph.")),
            "levels": _array(_def("RuleLevel"), _("The text of each level, for a rule applied with a level.")),
            "grants": _array(sch.ref(types, "RuleApplication"), _("The rules it grants, in the same form as in the catalogs.")),
            "stacking": _nullable(_str(), _("How several applications combine, as the rulebook says it; null: not said.")),
            "doc": doc,
        }),
        "RuleParam": _obj("RuleParam", _("A parameter of a special rule."), {
            "name": _str(_("Its name, the key of the rule's args."), ), "title": param_title,
            "type": _str(_("Its type, as the rulebook writes it.")),
            "required": _typed("boolean", _("Whether an application must give it (it has no default)."))}),
        "RuleLevel": _obj("RuleLevel", _("The text of one level of a rule."), {
            "level": _typed("integer", _("The level.")), "text": _str(_("What the rule does at that level."))}),
    }))
    out["enums.schema.json"] = ("EnumsDocument", _("The values of each enumeration, with their visible names (the title printed in the manual)."), _fixed(program, "enums", {
        "enums": _keyed("EnumEntry", _("Each enumeration by its name.")),
    }, {
        "EnumEntry": _obj("EnumEntry", _("An enumeration."), {
            "title": title, "source": source, "ordered": _typed("boolean", _("Whether its values are ordered (compared by their order).")),
            "values": _array(_def("EnumMember"), _("Its values, in the rulebook's order.")),
        }),
        "EnumMember": _obj("EnumMember", _("A value: its id and its title."), {
            "id": _str(_("The value's id, as data and procedures write it.")), "title": _str(_("Its name as the manual prints it."))}),
    }))
    constant_defs = {}
    for kind, value in (("int", {"type": "integer"}), ("decimal", {"type": "number"}), ("text", {"type": "string"}), ("bool", {"type": "boolean"})):
        name = f"{kind.capitalize()}Constant"
        constant_defs[name] = _obj(name, _("A constant of type %(type)s.") % {"type": kind}, {
            "title": title, "source": source,
            "type": {"const": kind, "description": _("The constant's type, which says the type of value.")},
            "value": {**value, "description": _("The constant's value.")}, "doc": doc,
        })
    out["constants.schema.json"] = ("ConstantsDocument", _("Named values the procedures use (const), each with its type."), _fixed(program, "constants", {
        "constants": _keyed("ConstantEntry", _("Each constant by its name.")),
    }, {
        "ConstantEntry": {"title": "ConstantEntry", "description": _("A constant: its type (int, decimal, text or bool) decides the type of its value."),
                          "anyOf": [_def(name) for name in constant_defs]},
        **constant_defs,
    }))
    out["procedures.schema.json"] = ("ProceduresDocument", _("Procedures with their parameters (and default values), result, steps and schemas."), _fixed(program, "procedures", {
        "procedures": _keyed("ProcedureEntry", _("Each procedure by its name.")),
    }, {
        "ProcedureEntry": _obj("ProcedureEntry", _("A procedure; input_schema and result_schema are $ids of schemas; status, its @status (not_playable: the rulebook does not define everything it resolves)."), {
            "title": title, "source": source, "status": status, "params": _array(_def("ProcedureParam"), _("Its parameters, in order.")),
            "result": _str(_("The type of its result, as the rulebook writes it.")), "steps": _array(_str(), _("The titles of its steps, in order.")),
            "input_schema": _str(_("The $id of the schema of its input."), format="uri"),
            "result_schema": _str(_("The $id of the schema of its result."), format="uri"),
        }),
        "ProcedureParam": _obj("ProcedureParam", _("A parameter; default is its default value when it is constant (null when it has none)."), {
            "name": _str(_("Its name, the key of the input.")), "title": param_title,
            "type": _str(_("Its type, as the rulebook writes it.")),
            "required": _typed("boolean", _("Whether the input must give it.")),
            "default": {"description": _("Its default value as JSON; null: none, or not a constant.")},
        }),
    }))
    cell = {"type": "string", "pattern": FRACTION, "description": _("An exact probability, “n/d” (0/1 impossible, 1/1 certain).")}
    out["odds.schema.json"] = ("OddsDocument", _("Exact probabilities computed by the resolvers over a grid of inputs."), _fixed(program, "odds", {
        "format": {"const": ODDS_FORMAT, "description": _("The version of this document's shape: 2 writes every probability as a fraction “n/d”.")},
        "tables": _keyed("OddsEntry", _("Each odds table by its name.")),
    }, {
        "OddsEntry": _obj("OddsEntry", _("A table of probabilities."), {
            "title": title, "source": source, "procedure": _str(_("The procedure whose results it tabulates.")),
            "rows": sch.described(_def("OddsAxis"), _("What varies from row to row.")),
            "columns": sch.described(_def("OddsAxis"), _("What varies from column to column.")),
            "groups": _nullable(_def("OddsAxis"), _("What varies from grid to grid (each x in …); null: one grid.")),
            "cells": _array({"type": "array", "items": {"anyOf": [_def("OddsCell"), {"type": "array", "items": _def("OddsCell")}]}}, _(
                "cells[row][column] (with groups: cells[group][row][column]): the exact probability as “n/d”, "
                "or null where the procedure does not accept those inputs.")),
            "errors": _array(_str(), _("Why some cells are null: the procedure's errors for those inputs.")),
        }),
        "OddsCell": {"title": "OddsCell", "description": _("One cell: an exact probability “n/d”, or null where the procedure does not accept the inputs."),
                     "anyOf": [cell, {"type": "null"}]},
        "OddsAxis": _obj("OddsAxis", _("An axis: the variable, its title and its values."), {
            "variable": _nullable(_str(), _("The input it sets; null: none.")),
            "title": _nullable(_str(), _("Its printed title; null: none.")),
            "values": _array({}, _("Its values, as JSON, in order.")),
        }),
    }))
    out["glossary.schema.json"] = ("GlossaryDocument", _("The terms of the glossary with their definitions."), _fixed(program, "glossary", {
        "terms": _array(_def("GlossaryTerm"), _("The terms, in the rulebook's order.")),
    }, {
        "GlossaryTerm": _obj("GlossaryTerm", _("A term of the glossary."), {
            "id": _str(_("The term's id.")), "term": _str(_("The term as the manual prints it.")),
            "definition": _str(_("Its definition.")), "source": source}),
    }))
    out["randomness.schema.json"] = ("RandomnessDocument", _(
        "The dice and bags of the rulebook as data (faces, values, titles; token kinds and counts) and every roll the procedures make."),
        _fixed(program, "randomness", randomness.properties(program), randomness.defs(program)))
    base = vectors_schema()
    vectors = {**base, "properties": {**base["properties"], "$schema": {"const": _uri(program, "examples.schema.json"), "description": _h("$schema")}}}
    procedure = base["$defs"]["TestVector"]["properties"]["procedure"]
    vectors["$defs"] = {**base["$defs"], "TestVector": {**base["$defs"]["TestVector"], "properties": {
        **base["$defs"]["TestVector"]["properties"],
        "procedure": {**procedure, "enum": [p.name for p in program.of(ir.Procedure)]} if program.of(ir.Procedure) else procedure,
    }}}
    out["examples.schema.json"] = ("TestVectors", _("The rulebook's worked examples as test vectors: input and the exact distribution (or error) expected."), vectors)
    return out


FIXED_TYPE_NAMES = DOCUMENT_TYPE_NAMES
"""The type names of the fixed documents' schemas (a declaration may not take one)."""


def _manifest_schema(program: ir.Program) -> dict:
    digest = _str(pattern="^sha256:[0-9a-f]{64}$")
    props = {
        "$schema": {"const": _uri(program, "manifest.schema.json"), "description": _h("$schema")},
        "format_version": _str(_("The version of the layout of json/ and schemas/ (major.minor): a reader of an older major version may break.")),
        "compiler_version": _str(_("The version of the compiler that built it.")),
        "rulebook": _str(_("The rulebook's id.")), "title": _str(_("The rulebook's title.")),
        "version": _str(_("The published version (major.minor.patch), computed by the build against the previous one: see json/changelog.json.")),
        "declared_version": _str(_("The version the rulebook declares (version \"…\"): the base of the published one.")),
        "previous_version": _nullable(_str(), _("The version published before this one (null: none).")),
        "change_level": {"enum": [*changes.LEVELS, None], "description": _("The level of the change since previous_version: major, minor, patch (null: none).")},
        "lang": _str(_("The rulebook's language: every description the tool writes is in it.")),
        "base_uri": _str(_("The prefix of every $id:") + " " + _(sch.ID_RULE), format="uri"),
        "content_hash": {**digest, "description": _("sha256 of the .rules files by their names inside the rulebook's folder (it does not depend on where the folder is).")},
        "bundle_hash": {**digest, "description": _("sha256 of json/rulebook.json as written.")},
        "sources": _array(_str(), _("The rulebook's source files by their names inside its folder.")),
        "schemas": {"type": "object", "additionalProperties": _str(), "description": _("The $id of each schema → its path in the build.")},
        "documents": {"type": "object", "additionalProperties": digest, "description": _("Each file of the build by path → its sha256.")},
    }
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


def all_schemas(program: ir.Program, named: bool = True) -> dict[str, dict]:
    """Every schema by relative path under ``schemas/``: the declarations' (see
    :mod:`rulebook.compiler.emit.data.schemas`), then the fixed documents', the bundle's and the manifest's;
    ``named=False``: before :func:`rulebook.compiler.emit.data.schemas.named_types`. The
    descriptions the tool writes are in the rulebook's language."""
    out = sch.schemas(program)
    with sch.language_of(program):
        out.update(_more_schemas(program))
    out.update(to_armies.schemas(program))
    return {rel: sch.named_types(doc) for rel, doc in out.items()} if named else out


def _more_schemas(program: ir.Program) -> dict[str, dict]:
    out = {}
    for rel, (title, description, body) in _fixed_schemas(program).items():
        out[rel] = sch.generic_schema(program, rel, title, description, body)
    catalogs = {c.name: c for c in program.of(ir.Catalog)}
    tables = {t.name: t for t in program.of(ir.Table)}

    def part(rel: str, text: str) -> dict:
        return sch.described({"$ref": rel}, text)

    bundle_props = {
        "$schema": {"const": _uri(program, "rulebook.schema.json"), "description": _h("$schema")},
        "rulebook": _str(_("The rulebook's id.")), "title": _str(_("The rulebook's title.")), "version": _str(_("The rulebook's version.")),
        "catalogs": part("#/$defs/RulebookCatalogs", _("Each catalog's document by its id.")),
        "tables": part("#/$defs/RulebookTables", _("Each table's document by its id.")),
        "rules": part("rules.schema.json", _("The document rules.json.")), "enums": part("enums.schema.json", _("The document enums.json.")),
        "constants": part("constants.schema.json", _("The document constants.json.")),
        "procedures": part("procedures.schema.json", _("The document procedures.json.")), "odds": part("odds.schema.json", _("The document odds.json.")),
        "glossary": part("glossary.schema.json", _("The document glossary.json.")),
        "randomness": part("randomness.schema.json", _("The document randomness.json.")),
    }
    out["rulebook.schema.json"] = sch.generic_schema(
        program, "rulebook.schema.json", "Rulebook", _("The whole rulebook: every document of the declarations in one."),
        {"type": "object", "properties": bundle_props, "required": list(bundle_props), "additionalProperties": False, "$defs": {
            "RulebookCatalogs": _obj("RulebookCatalogs", _("Each catalog by its id."), {
                c: part(f"{c}.schema.json", f"{decl.title} ({c}.json)") for c, decl in catalogs.items()}),
            "RulebookTables": _obj("RulebookTables", _("Each table by its id."), {
                t: part(f"{t}.schema.json", f"{decl.title} ({t}.json)") for t, decl in tables.items()}),
        }},
    )
    out["logic.schema.json"] = sch.generic_schema(
        program, "logic.schema.json", "LogicDocument",
        _("The logic as data: each procedure (signature and normalised statements with their lines), the records, the digest of each declaration and the prose."),
        with_descriptions_translated({**logic.LOGIC_SCHEMA, "properties": {
            **logic.LOGIC_SCHEMA["properties"], "$schema": {"const": _uri(program, "logic.schema.json"), "description": _h("$schema")}}}),
    )
    out["changelog.schema.json"] = sch.generic_schema(
        program, "changelog.schema.json", "Changelog", _("The published versions, the latest first, with their classified changes (major, minor, patch)."),
        with_descriptions_translated({**changes.CHANGELOG_BODY, "properties": {
            **changes.CHANGELOG_BODY["properties"], "$schema": {"const": _uri(program, "changelog.schema.json"), "description": _h("$schema")}}}),
    )
    out["diff.schema.json"] = sch.generic_schema(
        program, "diff.schema.json", "RulebookDiff", _("The output of rulebook diff --format json: the changes between two versions, classified."),
        with_descriptions_translated(changes.DIFF_BODY),
    )
    out["balance.schema.json"] = sch.generic_schema(
        program, "balance.schema.json", "RulebookBalance",
        _("The output of rulebook balance --format json: each unit's effect per point against the field, its rank and the outliers of its category."),
        with_descriptions_translated(balance.BALANCE_BODY),
    )
    out["manifest.schema.json"] = sch.generic_schema(
        program, "manifest.schema.json", "Manifest", _("The manifest of the build: versions, hashes and the map of $ids to files.") + " " + _(sch.ID_RULE),
        _manifest_schema(program),
    )
    return out


def _fraction(probability: Any) -> str:
    """An exact probability as a fraction string ``"n/d"`` (``"0/1"``, ``"1/1"`` too)."""
    p = Fraction(probability)
    return f"{p.numerator}/{p.denominator}"


def _odds_cell(probability: Any) -> Any:
    return None if probability is None else _fraction(probability)


def _odds_axis(variable: str | None, title: str | None, values: list) -> dict:
    return {"variable": variable, "title": title, "values": [runtime.to_jsonable(v) for v in values]}


def odds_doc(tables: Iterable[OddsTable], program: ir.Program | None = None) -> dict:
    """Odds tables computed by the resolvers (see :mod:`rulebook.compiler.analysis.odds`), every
    probability a fraction ``"n/d"``; ``program`` gives the document its ``$schema``."""
    out = {}
    for t in tables:
        if t.group_var:
            cells = [[[_odds_cell(c) for c in line] for line in grid] for grid in t.cells]
        else:
            cells = [[_odds_cell(c) for c in line] for line in t.cells]
        out[t.name] = {
            "title": t.title,
            "source": t.ref,
            "procedure": t.procedure,
            "rows": _odds_axis(t.row_var, t.row_title, t.rows),
            "columns": _odds_axis(t.col_var, t.col_title, t.columns),
            "groups": _odds_axis(t.group_var, t.group_title, t.groups) if t.group_var else None,
            "cells": cells,
            "errors": t.errors,
        }
    header = _fixed_header(program, "odds") if program is not None else {"$schema": "", "id": "odds", "kind": "odds"}
    return {**header, "format": ODDS_FORMAT, "tables": out}


def _rulebook_fields(program: ir.Program) -> dict[str, str]:
    """``rulebook``, ``title`` and ``version`` of the rulebook ("" without a ``rulebook`` declaration)."""
    info = program.rulebook
    return {"rulebook": info.name if info else "", "title": info.title if info else "", "version": info.version if info else ""}


def documents(program: ir.Program, odds_tables: Iterable[OddsTable] = (), package: ModuleType | None = None) -> dict[str, dict]:
    """Every JSON document (without the manifest) by path under ``json/``; the
    test vectors (``examples.json``) only with the generated ``package``."""
    catalogs = {c.name: catalog_doc(program, c.name) for c in program.of(ir.Catalog)}
    tables = {t.name: table_doc(program, t.name) for t in program.of(ir.Table)}
    docs: dict[str, dict] = {f"{name}.json": doc for name, doc in (catalogs | tables).items()}
    docs["rules.json"] = rules_doc(program)
    docs["enums.json"] = enums_doc(program)
    docs["constants.json"] = constants_doc(program)
    docs["procedures.json"] = procedures_doc(program)
    docs["odds.json"] = odds_doc(odds_tables, program)
    docs["glossary.json"] = glossary_doc(program)
    docs["randomness.json"] = randomness.randomness_doc(program)
    docs["logic.json"] = logic.logic_doc(program, _uri(program, "logic.schema.json"))
    docs["changelog.json"] = changelog_doc(program)
    if package is not None:
        docs["examples.json"] = vectors_doc(program, package, source_names(program), _uri(program, "examples.schema.json"))
    docs["rulebook.json"] = {
        "$schema": _uri(program, "rulebook.schema.json"),
        **_rulebook_fields(program),
        "catalogs": catalogs,
        "tables": tables,
        "rules": docs["rules.json"],
        "enums": docs["enums.json"],
        "constants": docs["constants.json"],
        "procedures": docs["procedures.json"],
        "odds": docs["odds.json"],
        "glossary": docs["glossary.json"],
        "randomness": docs["randomness.json"],
    }
    docs.update(to_armies.documents(program, content_hash(program)))
    return docs


def dumps(doc: Any, written: dict[str, tuple[Any, str]] | None = None) -> str:
    """A document as written: UTF-8 text, indented, with a final newline.

    The text of ``json.dumps(doc, ensure_ascii=False, indent=2)``, written by
    :func:`_indented` for the plain data documents are made of (dicts with string
    keys, lists, strings, ints, finite floats, booleans, None): the standard
    library's indenting encoder is pure Python and more than twice as slow (a
    build writes some 350 documents). Anything else is left to ``json.dumps``.

    ``written``: documents written already (path under ``json/`` → the document and its
    text): one that ``doc`` holds under the key ``k`` of a dict, when it is the document of
    ``k.json`` (the same object), is not written again (the bundle holds the others so).
    """
    parts: list[str] = []
    try:
        _indented(_with_written(doc, written) if written else doc, "\n", parts)
    except (_NotPlain, RecursionError):
        return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    parts.append("\n")
    return "".join(parts)


class _NotPlain(Exception):
    """A value :func:`_indented` leaves to ``json.dumps``."""


class _Written:
    """A value already written: its text (without the final newline) at the top level."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _with_written(value: Any, written: dict[str, tuple[Any, str]]) -> Any:
    """``value`` with each document of ``written`` it holds where :func:`dumps` says replaced
    by its :class:`_Written` text."""
    if type(value) is not dict:
        return value
    out = {}
    for key, item in value.items():
        doc, text = written.get(f"{key}.json", (None, ""))
        out[key] = _Written(text[:-1]) if item is doc and text else _with_written(item, written)
    return out


_string = json.encoder.encode_basestring  # the standard library's, in C where it has one


def _indented(value: Any, newline: str, parts: list[str]) -> None:
    """Append ``value`` as ``json.dumps(indent=2, ensure_ascii=False)`` writes it at the
    indentation of ``newline`` (a line break and its spaces) to ``parts``; :class:`_NotPlain`
    for a value that is not plain data."""
    kind = type(value)
    if kind is str:
        parts.append(_string(value))
    elif kind is dict or kind is list:
        if not value:
            parts.append("{}" if kind is dict else "[]")
            return
        inner = newline + "  "
        separator = ("{" if kind is dict else "[") + inner
        for item in value.items() if kind is dict else value:
            parts.append(separator)
            separator = "," + inner
            if kind is dict:
                key, item = item
                if type(key) is not str:
                    raise _NotPlain
                parts.append(_string(key))
                parts.append(": ")
            _indented(item, inner, parts)
        parts.append(newline + ("}" if kind is dict else "]"))
    elif kind is int:
        parts.append(int.__repr__(value))
    elif value is None:
        parts.append("null")
    elif value is True or value is False:
        parts.append("true" if value else "false")
    elif kind is float and value - value == 0:  # finite: json.dumps writes the others as NaN, Infinity
        parts.append(float.__repr__(value))
    elif kind is _Written:  # the same text with each line indented as here (a JSON string holds no line break)
        parts.append(value.text.replace("\n", newline))
    else:
        raise _NotPlain


def registry_for(schema_docs: dict[str, dict]) -> Registry:
    """The schemas by ``$id``, so that ``$ref`` between them resolve."""
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    return Registry().with_resources((s["$id"], Resource(contents=s, specification=DRAFT202012)) for s in schema_docs.values())


def validate(docs: dict[str, dict], schema_docs: dict[str, dict], memo: JsonMemo | None = None) -> list[str]:
    """Validate each document against the schema its ``$schema`` names (an ``$id``);
    returns the problems (at most 5 per document).

    One validator holds the registry of every schema (jsonschema combines a registry
    with the meta-schemas each time a validator is built, so building one per document
    would make this quadratic); each document is checked against a ``$ref`` to its
    schema's ``$id``. The documents the bundle (``rulebook.json``) holds are checked
    once, as parts of it (its schema refers to theirs). With a ``memo`` (see
    :class:`JsonMemo`), a document its previous build validated against the same schemas
    has the problems it had then, without being validated again."""
    memo = memo if memo is not None else JsonMemo(remember=False)
    fast = memo.prevalidator(schema_docs)  # jsonschema below only for what it finds invalid
    slow: list = []  # jsonschema's validator, built for the first document the fast check finds invalid
    ids = {s["$id"] for s in schema_docs.values()}
    bundle = docs.get("rulebook.json", {})
    # the documents the bundle holds are validated once, as parts of it
    parts: dict[str, list] = {}  # by $schema (each document's own, as a rule), to find the same objects quickly
    for part in _parts(bundle):
        parts.setdefault(str(part.get("$schema")), []).append(part)
    bundled = {rel for rel, doc in docs.items()
               if rel != "rulebook.json" and any(doc is part for part in parts.get(str(doc.get("$schema")), ()))}
    problems = []
    for rel, doc in docs.items():
        if rel in bundled:
            continue
        kept = memo.entry(f"json/{rel}", doc, keyed=doc is not bundle)  # the bundle: its parts' keys would cost as much as checking it
        if kept.problems is None:
            kept.problems = _problems(rel, doc, ids, fast, schema_docs, slow)
            memo.validated += 1
        problems += kept.problems
    return problems


def _problems(rel: str, doc: dict, ids: set[str], fast: fast_validation.Prevalidator, schema_docs: dict[str, dict], slow: list) -> list[str]:
    """What :func:`validate` says of one document (``slow``: jsonschema's validator once built)."""
    if doc.get("$schema") not in ids:
        return [f"json/{rel}: $schema {doc.get('$schema')!r} is the $id of no schema"]
    if fast.is_valid(doc, doc["$schema"]):
        return []
    if not slow:
        from jsonschema import Draft202012Validator

        slow.append(Draft202012Validator({}, registry=registry_for(schema_docs)))
    validator = slow[0].evolve(schema={"$ref": doc["$schema"]})
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))[:5]
    return [f"json/{rel}: {err.json_path}: {err.message[:300]}" for err in errors]


def _parts(bundle: dict) -> list:
    """The documents a bundle holds."""
    return [*bundle.get("catalogs", {}).values(), *bundle.get("tables", {}).values(), *(v for k, v in bundle.items() if isinstance(v, dict) and "kind" in v)]


def _sha256(text: str | bytes) -> str:
    return "sha256:" + hashlib.sha256(text if isinstance(text, bytes) else text.encode()).hexdigest()


def _latest(program: ir.Program) -> dict:
    """The newest entry of the history of published versions ({} without one)."""
    releases = program.rulebook.releases if program.rulebook else ()
    return releases[0] if releases else {}


def changelog_doc(program: ir.Program) -> dict:
    """``json/changelog.json``: the published versions, newest first, with their classified changes."""
    rb = program.rulebook
    return {**_fixed_header(program, "changelog"), "rulebook": rb.name if rb else "", "version": rb.version if rb else "",
            "declared_version": rb.declared if rb else "", "versions": [dict(v) for v in (rb.releases if rb else ())]}


def _manifest(program: ir.Program, files: dict[str, str], schema_docs: dict[str, dict], digests: dict[str, str]) -> dict:
    """The manifest of ``files`` (by path in the build; ``digests``: the sha256 of each)."""
    return {
        "$schema": _uri(program, "manifest.schema.json"),
        "format_version": FORMAT_VERSION,
        "compiler_version": compiler_version(),
        **_rulebook_fields(program),
        "declared_version": program.rulebook.declared if program.rulebook else "",
        "previous_version": _latest(program).get("previous"),
        "change_level": _latest(program).get("level"),
        "lang": program.rulebook.lang if program.rulebook else "",
        "base_uri": sch.base_uri(program),
        "content_hash": content_hash(program),
        "bundle_hash": digests["json/rulebook.json"],
        "sources": sorted(source_names(program).values()),
        "schemas": {schema["$id"]: f"schemas/{rel}" for rel, schema in sorted(schema_docs.items())},
        "documents": {rel: digests[rel] for rel in sorted(files)},
    }


def write_all(program: ir.Program, out_dir: Path, odds_tables: Iterable[OddsTable] = (), package: ModuleType | None = None,
              memo: JsonMemo | None = None) -> list[str]:
    """Write json/ and schemas/ under ``out_dir`` after validating every document.

    ``odds_tables`` are the odds tables computed by the generated resolvers and
    ``package`` the generated package (for the test vectors). ``memo``: what the
    previous build of a long-running caller serialised, validated and wrote
    (:class:`JsonMemo`); the files are the same with it as without.
    Returns the validation problems; when there are any, nothing is written.
    """
    problems = sch.name_clashes(program)
    if problems:  # the schemas would be wrong, and so every check below
        return problems
    memo = memo if memo is not None else JsonMemo(remember=False)
    memo.begin()
    try:
        schema_docs = {rel: memo.schema(rel, raw) for rel, raw in all_schemas(program, named=False).items()}
        problems += sch.bad_type_names(schema_docs)
        docs = documents(program, odds_tables, package)
        problems += validate(docs, schema_docs, memo)
        if problems:
            return problems
        files = {f"schemas/{rel}": memo.text(f"schemas/{rel}", schema) for rel, schema in schema_docs.items()}
        written: dict[str, tuple[Any, str]] = {}  # the bundle is written from its parts' texts
        for rel, doc in docs.items():
            files[f"json/{rel}"] = text = memo.text(f"json/{rel}", doc, written if rel == "rulebook.json" else None)
            written[rel] = (doc, text)
        manifest = _manifest(program, files, schema_docs, {file: memo.digest(file, text) for file, text in files.items()})
        problems = validate({"manifest.json": manifest}, schema_docs, memo)
        if problems:
            return problems
        files["json/manifest.json"] = memo.text("json/manifest.json", manifest)
        memo.write(out_dir, files)
        return []
    finally:
        memo.end()


class JsonMemo:
    """What :func:`write_all` made of each file in the previous build, for a long-running
    caller (``rulebook serve``: :class:`rulebook.compiler.pipeline.driver.Stages`) to pass to the next.

    Each schema and document is keyed by its value pickled without the memo
    (:func:`rulebook.compiler.support.memo.pickled`: the same bytes for values equal in type
    and content, whatever objects they share), so an equal key means the same text and,
    against the same schemas (all their keys equal), the same validation problems. A
    schema with the key it had is neither named again (:func:`rulebook.compiler.emit.data.schemas.named_types`)
    nor checked against the meta-schema; the compiled validators are kept while the
    schemas are the same. The bundle is not keyed (that would cost as much as validating
    it): it is validated each time and written from its parts' texts. Only the last
    build's entries are kept.

    ``folder``: where the previous build's output is found when this one is written
    (``serve``'s ``next/``, which :func:`rulebook.compiler.pipeline.driver.build` replaces as a
    whole). A file whose text is the one written there before, and which is still the
    file written then (same device, inode, size and modification time), is hard-linked
    into the new output instead of written: a file is never changed in place, so the
    previous output stays as it was whatever happens to the new one.

    ``serialised``, ``validated`` and ``linked`` count what the last build did.
    """

    def __init__(self, folder: Path | None = None, remember: bool = True) -> None:
        self.folder = folder
        self.remember = remember  # False: a one-shot build; nothing is keyed or kept
        self.kept: dict[str, _Kept] = {}  # file (schemas/…, json/…) → the previous build's entry
        self.now: dict[str, _Kept] = {}  # the same for this build
        self.kept_schemas: tuple | None = None  # the key of the schemas the kept problems were found against
        self.now_schemas: tuple | None = None
        self.verdicts_hold = False  # whether this build's schemas are those
        self.fast: tuple[tuple | None, fast_validation.Prevalidator] | None = None  # compiled validators and their schemas' key
        self.on_disk: dict[str, tuple[str, tuple[int, int, int, int]]] = {}  # file → text and stamp, as written last
        self.serialised = self.validated = self.linked = 0

    def begin(self) -> None:
        self.now, self.now_schemas, self.verdicts_hold = {}, None, False
        self.serialised = self.validated = self.linked = 0

    def end(self) -> None:
        """Keep this build's entries (a build that stopped before any keeps the previous ones),
        without the documents themselves: their keys, texts and problems are what is compared
        and reused."""
        if self.remember and self.now:
            for kept in self.now.values():
                kept.value = None
            self.kept, self.kept_schemas = self.now, self.now_schemas
        self.now = {}

    def entry(self, file: str, value: Any, keyed: bool = True) -> _Kept:
        """This build's entry for ``file`` holding ``value``: with what the previous build made
        of it when it had the same key."""
        new = self.now.get(file)
        if new is not None and (new.value is value or new.named is value):  # a schema's entry holds the raw one
            return new
        key = None
        if self.remember and keyed:
            from rulebook.compiler.support.memo import pickled

            key = pickled(value)
        new = self.now[file] = _Kept(key, value)
        old = self.kept.get(file)
        if new.key is not None and old is not None and old.key == new.key:
            new.named, new.text, new.digest = old.named, old.text, old.digest
            new.problems = old.problems if self.verdicts_hold else None
        return new

    def schema(self, rel: str, raw: dict) -> dict:
        """A schema as written (:func:`rulebook.compiler.emit.data.schemas.named_types`), checked against the meta-schema."""
        kept = self.entry(f"schemas/{rel}", raw)
        if kept.named is None:
            named = sch.named_types(raw)
            fast_validation.check_schemas({rel: named})  # raises for an invalid one, which is then not kept
            kept.named = named
        return kept.named

    def prevalidator(self, schema_docs: dict[str, dict]) -> fast_validation.Prevalidator:
        """The compiled validators for ``schema_docs``: the previous build's when these are the
        schemas it had (each with the same key); then the problems kept hold too."""
        entries = [(rel, self.now.get(f"schemas/{rel}")) for rel in schema_docs]
        if all(e is not None and e.key is not None and e.named is schema_docs[rel] for rel, e in entries):
            self.now_schemas = tuple((rel, e.key) for rel, e in entries)
        self.verdicts_hold = self.now_schemas is not None and self.now_schemas == self.kept_schemas
        if self.fast is None or self.now_schemas is None or self.fast[0] != self.now_schemas:
            self.fast = (self.now_schemas, fast_validation.Prevalidator(schema_docs))
        return self.fast[1]

    def text(self, file: str, value: Any, written: dict[str, tuple[Any, str]] | None = None) -> str:
        """``value`` as written (:func:`dumps`, with the documents ``written`` already)."""
        kept = self.entry(file, value, keyed=file != "json/rulebook.json")
        if kept.text is None:
            kept.text = dumps(value, written)
            self.serialised += 1
        return kept.text

    def digest(self, file: str, text: str) -> str:
        """The sha256 of ``file``'s ``text``, as the manifest lists it."""
        kept = self.now.get(file)
        if kept is None or kept.text is not text:
            return _sha256(text)
        if kept.digest is None:
            kept.digest = _sha256(text)
        return kept.digest

    def write(self, out_dir: Path, files: dict[str, str]) -> None:
        """Write ``files`` (text by path) under ``out_dir``, each folder made once; link
        those the previous build wrote in :attr:`folder` with the same text."""
        folders: set[Path] = set()
        stamps = {}
        for file, text in files.items():
            path = out_dir / file
            if path.parent not in folders:
                path.parent.mkdir(parents=True, exist_ok=True)
                folders.add(path.parent)
            stamp = self._linked(file, text, path)
            if stamp is None:
                with open(path, "w", encoding="utf-8") as out:
                    out.write(text)
                    out.flush()
                    stamp = _stamp(os.fstat(out.fileno()))
            stamps[file] = (text, stamp)
        if self.remember:
            self.on_disk = stamps

    def _linked(self, file: str, text: str, path: Path) -> tuple[int, int, int, int] | None:
        """The stamp of the previous build's ``file`` once linked at ``path``; None when it
        cannot be (another text, not found as written, or a file system without links)."""
        before = self.on_disk.get(file)
        if self.folder is None or before is None or before[0] != text:
            return None
        try:
            if _stamp(os.stat(self.folder / file)) != before[1]:
                return None
            os.link(self.folder / file, path)
        except OSError:
            return None
        self.linked += 1
        return before[1]


class _Kept:
    """What a build made of one file: its value's key (None: not keyed), the named schema
    (schemas), its text, sha256 and validation problems (documents); None: not yet made."""

    __slots__ = ("key", "value", "named", "text", "digest", "problems")

    def __init__(self, key: bytes | None, value: Any) -> None:
        self.key, self.value = key, value
        self.named: dict | None = None
        self.text: str | None = None
        self.digest: str | None = None
        self.problems: list[str] | None = None


def _stamp(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
