"""The small pieces the fixed documents and their schemas are built of (used by
:mod:`rulebook.compiler.emit.data.to_json` and :mod:`rulebook.compiler.emit.data.randomness`):
IR values as JSON, a fixed document's header, and schema fragments with their descriptions.

Reads IR values; produces JSON values and JSON Schema fragments (their descriptions are
given already translated, in the rulebook's language)."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from rulebook.compiler import ir
from rulebook.compiler.emit.data import schemas as sch


def plain(value: Any) -> Any:
    """IR data values → JSON values: Fractions become numbers, ranges
    ``{"min", "min_inclusive", "max", "max_inclusive"}`` and rule applications
    ``{"rule", "args": {parameter: value}}`` (one shape everywhere)."""
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


def fixed_header(program: ir.Program, kind: str) -> dict:
    return {"$schema": sch.schema_id(program, f"{kind}.schema.json"), "id": kind, "kind": kind}


def string(description: str | None = None, **more: Any) -> dict:
    return {"type": "string", **({"description": description} if description else {}), **more}


def typed(kind: str, description: str, **more: Any) -> dict:
    return {"type": kind, "description": description, **more}


def nullable(schema: dict, description: str | None = None) -> dict:
    return {**({"description": description} if description else {}), "anyOf": [schema, {"type": "null"}]}


def array(items: dict, description: str) -> dict:
    return {"type": "array", "items": items, "description": description}


def ref_def(name: str) -> dict:
    return {"$ref": f"#/$defs/{name}"}


def obj(title: str, description: str, props: dict, required: Iterable[str] | None = None) -> dict:
    """A named object definition: every property required unless ``required`` says otherwise."""
    return {
        "title": title, "description": description, "type": "object", "properties": props,
        "required": list(props) if required is None else list(required), "additionalProperties": False,
    }


def keyed(of: str, description: str, names: dict | None = None) -> dict:
    """An object of ``#/$defs/<of>`` values by id (``names``: the schema of the ids)."""
    return {"type": "object", "description": description, "additionalProperties": ref_def(of), **({"propertyNames": names} if names else {})}


def header(name: str) -> str:
    """The description of a property most documents share, in the current language."""
    return sch.header_text(name)
