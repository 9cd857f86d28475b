"""Worked examples → test vectors: JSON that another implementation can be checked against.

Reads a checked :class:`rulebook.compiler.ir.Program` (for the procedures' names) and the
generated package (``package.examples.EXAMPLES``, resolved exactly by
:mod:`rulebook.compiler.analysis.examples`, once per package: :mod:`rulebook.compiler.analysis.evaluations`). Entry point: :func:`vectors_doc(program, package,
files) -> dict` — the document ``json/examples.json``: one vector per worked
example with the procedure, its input as JSON (what
``schemas/procedures/<p>.input.schema.json`` describes), and what must come
out: the exact distribution of results (probabilities as ``"n/d"`` strings,
results in the procedure's order) or the text the rule error must contain.
A distribution of more than :data:`MAX_LISTED` results is given by its number
of results and :func:`digest` instead of listed (one such example would
otherwise weigh megabytes). The ``expect`` lines of the example are kept as
``checks`` for people, and ``holds`` says whether they hold: always true in a published
build (:func:`rulebook.compiler.pipeline.driver.build` refuses failing examples), false
only in a draft built with ``--allow-failing-examples``.

:func:`vectors_schema` is the body of ``schemas/examples.schema.json``.
"""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from types import ModuleType
from typing import Any

from rulebook import runtime

from rulebook.compiler import ir
from rulebook.compiler.analysis.evaluations import Kept, evaluated
from rulebook.compiler.analysis.examples import same_inputs, verdict
from rulebook.compiler.analysis.reads import example_keys
from rulebook.compiler.support.i18n import N_, _

FRACTION = r"^(0|[1-9][0-9]*)/[1-9][0-9]*$"
MAX_LISTED = 100
DIGEST_RULE = N_(
    "sha256 of the canonical JSON of the distribution: the list of {\"probability\", \"result\"} sorted by the "
    "canonical JSON of result, written with sorted keys, without spaces (separators “,” and “:”) and in unescaped "
    "UTF-8."
)


def canonical(value: Any) -> str:
    """JSON with sorted keys, no spaces, UTF-8 characters as they are."""
    return _CANONICAL.encode(value)


_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
"""What ``json.dumps`` builds for :func:`canonical` at every call, built once (thousands of results per build)."""


def digest(distribution: list[dict]) -> str:
    """``sha256:<hex>`` of a distribution ([{"result", "probability"}]) in any order (see DIGEST_RULE)."""
    return _digest([(canonical(item["result"]), item["probability"]) for item in distribution])


def _digest(items: list[tuple[str, str]]) -> str:
    """:func:`digest` of (canonical JSON of the result, ``"n/d"``) pairs: the canonical JSON of
    the sorted list is written directly, each result encoded once (its keys sort as
    "probability" < "result"; a fraction's text needs no escaping)."""
    ordered = sorted(items, key=lambda item: item[0])
    text = "[" + ",".join(f'{{"probability":"{p}","result":{r}}}' for r, p in ordered) + "]"
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


_LATEST = Kept()
"""Example key (:func:`rulebook.compiler.analysis.reads.example_keys`) → its listed distribution."""


def _listed(package: ModuleType, index: int, procedure, distribution) -> tuple[int, str, list[dict] | None]:
    """The number of results, the digest and (up to :data:`MAX_LISTED` results) the listed
    distribution of example ``index``; remembered under the example's key (the code and data
    its result depends on, source positions blanked, which none of these three depends on)."""
    keys = example_keys(package)
    source = keys[index] if keys is not None else None
    listed_of = _LATEST.of(package, keys)
    if source is not None and source in listed_of:
        count, hashed, listed = listed_of[source]
        return count, hashed, json.loads(listed) if listed is not None else None
    results = [(runtime.to_jsonable(outcome), fraction_text(p)) for outcome, p in procedure.in_outcome_order(distribution)]
    hashed = _digest([(canonical(r), p) for r, p in results])
    listed = [{"result": r, "probability": p} for r, p in results] if len(results) <= MAX_LISTED else None
    if source is not None:
        listed_of[source] = (len(results), hashed, json.dumps(listed) if listed is not None else None)
    return len(results), hashed, listed


def fraction_text(p: Fraction) -> str:
    """An exact probability as ``"n/d"`` (``"1/1"`` for certainty, ``"0/1"`` for never)."""
    p = Fraction(p)
    return f"{p.numerator}/{p.denominator}"


def _source(src: str, files: dict[str, str]) -> str:
    """``file:line`` with the file as the manifest names it (relative to the rulebook folder)."""
    path, _, line = src.rpartition(":")
    return f"{files.get(path, path)}:{line}" if path else src


