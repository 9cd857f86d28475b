"""Fast JSON Schema checks for the build: schemas against the 2020-12 meta-schema,
documents against their schemas, with ``jsonschema-rs`` (compiled validators).

Reads: the generated schemas (by path under ``schemas/``, each with an
``$id``) and JSON documents. Produces: verdicts — valid or not. It never
writes an error message: whatever it finds invalid is checked again by the
``jsonschema`` package, whose messages (JSON path, reason) the build reports,
so the reports are the same as before; only the valid majority is faster
(on content/1936: the meta-schema check of 239 schemas 1 s → 3 ms, the
documents 0.9 s → 50 ms). Both libraries implement Draft 2020-12 and pass
its official test suite; neither asserts ``format``.

Entry points: :func:`check_schemas(schema_docs)` (raises
:class:`jsonschema.exceptions.SchemaError`, as ``check_schema`` does) and
:class:`Prevalidator` (``Prevalidator(schema_docs).is_valid(doc, schema_id)``).
"""

from __future__ import annotations

from typing import NamedTuple

try:
    import jsonschema_rs
except ImportError:  # pragma: no cover - a dependency; without it every check is the slow one
    jsonschema_rs = None


def check_schemas(schema_docs: dict[str, dict]) -> None:
    """Every schema is a valid Draft 2020-12 schema; the first that is not raises
    ``SchemaError`` (from ``jsonschema``, with its message)."""
    for schema in schema_docs.values():
        if jsonschema_rs is None or not jsonschema_rs.meta.is_valid(schema):
            from jsonschema import Draft202012Validator

            Draft202012Validator.check_schema(schema)


class Prevalidator:
    """Compiled validators for the schemas of one build, by ``$id``; built when first used.

    The schemas are given to ``jsonschema-rs`` as one resource: each is a ``$defs`` entry
    of one schema, its ``$ref``s rewritten as JSON pointers into those entries
    (:func:`localised`). ``jsonschema-rs``'s ``Registry`` of many resources costs time that
    grows with the square of their number (2,000 schemas: 0.19 s; 8,000: 2.4 s; building
    a validator against 11,000: 6.7 s more), which made the json phase quadratic at scale;
    one resource is linear (11,000 schemas: 0.7 s to rewrite, 0.6 s to compile). Each
    validator gets only what its schema reaches (:func:`reachable`). Schemas
    that cannot be rewritten (an ``$anchor``, a dynamic reference, an ``$id`` inside a
    schema, another dialect) are checked through a ``Registry`` as before."""

    def __init__(self, schema_docs: dict[str, dict]) -> None:
        self._schemas = schema_docs
        self._local: Localised | None | bool = None  # localised(), or False: not possible
        self._registry = None
        self._validators: dict[str, object] = {}

    def is_valid(self, doc, schema_id: str) -> bool:
        """Whether ``doc`` is valid under the schema whose ``$id`` is ``schema_id``; False
        also when the fast validator cannot say (the caller then checks with ``jsonschema``)."""
        if jsonschema_rs is None:
            return False
        try:
            validator = self._validators.get(schema_id)
            if validator is None:
                validator = self._validators[schema_id] = self._validator(schema_id)
            return validator.is_valid(doc)
        except (ValueError, TypeError, KeyError, jsonschema_rs.ReferencingError):  # a value or schema it cannot take
            return False

    def _validator(self, schema_id: str):
        if self._local is None:
            try:
                self._local = localised(self._schemas)
            except NotLocal:
                self._local = False
        if self._local:
            local: Localised = self._local  # type: ignore[assignment]
            key = local.keys[schema_id]
            return jsonschema_rs.Draft202012Validator(
                {"$schema": DRAFT_2020_12, "$defs": reachable(local, key), "$ref": f"#/$defs/{key}"}, validate_formats=False)
        if self._registry is None:
            self._registry = jsonschema_rs.Registry([(s["$id"], s) for s in self._schemas.values()])
        return jsonschema_rs.Draft202012Validator({"$ref": schema_id}, registry=self._registry, validate_formats=False)


DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_ONE = ("items", "contains", "additionalProperties", "not", "if", "then", "else", "propertyNames",
               "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema")
_SCHEMA_LISTS = ("prefixItems", "allOf", "anyOf", "oneOf")
_NEEDS_RESOURCES = ("$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor")


class NotLocal(Exception):
    """The schemas use what only a registry of resources can resolve."""


