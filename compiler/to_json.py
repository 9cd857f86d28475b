"""Program → JSON documents and their JSON Schemas, validated before writing.

Entry points: :func:`documents(program) -> dict[str, object]` and
:func:`write_all(program, out_dir) -> list[str]` (the list of validation
problems; empty when everything was written).

Layout under the output folder:

* ``json/<id>.json`` — one document per catalog and table (ids as in the rules);
* ``json/rules.json``, ``json/enums.json``, ``json/procedures.json``;
* ``json/rulebook.json`` — the bundle of all of them;
* ``json/manifest.json`` — rulebook name, version, content hash, files;
* ``schemas/…`` — see :mod:`compiler.schemas`.
"""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from rules_dsl import nodes as n

from . import schemas as sch
from .ir import Program
from .types import T


def plain(v: Any) -> Any:
    """Data values → JSON values (Fractions become numbers)."""
    if isinstance(v, Fraction):
        return v.numerator if v.denominator == 1 else float(v)
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return v


def _status(program: Program, name: str) -> str:
    return program.status.get(name, "active")


def _doc_text(decl) -> str | None:
    for ann in getattr(decl, "annotations", ()):
        if ann.name == "doc" and isinstance(ann.value, n.VStr):
            return ann.value.value
    return None


def catalog_doc(program: Program, name: str) -> dict:
    d = program.decls[name]
    return {
        "$schema": f"../schemas/{name}.schema.json",
        "id": name,
        "kind": "catalog",
        "title": d.title or name,
        "source": program.refs.get(name, ""),
        "status": _status(program, name),
        "record": d.record,
        "entries": plain(program.catalogs[name]),
    }


def _key(k: Any) -> Any:
    if isinstance(k, n.RangeKey):
        return {"min": plain(k.lo), "min_inclusive": k.lo_inclusive, "max": plain(k.hi), "max_inclusive": k.hi_inclusive}
    return plain(k)


def table_doc(program: Program, name: str) -> dict:
    info = program.tables[name]
    d = info.decl
    rows = []
    for keys, title, values, _row in info.rows:
        if d.across:
            vals = {str(a): plain(v) for a, v in zip(info.across_values, values["__across__"])}
        else:
            vals = plain(values)
        rows.append({"key": {ks.name: _key(k) for ks, k in zip(d.keys, keys)}, "title": title, "values": vals})
    return {
        "$schema": f"../schemas/{name}.schema.json",
        "id": name,
        "kind": "table",
        "title": d.title or name,
        "source": program.refs.get(name, ""),
        "status": _status(program, name),
        "keys": [{"name": k.name, "type": str(t), "title": k.title, "range": k.ranged} for k, t in zip(d.keys, info.key_types)],
        "across": {"name": d.across.name, "type": str(info.across_type), "title": d.across.title} if d.across else None,
        "columns": [{"name": c.name, "type": str(t), "title": c.title} for c, t in zip(d.columns, info.col_types)],
        "rows": rows,
    }


def rules_doc(program: Program) -> dict:
    rules = {}
    for d in program.of_kind(n.RuleDecl):
        rules[d.name] = {
            "title": d.title or d.name,
            "source": program.refs.get(d.name, ""),
            "status": _status(program, d.name),
            "params": [{"name": p, "type": str(t)} for p, t in program.rule_params.get(d.name, [])],
            "text": list(d.texts),
            "levels": [{"level": lvl, "text": txt} for lvl, txt in d.levels],
            "grants": [{"rule": g.name, "args": [plain(getattr(a, "value", getattr(a, "name", None))) for a in g.args]} for g in d.grants],
            "stacking": d.stacking,
            "doc": _doc_text(d),
        }
    return {"$schema": "../schemas/rules.schema.json", "id": "rules", "kind": "rules", "rules": rules}


