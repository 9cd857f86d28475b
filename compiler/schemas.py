"""DSL types → JSON Schema (Draft 2020-12) documents.

Entry point: :func:`schemas(program) -> dict[str, dict]` (relative path under
``schemas/`` → schema). ``types.schema.json`` holds one ``$defs`` entry per
enum and record, with titles and descriptions from the DSL; every catalog,
table and procedure input gets its own schema referring to those definitions.
"""

from __future__ import annotations

from rules_dsl import nodes as n

from .ir import Program
from .types import T

DIALECT = "https://json-schema.org/draft/2020-12/schema"
TYPES = "types.schema.json"


def base_uri(program: Program) -> str:
    rb = program.rulebook.name if program.rulebook else "rulebook"
    return f"https://rulebook.invalid/{rb}/schemas/"


def type_schema(t: T, program: Program, prefix: str = "") -> dict:
    """The schema of values of type ``t``; ``prefix`` is the path to types.schema.json."""
    k = t.kind
    if k == "opt":
        return {"anyOf": [type_schema(t.args[0], program, prefix), {"type": "null"}]}
    if k == "int":
        return {"type": "integer"}
    if k == "decimal":
        return {"type": "number"}
    if k in ("text", "id", "any"):
        return {"type": "string"}
    if k == "bool":
        return {"type": "boolean"}
    if k in ("enum", "record"):
        return {"$ref": f"{prefix}{TYPES}#/$defs/{t.name}"}
    if k == "list":
        return {"type": "array", "items": type_schema(t.args[0], program, prefix)}
    if k == "map":
        members = [m for m, _ in program.enum_members.get(t.name, [])]
        inner = type_schema(t.args[0], program, prefix)
        return {
            "type": "object",
            "description": f"Un valor por cada {t.name}.",
            "properties": {m: inner for m in members},
            "required": members,
            "additionalProperties": False,
        }
    if k == "ref":
        return {"$ref": f"{prefix}{TYPES}#/$defs/ref.{t.name}"}
    if k == "refs":
        return {"anyOf": [{"$ref": f"{prefix}{TYPES}#/$defs/ref.{c}"} for c in t.name.split("|")]}
    if k == "rule":
        return {"$ref": f"{prefix}{TYPES}#/$defs/RuleApplication"}
    raise AssertionError(k)


def _doc(decl) -> str | None:
    for ann in getattr(decl, "annotations", ()):
        if ann.name == "doc" and isinstance(ann.value, n.VStr):
            return ann.value.value
    return None


def types_schema(program: Program) -> dict:
    defs: dict[str, dict] = {}
    for name, members in program.enum_members.items():
        d = program.decls[name]
        defs[name] = {
            "title": d.title or name,
            "description": (_doc(d) + " " if _doc(d) else "")
            + "Valores: " + ", ".join(f"{m} ({t})" for m, t in members)
            + (" — en este orden." if d.ordered else "."),
            "enum": [m for m, _ in members],
        }
    for name, fields in program.record_fields.items():
        d = program.decls[name]
        props = {}
        for f, ft, title in fields:
            s = type_schema(ft, program)
            if title:
                s = {"title": title, **s}
            props[f] = s
        entry = {
            "title": d.title or name,
            "type": "object",
            "properties": props,
            "required": [f for f, _, _ in fields],
            "additionalProperties": False,
        }
        if _doc(d):
            entry["description"] = _doc(d)
        defs[name] = entry
    for cat, rows in program.catalogs.items():
        d = program.decls[cat]
        defs[f"ref.{cat}"] = {
            "title": f"Id de {d.title or cat}",
            "description": f"El id de una entrada del catálogo {cat} (documento {cat}.json). "
            "El compilador comprueba cada referencia y avisa de las que no existen.",
            "type": "string",
            "minLength": 1,
        }
    for name, info in program.tables.items():
        d = info.decl
        if len(d.keys) == 1 and d.keys[0].type.kind == "id" and d.across is None:
            defs[f"ref.{name}"] = {
                "title": f"Id de {d.title or name}",
                "description": f"El id de una fila de la tabla {name} (documento {name}.json).",
                "type": "string",
                "minLength": 1,
            }
    rule_ids = [d.name for d in program.of_kind(n.RuleDecl)]
    defs["RuleApplication"] = {
        "title": "Regla especial aplicada",
        "description": "Una regla especial con sus parámetros, p. ej. {\"rule\": \"lmg\", \"args\": {\"X\": 2}}.",
        "type": "object",
        "properties": {"rule": {"enum": rule_ids} if rule_ids else {"type": "string"}, "args": {"type": "object"}},
        "required": ["rule", "args"],
        "additionalProperties": False,
    }
    return {
        "$schema": DIALECT,
        "$id": base_uri(program) + TYPES,
        "title": "Tipos del reglamento",
        "description": "Enumeraciones y registros declarados en el reglamento.",
        "$defs": defs,
    }