class Localised(NamedTuple):
    """The schemas of one build as one resource (:func:`localised`)."""

    keys: dict[str, str]  # $id → key
    defs: dict[str, dict]  # key → the schema, its references rewritten
    refs: dict[tuple[str, str | None], list[tuple[str, str | None]]]
    """What each schema (``(key, None)``) and each entry of its own ``$defs`` (``(key, name)``)
    refers to: ``(key, name)`` for ``#/$defs/<key>/$defs/<name>``, ``(key, None)`` otherwise."""


def localised(schema_docs: dict[str, dict]) -> Localised:
    """The schemas as the ``$defs`` of one schema, each without its ``$id`` and ``$schema``
    and each ``$ref`` (resolved against its schema's ``$id``) rewritten as
    ``#/$defs/<key><fragment>``, with what each part refers to. Only schema keywords are
    walked (``properties``' values, ``items``, ``anyOf``'s members…), never values
    (``const``, ``enum``, ``default``), so a property named ``$ref`` or ``$id`` stays
    what it is. Raises :class:`NotLocal` for what this cannot keep equivalent."""
    keys = {s["$id"]: f"s{i}" for i, s in enumerate(schema_docs.values())}
    refs: dict[tuple[str, str | None], list[tuple[str, str | None]]] = {}

    def walk(node, base: str, found: list, resource: str | None = None):
        """``node`` rewritten; its references added to ``found``. ``resource``: the key of
        the schema ``node`` is the root of (its own ``$defs`` entries get lists of their own)."""
        if not isinstance(node, dict):
            return node  # a boolean schema
        out = {}
        for k, v in node.items():
            if k in _NEEDS_RESOURCES or (k == "$id" and resource is None) or (k == "$schema" and v != DRAFT_2020_12):
                raise NotLocal(k)
            if k in ("$id", "$schema"):
                continue
            if k == "$ref":
                uri, fragment = _resolved(base, v)
                if uri not in keys or (fragment and not fragment.startswith("/")):
                    raise NotLocal(v)
                out[k] = f"#/$defs/{keys[uri]}{fragment}"
                path = fragment.split("/")
                found.append((keys[uri], path[2] if len(path) == 3 and path[1] == "$defs" else None))
            elif k == "$defs" and resource is not None and isinstance(v, dict):
                out[k] = {}
                for name, sub in v.items():
                    own = refs[(resource, name)] = []
                    out[k][name] = walk(sub, base, own)
                    found += own
            elif k in _SCHEMA_MAPS and isinstance(v, dict):
                out[k] = {name: walk(sub, base, found) for name, sub in v.items()}
            elif k in _SCHEMA_ONE:
                out[k] = walk(v, base, found)
            elif k in _SCHEMA_LISTS and isinstance(v, list):
                out[k] = [walk(sub, base, found) for sub in v]
            else:
                out[k] = v
        return out

    defs = {}
    for s in schema_docs.values():
        key = keys[s["$id"]]
        defs[key] = walk(s, s["$id"], refs.setdefault((key, None), []), key)
    return Localised(keys, defs, refs)


def _resolved(base: str, ref: str) -> tuple[str, str]:
    """``ref`` resolved against ``base``: (URI without fragment, fragment). A fragment alone
    or a plain relative path (no scheme, no dot segment, no query) is joined directly;
    anything else by ``urllib.parse.urljoin``."""
    from urllib.parse import urldefrag, urljoin

    path, _, fragment = ref.partition("#")
    if not path:
        return base, fragment
    if ":" not in path and "?" not in path and not path.startswith(("/", ".")) and "/." not in path:
        return base[: base.rfind("/") + 1] + path, fragment
    return urldefrag(urljoin(base, ref))


def reachable(local: Localised, root: str) -> dict[str, dict]:
    """The entries of ``local.defs`` that schema ``root`` reaches through ``$ref``: a schema
    referred to as a whole is kept whole; one referred to only through
    ``#/$defs/<key>/$defs/<name>`` keeps only those ``$defs`` entries (the shared types
    schema holds every record and enum, of which a document reaches a few)."""
    defs = local.defs
    whole: set[str] = set()
    parts: dict[str, set[str]] = {}
    todo: list[tuple[str, str | None]] = [(root, None)]
    while todo:
        key, name = todo.pop()
        if name is not None and name not in defs[key].get("$defs", {}):
            name = None  # an unusual pointer: keep that schema whole
        if key in whole or (name is not None and name in parts.get(key, ())):
            continue
        if name is None:
            whole.add(key)
        else:
            parts.setdefault(key, set()).add(name)
        todo.extend(local.refs[(key, name)])
    out = {key: defs[key] for key in whole}
    for key, names in parts.items():
        if key not in whole:
            out[key] = {"$defs": {name: defs[key]["$defs"][name] for name in sorted(names)}}
    return out
