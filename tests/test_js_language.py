"""The JavaScript backend keeps up with the language: a guard against it lagging silently.

When the language grows (a new IR node, a new meaning of an old one: ``xs + ys`` on lists),
the JavaScript emitter must grow with it, or ``rulebook build`` fails at its js stage with
:class:`rulebook.compiler.emit.js.expressions.UnknownNode` — or, worse, writes code that
answers otherwise than the Python resolvers. This module checks:

* every class of the IR unions ``ir.Expr`` and ``ir.Stmt`` has a ``visit_<class>`` in the
  JavaScript emitter, and every built-in a procedure may call has a translation;
* the rulebooks that show the language — every ```` ```rules ```` block of LANGUAGE.md that
  ``tests/test_language_doc.py`` compiles (with its extraction), ``tests/data/loops`` and
  the snippets ``tests/test_data_types.py`` builds — go through the JavaScript emitter;
* for every worked ``example`` in them, and for the inputs the Python tests of those
  snippets run, ``node bin/resolve.mjs NAME --input JSON --exact`` prints the bytes
  ``rulebook resolve NAME --input JSON --exact`` prints (all answered in one Node process);
  a few sampled runs of procedures that roll nothing (their traces too) also agree.

Tests skip, saying why, when Node is not installed.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import typing
from pathlib import Path

import pytest

from conftest import DATA, ROOT

NODE = shutil.which("node")
HARNESS = Path(__file__).resolve().parent / "js" / "resolve_packages.mjs"
SAMPLER = Path(__file__).resolve().parent / "js" / "sample_many.mjs"


# ---------------------------------------------------------------------------- the emitter knows the IR


def _union(alias) -> list[type]:
    return [c for c in typing.get_args(alias) if isinstance(c, type)]


def test_every_ir_expression_and_statement_has_a_js_translation():
    from rulebook.compiler import ir
    from rulebook.compiler.emit.js.expressions import ExpressionWriter
    from rulebook.compiler.emit.js.statements import ProcedureWriter

    exprs, stmts = _union(ir.Expr), _union(ir.Stmt)
    assert len(exprs) >= 20 and len(stmts) >= 6 and ir.IntRange in exprs and ir.Loop in stmts
    missing = [f"ExpressionWriter.visit_{c.__name__}" for c in exprs if not callable(getattr(ExpressionWriter, f"visit_{c.__name__}", None))]
    missing += [f"ProcedureWriter.visit_{c.__name__}" for c in stmts if not callable(getattr(ProcedureWriter, f"visit_{c.__name__}", None))]
    assert not missing, f"IR nodes the JavaScript emitter cannot write: {missing}"


def test_the_js_emitter_writes_every_node_the_python_emitter_writes():
    """A node the Python emitter learnt to write (``visit_<class>``, even of a class outside
    the unions, as ``DieFace``) the JavaScript emitter writes too."""
    from rulebook.compiler.emit.js import expressions as js_expressions
    from rulebook.compiler.emit.js import statements as js_statements
    from rulebook.compiler.emit.python import expressions as py_expressions
    from rulebook.compiler.emit.python import statements as py_statements

    def visits(cls) -> set[str]:
        return {name for name in dir(cls) if name.startswith("visit_")}

    missing = sorted(visits(py_expressions.ExpressionWriter) - visits(js_expressions.ExpressionWriter))
    missing += sorted(visits(py_statements.ProcedureWriter) - visits(js_statements.ProcedureWriter))
    assert not missing, f"the Python emitter writes these nodes, the JavaScript emitter does not: {missing}"


#: The fields of each IR node the JavaScript emitter was written against. A node gaining a
#: field (a meaning of its own: Roll.mods) fails here until the emitter reads it and the
#: field is added below; a node gaining a class fails until it has a visit_ method.
FIELDS_WRITTEN = {
    "Literal": ("value", "type", "span"),
    "Local": ("name", "type", "span"),
    "ConstRef": ("name", "type", "span"),
    "EnumValue": ("enum", "member", "type", "span"),
    "EntryId": ("catalog", "ident", "type", "span"),
    "FieldAccess": ("obj", "field", "via", "owner", "nullable", "type", "span"),
    "CountOf": ("obj", "kind", "type", "span"),
    "TableLookup": ("table", "keys", "type", "span"),
    "CatalogLookup": ("catalog", "key", "type", "span"),
    "MapIndex": ("obj", "key", "type", "span"),
    "ListIndex": ("obj", "index", "type", "span"),
    "ProcedureCall": ("procedure", "args", "type", "span"),
    "RecordNew": ("record", "args", "type", "span"),
    "BuiltinCall": ("name", "args", "type", "span", "rule", "param"),
    "Unary": ("op", "operand", "type", "span"),
    "Binary": ("op", "left", "right", "type", "span", "enum"),
    "Conditional": ("cond", "then", "other", "type", "span"),
    "ListOf": ("items", "type", "span"),
    "Comprehension": ("body", "var", "iterable", "cond", "type", "span"),
    "Roll": ("die", "sides", "count", "times", "keep", "test", "named_faces", "text", "type", "span", "mods"),
    "Draw": ("bag", "count", "removed", "mode", "text", "type", "span"),
    "Sources": ("items", "type", "span"),
    "IntRange": ("lo", "hi", "type", "span"),
    "DieFace": ("name", "type", "span"),
    "DieTest": ("op", "value", "var", "span"),
    "DiceMods": ("reroll", "explode", "chain", "counts"),
    "Let": ("name", "value", "span"),
    "Return": ("value", "span"),
    "Require": ("cond", "message", "span"),
    "If": ("branches", "orelse", "span"),
    "Step": ("number", "label", "body", "span"),
    "Repeat": ("number", "body", "cond", "binds", "reads", "text", "span"),
    "Loop": ("number", "times", "count", "var", "iterable", "carried", "body", "cond", "text", "span"),
    "Set": ("name", "value", "span"),
    # a parameter: its title is data the emitter writes as the input's .d.ts comment (typescript.py)
    "Param": ("name", "type", "default", "span", "default_text", "title"),
}


def test_the_ir_nodes_have_the_fields_the_js_emitter_reads():
    import dataclasses

    from rulebook.compiler import ir

    classes = {c.__name__: c for c in [*_union(ir.Expr), *_union(ir.Stmt), ir.DieFace, ir.DieTest, ir.DiceMods, ir.Param]}
    unknown = sorted(set(classes) - set(FIELDS_WRITTEN))
    assert not unknown, f"IR nodes the JavaScript emitter was not written against: {unknown}"
    changed = {name: tuple(f.name for f in dataclasses.fields(cls)) for name, cls in classes.items()
               if tuple(f.name for f in dataclasses.fields(cls)) != FIELDS_WRITTEN[name]}
    assert not changed, (f"IR nodes whose fields changed since the JavaScript emitter was written: {changed}; "
                         "teach compiler/emit/js the new fields, then update FIELDS_WRITTEN")


def test_every_builtin_has_a_js_translation():
    """A built-in is the runtime function of its name (``$rt.clamp``) or written by
    ``visit_BuiltinCall`` itself; ``probability`` only stands in examples and odds, which
    the JavaScript package does not carry."""
    from rulebook.compiler.emit.js.expressions import SPECIAL_BUILTINS, runtime_exports
    from rulebook.compiler.ir.builtins import BUILTINS

    written = runtime_exports() | SPECIAL_BUILTINS | {"min", "max"}
    assert not set(BUILTINS) - written, sorted(set(BUILTINS) - written)


# ---------------------------------------------------------------------------- the rulebooks of the language


def _snippets() -> dict[str, str]:
    """The working rulebooks of tests/test_data_types.py (a head and one block each) and of
    tests/test_dice_modifiers.py."""
    import test_data_types as t
    import test_dice_modifiers

    return {"several_catalogs": t.HEAD + "```rules\n" + t.SEVERAL + "\n```\n",
            "lists": t.HEAD + "```rules\n" + t.LISTS + "\n```\n",
            "odds_axes": t.HEAD + "```rules\n" + t.ODDS + "\n```\n",
            "dice_modifiers": test_dice_modifiers.RULES}


def _dice_inputs() -> list[tuple[str, dict, list[str]]]:
    """The inputs tests/test_dice_modifiers.py runs (icepool's cases, named faces, several
    counts), and a roll whose work (known before it is computed) is past the limit."""
    import test_dice_modifiers

    out = [(name, kwargs, []) for name, kwargs, _ in test_dice_modifiers.CASES]
    out += [(name, {"n": n}, []) for name in ("espadas", "escudos", "con_cara", "varias") for n in (1, 3, 6)]
    out += [("cara", {}, []), ("vivo", {"n": 3}, []), ("vivas", {"n": 4}, []), ("varias", {"n": 20}, []),
            ("cuenta", {"n": 20}, ["--max-work", "100"]), ("cadena", {"n": 300}, ["--max-work", "100000"])]
    # a property test: seeded random sizes and work limits (the costs known before computing must agree)
    rng = random.Random("js-dice")
    for name, params in re.findall(r'^procedure (\w+) "[^"]*" \(([^)]*)\)', test_dice_modifiers.RULES, re.M):
        names = re.findall(r"(\w+): int", params)
        for _ in range(3 if names else 1):
            data = {p: rng.choice([-3, 0, 1, 2, 9]) if p == "m" else rng.choice([-1, 0, 1, 3, 8, 21, 40]) for p in names}
            out.append((name, data, ["--max-work", str(rng.choice([2_000, 50_000, 5_000_000]))]))
    return out


def _loops_inputs() -> list[tuple[str, dict, list[str]]]:
    """The inputs tests/test_loops.py runs (exact odds, merged states, the work limit), and
    sampled runs of the loops that roll nothing (their traces show each run)."""
    import test_loops

    out = [(name, kwargs, []) for name, kwargs, _ in test_loops.EXPECTED]
    out += [(name, kwargs, []) for name, kwargs in [("melee", {"a_bonus": 2}), ("nested", {}), ("nested", {"bonus": 1}),
                                                    ("long_fight", {}), ("endless", {"n": 1000})]]
    out += [("volley", {"weapons": [{"shots": 1}, {"shots": 2}, {"shots": 3}]}, []),
            ("endless", {"n": 10**9}, ["--max-work", "5000"]),  # a range past the work limit: refused before it is made
            ("forever", {"n": 1}, ["--max-work", "5000"])]
    for name, kwargs in [("doubling", {}), ("factorial", {"n": 5}), ("endless", {"n": 4}), ("lists", {"n": 3})]:
        out.append((name, kwargs, ["--seed", "1", "--explain"]))
    out.append(("endless", {"n": 10**9}, ["--seed", "1", "--max-work", "5000"]))
    return out


EXTRA_INPUTS: dict[str, list[tuple[str, dict, list[str]]]] = {
    "several_catalogs": [("to_hit", {"shooter": "tank"}, []), ("to_hit", {"shooter": "rifles"}, [])],
    "lists": [("joined", {"xs": [1, 2], "ys": [3], "y": 4}, []), ("joined", {"xs": [], "ys": [], "y": 0}, []),
              ("widened", {"xs": [1], "zs": ["1/2"]}, []), ("least", {"ws": [None, 5, 3, None]}, []),
              ("least", {"ws": [None]}, []),
              ("bonuses", {"slots": [{"bonus": None}, {"bonus": 2}, {"bonus": -1}, {"bonus": 3}]}, [])],
    "odds_axes": [("shot", {"unit": u, "aimed": a, "side": s}, [])
                  for u in ("red_guard", "blue_guard") for a in (True, False) for s in ("red", "blue")],
}


@pytest.fixture(scope="module")
def packages(tmp_path_factory) -> dict[str, tuple]:
    """Each rulebook of the language: (checked program, Python resolver, js folder, the requests to compare)."""
    from test_language_doc import correct_blocks, write_rulebook

    from rulebook.compiler.commands import resolve
    from rulebook.compiler.emit.js import to_js
    from rulebook.compiler.pipeline import driver, pyload

    folders: dict[str, Path] = {}
    doc = tmp_path_factory.mktemp("language_md")
    write_rulebook(doc, correct_blocks())
    folders["language_md"] = doc
    folders["loops"] = DATA / "loops"
    for name, text in _snippets().items():
        folder = tmp_path_factory.mktemp(name)
        (folder / "00-game.rules").write_text(text, encoding="utf-8")
        folders[name] = folder
    extra = {**EXTRA_INPUTS, "loops": _loops_inputs(), "dice_modifiers": _dice_inputs()}
    out = {}
    for name, folder in folders.items():
        checked = driver.check(folder)
        errors = [d.render(checked.sources) for d in checked.diagnostics if d.severity == "error"]
        assert not errors, f"{name}: {errors[:3]}"
        program = checked.program
        package = pyload.compile_and_load(program)
        js = tmp_path_factory.mktemp(f"{name}_js") / "js"
        to_js.write_package(program, js)  # an IR node it does not know: UnknownNode, here
        out[name] = (program, resolve.Resolver(program, package), js, _requests(package, extra.get(name, [])))
    return out


def _requests(package, extra: list[tuple[str, dict, list[str]]]) -> list[tuple[str, str, list[str]]]:
    """(procedure, input JSON, more options): every worked example's inputs, then ``extra``."""
    from rulebook import runtime

    found = []
    for example in package.examples.EXAMPLES:
        data = {name: runtime.to_jsonable(value) for name, value in example.inputs.items()}
        found.append((example.procedure, json.dumps(data, ensure_ascii=False), []))
    found += [(name, json.dumps(data, ensure_ascii=False), options) for name, data, options in extra]
    return found


