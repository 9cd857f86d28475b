"""IR declarations → JSON Schema (Draft 2020-12) documents.

Reads a checked :class:`rulebook.compiler.ir.Program` (its enums, records, catalogs,
tables, rules and procedures, with their titles and ``@doc``) and produces,
through the entry point :func:`schemas(program) -> dict[str, dict]`, every
schema of the rulebook's declarations by relative path under ``schemas/``:

* ``types.schema.json`` — ``$defs``: one per enum and record, ``<Catalog>Id``
  per catalog and id-keyed table (an ``enum`` of its ids, so a plain validator
  rejects a dangling id), ``RuleId``, ``RuleApplication`` (one
  ``<Rule>Application`` with typed ``<Rule>Args`` per special rule), one
  ``<Enum>To<Value>`` per map type, and the shared ``Status``, ``Range``,
  ``Column`` and ``AsPrinted``;
* ``<catalog>.schema.json`` and ``<table>.schema.json`` — one per document;
* ``procedures/<name>.input.schema.json`` (with the DSL's parameter defaults
  as ``default``) / ``.result.schema.json``.

The contract for code generators: every ``$defs`` name is an ASCII PascalCase
identifier (:func:`type_name`), every object schema other than a document's
root lives in ``$defs`` under such a name with that name as its ``title``, so
generators never invent (or number) names; the Spanish titles of the manual go
to ``description``. Every schema's ``$id`` is
``https://rulebook.invalid/<rulebook>/<version>/schemas/<path>`` (see
:func:`base_uri`): drop the prefix up to ``<version>/`` to get the file's path
in a build, and every document's ``$schema`` is its schema's ``$id``.

The schemas of the fixed documents (rules, enums, procedures, odds, the bundle,
the manifest…) are built by :mod:`rulebook.compiler.emit.data.to_json` through :func:`generic_schema`.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any
from urllib.parse import quote

from rulebook.compiler import ir
from rulebook.compiler.ir.type_names import clashes, id_def, map_def, type_name, used_types
from rulebook.compiler.ir.types import T
from rulebook.compiler.support import i18n
from rulebook.compiler.support.i18n import N_, _


DIALECT = "https://json-schema.org/draft/2020-12/schema"
TYPES = "types.schema.json"
ORIGIN = "https://rulebook.invalid/"
ID_RULE = N_(
    "Every JSON document names the $id of its schema in $schema; an $id "
    "https://rulebook.invalid/<rulebook>/<version>/<path> is the file <path> of the build (for example "
    "schemas/types.schema.json), and json/manifest.json lists them in “schemas”."
)
"""The rule of every ``$id`` (English: translate with ``_`` where it is written)."""

HEADER_TEXTS = {
    "$schema": N_("The $id of this document's schema."),
    "id": N_("The id of this document: the name of its declaration."),
    "kind": N_("What this document is."),
    "title": N_("The title printed in the manual."),
    "source": N_("The section of the manual it comes from."),
    "status": N_("Whether it is in play: active, deferred or not playable."),
    "as_printed": N_("Ids it cites as the manual prints them though no entry defines them (@as_printed), with the reason; null: none."),
    "doc": N_("The rulebook's note on it (@doc); null: none."),
}
"""The descriptions of the properties most documents share (English message ids)."""


# ---------------------------------------------------------------------------- names and ids


def base_uri(program: ir.Program) -> str:
    """``https://rulebook.invalid/<rulebook>/<version>/``: the prefix of every ``$id``."""
    rulebook = program.rulebook.name if program.rulebook else "rulebook"
    version = program.rulebook.version if program.rulebook and program.rulebook.version else "0"
    return f"{ORIGIN}{quote(rulebook, safe='')}/{quote(version, safe='')}/"


def schema_id(program: ir.Program, rel: str) -> str:
    """The ``$id`` of ``schemas/<rel>``."""
    return f"{base_uri(program)}schemas/{rel}"


