"""The JavaScript backend (:mod:`rulebook.compiler.emit.js`) gives the Python backend's answers.

For each bundled rulebook, built once (no site):

* every worked example (``json/examples.json``) runs through ``js/`` in one Node process,
  and each exact distribution (or rule error) is the vector's;
* ``node bin/resolve.mjs NAME --input … --exact`` prints, byte for byte, what
  ``rulebook resolve NAME --input … --exact`` prints, for a sample of procedures, for bad
  inputs, and for random valid inputs drawn from the procedures' parameter types (a
  property test with a fixed seed and a bounded number of inputs);
* ``browser.js`` (the classic-script twin) answers as ``index.js`` does;
* every generated file passes ``node --check``; ``index.d.ts`` passes ``tsc --strict
  --noEmit`` when TypeScript is installed in ``tests/codegen``; two builds write the same bytes.

Tests skip, saying why, when Node is not installed.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import shutil
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from conftest import ROOT, build_rulebook

RULEBOOKS = ("1936", "tercios", "napoleonico")
HERE = Path(__file__).resolve().parent / "js"
NODE = shutil.which("node")
TSC = Path(__file__).resolve().parent / "codegen" / "node_modules" / ".bin" / "tsc"
MAX_WORK = 300_000  # random inputs may ask for huge pools: both backends stop at the same limit, with the same error

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> dict[str, tuple]:
    from rulebook.compiler.commands import resolve
    from rulebook.compiler.pipeline import pyload

    out = {}
    for name in RULEBOOKS:
        result, folder = build_rulebook(tmp_path_factory, ROOT / "content" / name, f"js_{name}", site=False)
        out[name] = (result.program, folder, resolve.Resolver(result.program, pyload.load_package(folder / "python")))
    return out


def _node(*args: str, stdin: str | None = None, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([NODE, *args], input=stdin, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def _python_answer(resolver, name: str, text: str, max_work: int = 5_000_000) -> tuple[str, int]:
    """What ``rulebook resolve NAME --input TEXT --exact`` prints (the command's own code, in this process)."""
    args = argparse.Namespace(procedure=name, input=text, exact=True, seed=None, explain=False, max_work=max_work,
                              format="json", list=False)
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        status = resolver.run(args)
    return buffer.getvalue(), status


def _js_answers(folder: Path, requests: list[list[str]]) -> list[tuple[str, int]]:
    """What ``node bin/resolve.mjs *argv`` prints for each request, answered in one Node process."""
    proc = _node(str(HERE / "resolve_many.mjs"), str(folder / "js"), stdin=json.dumps(requests))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [(a["text"], a["status"]) for a in json.loads(proc.stdout)]


@pytest.mark.parametrize("rulebook", RULEBOOKS)
def test_every_worked_example_agrees(builds, rulebook):
    _, folder, _ = builds[rulebook]
    proc = _node(str(HERE / "run_vectors.mjs"), str(folder))
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["total"] > 0
    assert report["failures"] == [], json.dumps(report["failures"][:5], ensure_ascii=False)[:3000]
    assert report["passed"] == report["total"]


def _sample(program, folder: Path, every: int) -> list[tuple[str, str]]:
    vectors = json.loads((folder / "json" / "examples.json").read_text(encoding="utf-8"))["vectors"]
    return [(v["procedure"], json.dumps(v["input"], ensure_ascii=False)) for v in vectors[::every]]


BAD_INPUTS = ('[]', '{}', '{"no_such_parameter": 1}', '"text"', '{"a": [1, 2, {"b": null}]}', 'not json')


@pytest.mark.parametrize("rulebook", RULEBOOKS)
def test_resolve_prints_the_same_bytes(builds, rulebook):
    program, folder, resolver = builds[rulebook]
    requests = _sample(program, folder, 7)
    first = requests[0][0]
    requests += [(first, bad) for bad in BAD_INPUTS] + [("no_such_procedure", "{}")]
    for name, text in requests[:3]:  # the command itself, as a user runs it
        proc = _node(str(folder / "js" / "bin" / "resolve.mjs"), name, "--input", text, "--exact")
        assert (proc.stdout, proc.returncode) == _python_answer(resolver, name, text), name
    answers = _js_answers(folder, [[name, "--input", text, "--exact"] for name, text in requests])
    mismatches = [(name, text, js, py) for (name, text), js in zip(requests, answers)
                  if js != (py := _python_answer(resolver, name, text))]
    assert not [m for m in mismatches if m[1] != "not json"], mismatches[:3]


# ---------------------------------------------------------------------------- random inputs


def _random_value(rng: random.Random, t, program, depth: int = 0):
    from rulebook.compiler import ir

    k = t.kind
    if k == "opt":
        return None if rng.random() < 0.25 else _random_value(rng, t.args[0], program, depth)
    if k == "int":
        return rng.choice([0, 1, 2, 3, 4, 5, 6, 8, 10, 12, -1])
    if k == "decimal":
        return rng.choice([0, 1, 2, "1/2", "3/2", "2.5", -1])
    if k == "bool":
        return rng.random() < 0.5
    if k == "enum":
        return rng.choice(program.enums[t.name].values)
    if k in ("ref", "refs"):
        ids = [i for name in t.name.split("|") for i in program.ids_of(name)]
        return rng.choice(ids) if ids else "x"
    if k in ("text", "id", "any"):
        return rng.choice(["", "a", "ñ"])
    if k == "rule":
        rules = [r.name for r in program.of(ir.Rule)] or ["r"]
        return rng.choice(rules)
    if k == "list":
        return [_random_value(rng, t.args[0], program, depth + 1) for _ in range(rng.randint(0, 2 if depth < 2 else 0))]
    if k == "map":
        return {m: _random_value(rng, t.args[0], program, depth + 1) for m in program.enums[t.name].values}
    if k == "record":
        fields = program.records[t.name].fields
        return {f.name: _random_value(rng, f.type, program, depth + 1) for f in fields if f.type.kind != "opt" or rng.random() < 0.5}
    return None


@pytest.mark.parametrize("rulebook", RULEBOOKS)
def test_random_valid_inputs_give_the_same_exact_answers(builds, rulebook):
    """A property test: for random inputs of each procedure's parameter types (seeded,
    three per procedure), both backends print the same bytes, whatever they print (a
    distribution, a rule error, the work limit)."""
    from rulebook.compiler import ir

    program, folder, resolver = builds[rulebook]
    rng = random.Random(f"js-{rulebook}")
    requests = []
    for d in program.of(ir.Procedure):
        for _ in range(3):
            data = {p.name: _random_value(rng, p.type, program) for p in d.params if p.default is None or rng.random() < 0.5}
            requests.append((d.name, json.dumps(data, ensure_ascii=False)))
    argv = [[name, "--input", text, "--exact", "--max-work", str(MAX_WORK)] for name, text in requests]
    answers = _js_answers(folder, argv)
    mismatches = [(name, text, js[0][:400], py[0][:400]) for (name, text), js in zip(requests, answers)
                  if js != (py := _python_answer(resolver, name, text, MAX_WORK))]
    assert mismatches == [], mismatches[:3]


# ---------------------------------------------------------------------------- the files


@pytest.mark.parametrize("rulebook", RULEBOOKS)
def test_the_classic_script_answers_as_the_module(builds, rulebook):
    from rulebook.compiler.emit.js.to_js import global_name

    program, folder, _ = builds[rulebook]
    name, text = _sample(program, folder, 1)[0]
    proc = _node(str(HERE / "browser_twin.mjs"), str(folder / "js"), global_name(program), name, text)
    assert proc.returncode == 0, proc.stderr[-3000:]
    both = json.loads(proc.stdout)
    assert both["module"] == both["classic"]
    assert both["module"]["status"] == 0


@pytest.mark.parametrize("rulebook", RULEBOOKS)
def test_every_generated_file_is_valid_javascript(builds, rulebook):
    _, folder, _ = builds[rulebook]
    files = sorted((folder / "js").rglob("*.js")) + sorted((folder / "js").rglob("*.mjs"))
    assert {"index.js", "browser.js", "schemas.js", "resolve.mjs"} <= {f.name for f in files}
    for path in files:
        proc = _node("--check", str(path))
        assert proc.returncode == 0, f"{path}: {proc.stderr[-2000:]}"
    package = json.loads((folder / "js" / "package.json").read_text(encoding="utf-8"))
    assert package["type"] == "module" and package["exports"]["."]["import"] == "./index.js"


@pytest.mark.skipif(not TSC.exists(), reason="TypeScript is not installed in tests/codegen (npm ci there)")
@pytest.mark.parametrize("rulebook", RULEBOOKS)
def test_the_declarations_type_check(builds, rulebook):
    _, folder, _ = builds[rulebook]
    proc = subprocess.run([str(TSC), "--strict", "--noEmit", str(folder / "js" / "index.d.ts")], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:]


def test_two_builds_write_the_same_bytes(builds, tmp_path_factory):
    _, folder, _ = builds["tercios"]
    _, again = build_rulebook(tmp_path_factory, ROOT / "content" / "tercios", "js_tercios_again", site=False)
    first = {p.relative_to(folder / "js"): p.read_bytes() for p in sorted((folder / "js").rglob("*")) if p.is_file()}
    second = {p.relative_to(again / "js"): p.read_bytes() for p in sorted((again / "js").rglob("*")) if p.is_file()}
    assert first.keys() == second.keys()
    assert [p for p in first if first[p] != second[p]] == []


def test_an_unknown_node_is_a_clear_internal_error(program):
    from dataclasses import dataclass

    from rulebook.compiler.emit.js.expressions import ExpressionWriter, UnknownNode
    from rulebook.compiler.emit.js.writer import Module
    from rulebook.compiler.analysis import liveness

    @dataclass(frozen=True)
    class Explode:  # a node from a later version of the language
        span: object = None

    writer = ExpressionWriter(program, Module(), liveness.Liveness(), set())
    with pytest.raises(UnknownNode, match="no translation for the IR node Explode"):
        writer.expr(Explode())


def test_names_from_the_rules_are_mangled():
    from rulebook.compiler.emit.js.names import comment, js_name, js_string

    assert js_name("fuego") == "fuego"
    for hostile in ("class", "__proto__", "constructor", "tamaño", "x_1", "ctx", "undefined", "PACKAGE"):
        assert js_name(hostile).startswith("x_") and js_name(hostile).isidentifier()
    assert js_string('a"\u2028</script>') == '"a\\"\\u2028</script>"'
    assert "\n" not in comment("a\nb */ c") and "*/" not in comment("a\nb */ c")
