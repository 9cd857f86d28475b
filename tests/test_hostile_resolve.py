"""``rulebook resolve`` against a corpus of hostile inputs: every case ends in a
result or a clean error, within its time limit.

The corpus (``tests/data/hostile/``):

* ``resolve_values.json`` — values put, one at a time, in place of each
  parameter of a valid input of every procedure of the bundled rulebook: wrong
  types, huge and boundary integers, odd floats, control characters, bidi
  overrides, lone surrogates, code and markup, empty and nested containers.
  Each ``ref`` parameter also gets an id of every other catalog and each enum
  parameter a value of every other enum.
* ``resolve_inputs.json`` — whole ``--input`` texts (``input``, or ``parts``
  repeated to build big ones, or ``file_hex`` written to a file passed as
  ``@file``) with the exit status and message each must get: invalid JSON,
  NaN and Infinity, numbers too long, nesting too deep, input too large,
  files that are not UTF-8, endless or missing.

Every procedure also gets a valid input, the same with only its required
parameters (the optional ones left out: issue 11's R5), and no parameters.

Each case runs with ``--seed 1`` and with ``--exact``, through the command's
own code (:class:`rulebook.compiler.commands.resolve.Resolver`), and must exit 0, 1 or 2 (2 for
input that is not JSON for a procedure), print one JSON document that holds
``error`` exactly when the status is not 0, with a short, one-line,
printable message — and finish within :data:`guards.LIMIT_SECONDS`.
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from rulebook.compiler.commands.cli import make_parser
from conftest import CONTENT, DATA
from fuzzing import valid_input
from guards import deadline

ARGUMENTS = make_parser()
HOSTILE = DATA / "hostile"
VALUES = json.loads((HOSTILE / "resolve_values.json").read_text(encoding="utf-8"))
INPUTS = json.loads((HOSTILE / "resolve_inputs.json").read_text(encoding="utf-8"))
INPUT_PROCEDURES = ("resolucion_impacto", "resolucion_danio", "creacion_escenario")
LONG_TEXT = "ñ" * 100_000
DEEP_LIST: list = []
for _ in range(60):  # with the parameters' object, 61 levels: under the limit
    DEEP_LIST = [DEEP_LIST]


def _procedure_names() -> list[str]:
    """The procedures of the bundled rulebook, as parsed (checking waits for the fixtures)."""
    from rulebook.compiler.check.loader import load
    from rulebook.rules_dsl import nodes

    modules, _, _ = load(CONTENT)
    return [d.name for m in modules for d in m.items if isinstance(d, nodes.ProcedureDecl)]


PROCEDURES = _procedure_names()


@pytest.fixture(scope="module")
def resolver(program, package):
    from rulebook.compiler.commands.resolve import Resolver

    return Resolver(program, package)


def _innermost(desc: tuple) -> tuple:
    while desc[0] in ("opt", "list"):
        desc = desc[1]
    return desc


def hostile_values(desc: tuple, schema) -> list[tuple[str, object]]:
    """The corpus' values, plus other catalogs' ids for a ref and other enums' values for an enum."""
    out = [(v["name"], v["value"]) for v in VALUES]
    out += [("long_text", LONG_TEXT), ("nested_60_deep", DEEP_LIST), ("ten_thousand_items", [1] * 10_000)]
    inner = _innermost(desc)
    if inner[0] == "ref":
        out += [(f"id_of_{cat}", next(iter(ids))) for cat, ids in sorted(schema.catalogs.items()) if cat != inner[1] and ids]
    if inner[0] == "enum":
        out += [(f"value_of_{enum}", values[-1]) for enum, values in sorted(schema.enums.items()) if enum != inner[1]]
    return out


def run_case(resolver, procedure: str, input_text: str, exact: bool) -> tuple[int, str]:
    """One ``rulebook resolve`` command; returns (exit status, standard output)."""
    args = ARGUMENTS.parse_args(["resolve", procedure, f"--input={input_text}", *(["--exact"] if exact else ["--seed", "1"])])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = resolver.run(args)
    return code, out.getvalue()