def test_every_rulebook_of_the_language_goes_through_the_js_emitter(packages):
    from rulebook.compiler import ir
    from rulebook.compiler.ir.walk import expressions, walk

    assert set(packages) == {"language_md", "loops", "dice_modifiers", *EXTRA_INPUTS}
    seen: set[type] = set()
    for program, _, js, _ in packages.values():
        assert (js / "index.js").is_file() and (js / "bin" / "resolve.mjs").is_file()
        for d in program.of(ir.Procedure):
            seen |= _node_classes(d.body)
    # the constructs this guard exists for are among what it compiled
    assert {ir.Loop, ir.Set, ir.IntRange, ir.Repeat, ir.Comprehension, ir.DieFace} <= seen, seen
    rolls = [x for program, *_ in packages.values() for d in program.of(ir.Procedure)
             for top in expressions(d.body) for x in walk(top) if isinstance(x, ir.Roll)]
    assert any(r.mods is not None and r.mods.named_counts for r in rolls)


def _node_classes(stmts) -> set[type]:
    from rulebook.compiler import ir
    from rulebook.compiler.ir.walk import expressions, walk

    found: set[type] = set()
    for st in stmts:
        found.add(type(st))
        for body in ([st.body] if isinstance(st, (ir.Step, ir.Repeat, ir.Loop)) else []):
            found |= _node_classes(body)
        if isinstance(st, ir.If):
            for _, body in st.branches:
                found |= _node_classes(body)
            found |= _node_classes(st.orelse or ())
    for top in expressions(stmts):
        found |= {type(x) for x in walk(top)}
    return found