def is_required(param: ir.Param) -> bool:
    """A procedure input must be given when it has no default and is not optional."""
    return param.default is None and param.type.kind != "opt"


def across_labels(table: ir.Table) -> list[str]:
    """The property names of an ``across`` row's values: the header values as text."""
    return [str(value) for value in table.across_values]


def ref(rel_types: str, name: str) -> dict:
    """``{"$ref": …}`` to ``$defs/<name>`` of types.schema.json (``rel_types`` is its relative path)."""
    return {"$ref": f"{rel_types}#/$defs/{name}"}


# ---------------------------------------------------------------------------- value types


def type_schema(t: T, program: ir.Program, prefix: str | None = "") -> dict:
    """The schema of values of type ``t``; ``prefix`` is the path to the folder of
    types.schema.json (None: inside types.schema.json itself)."""
    kind = t.kind
    types = "" if prefix is None else f"{prefix}{TYPES}"
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
        return ref(types, type_name(t.name))
    if kind == "list":
        return {"type": "array", "items": type_schema(t.args[0], program, prefix)}
    if kind == "map":
        return ref(types, map_def(t))
    if kind == "ref":
        return ref(types, id_def(t.name))
    if kind == "refs":
        return {"anyOf": [ref(types, id_def(name)) for name in t.name.split("|")]}
    if kind == "rule":
        return ref(types, "RuleApplication")
    raise AssertionError(f"no JSON schema for type kind {kind!r}")


def described(schema: dict, text: str | None) -> dict:
    """``schema`` with a ``description`` (the manual's title of a field or column),
    never a ``title``: code generators turn property titles into numbered aliases.
    A ``$ref`` goes inside ``allOf``: a keyword beside it makes generators copy the
    referenced type under a numbered name, a one-member ``allOf`` does not."""
    if not text:
        return schema
    if "$ref" in schema:
        return {"description": text, "allOf": [schema]}
    return {"description": text, **schema}


def language_of(program: ir.Program):
    """``i18n.using`` the rulebook's language: the descriptions the tool writes follow it."""
    return i18n.using(i18n.of_rulebook(program))


# ---------------------------------------------------------------------------- types.schema.json

def shared_defs() -> dict[str, dict]:
    """``Status``, ``Range``, ``Column`` and ``AsPrinted`` (the names of
    rulebook.compiler.ir.type_names.SHARED_TYPE_NAMES), in the current language."""
    nullable_number = {"type": ["number", "null"]}
    return {
        "Status": {"title": "Status", "description": _("Status of the declaration: active, deferred or not playable."),
                   "enum": ["active", "deferred", "not_playable"]},
        "Range": {
            "title": "Range",
            "description": _("A range of a table key; a null end is open."),
            "type": "object",
            "properties": {
                "min": described(nullable_number, _("The lower end; null: no lower end.")),
                "min_inclusive": described({"type": "boolean"}, _("Whether the lower end is in the interval.")),
                "max": described(nullable_number, _("The upper end; null: no upper end.")),
                "max_inclusive": described({"type": "boolean"}, _("Whether the upper end is in the interval.")),
            },
            "required": ["min", "min_inclusive", "max", "max_inclusive"],
            "additionalProperties": False,
        },
        "Column": {
            "title": "Column",
            "description": _("A key or column of a table: name, type (as in the rulebook), printed title and whether it is a range."),
            "type": "object",
            "properties": {
                "name": described({"type": "string"}, _("Its name: the property that holds it in each row.")),
                "type": described({"type": "string"}, _("Its type, as the rulebook writes it.")),
                "title": described({"type": ["string", "null"]}, _("Its title printed in the manual; null: none.")),
                "range": described({"type": "boolean"}, _("Whether each row gives an interval (a Range) rather than a value.")),
            },
            "required": ["name", "type", "title", "range"],
            "additionalProperties": False,
        },
        "AsPrinted": {
            "title": "AsPrinted",
            "description": _("Ids the declaration cites as the manual prints them although no entry defines them (@as_printed), with the reason."),
            "type": "object",
            "properties": {
                "ids": described({"type": "array", "items": {"type": "string"}}, _("The ids, as printed.")),
                "reason": described({"type": "string"}, _("Why they are kept as printed.")),
            },
            "required": ["ids", "reason"],
            "additionalProperties": False,
        },
    }


