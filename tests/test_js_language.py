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
import shutil
import subprocess
import typing
from pathlib import Path

import pytest

from conftest import DATA, ROOT

NODE = shutil.which("node")
HARNESS = Path(__file__).resolve().parent / "js" / "resolve_packages.mjs"


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
    """The working rulebooks of tests/test_data_types.py (a head and one block each)."""
    import test_data_types as t

    return {"several_catalogs": t.HEAD + "```rules\n" + t.SEVERAL + "\n```\n",
            "lists": t.HEAD + "```rules\n" + t.LISTS + "\n```\n",
            "odds_axes": t.HEAD + "```rules\n" + t.ODDS + "\n```\n"}


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
    extra = {**EXTRA_INPUTS, "loops": _loops_inputs()}
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

    assert set(packages) == {"language_md", "loops", *EXTRA_INPUTS}
    seen: set[type] = set()
    for program, _, js, _ in packages.values():
        assert (js / "index.js").is_file() and (js / "bin" / "resolve.mjs").is_file()
        for d in program.of(ir.Procedure):
            seen |= _node_classes(d.body)
    # the constructs this guard exists for are among what it compiled
    assert {ir.Loop, ir.Set, ir.IntRange, ir.Repeat, ir.Comprehension} <= seen, seen


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