def check_answer(code: int, output: str) -> str | None:
    """What is wrong with an answer, or None."""
    if code not in (0, 1, 2):
        return f"exit status {code}"
    try:
        answer = json.loads(output)
    except json.JSONDecodeError:
        return f"output is not JSON: {output[:200]!r}"
    if code == 0:
        return "an error with exit status 0" if "error" in answer else None
    message = answer.get("error")
    if not isinstance(message, str) or not message:
        return f"exit status {code} without an error message: {output[:200]!r}"
    if len(message) > 700 or "\n" in message or not message.isprintable():
        return f"error message is not one short printable line: {message[:200]!r}"
    if "Traceback" in message or "internal error" in message:
        return f"error message reports a bug: {message}"
    return None


def _refused_before_resolving(code: int, output: str) -> bool:
    """Whether the input was refused as JSON or by the input schema (the same in both modes)."""
    return code == 2 or (code == 1 and json.loads(output)["error"].startswith("invalid input at"))


def _survives(resolver, procedure: str, input_text: str, what: str) -> list[str]:
    """The problems of one input with ``--seed 1``, then with ``--exact`` unless the
    input was refused before any rule ran."""
    problems = []
    for exact in (False, True):
        mode = "--exact" if exact else "--seed 1"
        try:
            with deadline(what=f"{procedure} {what} {mode}"):
                code, output = run_case(resolver, procedure, input_text, exact)
        except Exception as exc:  # a crash is a failure of the case, reported with the others
            problems.append(f"{what} {mode}: {type(exc).__name__}: {str(exc)[:200]}")
            continue
        problem = check_answer(code, output)
        if problem:
            problems.append(f"{what} {mode}: {problem}")
        elif _refused_before_resolving(code, output):
            break
    return problems


@pytest.mark.parametrize("procedure", PROCEDURES)
def test_every_parameter_survives_hostile_values(procedure, resolver, package):
    proc = package.PROCEDURES[procedure]
    base = {p.name: valid_input(p.type, proc.schema) for p in proc.params}
    required = {p.name: base[p.name] for p in proc.params if p.required}
    problems = _survives(resolver, procedure, json.dumps(base), "valid input")
    problems += _survives(resolver, procedure, json.dumps(required), "required parameters only")  # R5
    problems += _survives(resolver, procedure, "{}", "no parameters")
    for p in proc.params:
        for name, value in hostile_values(p.type, proc.schema):
            problems += _survives(resolver, procedure, json.dumps({**base, p.name: value}), f"{p.name}={name}")
    assert not problems, f"{len(problems)} failing case(s):\n" + "\n".join(problems[:30])


def _input_text(case: dict, tmp_path) -> str:
    if "file_hex" in case:
        path = tmp_path / f"{case['name']}.json"
        path.write_bytes(bytes.fromhex(case["file_hex"]))
        return f"@{path}"
    if "parts" in case:
        return "".join(part * count for part, count in case["parts"])
    return case["input"]


@pytest.mark.parametrize("case", INPUTS, ids=[c["name"] for c in INPUTS])
@pytest.mark.parametrize("procedure", INPUT_PROCEDURES)
def test_hostile_input_texts_get_their_answer(case, procedure, resolver, tmp_path):
    text = _input_text(case, tmp_path)
    for exact in (False, True):
        with deadline(what=case["name"]):
            code, output = run_case(resolver, procedure, text, exact)
        assert check_answer(code, output) is None, check_answer(code, output)
        assert code == case["code"], output[:300]
        if "message" in case:
            assert case["message"] in json.loads(output)["error"], output[:300]


def test_corpus_files_are_well_formed():
    assert len(VALUES) >= 40 and len({v["name"] for v in VALUES}) == len(VALUES)
    assert len(INPUTS) >= 30 and len({c["name"] for c in INPUTS}) == len(INPUTS)
    assert len(PROCEDURES) >= 60