def _enum_def(enum: ir.Enum) -> dict:
    members = ", ".join(f"{m.name} ({m.title})" for m in enum.members)
    values = (_("Values, in this order: %(members)s.") if enum.ordered else _("Values: %(members)s.")) % {"members": members}
    return {
        "title": type_name(enum.name),
        "description": f"{enum.title}. " + (enum.doc + " " if enum.doc else "") + values,
        "enum": enum.values,
    }


def _record_def(record: ir.Record, program: ir.Program) -> dict:
    return {
        "title": type_name(record.name),
        "description": record.title + (f". {record.doc}" if record.doc else "."),
        "type": "object",
        "properties": {f.name: described(type_schema(f.type, program, None), _field_text(f.title, f.name, record.title)) for f in record.fields},
        "required": [f.name for f in record.fields],
        "additionalProperties": False,
    }


def _field_text(title: str | None, name: str, of: str) -> str:
    """A field's or column's description: its printed title, else its name and what it belongs to."""
    return title or _("%(field)s of “%(of)s”.") % {"field": name, "of": of}


def _ids_def(decl: ir.Catalog | ir.Table, ids: list) -> dict:
    what = (_("The id of an entry of the catalog %(name)s (%(title)s; document %(name)s.json).") if isinstance(decl, ir.Catalog)
            else _("The id of a row of the table %(name)s (%(title)s; document %(name)s.json)."))
    out: dict[str, Any] = {
        "title": id_def(decl.name),
        "description": what % {"name": decl.name, "title": decl.title},
        "type": "string",
    }
    if ids:
        out["enum"] = [str(i) for i in ids]
    return out


def _rule_defs(rule: ir.Rule, program: ir.Program) -> dict[str, dict]:
    """``<Rule>Application`` (and ``<Rule>Args`` when the rule has parameters)."""
    name = type_name(rule.name)
    if rule.params:
        args: dict = ref("", f"{name}Args")
        defs = {f"{name}Args": {
            "title": f"{name}Args",
            "description": _("Parameters of the rule %(name)s (%(title)s).") % {"name": rule.name, "title": rule.title},
            "type": "object",
            "properties": {p.name: described(type_schema(p.type, program, None), _param_text(p, rule.title)) for p in rule.params},
            "required": [p.name for p in rule.params if p.default is None],
            "additionalProperties": False,
        }}
    else:
        args, defs = {"type": "object", "maxProperties": 0}, {}
    defs[f"{name}Application"] = {
        "title": f"{name}Application",
        "description": _("The special rule %(name)s (%(title)s) applied.") % {"name": rule.name, "title": rule.title},
        "type": "object",
        "properties": {
            "rule": described({"const": rule.name}, _("The id of the rule applied.")),
            "args": described(args, _("Its arguments by parameter name.") if rule.params else _("The rule takes no arguments: {}.")),
        },
        "required": ["rule", "args"],
        "additionalProperties": False,
    }
    return defs


def _param_text(param: ir.Param, of: str) -> str:
    """A parameter's description: its name, type and default as the rulebook writes them."""
    text = _("The parameter %(param)s of “%(of)s” (%(type)s).") % {"param": param.name, "of": of, "type": param.type}
    if param.title:
        text = f"{param.title}. {text}"
    if param.default_text:
        text += " " + _("Default: %(default)s.") % {"default": param.default_text}
    return text


