"""The shapes the tool checks a build's JSON against when it reads one as data (``rulebook
diff``, the versioning of the next build): JSON Schemas of its own, only as deep as the
readers look — never the build's copies, which a tampered build could make to match.

Reads nothing; holds :data:`BUNDLE_SHAPE` (``json/rulebook.json``) and :data:`VECTORS_SHAPE`
(``json/examples.json``); ``json/logic.json``'s is :data:`rulebook.compiler.emit.data.logic.LOGIC_SCHEMA`.
"""

from __future__ import annotations

_FRACTION = {"type": "string", "pattern": r"^-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?$", "maxLength": 200}
_CELL = {"anyOf": [{"type": ["number", "boolean", "null"]}, _FRACTION]}
_GRID = {"type": "array", "items": {"type": "array", "items": _CELL}}
_AXIS = {"type": "object", "required": ["values"], "properties": {"values": {"type": "array"}}}
_KEYED = {"type": "object", "additionalProperties": {"type": "object"}}


def _section(name: str) -> dict:
    return {"type": "object", "required": [name], "properties": {name: {"type": "object"}}}


BUNDLE_SHAPE = {
    "type": "object",
    "required": ["version", "catalogs", "tables", "rules", "enums", "constants", "procedures", "odds"],
    "properties": {
        "version": {"type": "string", "maxLength": 200},
        "catalogs": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["entries"], "properties": {"entries": {"type": "object"}}}},
        "tables": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["rows"], "properties": {"rows": {"type": "array", "items": {
                "type": "object", "required": ["key"],
                "properties": {"key": {"type": "object"}, "values": {"type": ["object", "null"]}}}}}}},
        **{name: _section(name) for name in ("rules", "enums", "constants", "procedures")},
        "odds": {"type": "object", "required": ["tables"], "properties": {"tables": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["rows", "columns", "cells"],
            "properties": {"rows": _AXIS, "columns": _AXIS, "groups": {"anyOf": [{"type": "null"}, _AXIS]}},
            "if": {"required": ["groups"], "properties": {"groups": {"type": "object"}}},
            "then": {"properties": {"cells": {"type": "array", "items": _GRID}}},
            "else": {"properties": {"cells": _GRID}},
        }}}},
    },
}
"""What diff reads of ``json/rulebook.json``, as a JSON Schema of its own: the shape of the
bundle ``rulebook build`` writes, only as deep as diff looks. (Not the build's
``schemas/rulebook.schema.json``: a build that was tampered with may ship schemas to match.)"""

VECTORS_SHAPE = {
    "type": "object", "required": ["vectors"], "properties": {"vectors": {"type": "array", "items": {
        "type": "object", "required": ["procedure", "title", "input", "error", "results", "digest", "distribution"],
        "properties": {
            "procedure": {"type": "string"}, "title": {"type": "string"}, "input": {"type": "object"},
            "error": {"type": ["string", "null"]}, "results": {"type": ["integer", "null"]},
            "digest": {"type": ["string", "null"], "pattern": "^sha256:[0-9a-f]{64}$"},
            "distribution": {"anyOf": [{"type": "null"}, {"type": "array", "items": {
                "type": "object", "required": ["result", "probability"], "properties": {"probability": _FRACTION}}}]},
        }}}},
}
"""What diff reads of ``json/examples.json`` (the test vectors), in the same way."""
