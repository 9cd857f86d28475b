"""IR declarations → JSON Schema (Draft 2020-12) documents.

Reads a checked :class:`compiler.ir.Program` (its enums, records, catalogs,
tables and procedures, with their titles and ``@doc``) and produces, through
the entry point :func:`schemas(program) -> dict[str, dict]`, every schema of
the rulebook by relative path under ``schemas/``:

* ``types.schema.json`` — one ``$defs`` entry per enum and record, one
  ``ref.<name>`` per catalog and id-keyed table, and ``RuleApplication``;
* ``<catalog>.schema.json`` and ``<table>.schema.json`` — one per document;
* ``procedures/<name>.input.schema.json`` / ``.result.schema.json``.

The schemas of the fixed documents (rules, enums, procedures, odds, the bundle)
are built by :mod:`compiler.to_json` through :func:`generic_schema`.
"""

from __future__ import annotations

from typing import Any

from . import ir
from .types import T

DIALECT = "https://json-schema.org/draft/2020-12/schema"
TYPES = "types.schema.json"
STATUS_SCHEMA = {"enum": ["active", "deferred", "not_playable"]}


def base_uri(program: ir.Program) -> str:
    rulebook = program.rulebook.name if program.rulebook else "rulebook"
    return f"https://rulebook.invalid/{rulebook}/schemas/"


def is_required(param: ir.Param) -> bool:
    """A procedure input must be given when it has no default and is not optional."""
    return param.default is None and param.type.kind != "opt"


def across_labels(table: ir.Table) -> list[str]:
    """The property names of an ``across`` row's values: the header values as text."""
    return [str(value) for value in table.across_values]


def type_schema(t: T, program: ir.Program, prefix: str = "") -> dict:
    """The schema of values of type ``t``; ``prefix`` is the path to types.schema.json."""
    kind = t.kind
    if kind == "opt":
        return {"anyOf": [type_schema(t.args[0], program, prefix), {"type": "null"}]}
    if kind == "int":
        return {"type": "integer"}
    if kind == "decimal":
        return {"type": "number"}
    if kind in ("text", "id", "any"):
        return {"type": "string"}
    if kind == "bool":
        return {"type": "boolean"}
    if kind in ("enum", "record"):
        return {"$ref": f"{prefix}{TYPES}#/$defs/{t.name}"}
    if kind == "list":
        return {"type": "array", "items": type_schema(t.args[0], program, prefix)}
    if kind == "map":
        members = program.get(t.name, ir.Enum).values
        inner = type_schema(t.args[0], program, prefix)
        return {
            "type": "object",
            "description": f"Un valor por cada {t.name}.",
            "properties": {m: inner for m in members},
            "required": members,
            "additionalProperties": False,
        }
    if kind == "ref":
        return {"$ref": f"{prefix}{TYPES}#/$defs/ref.{t.name}"}
    if kind == "refs":
        return {"anyOf": [{"$ref": f"{prefix}{TYPES}#/$defs/ref.{name}"} for name in t.name.split("|")]}
    if kind == "rule":
        return {"$ref": f"{prefix}{TYPES}#/$defs/RuleApplication"}
    raise AssertionError(f"no JSON schema for type kind {kind!r}")


def _enum_def(enum: ir.Enum) -> dict:
    members = ", ".join(f"{m.name} ({m.title})" for m in enum.members)
    return {
        "title": enum.title,
        "description": (enum.doc + " " if enum.doc else "")
        + "Valores: " + members
        + (" — en este orden." if enum.ordered else "."),
        "enum": enum.values,
    }


def _record_def(record: ir.Record, program: ir.Program) -> dict:
    props = {}
    for f in record.fields:
        schema = type_schema(f.type, program)
        props[f.name] = {"title": f.title, **schema} if f.title else schema
    entry: dict[str, Any] = {
        "title": record.title,
        "type": "object",
        "properties": props,
        "required": [f.name for f in record.fields],
        "additionalProperties": False,
    }
    if record.doc:
        entry["description"] = record.doc
    return entry


def _ref_def(decl: ir.Catalog | ir.Table, description: str) -> dict:
    return {"title": f"Id de {decl.title}", "description": description, "type": "string", "minLength": 1}


def types_schema(program: ir.Program) -> dict:
    defs: dict[str, dict] = {}
    for enum in program.of(ir.Enum):
        defs[enum.name] = _enum_def(enum)
    for record in program.of(ir.Record):
        defs[record.name] = _record_def(record, program)
    for catalog in program.of(ir.Catalog):
        defs[f"ref.{catalog.name}"] = _ref_def(
            catalog,
            f"El id de una entrada del catálogo {catalog.name} (documento {catalog.name}.json). "
            "El compilador comprueba cada referencia y avisa de las que no existen.",
        )
    for table in program.of(ir.Table):
        if table.keyed_by_id:
            defs[f"ref.{table.name}"] = _ref_def(table, f"El id de una fila de la tabla {table.name} (documento {table.name}.json).")
    rule_ids = [rule.name for rule in program.of(ir.Rule)]
    defs["RuleApplication"] = {
        "title": "Regla especial aplicada",
        "description": "Una regla especial con sus parámetros, p. ej. {\"rule\": \"lmg\", \"args\": {\"X\": 2}}.",
        "type": "object",
        "properties": {"rule": {"enum": rule_ids} if rule_ids else {"type": "string"}, "args": {"type": "object"}},
        "required": ["rule", "args"],
        "additionalProperties": False,
    }
    return generic_schema(
        program, TYPES, "Tipos del reglamento", "Enumeraciones y registros declarados en el reglamento.", {"$defs": defs},
    )