def types_schema(program: ir.Program) -> dict:
    defs: dict[str, dict] = shared_defs()
    for enum in program.of(ir.Enum):
        defs[type_name(enum.name)] = _enum_def(enum)
    for record in program.of(ir.Record):
        defs[type_name(record.name)] = _record_def(record, program)
    for catalog in program.of(ir.Catalog):
        defs[id_def(catalog.name)] = _ids_def(catalog, list(catalog.entries))
    for table in program.of(ir.Table):
        if table.keyed_by_id:
            defs[id_def(table.name)] = _ids_def(table, table.row_ids)
    for t in used_types(program):
        if t.kind == "map":
            enum = program.get(t.name, ir.Enum)
            members = enum.values
            inner = type_schema(t.args[0], program, None)
            defs[map_def(t)] = {
                "title": map_def(t),
                "description": _("One value for each %(enum)s (%(title)s).") % {"enum": t.name, "title": enum.title},
                "type": "object",
                "properties": {m.name: described(inner, m.title) for m in enum.members},
                "required": members,
                "additionalProperties": False,
            }
    rules = program.of(ir.Rule)
    defs["RuleId"] = {"title": "RuleId", "description": _("The id of a special rule (document rules.json)."), "type": "string"}
    if rules:
        defs["RuleId"]["enum"] = [r.name for r in rules]
    for rule in rules:
        defs.update(_rule_defs(rule, program))
    defs["RuleApplication"] = {
        "title": "RuleApplication",
        "description": _("A special rule applied with its arguments by parameter name, e.g. {\"rule\": \"lmg\", \"args\": {\"X\": 2}}; "
                         "the same shape in catalog entries and in the rules another rule grants."),
        **({"anyOf": [ref("", f"{type_name(r.name)}Application") for r in rules]} if rules else {"type": "object"}),
    }
    # every type is reachable from the root, an index of them by name: code generators
    # that write only what the root reaches (json-schema-to-typescript, quicktype) write them all
    index = {name: {"$ref": f"#/$defs/{name}"} for name in defs}
    return generic_schema(
        program, TYPES, "Types",
        _("The rulebook's types: enumerations, records, the ids of each catalog and the rules applied; "
          "as a document, an index of them by name.") + " " + _(ID_RULE),
        {"type": "object", "properties": index, "additionalProperties": False, "$defs": defs},
    )


# ---------------------------------------------------------------------------- documents


def header_text(name: str) -> str:
    """The description of a property most documents share (:data:`HEADER_TEXTS`), in the current language."""
    return _(HEADER_TEXTS[name])


def document_properties(program: ir.Program, rel: str, decl: ir.Catalog | ir.Table) -> dict:
    """The properties every catalog and table document starts with."""
    props = {
        "$schema": {"const": schema_id(program, rel)},
        "id": {"const": decl.name},
        "kind": {"const": decl.kind},
        "title": {"type": "string"},
        "source": {"type": "string"},
        "status": ref(TYPES, "Status"),
        "as_printed": {"anyOf": [ref(TYPES, "AsPrinted"), {"type": "null"}]},
    }
    return {name: described(schema, header_text(name)) for name, schema in props.items()}


HEADER = ["$schema", "id", "kind", "title", "source", "status", "as_printed"]


def catalog_schema(program: ir.Program, catalog: ir.Catalog) -> dict:
    rel = f"{catalog.name}.schema.json"
    description = f"{catalog.title}. " + (catalog.doc or _("Catalog %(name)s (%(ref)s): entries of type %(record)s by id.") % {
        "name": catalog.name, "ref": catalog.ref, "record": catalog.record})
    return generic_schema(program, rel, f"{type_name(catalog.name)}Catalog", description, {
        "type": "object",
        "properties": {
            **document_properties(program, rel, catalog),
            "record": described({"const": catalog.record}, _("The record type of the entries (in types.schema.json).")),
            "entries": {
                "type": "object",
                "description": _("The entries by id."),
                "propertyNames": ref(TYPES, id_def(catalog.name)),
                "additionalProperties": ref(TYPES, type_name(catalog.record)),
            },
        },
        "required": [*HEADER, "record", "entries"],
        "additionalProperties": False,
    })