def _header(program: Program, rel: str, title: str, description: str) -> dict:
    return {"$schema": DIALECT, "$id": base_uri(program) + rel, "title": title, "description": description}


def catalog_schema(program: Program, name: str) -> dict:
    d = program.decls[name]
    rec = {"$ref": f"{TYPES}#/$defs/{d.record}"}
    return {
        **_header(program, f"{name}.schema.json", d.title or name, _doc(d) or f"Catálogo {name} ({program.refs.get(name, '')}): entradas de tipo {d.record} por id."),
        "type": "object",
        "properties": {
            "$schema": {"type": "string"},
            "id": {"const": name},
            "kind": {"const": "catalog"},
            "title": {"type": "string"},
            "source": {"type": "string"},
            "status": {"enum": ["active", "deferred", "not_playable"]},
            "record": {"const": d.record},
            "entries": {"type": "object", "additionalProperties": rec, "propertyNames": {"minLength": 1}},
        },
        "required": ["$schema", "id", "kind", "title", "source", "entries"],
        "additionalProperties": False,
    }


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


def table_schema(program: Program, name: str) -> dict:
    info = program.tables[name]
    d = info.decl
    key_props = {}
    for ks, kt in zip(d.keys, info.key_types):
        key_props[ks.name] = RANGE_SCHEMA if ks.ranged else type_schema(kt, program)
    if d.across:
        across = [str(a) for a in info.across_values]
        values = {
            "type": "object",
            "properties": {a: type_schema(info.col_types[0], program) for a in across},
            "required": across,
            "additionalProperties": False,
        }
    else:
        values = {
            "type": "object",
            "properties": {c.name: {"title": c.title or c.name, **type_schema(t, program)} for c, t in zip(d.columns, info.col_types)},
            "required": [c.name for c in d.columns],
            "additionalProperties": False,
        }
    row = {
        "type": "object",
        "properties": {
            "key": {"type": "object", "properties": key_props, "required": list(key_props), "additionalProperties": False},
            "title": {"type": ["string", "null"]},
            "values": values,
        },
        "required": ["key", "title", "values"],
        "additionalProperties": False,
    }
    column = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "type": {"type": "string"}, "title": {"type": ["string", "null"]}, "range": {"type": "boolean"}},
        "required": ["name", "type", "title"],
        "additionalProperties": False,
    }
    return {
        **_header(program, f"{name}.schema.json", d.title or name, _doc(d) or f"Tabla {name} ({program.refs.get(name, '')})."),
        "type": "object",
        "properties": {
            "$schema": {"type": "string"},
            "id": {"const": name},
            "kind": {"const": "table"},
            "title": {"type": "string"},
            "source": {"type": "string"},
            "status": {"enum": ["active", "deferred", "not_playable"]},
            "keys": {"type": "array", "items": column},
            "across": {"anyOf": [column, {"type": "null"}]},
            "columns": {"type": "array", "items": column},
            "rows": {"type": "array", "items": row},
        },
        "required": ["$schema", "id", "kind", "title", "source", "keys", "across", "columns", "rows"],
        "additionalProperties": False,
    }


def procedure_input_schema(program: Program, name: str) -> dict:
    d = program.decls[name]
    props = {}
    required = []
    for prm, (pname, pt) in zip(d.params, program.param_types[name]):
        props[pname] = {"title": pname, **type_schema(pt, program, "../")}
        if prm.default is None and pt.kind != "opt":
            required.append(pname)
    return {
        **_header(program, f"procedures/{name}.input.schema.json", f"Entrada de {d.title or name}", f"Parámetros del procedimiento {name} ({program.refs.get(name, '')})."),
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


def procedure_result_schema(program: Program, name: str) -> dict:
    d = program.decls[name]
    return {
        **_header(program, f"procedures/{name}.result.schema.json", f"Resultado de {d.title or name}", f"Resultado del procedimiento {name}."),
        **type_schema(program.result_types[name], program, "../"),
    }


def generic_schema(program: Program, rel: str, title: str, description: str, body: dict) -> dict:
    return {**_header(program, rel, title, description), **body}


def schemas(program: Program) -> dict[str, dict]:
    """Every schema of the rulebook by relative path (deterministic order)."""
    out = {TYPES: types_schema(program)}
    for name in program.catalogs:
        out[f"{name}.schema.json"] = catalog_schema(program, name)
    for name in program.tables:
        out[f"{name}.schema.json"] = table_schema(program, name)
    for d in program.of_kind(n.ProcedureDecl):
        out[f"procedures/{d.name}.input.schema.json"] = procedure_input_schema(program, d.name)
        out[f"procedures/{d.name}.result.schema.json"] = procedure_result_schema(program, d.name)
    return out