def _document_properties(decl: ir.Catalog | ir.Table) -> dict:
    """The properties every catalog and table document starts with."""
    return {
        "$schema": {"type": "string"},
        "id": {"const": decl.name},
        "kind": {"const": decl.kind},
        "title": {"type": "string"},
        "source": {"type": "string"},
        "status": STATUS_SCHEMA,
    }


def catalog_schema(program: ir.Program, catalog: ir.Catalog) -> dict:
    description = catalog.doc or f"Catálogo {catalog.name} ({catalog.ref}): entradas de tipo {catalog.record} por id."
    entry = {"$ref": f"{TYPES}#/$defs/{catalog.record}"}
    return generic_schema(program, f"{catalog.name}.schema.json", catalog.title, description, {
        "type": "object",
        "properties": {
            **_document_properties(catalog),
            "record": {"const": catalog.record},
            "entries": {"type": "object", "additionalProperties": entry, "propertyNames": {"minLength": 1}},
        },
        "required": ["$schema", "id", "kind", "title", "source", "entries"],
        "additionalProperties": False,
    })


RANGE_SCHEMA = {
    "type": "object",
    "properties": {
        "min": {"type": ["number", "null"]},
        "min_inclusive": {"type": "boolean"},
        "max": {"type": ["number", "null"]},
        "max_inclusive": {"type": "boolean"},
    },
    "required": ["min", "min_inclusive", "max", "max_inclusive"],
    "additionalProperties": False,
}

_COLUMN_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "type": {"type": "string"}, "title": {"type": ["string", "null"]}, "range": {"type": "boolean"}},
    "required": ["name", "type", "title"],
    "additionalProperties": False,
}


def _row_values_schema(table: ir.Table, program: ir.Program) -> dict:
    if table.across:
        labels = across_labels(table)
        cell = type_schema(table.columns[0].type, program)
        return {"type": "object", "properties": {a: cell for a in labels}, "required": labels, "additionalProperties": False}
    return {
        "type": "object",
        "properties": {c.name: {"title": c.title or c.name, **type_schema(c.type, program)} for c in table.columns},
        "required": [c.name for c in table.columns],
        "additionalProperties": False,
    }


def table_schema(program: ir.Program, table: ir.Table) -> dict:
    key_props = {k.name: RANGE_SCHEMA if k.ranged else type_schema(k.type, program) for k in table.keys}
    row = {
        "type": "object",
        "properties": {
            "key": {"type": "object", "properties": key_props, "required": list(key_props), "additionalProperties": False},
            "title": {"type": ["string", "null"]},
            "values": _row_values_schema(table, program),
        },
        "required": ["key", "title", "values"],
        "additionalProperties": False,
    }
    return generic_schema(program, f"{table.name}.schema.json", table.title, table.doc or f"Tabla {table.name} ({table.ref}).", {
        "type": "object",
        "properties": {
            **_document_properties(table),
            "keys": {"type": "array", "items": _COLUMN_SCHEMA},
            "across": {"anyOf": [_COLUMN_SCHEMA, {"type": "null"}]},
            "columns": {"type": "array", "items": _COLUMN_SCHEMA},
            "rows": {"type": "array", "items": row},
        },
        "required": ["$schema", "id", "kind", "title", "source", "keys", "across", "columns", "rows"],
        "additionalProperties": False,
    })


def procedure_input_schema(program: ir.Program, procedure: ir.Procedure) -> dict:
    name = procedure.name
    return generic_schema(
        program, f"procedures/{name}.input.schema.json", f"Entrada de {procedure.title}",
        f"Parámetros del procedimiento {name} ({procedure.ref}).",
        {
            "type": "object",
            "properties": {p.name: {"title": p.name, **type_schema(p.type, program, "../")} for p in procedure.params},
            "required": [p.name for p in procedure.params if is_required(p)],
            "additionalProperties": False,
        },
    )


def procedure_result_schema(program: ir.Program, procedure: ir.Procedure) -> dict:
    name = procedure.name
    return generic_schema(
        program, f"procedures/{name}.result.schema.json", f"Resultado de {procedure.title}",
        f"Resultado del procedimiento {name}.", type_schema(procedure.result, program, "../"),
    )


def generic_schema(program: ir.Program, rel: str, title: str, description: str, body: dict) -> dict:
    """A schema document at ``schemas/<rel>``: the common header, then ``body``."""
    return {"$schema": DIALECT, "$id": base_uri(program) + rel, "title": title, "description": description, **body}


def schemas(program: ir.Program) -> dict[str, dict]:
    """Every schema of the rulebook's declarations by relative path (deterministic order)."""
    out = {TYPES: types_schema(program)}
    for catalog in program.of(ir.Catalog):
        out[f"{catalog.name}.schema.json"] = catalog_schema(program, catalog)
    for table in program.of(ir.Table):
        out[f"{table.name}.schema.json"] = table_schema(program, table)
    for procedure in program.of(ir.Procedure):
        out[f"procedures/{procedure.name}.input.schema.json"] = procedure_input_schema(program, procedure)
        out[f"procedures/{procedure.name}.result.schema.json"] = procedure_result_schema(program, procedure)
    return out