def _key_schema(program: ir.Program, table: ir.Table, key: ir.TableKey) -> dict:
    if key.ranged:
        return ref(TYPES, "Range")
    schema = type_schema(key.type, program)
    if table.as_printed and key.type.kind in ("ref", "refs"):
        schema = {"anyOf": [*schema.get("anyOf", [schema]), {"$ref": f"#/$defs/{type_name(table.name)}AsPrintedId"}]}
    return described(schema, _field_text(key.title, key.name, table.title))


def _row_values_schema(table: ir.Table, program: ir.Program) -> dict:
    if table.across:
        labels = across_labels(table)
        cell = type_schema(table.columns[0].type, program)
        column = table.columns[0].title or table.title
        across = table.across.title or table.across.name
        return {"type": "object", "properties": {a: described(cell, f"{column} — {across}: {a}") for a in labels},
                "required": labels, "additionalProperties": False}
    return {
        "type": "object",
        "properties": {c.name: described(type_schema(c.type, program), _field_text(c.title, c.name, table.title)) for c in table.columns},
        "required": [c.name for c in table.columns],
        "additionalProperties": False,
    }


def table_schema(program: ir.Program, table: ir.Table) -> dict:
    rel = f"{table.name}.schema.json"
    name = type_name(table.name)
    defs = {
        f"{name}Key": {
            "title": f"{name}Key",
            "description": _("The keys of a row of %(table)s.") % {"table": table.name},
            "type": "object",
            "properties": {k.name: _key_schema(program, table, k) for k in table.keys},
            "required": [k.name for k in table.keys],
            "additionalProperties": False,
        },
        f"{name}Values": {"title": f"{name}Values", "description": _("The values of a row of %(table)s.") % {"table": table.name}, **_row_values_schema(table, program)},
        f"{name}Row": {
            "title": f"{name}Row",
            "description": _("A row of %(table)s.") % {"table": table.name},
            "type": "object",
            "properties": {
                "key": {"$ref": f"#/$defs/{name}Key"},
                "title": described({"type": ["string", "null"]}, _("The row's title printed in the manual; null: none.")),
                "values": {"$ref": f"#/$defs/{name}Values"},
            },
            "required": ["key", "title", "values"],
            "additionalProperties": False,
        },
    }
    if table.as_printed:
        defs[f"{name}AsPrintedId"] = {
            "title": f"{name}AsPrintedId",
            "description": _("Ids %(table)s cites as the manual prints them although no entry defines them: %(reason)s") % {
                "table": table.name, "reason": table.as_printed_reason},
            "enum": list(table.as_printed),
        }
    description = f"{table.title}. " + (table.doc or _("Table %(name)s (%(ref)s).") % {"name": table.name, "ref": table.ref})
    return generic_schema(program, rel, f"{name}Table", description, {
        "type": "object",
        "properties": {
            **document_properties(program, rel, table),
            "keys": described({"type": "array", "items": ref(TYPES, "Column")}, _("The keys a row is looked up by, in order.")),
            "across": described({"anyOf": [ref(TYPES, "Column"), {"type": "null"}]},
                                _("The key whose values head the columns of the printed table (each row then holds one value per heading); null: none.")),
            "columns": described({"type": "array", "items": ref(TYPES, "Column")}, _("The values each row gives, in order.")),
            "rows": described({"type": "array", "items": {"$ref": f"#/$defs/{name}Row"}}, _("The rows, in the manual's order.")),
        },
        "required": [*HEADER, "keys", "across", "columns", "rows"],
        "additionalProperties": False,
        "$defs": defs,
    })


