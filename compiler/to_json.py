"""IR → JSON documents and their JSON Schemas, validated before writing.

Reads a checked :class:`compiler.ir.Program` (catalog entries and table rows
as plain values, rules, enums, procedure signatures) and the odds tables the
generated resolvers computed (:class:`compiler.odds.OddsTable`). Entry point:
:func:`write_all(program, out_dir, odds_tables) -> list[str]` writes ``json/``
and ``schemas/`` and returns the validation problems (empty when everything
was written; nothing is written otherwise).

Layout under the output folder:

* ``json/<id>.json`` — one document per catalog and table (ids as in the rules);
* ``json/rules.json``, ``json/enums.json``, ``json/constants.json``, ``json/procedures.json``, ``json/odds.json``;
* ``json/rulebook.json`` — the bundle of all of them;
* ``json/manifest.json`` — rulebook name, version, content hash, files;
* ``schemas/…`` — see :mod:`compiler.schemas`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

import runtime

from . import ir
from . import schemas as sch
from .odds import OddsTable


def plain(value: Any) -> Any:
    """IR data values → JSON values: Fractions become numbers, ranges
    ``{"min", "min_inclusive", "max", "max_inclusive"}`` and rule applications
    ``{"rule", "args": {parameter: value}}``."""
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else float(value)
    if isinstance(value, ir.Range):
        return {"min": plain(value.lo), "min_inclusive": value.lo_inclusive, "max": plain(value.hi), "max_inclusive": value.hi_inclusive}
    if isinstance(value, ir.RuleApp):
        return {"rule": value.rule, "args": {param: plain(arg) for param, arg in value.args}}
    if isinstance(value, dict):
        return {k: plain(x) for k, x in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(x) for x in value]
    return value


def _document_header(decl: ir.Catalog | ir.Table) -> dict:
    """What every catalog and table document starts with."""
    return {
        "$schema": f"../schemas/{decl.name}.schema.json",
        "id": decl.name,
        "kind": decl.kind,
        "title": decl.title,
        "source": decl.ref,
        "status": decl.status,
    }


def catalog_doc(program: ir.Program, name: str) -> dict:
    catalog = program.get(name, ir.Catalog)
    return {**_document_header(catalog), "record": catalog.record, "entries": plain(catalog.entries)}


def _row_doc(table: ir.Table, row: ir.TableRow) -> dict:
    if table.across:
        values = {label: plain(v) for label, v in zip(sch.across_labels(table), row.across)}
    else:
        values = plain(row.values)
    return {"key": {k.name: plain(v) for k, v in zip(table.keys, row.keys)}, "title": row.title, "values": values}


def _column_doc(column: ir.TableKey | ir.TableColumn) -> dict:
    return {"name": column.name, "type": str(column.type), "title": column.title}


def table_doc(program: ir.Program, name: str) -> dict:
    table = program.get(name, ir.Table)
    return {
        **_document_header(table),
        "keys": [{**_column_doc(k), "range": k.ranged} for k in table.keys],
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
            "params": [{"name": p.name, "type": str(p.type)} for p in rule.params],
            "text": list(rule.texts),
            "levels": [{"level": level, "text": text} for level, text in rule.levels],
            "grants": [{"rule": g.rule, "args": [plain(arg) for _, arg in g.args]} for g in rule.grants],
            "stacking": rule.stacking,
            "doc": rule.doc,
        }
    return {"$schema": "../schemas/rules.schema.json", "id": "rules", "kind": "rules", "rules": rules}


def enums_doc(program: ir.Program) -> dict:
    enums = {}
    for enum in program.of(ir.Enum):
        enums[enum.name] = {
            "title": enum.title,
            "source": enum.ref,
            "ordered": enum.ordered,
            "values": [{"id": m.name, "title": m.title} for m in enum.members],
        }
    return {"$schema": "../schemas/enums.schema.json", "id": "enums", "kind": "enums", "enums": enums}


def constants_doc(program: ir.Program) -> dict:
    """Named constants (``const``) with their values."""
    constants = {
        c.name: {"title": c.title, "source": c.ref, "type": str(c.type), "value": plain(c.value), "doc": c.doc}
        for c in program.of(ir.Const)
    }
    return {"$schema": "../schemas/constants.schema.json", "id": "constants", "kind": "constants", "constants": constants}


def procedures_doc(program: ir.Program) -> dict:
    procedures = {}
    for proc in program.of(ir.Procedure):
        procedures[proc.name] = {
            "title": proc.title,
            "source": proc.ref,
            "params": [{"name": p.name, "type": str(p.type), "required": sch.is_required(p)} for p in proc.params],
            "result": str(proc.result),
            "steps": [step.label for step in proc.steps],
            "input_schema": f"../schemas/procedures/{proc.name}.input.schema.json",
            "result_schema": f"../schemas/procedures/{proc.name}.result.schema.json",
        }
    return {"$schema": "../schemas/procedures.schema.json", "id": "procedures", "kind": "procedures", "procedures": procedures}


_RULES_SCHEMA = {
    "type": "object",
    "properties": {
        "$schema": {"type": "string"}, "id": {"const": "rules"}, "kind": {"const": "rules"},
        "rules": {"type": "object", "additionalProperties": {
            "type": "object",
            "properties": {
                "title": {"type": "string"}, "source": {"type": "string"},
                "status": sch.STATUS_SCHEMA,
                "params": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "type": {"type": "string"}}, "required": ["name", "type"]}},
                "text": {"type": "array", "items": {"type": "string"}},
                "levels": {"type": "array", "items": {"type": "object", "properties": {"level": {"type": "integer"}, "text": {"type": "string"}}, "required": ["level", "text"]}},
                "grants": {"type": "array", "items": {"type": "object", "properties": {"rule": {"type": "string"}, "args": {"type": "array"}}, "required": ["rule", "args"]}},
                "stacking": {"type": ["string", "null"]}, "doc": {"type": ["string", "null"]},
            },
            "required": ["title", "source", "status", "params", "text", "levels", "grants", "stacking"],
            "additionalProperties": False,
        }},
    },
    "required": ["$schema", "id", "kind", "rules"],
    "additionalProperties": False,
}
_ENUMS_SCHEMA = {
    "type": "object",
    "properties": {
        "$schema": {"type": "string"}, "id": {"const": "enums"}, "kind": {"const": "enums"},
        "enums": {"type": "object", "additionalProperties": {
            "type": "object",
            "properties": {
                "title": {"type": "string"}, "source": {"type": "string"}, "ordered": {"type": "boolean"},
                "values": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}, "title": {"type": "string"}}, "required": ["id", "title"], "additionalProperties": False}},
            },
            "required": ["title", "source", "ordered", "values"],
            "additionalProperties": False,
        }},
    },
    "required": ["$schema", "id", "kind", "enums"],
    "additionalProperties": False,
}
_CONSTANTS_SCHEMA = {
    "type": "object",
    "properties": {
        "$schema": {"type": "string"}, "id": {"const": "constants"}, "kind": {"const": "constants"},
        "constants": {"type": "object", "additionalProperties": {
            "type": "object",
            "properties": {
                "title": {"type": "string"}, "source": {"type": "string"}, "type": {"enum": ["int", "decimal", "text", "bool"]},
                "value": {"type": ["number", "string", "boolean"]}, "doc": {"type": ["string", "null"]},
            },
            "required": ["title", "source", "type", "value", "doc"],
            "additionalProperties": False,
        }},
    },
    "required": ["$schema", "id", "kind", "constants"],
    "additionalProperties": False,
}
_PROCEDURES_SCHEMA = {
    "type": "object",
    "properties": {
        "$schema": {"type": "string"}, "id": {"const": "procedures"}, "kind": {"const": "procedures"},
        "procedures": {"type": "object", "additionalProperties": {
            "type": "object",
            "properties": {
                "title": {"type": "string"}, "source": {"type": "string"},
                "params": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "type": {"type": "string"}, "required": {"type": "boolean"}}, "required": ["name", "type", "required"], "additionalProperties": False}},
                "result": {"type": "string"}, "steps": {"type": "array", "items": {"type": "string"}},
                "input_schema": {"type": "string"}, "result_schema": {"type": "string"},
            },
            "required": ["title", "source", "params", "result", "steps", "input_schema", "result_schema"],
            "additionalProperties": False,
        }},
    },
    "required": ["$schema", "id", "kind", "procedures"],
    "additionalProperties": False,
}


def _odds_cell(probability: Any) -> Any:
    return None if probability is None else runtime.to_jsonable(probability)


def _odds_axis(variable: str | None, title: str | None, values: list) -> dict:
    return {"variable": variable, "title": title, "values": [runtime.to_jsonable(v) for v in values]}


def odds_doc(tables: Iterable[OddsTable]) -> dict:
    """Odds tables computed by the resolvers (see :mod:`compiler.odds`)."""
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
    return {"$schema": "../schemas/odds.schema.json", "id": "odds", "kind": "odds", "tables": out}


_ODDS_SCHEMA = {
    "type": "object",
    "properties": {
        "$schema": {"type": "string"}, "id": {"const": "odds"}, "kind": {"const": "odds"},
        "tables": {"type": "object", "additionalProperties": {
            "type": "object",
            "properties": {
                "title": {"type": "string"}, "source": {"type": "string"}, "procedure": {"type": "string"},
                "rows": {"type": "object", "properties": {"variable": {"type": "string"}, "title": {"type": "string"}, "values": {"type": "array"}}, "required": ["variable", "title", "values"]},
                "columns": {"type": "object", "properties": {"variable": {"type": ["string", "null"]}, "title": {"type": ["string", "null"]}, "values": {"type": "array"}}, "required": ["variable", "title", "values"]},
                "groups": {"anyOf": [{"type": "null"}, {"type": "object", "properties": {"variable": {"type": "string"}, "title": {"type": "string"}, "values": {"type": "array"}}, "required": ["variable", "title", "values"]}]},
                "cells": {"type": "array", "description": "cells[fila][columna] (con groups: cells[grupo][fila][columna]): probabilidad exacta como \"n/d\" (o entero), o null si el procedimiento no admite esos datos.", "items": {"type": "array"}},
                "errors": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["title", "source", "procedure", "rows", "columns", "groups", "cells", "errors"],
            "additionalProperties": False,
        }},
    },
    "required": ["$schema", "id", "kind", "tables"],
    "additionalProperties": False,
}


def all_schemas(program: ir.Program) -> dict[str, dict]:
    """Every schema by relative path under ``schemas/``: the declarations' (see
    :mod:`compiler.schemas`), then the fixed documents' and the bundle's."""
    out = sch.schemas(program)
    out["rules.schema.json"] = sch.generic_schema(program, "rules.schema.json", "Reglas especiales", "Las reglas especiales con parámetros, niveles y estado.", _RULES_SCHEMA)
    out["enums.schema.json"] = sch.generic_schema(program, "enums.schema.json", "Enumeraciones", "Valores de cada enumeración, con sus nombres visibles.", _ENUMS_SCHEMA)
    out["constants.schema.json"] = sch.generic_schema(program, "constants.schema.json", "Constantes", "Valores con nombre que usan varios procedimientos.", _CONSTANTS_SCHEMA)
    out["procedures.schema.json"] = sch.generic_schema(program, "procedures.schema.json", "Procedimientos", "Procedimientos con sus parámetros, resultado y pasos.", _PROCEDURES_SCHEMA)
    out["odds.schema.json"] = sch.generic_schema(program, "odds.schema.json", "Tablas de probabilidades", "Probabilidades exactas calculadas por los resolutores para una rejilla de datos.", _ODDS_SCHEMA)
    catalogs = [c.name for c in program.of(ir.Catalog)]
    tables = [t.name for t in program.of(ir.Table)]
    bundle_props = {
        "$schema": {"type": "string"}, "rulebook": {"type": "string"}, "title": {"type": "string"}, "version": {"type": "string"},
        "catalogs": {"type": "object", "properties": {c: {"$ref": f"{c}.schema.json"} for c in catalogs}, "additionalProperties": False},
        "tables": {"type": "object", "properties": {t: {"$ref": f"{t}.schema.json"} for t in tables}, "additionalProperties": False},
        "rules": {"$ref": "rules.schema.json"}, "enums": {"$ref": "enums.schema.json"}, "constants": {"$ref": "constants.schema.json"},
        "procedures": {"$ref": "procedures.schema.json"}, "odds": {"$ref": "odds.schema.json"},
    }
    out["rulebook.schema.json"] = sch.generic_schema(
        program, "rulebook.schema.json", "Reglamento completo", "Todos los documentos del reglamento en uno.",
        {"type": "object", "properties": bundle_props, "required": list(bundle_props), "additionalProperties": False},
    )
    return out


def _rulebook_fields(program: ir.Program) -> dict[str, str]:
    """``rulebook``, ``title`` and ``version`` of the rulebook ("" without a ``rulebook`` declaration)."""
    info = program.rulebook
    return {"rulebook": info.name if info else "", "title": info.title if info else "", "version": info.version if info else ""}


def documents(program: ir.Program, odds_tables: Iterable[OddsTable] = ()) -> dict[str, dict]:
    """Every JSON document (without the manifest) by path under ``json/``."""
    catalogs = {c.name: catalog_doc(program, c.name) for c in program.of(ir.Catalog)}
    tables = {t.name: table_doc(program, t.name) for t in program.of(ir.Table)}
    docs: dict[str, dict] = {f"{name}.json": doc for name, doc in (catalogs | tables).items()}
    docs["rules.json"] = rules_doc(program)
    docs["enums.json"] = enums_doc(program)
    docs["constants.json"] = constants_doc(program)
    docs["procedures.json"] = procedures_doc(program)
    docs["odds.json"] = odds_doc(odds_tables)
    docs["rulebook.json"] = {
        "$schema": "../schemas/rulebook.schema.json",
        **_rulebook_fields(program),
        "catalogs": catalogs,
        "tables": tables,
        "rules": docs["rules.json"],
        "enums": docs["enums.json"],
        "constants": docs["constants.json"],
        "procedures": docs["procedures.json"],
        "odds": docs["odds.json"],
    }
    return docs


def dumps(doc: Any) -> str:
    """A document as written: UTF-8 text, indented, with a final newline."""
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def registry_for(schema_docs: dict[str, dict]) -> Registry:
    """The schemas by ``$id``, so that ``$ref`` between them resolve."""
    return Registry().with_resources((s["$id"], Resource(contents=s, specification=DRAFT202012)) for s in schema_docs.values())


def validate(docs: dict[str, dict], schema_docs: dict[str, dict]) -> list[str]:
    """Validate each document against its ``$schema``; returns the problems (at most 5 per document).

    One validator holds the registry of every schema (jsonschema combines a registry
    with the meta-schemas each time a validator is built, so building one per document
    would make this quadratic); each document is checked against a ``$ref`` to its
    schema's ``$id``."""
    registry_validator = Draft202012Validator({}, registry=registry_for(schema_docs))
    problems = []
    for rel, doc in docs.items():
        schema = schema_docs[doc["$schema"].removeprefix("../schemas/")]
        validator = registry_validator.evolve(schema={"$ref": schema["$id"]})
        for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))[:5]:
            problems.append(f"json/{rel}: {err.json_path}: {err.message[:300]}")
    return problems


