"""The text of the JSON documents a build writes: ``to_json.dumps`` is the standard
library's ``json.dumps(doc, ensure_ascii=False, indent=2)`` plus a newline, byte for
byte, for any value (its own writer covers plain data; anything else is handed over)."""

from __future__ import annotations

import enum
import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook.compiler.emit.data import to_json


def _standard(doc) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


class Level(enum.IntEnum):
    LOW = 1


_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=True, allow_infinity=True), st.text(), st.sampled_from(["", "é", "\u2028", "\x00", '"\\', "🎲"]),
)
_documents = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=8), inner, max_size=5),
        st.dictionaries(st.one_of(st.integers(), st.booleans(), st.none()), inner, max_size=3),
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(_documents)
def test_any_document_is_written_as_json_dumps_writes_it(doc):
    try:
        expected = _standard(doc)
    except ValueError:  # NaN keys and the like are not in the documents; nothing to compare
        return
    assert to_json.dumps(doc) == expected


@pytest.mark.parametrize("doc", [
    {"nivel": Level.LOW}, [Level.LOW, 2], {"a": (1, [2, {}])}, [[], {}, [[]]], -0.0, 1e-7, 10**400,
])
def test_values_outside_plain_data_read_as_json_dumps_writes_them(doc):
    assert to_json.dumps(doc) == _standard(doc)


def test_a_value_json_cannot_write_fails_as_json_dumps_fails():
    with pytest.raises(TypeError):
        to_json.dumps({"p": Fraction(1, 3)})


def test_a_document_that_breaks_its_schema_is_reported_at_its_json_path():
    """The fast check finds the document invalid; the message comes from jsonschema (loaded then)."""
    schema_id = "https://rulebook.invalid/x/1/schemas/x.schema.json"
    schemas = {"x.schema.json": {
        "$id": schema_id, "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object", "properties": {"$schema": {"type": "string"}, "a": {"type": "integer"}}, "required": ["a"],
    }}
    assert to_json.validate({"d.json": {"$schema": schema_id, "a": 1}}, schemas) == []
    assert to_json.validate({"d.json": {"$schema": schema_id, "a": "no"}}, schemas) == ["json/d.json: $.a: 'no' is not of type 'integer'"]
    assert to_json.validate({"d.json": {"$schema": "nope"}}, schemas) == ["json/d.json: $schema 'nope' is the $id of no schema"]