def default_value(program: ir.Program, expr: ir.Expr | None) -> tuple[bool, Any]:
    """(True, the JSON value) of a parameter default that is a constant, else (False, None)."""
    if isinstance(expr, ir.Literal):
        value = expr.value
        if isinstance(value, Fraction):
            value = value.numerator if value.denominator == 1 else float(value)
        return True, value
    if isinstance(expr, ir.EnumValue):
        return True, expr.member
    if isinstance(expr, ir.EntryId):
        return True, expr.ident
    if isinstance(expr, ir.ConstRef):
        const = program.get(expr.name, ir.Const)
        return (True, default_value(program, ir.Literal(const.value, const.type, expr.span))[1]) if const else (False, None)
    if isinstance(expr, ir.Unary) and expr.op == "-":
        ok, value = default_value(program, expr.operand)
        return (True, -value) if ok and isinstance(value, (int, float)) and not isinstance(value, bool) else (False, None)
    if isinstance(expr, ir.ListOf):
        items = [default_value(program, x) for x in expr.items]
        return (True, [v for _, v in items]) if all(ok for ok, _ in items) else (False, None)
    return False, None


def _input_property(program: ir.Program, param: ir.Param, procedure_title: str) -> dict:
    """A parameter's schema with its default (a ``$ref`` goes inside ``allOf``: a
    keyword beside it would make generators copy the referenced type)."""
    schema = described(type_schema(param.type, program, "../"), _param_text(param, procedure_title))
    ok, value = default_value(program, param.default)
    if not ok and param.type.kind == "opt" and param.default is None:
        ok, value = True, None
    return {**schema, "default": value} if ok else schema


def procedure_input_schema(program: ir.Program, procedure: ir.Procedure) -> dict:
    name = procedure.name
    return generic_schema(
        program, f"procedures/{name}.input.schema.json", f"{type_name(name)}Input",
        _("Input of %(title)s: the parameters of the procedure %(name)s (%(ref)s); “default” is the rulebook's default value.") % {
            "title": procedure.title, "name": name, "ref": procedure.ref},
        {
            "type": "object",
            "properties": {p.name: _input_property(program, p, procedure.title) for p in procedure.params},
            "required": [p.name for p in procedure.params if is_required(p)],
            "additionalProperties": False,
        },
    )


def procedure_result_schema(program: ir.Program, procedure: ir.Procedure) -> dict:
    name = procedure.name
    return generic_schema(
        program, f"procedures/{name}.result.schema.json", f"{type_name(name)}Result",
        _("Result of %(title)s (procedure %(name)s).") % {"title": procedure.title, "name": name}, type_schema(procedure.result, program, "../"),
    )


def generic_schema(program: ir.Program, rel: str, title: str, description: str, body: dict) -> dict:
    """A schema document at ``schemas/<rel>``: the common header, then ``body``.
    ``title`` is the PascalCase type name generators use; ``description`` holds the prose."""
    return {"$schema": DIALECT, "$id": schema_id(program, rel), "title": title, "description": description, **body}


def schemas(program: ir.Program) -> dict[str, dict]:
    """Every schema of the rulebook's declarations by relative path (deterministic order);
    the descriptions the tool writes are in the rulebook's language."""
    with language_of(program):
        return _schemas(program)


def _schemas(program: ir.Program) -> dict[str, dict]:
    out = {TYPES: types_schema(program)}
    for catalog in program.of(ir.Catalog):
        out[f"{catalog.name}.schema.json"] = catalog_schema(program, catalog)
    for table in program.of(ir.Table):
        out[f"{table.name}.schema.json"] = table_schema(program, table)
    for procedure in program.of(ir.Procedure):
        out[f"procedures/{procedure.name}.input.schema.json"] = procedure_input_schema(program, procedure)
        out[f"procedures/{procedure.name}.result.schema.json"] = procedure_result_schema(program, procedure)
    return out


_CHILD_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