def _manifest(program: ir.Program, files: dict[str, str]) -> dict:
    content_hash = hashlib.sha256()
    for name in program.files:
        content_hash.update(name.encode() + b"\0" + program.sources[name].encode() + b"\0")
    return {
        **_rulebook_fields(program),
        "lang": program.rulebook.lang if program.rulebook else "",
        "content_hash": "sha256:" + content_hash.hexdigest(),
        "sources": program.files,
        "documents": {rel: "sha256:" + hashlib.sha256(text.encode()).hexdigest() for rel, text in sorted(files.items())},
    }


def write_all(program: ir.Program, out_dir: Path, odds_tables: Iterable[OddsTable] = ()) -> list[str]:
    """Write json/ and schemas/ under ``out_dir`` after validating every document.

    ``odds_tables`` are the odds tables computed by the generated resolvers.
    Returns the validation problems; when there are any, nothing is written.
    """
    schema_docs = all_schemas(program)
    for schema in schema_docs.values():
        Draft202012Validator.check_schema(schema)
    docs = documents(program, odds_tables)
    problems = validate(docs, schema_docs)
    if problems:
        return problems
    files = {f"schemas/{rel}": dumps(schema) for rel, schema in schema_docs.items()}
    files.update({f"json/{rel}": dumps(doc) for rel, doc in docs.items()})
    files["json/manifest.json"] = dumps(_manifest(program, files))
    for rel, text in files.items():
        path = out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return []