def vectors_doc(program: ir.Program, package: ModuleType, files: dict[str, str], schema_uri: str) -> dict:
    """Every worked example as a test vector (see the module docstring).

    Args:
        program: the checked rulebook.
        package: its generated Python package.
        files: source file name as built → name relative to the rulebook folder.
        schema_uri: the ``$id`` of ``schemas/examples.schema.json``.
    """
    vectors = []
    counts: dict[str, int] = {}
    # examples with the same inputs share one distribution (rulebook.compiler.analysis.examples): listed once
    listed: dict[tuple, tuple[runtime.Distribution, tuple]] = {}
    for index, example in enumerate(package.examples.EXAMPLES):
        counts[example.procedure] = counts.get(example.procedure, 0) + 1
        procedure = package.PROCEDURES[example.procedure]
        ev, _ = evaluated(package, index)  # shared with the pages (rulebook.compiler.analysis.evaluations)
        vector: dict[str, Any] = {
            "id": f"{example.procedure}.{counts[example.procedure]}",
            "procedure": example.procedure,
            "title": example.title,
            "source": _source(example.src, files),
            "input": {name: runtime.to_jsonable(value) for name, value in example.inputs.items()},
            "checks": [x.text for x in example.expectations],
            "holds": verdict(package, example, ev, with_distribution=False).ok,
            "error": None,
            "results": None,
            "digest": None,
            "distribution": None,
        }
        if example.expected_error is not None:
            vector["error"] = example.expected_error
        elif ev.distribution is not None:
            key = same_inputs(example)
            known = listed.get(key) if key is not None else None
            if known is None or known[0] is not ev.distribution:
                known = (ev.distribution, _listed(package, index, procedure, ev.distribution))
                if key is not None:
                    listed[key] = known
            vector["results"], vector["digest"], vector["distribution"] = known[1]
        vectors.append(vector)
    rulebook = program.rulebook
    return {
        "$schema": schema_uri,
        "id": "examples",
        "kind": "examples",
        "rulebook": rulebook.name if rulebook else "",
        "version": rulebook.version if rulebook else "",
        "vectors": vectors,
    }


def vectors_schema() -> dict:
    """The body of ``schemas/examples.schema.json``, its descriptions in the current language."""
    nullable_int = {"type": ["integer", "null"]}
    return {
        "type": "object",
        "properties": {
            "$schema": {"type": "string", "description": _("The $id of this document's schema.")},
            "id": {"const": "examples", "description": _("The id of this document: the name of its declaration.")},
            "kind": {"const": "examples", "description": _("What this document is.")},
            "rulebook": {"type": "string", "description": _("The rulebook's id.")},
            "version": {"type": "string", "description": _("The rulebook's version.")},
            "vectors": {"type": "array", "items": {"$ref": "#/$defs/TestVector"}, "description": _("One test vector per worked example, in the rulebook's order.")},
        },
        "required": ["$schema", "id", "kind", "rulebook", "version", "vectors"],
        "additionalProperties": False,
        "$defs": {
            "TestVector": {
                "title": "TestVector",
                "description": _("A worked example: the procedure with the input “input” (the JSON of its input schema) gives exactly the "
                                 "distribution “distribution”, or stops with a rule error whose message contains “error”."),
                "type": "object",
                "properties": {
                    "id": {"type": "string", "description": _("The example's id.")},
                    "procedure": {"type": "string", "description": _("The procedure it runs.")},
                    "title": {"type": "string", "description": _("The example's title.")},
                    "source": {"type": "string", "description": _("Where the example is written: file and line in the rulebook's folder.")},
                    "input": {"type": "object", "description": _("The procedure's input, as its input schema describes it.")},
                    "checks": {"type": "array", "items": {"type": "string"}, "description": _("The example's expect lines, as written.")},
                    "holds": {"type": "boolean", "description": _(
                        "Whether the example holds under the rules as they are: always true in a published version (a build with "
                        "failing examples publishes nothing); false only in a draft built with --allow-failing-examples, whose checks "
                        "must not be taken as expected.")},
                    "error": {"type": ["string", "null"], "description": _("Text the message of the expected rule error contains (null: the procedure resolves).")},
                    "results": {**nullable_int, "description": _("How many distinct results the distribution has.")},
                    "digest": {"type": ["string", "null"], "pattern": "^sha256:[0-9a-f]{64}$", "description": _(DIGEST_RULE)},
                    "distribution": {
                        "anyOf": [{"type": "array", "items": {"$ref": "#/$defs/ResultProbability"}}, {"type": "null"}],
                        "description": _("The exact distribution, in the order of the procedure's results (null with more than %(max)s results: compare digest).") % {"max": MAX_LISTED},
                    },
                },
                "required": ["id", "procedure", "title", "source", "input", "checks", "holds", "error", "results", "digest", "distribution"],
                "additionalProperties": False,
            },
            "ResultProbability": {
                "title": "ResultProbability",
                "description": _("A possible result and its exact probability as a fraction “n/d”."),
                "type": "object",
                "properties": {
                    "result": {"description": _("The result, as the procedure's result schema describes it.")},
                    "probability": {"type": "string", "pattern": FRACTION, "description": _("Its exact probability, “n/d”.")},
                },
                "required": ["result", "probability"],
                "additionalProperties": False,
            },
        },
    }