def enums_doc(program: Program) -> dict:
    enums = {}
    for name, members in program.enum_members.items():
        d = program.decls[name]
        enums[name] = {
            "title": d.title or name,
            "source": program.refs.get(name, ""),
            "ordered": d.ordered,
            "values": [{"id": m, "title": t} for m, t in members],
        }
    return {"$schema": "../schemas/enums.schema.json", "id": "enums", "kind": "enums", "enums": enums}


def procedures_doc(program: Program) -> dict:
    procs = {}
    for d in program.of_kind(n.ProcedureDecl):
        procs[d.name] = {
            "title": d.title or d.name,
            "source": program.refs.get(d.name, ""),
            "params": [
                {"name": p.name, "type": str(t), "required": p.default is None and t.kind != "opt"}
                for p, (_, t) in zip(d.params, program.param_types[d.name])
            ],
            "result": str(program.result_types[d.name]),
            "steps": [s.label for s in d.body if isinstance(s, n.Step)],
            "input_schema": f"../schemas/procedures/{d.name}.input.schema.json",
            "result_schema": f"../schemas/procedures/{d.name}.result.schema.json",
        }
    return {"$schema": "../schemas/procedures.schema.json", "id": "procedures", "kind": "procedures", "procedures": procs}


_RULES_SCHEMA = {
    "type": "object",
    "properties": {
        "$schema": {"type": "string"}, "id": {"const": "rules"}, "kind": {"const": "rules"},
        "rules": {"type": "object", "additionalProperties": {
            "type": "object",
            "properties": {
                "title": {"type": "string"}, "source": {"type": "string"},
                "status": {"enum": ["active", "deferred", "not_playable"]},
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


def odds_doc(tables) -> dict:
    """Odds tables computed by the resolvers (see compiler.odds)."""
    import runtime

    out = {}
    for t in tables:
        def frac(x):
            return None if x is None else runtime.to_jsonable(x)

        out[t.name] = {
            "title": t.title,
            "source": t.ref,
            "procedure": t.procedure,
            "rows": {"variable": t.row_var, "title": t.row_title, "values": [runtime.to_jsonable(v) for v in t.rows]},
            "columns": {"variable": t.col_var, "title": t.col_title, "values": [runtime.to_jsonable(v) for v in t.columns]},
            "groups": {"variable": t.group_var, "title": t.group_title, "values": [runtime.to_jsonable(v) for v in t.groups]} if t.group_var else None,
            "cells": [[[frac(c) for c in row] for row in grid] for grid in t.cells] if t.group_var else [[frac(c) for c in row] for row in t.cells],
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


def all_schemas(program: Program) -> dict[str, dict]:
    out = sch.schemas(program)
    out["rules.schema.json"] = sch.generic_schema(program, "rules.schema.json", "Reglas especiales", "Las reglas especiales con parámetros, niveles y estado.", _RULES_SCHEMA)
    out["enums.schema.json"] = sch.generic_schema(program, "enums.schema.json", "Enumeraciones", "Valores de cada enumeración, con sus nombres visibles.", _ENUMS_SCHEMA)
    out["procedures.schema.json"] = sch.generic_schema(program, "procedures.schema.json", "Procedimientos", "Procedimientos con sus parámetros, resultado y pasos.", _PROCEDURES_SCHEMA)
    out["odds.schema.json"] = sch.generic_schema(program, "odds.schema.json", "Tablas de probabilidades", "Probabilidades exactas calculadas por los resolutores para una rejilla de datos.", _ODDS_SCHEMA)
    bundle_props = {
        "$schema": {"type": "string"}, "rulebook": {"type": "string"}, "title": {"type": "string"}, "version": {"type": "string"},
        "catalogs": {"type": "object", "properties": {c: {"$ref": f"{c}.schema.json"} for c in program.catalogs}, "additionalProperties": False},
        "tables": {"type": "object", "properties": {t: {"$ref": f"{t}.schema.json"} for t in program.tables}, "additionalProperties": False},
        "rules": {"$ref": "rules.schema.json"}, "enums": {"$ref": "enums.schema.json"}, "procedures": {"$ref": "procedures.schema.json"},
        "odds": {"$ref": "odds.schema.json"},
    }
    out["rulebook.schema.json"] = sch.generic_schema(
        program, "rulebook.schema.json", "Reglamento completo", "Todos los documentos del reglamento en uno.",
        {"type": "object", "properties": bundle_props, "required": list(bundle_props), "additionalProperties": False},
    )
    return out


def documents(program: Program, odds_tables=()) -> dict[str, dict]:
    """Every JSON document (without the manifest) by path under ``json/``."""
    docs: dict[str, dict] = {}
    for name in program.catalogs:
        docs[f"{name}.json"] = catalog_doc(program, name)
    for name in program.tables:
        docs[f"{name}.json"] = table_doc(program, name)
    docs["rules.json"] = rules_doc(program)
    docs["enums.json"] = enums_doc(program)
    docs["procedures.json"] = procedures_doc(program)
    docs["odds.json"] = odds_doc(odds_tables)
    rb = program.rulebook
    docs["rulebook.json"] = {
        "$schema": "../schemas/rulebook.schema.json",
        "rulebook": rb.name if rb else "",
        "title": rb.title if rb else "",
        "version": (rb.version or "") if rb else "",
        "catalogs": {c: docs[f"{c}.json"] for c in program.catalogs},
        "tables": {t: docs[f"{t}.json"] for t in program.tables},
        "rules": docs["rules.json"],
        "enums": docs["enums.json"],
        "procedures": docs["procedures.json"],
        "odds": docs["odds.json"],
    }
    return docs


def dumps(doc: Any) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def registry_for(schema_docs: dict[str, dict]) -> Registry:
    return Registry().with_resources((s["$id"], Resource(contents=s, specification=DRAFT202012)) for s in schema_docs.values())


def validate(docs: dict[str, dict], schema_docs: dict[str, dict], program: Program) -> list[str]:
    """Validate each document against its ``$schema``; returns the problems."""
    registry = registry_for(schema_docs)
    problems = []
    for rel, doc in docs.items():
        schema_rel = doc["$schema"].removeprefix("../schemas/")
        schema = schema_docs[schema_rel]
        validator = Draft202012Validator(schema, registry=registry)
        for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))[:5]:
            problems.append(f"json/{rel}: {err.json_path}: {err.message[:300]}")
    return problems


def write_all(program: Program, out_dir: Path, odds_tables=()) -> list[str]:
    """Write json/ and schemas/ under ``out_dir`` after validating every document.

    ``odds_tables`` are the odds tables computed by the generated resolvers.
    """
    schema_docs = all_schemas(program)
    for s in schema_docs.values():
        Draft202012Validator.check_schema(s)
    docs = documents(program, odds_tables)
    problems = validate(docs, schema_docs, program)
    if problems:
        return problems
    files: dict[str, str] = {}
    for rel, s in schema_docs.items():
        files[f"schemas/{rel}"] = dumps(s)
    for rel, doc in docs.items():
        files[f"json/{rel}"] = dumps(doc)
    rb = program.rulebook
    content_hash = hashlib.sha256()
    for name in sorted(program.sources):
        content_hash.update(name.encode() + b"\0" + program.sources[name].encode() + b"\0")
    manifest = {
        "rulebook": rb.name if rb else "",
        "title": rb.title if rb else "",
        "version": (rb.version or "") if rb else "",
        "lang": (rb.lang or "") if rb else "",
        "content_hash": "sha256:" + content_hash.hexdigest(),
        "sources": sorted(program.sources),
        "documents": {rel: "sha256:" + hashlib.sha256(text.encode()).hexdigest() for rel, text in sorted(files.items())},
    }
    files["json/manifest.json"] = dumps(manifest)
    for rel, text in files.items():
        path = out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return []
