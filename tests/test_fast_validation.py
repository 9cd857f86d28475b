"""The fast prevalidator (``jsonschema-rs`` over the schemas made one resource, each
validator given only what its schema reaches) says "valid" only when ``jsonschema``
with the registry of every schema says so, and agrees with it on invalid documents.

The documents of content/1936 are checked as built, then each mutated in ways a bug
of the compiler could (a value of the wrong type, a key removed, a key added, a value
changed deep inside); hand-made schemas check what the rewriting of ``$ref`` must keep
(properties named ``$ref`` or ``$id``, a ``const`` holding a ``$ref``, relative paths
with ``../``, pointers into another schema's ``$defs``) and what it must leave to a
registry (``$anchor``, an ``$id`` inside a schema).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from rulebook.compiler.pipeline import driver
from rulebook.compiler.emit.data import fast_validation, to_json

ROOT = Path(__file__).resolve().parents[1]
BASE = "https://rulebook.invalid/prueba/1.0/schemas/"


_REGISTRIES: dict[int, tuple[dict, object]] = {}


def _oracle(schema_docs: dict, doc, schema_id: str) -> bool:
    """``jsonschema``'s verdict, with the registry of every schema (as the build's messages)."""
    from jsonschema import Draft202012Validator

    if id(schema_docs) not in _REGISTRIES:
        _REGISTRIES[id(schema_docs)] = (schema_docs, Draft202012Validator({}, registry=to_json.registry_for(schema_docs)))
    validator = _REGISTRIES[id(schema_docs)][1].evolve(schema={"$ref": schema_id})
    return not list(validator.iter_errors(doc))


@pytest.fixture(scope="module")
def built():
    result = driver.check(ROOT / "content" / "1936")
    assert result.program is not None
    return to_json.all_schemas(result.program), to_json.documents(result.program, [])


def _mutations(doc: dict):
    """Deterministic edits of a document: its first scalars retyped, a key removed, one added,
    a value deep inside changed."""
    keys = [k for k in doc if k != "$schema"]
    for key in keys[:3]:
        wrong = copy.deepcopy(doc)
        wrong[key] = 12345 if isinstance(doc[key], str) else "x"
        yield f"{key} retyped", wrong
        gone = copy.deepcopy(doc)
        del gone[key]
        yield f"{key} removed", gone
    extra = copy.deepcopy(doc)
    extra["no_such_key"] = 1
    yield "key added", extra
    deep = copy.deepcopy(doc)
    node, path = deep, []
    while True:
        nested = next(((k, v) for k, v in (node.items() if isinstance(node, dict) else enumerate(node)) if isinstance(v, (dict, list)) and v), None)
        if nested is None:
            break
        path.append(nested[0])
        node = nested[1]
    scalar = next((k for k, v in (node.items() if isinstance(node, dict) else enumerate(node)) if not isinstance(v, (dict, list))), None)
    if path and scalar is not None:
        node[scalar] = {"unexpected": [None]}
        yield f"deep value at {path + [scalar]} changed", deep


def test_the_built_documents_are_valid_and_every_mutation_is_judged_as_jsonschema_does(built):
    schema_docs, docs = built
    fast = fast_validation.Prevalidator(schema_docs)
    judged = invalid = 0
    for rel, doc in docs.items():
        assert fast.is_valid(doc, doc["$schema"]), rel
        if len(json.dumps(doc)) > 20_000:  # the bundle and the largest tables: jsonschema takes seconds on each
            continue
        for what, mutated in _mutations(doc):
            expected = _oracle(schema_docs, mutated, doc["$schema"])
            assert fast.is_valid(mutated, doc["$schema"]) == expected, (rel, what, expected)
            judged += 1
            invalid += not expected
    assert judged > 300 and invalid > 150  # the mutations do break documents


def test_each_validator_gets_only_what_its_schema_reaches(built):
    schema_docs, _docs = built
    local = fast_validation.localised(schema_docs)
    keys, defs = local.keys, local.defs
    types = keys[schema_docs["types.schema.json"]["$id"]]
    bundle = keys[schema_docs["rulebook.schema.json"]["$id"]]
    catalog = next(keys[s["$id"]] for rel, s in sorted(schema_docs.items()) if '"catalog"' in str(s.get("properties", {}).get("kind")).replace("'", '"'))
    small = fast_validation.reachable(local, catalog)
    assert catalog in small and types in small and len(small) < 5
    assert set(small[types]["$defs"]) < set(defs[types]["$defs"])  # the shared types: only the ones it needs
    everything = fast_validation.reachable(local, bundle)  # the bundle holds every catalog and table
    assert catalog in everything and len(everything) > 20 * len(small)


def _schemas(**by_name) -> dict[str, dict]:
    return {name: {"$schema": fast_validation.DRAFT_2020_12, "$id": BASE + name, **schema} for name, schema in by_name.items()}


CASES = [
    (  # properties named $ref and $id are property names, not keywords; a const holding a $ref is a value
        _schemas(**{
            "doc.schema.json": {"type": "object", "required": ["$ref"], "additionalProperties": False,
                                "properties": {"$ref": {"$ref": "types.schema.json#/$defs/Small"}, "$id": {"type": "string"},
                                               "fixed": {"const": {"$ref": "#/nowhere"}}}},
            "types.schema.json": {"$defs": {"Small": {"type": "integer", "maximum": 3}, "Unused": {"type": "string"}}},
        }),
        "doc.schema.json",
        [({"$ref": 2, "$id": "a", "fixed": {"$ref": "#/nowhere"}}, True), ({"$ref": 4}, False), ({"$ref": 2, "$id": 1}, False),
         ({"$ref": 2, "fixed": {"$ref": "#/elsewhere"}}, False), ({"$ref": 2, "other": 1}, False), ({}, False)],
    ),
    (  # a relative path with ../ and a pointer into another schema's $defs, through allOf and items
        _schemas(**{
            "procedures/p.input.schema.json": {"type": "array", "items": {"allOf": [{"$ref": "../types.schema.json#/$defs/Even"}]}},
            "types.schema.json": {"$defs": {"Even": {"type": "integer", "multipleOf": 2}}},
        }),
        "procedures/p.input.schema.json",
        [([2, 4], True), ([2, 3], False), (["2"], False)],
    ),
    (  # an $anchor: left to a registry, still judged right
        _schemas(**{
            "doc.schema.json": {"$ref": "types.schema.json#positive"},
            "types.schema.json": {"$defs": {"P": {"$anchor": "positive", "type": "integer", "minimum": 1}}},
        }),
        "doc.schema.json",
        [(1, True), (0, False)],
    ),
    (  # an $id inside a schema changes the base of what it holds: left to a registry
        _schemas(**{
            "doc.schema.json": {"properties": {"a": {"$id": "sub/", "$ref": "leaf.schema.json"}}},
            "sub/leaf.schema.json": {"type": "string"},
        }),
        "doc.schema.json",
        [({"a": "x"}, True), ({"a": 1}, False)],
    ),
]


@pytest.mark.parametrize("schema_docs, root, verdicts", CASES, ids=["keyword-like names", "relative paths", "anchor", "inner $id"])
def test_rewritten_references_keep_what_each_schema_means(schema_docs, root, verdicts):
    fast = fast_validation.Prevalidator(schema_docs)
    for doc, expected in verdicts:
        assert _oracle(schema_docs, doc, BASE + root) == expected, doc  # the case says what jsonschema says
        assert fast.is_valid(doc, BASE + root) == expected, doc


def test_what_only_a_registry_can_resolve_is_not_made_local():
    for schema_docs, _root, _verdicts in CASES[2:]:
        with pytest.raises(fast_validation.NotLocal):
            fast_validation.localised(schema_docs)
    keys, defs, refs = fast_validation.localised(CASES[0][0])
    doc = defs[keys[BASE + "doc.schema.json"]]
    assert doc["properties"]["$ref"] == {"$ref": f"#/$defs/{keys[BASE + 'types.schema.json']}/$defs/Small"}
    assert doc["properties"]["fixed"] == {"const": {"$ref": "#/nowhere"}}  # a value, untouched
    assert "$id" in doc["properties"] and "$id" not in doc and "$schema" not in doc
    types = keys[BASE + "types.schema.json"]
    assert refs[(keys[BASE + "doc.schema.json"], None)] == [(types, "Small")]  # not the const's $ref
    assert refs[(types, "Small")] == refs[(types, "Unused")] == refs[(types, None)] == []