def named_types(doc: dict) -> dict:
    """A schema document whose every type has a name of its own: each inline object
    schema (one with ``properties``) and each inline ``enum`` moves to ``$defs``
    under its parent's name followed by the property's (``ArmyDocument`` ›
    ``budget`` → ``ArmyDocumentBudget``; array items add ``Item``, map values
    ``Value``, the members of an ``anyOf`` holding several such types
    ``VariantA``, ``VariantB``…), and a ``title`` left on a property becomes its
    ``description``. Code generators then take these names instead of inventing
    (and numbering) their own. Schemas already written that way are returned
    unchanged; a schema whose name is taken by a different one stays inline.
    """
    defs: dict[str, dict] = dict(doc.get("$defs", {}))

    def visit(node: Any, name: str, root: bool = False) -> Any:
        if not isinstance(node, dict):
            return node
        node = dict(node)
        if isinstance(node.get("properties"), dict):
            node["properties"] = {k: visit(v, name + type_name(k)) for k, v in node["properties"].items()}
        if isinstance(node.get("items"), dict):
            node["items"] = visit(node["items"], name + "Item")
        if isinstance(node.get("additionalProperties"), dict):
            node["additionalProperties"] = visit(node["additionalProperties"], name + "Value")
        for key in _CHILD_LISTS:
            if isinstance(node.get(key), list):
                objects = [m for m in node[key] if isinstance(m, dict) and ("properties" in m or "enum" in m)]
                node[key] = [visit(m, name if len(objects) == 1 else f"{name}Variant{_letters(i)}") for i, m in enumerate(node[key])]
        if root:
            return node
        liftable = "$ref" not in node and ("properties" in node or isinstance(node.get("enum"), list))
        if not liftable:
            if "title" in node:
                title = node.pop("title")
                node.setdefault("description", title)
            return node
        lifted_name = node.get("title") if isinstance(node.get("title"), str) and re.fullmatch(r"[A-Z][A-Za-z0-9]*", node["title"]) else name
        default = node.pop("default", _MISSING)
        named = {**node, "title": lifted_name}
        if defs.setdefault(lifted_name, named) != named:  # the name is another type's
            return node if default is _MISSING else {**node, "default": default}
        target = {"$ref": f"#/$defs/{lifted_name}"}
        return target if default is _MISSING else {"allOf": [target], "default": default}

    out = visit(doc, doc.get("title", "Schema"), root=True)
    for key, value in list(defs.items()):
        body = {k: v for k, v in value.items()}
        defs[key] = visit(body, key, root=True)
    if defs:
        out["$defs"] = defs
    return out


_MISSING = object()


def _letters(i: int) -> str:
    """0 → A, 25 → Z, 26 → AA…"""
    return ("" if i < 26 else _letters(i // 26 - 1)) + chr(65 + i % 26)


def name_clashes(program: ir.Program) -> list[str]:
    """Declarations that would give the JSON Schemas one type name twice (``foo_bar``
    and ``FooBar``; a record named ``Range``, or like a name of the fixed documents);
    [] when all differ. The checker reports each at the declaration
    (:mod:`rulebook.compiler.check.type_names`); this is the build's own guard."""
    return [
        f"the type name {later.name} in the JSON Schemas would stand for {_who(first)} and for {_who(later)}; rename one of them"
        for first, later in clashes(program)
    ]


def _who(claim) -> str:
    return f"{claim.what} ({claim.decl.span})" if claim.decl is not None else claim.what


def bad_type_names(schema_docs: dict[str, dict]) -> list[str]:
    """Type names (titles and ``$defs`` names) that are not ASCII PascalCase, or that
    two schema files both define."""
    problems, seen = [], {}
    for rel, doc in schema_docs.items():
        for name in [doc["title"], *doc.get("$defs", {})]:
            if not re.fullmatch(r"[A-Z][A-Za-z0-9]*", name):
                problems.append(f"schemas/{rel}: type name {name!r} is not an ASCII PascalCase identifier")
            elif name in seen and seen[name] != rel:
                problems.append(f"schemas/{rel}: type name {name!r} is also defined in schemas/{seen[name]}")
            seen.setdefault(name, rel)
    return problems