def _python_answer(resolver, name: str, text: str, options: list[str]) -> tuple[str, int]:
    """What ``rulebook resolve NAME --input TEXT --exact`` (or ``--seed N``) prints, and its status."""
    import argparse
    import io
    from contextlib import redirect_stdout

    opts = dict(zip(options[::2], options[1::2]))
    args = argparse.Namespace(procedure=name, input=text, exact="--seed" not in opts,
                              seed=int(opts["--seed"]) if "--seed" in opts else None, explain="--explain" in options,
                              max_work=int(opts.get("--max-work", 5_000_000)), format="json", list=False)
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        status = resolver.run(args)
    return buffer.getvalue(), status


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_node_gives_python_s_exact_answers(packages):
    """Every worked example of every rulebook of the language, and the inputs the Python
    tests of loops and data types run: the same bytes and exit status in Node (one process)."""
    requests, expected, labels = [], [], []
    for rulebook, (_, resolver, js, asked) in packages.items():
        for name, text, options in asked:
            argv = [name, "--input", text, *(["--exact"] if "--seed" not in options else []), *options]
            requests.append([str(js), argv])
            expected.append(_python_answer(resolver, name, text, options))
            labels.append(f"{rulebook}: {name} {text} {' '.join(options)}")
    assert len(requests) >= 60, len(requests)
    proc = subprocess.run([NODE, str(HARNESS)], input=json.dumps(requests), capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    answers = [(a["text"], a["status"]) for a in json.loads(proc.stdout)]
    assert len(answers) == len(expected)
    mismatches = [(label, js[0][:600], py[0][:600]) for label, js, py in zip(labels, answers, expected) if js != py]
    assert not mismatches, f"{len(mismatches)} of {len(labels)} answers differ; first: {mismatches[:3]}"
    sampled = [a for (_, argv), a in zip(requests, answers) if "--seed" in argv]
    assert all(status == 0 for _, status in sampled[:-1]) and sampled[-1][1] != 0


SAMPLED = [("dice_modifiers", "cuenta", {"n": 5}), ("dice_modifiers", "varias", {"n": 3}), ("dice_modifiers", "peor", {"n": 3}),
           ("dice_modifiers", "mejores", {"n": 4}), ("dice_modifiers", "escudos", {"n": 3}), ("dice_modifiers", "cara", {}),
           ("dice_modifiers", "desigual", {"n": 2}), ("dice_modifiers", "vivas", {"n": 3}), ("loops", "melee", {}),
           ("loops", "tries", {})]
RUNS = 3000


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_node_s_sampled_runs_agree_with_the_exact_odds(packages):
    """Sampled in Node (its own generator: not Python's draws), each roll with modifiers and
    each loop gives its results as often as the exact odds say (total variation distance
    of 3000 runs below 0.06)."""
    from rulebook import runtime

    requests = [[str(packages[rb][2]), name, data, RUNS] for rb, name, data in SAMPLED]
    proc = subprocess.run([NODE, str(SAMPLER)], input=json.dumps(requests), capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    far = []
    for (rb, name, data), counts in zip(SAMPLED, json.loads(proc.stdout)):
        package = packages[rb][1].package
        exact = {json.dumps(runtime.to_jsonable(r), separators=(",", ":")): float(p)
                 for r, p in runtime.exact(package.PROCEDURES[name].function, **data).items()}
        seen = {json.dumps(json.loads(k), separators=(",", ":")): n / RUNS for k, n in counts.items()}
        assert set(seen) <= set(exact), (name, sorted(set(seen) - set(exact))[:3])
        distance = sum(abs(seen.get(k, 0) - p) for k, p in exact.items()) / 2
        if distance > 0.06:
            far.append((name, round(distance, 3)))
    assert not far, far
