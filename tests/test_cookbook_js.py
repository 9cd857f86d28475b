"""The cookbook's JavaScript package agrees with its Python one (tests/test_js_backend.py's
machinery): every worked example passes in Node, and ``resolve NAME --input … --exact`` prints
the same bytes in both, for every worked example's input."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, build_rulebook
from test_js_backend import HERE, NODE, _js_answers, _node, _python_answer

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


@pytest.fixture(scope="module")
def cookbook(tmp_path_factory):
    from rulebook.compiler.commands import resolve
    from rulebook.compiler.pipeline import pyload

    result, folder = build_rulebook(tmp_path_factory, ROOT / "content" / "cookbook", "js_cookbook", site=False)
    return folder, resolve.Resolver(result.program, pyload.load_package(folder / "python"))


def test_every_worked_example_passes_in_node(cookbook):
    folder, _ = cookbook
    proc = _node(str(HERE / "run_vectors.mjs"), str(folder))
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["failures"] == [] and report["passed"] == report["total"] >= 45


def test_exact_answers_are_the_same_bytes(cookbook):
    folder, resolver = cookbook
    vectors = json.loads((folder / "json" / "examples.json").read_text(encoding="utf-8"))["vectors"]
    requests = sorted({(v["procedure"], json.dumps(v["input"], ensure_ascii=False)) for v in vectors})
    answers = _js_answers(folder, [[name, "--input", text, "--exact"] for name, text in requests])
    mismatches = [(name, text) for (name, text), js in zip(requests, answers) if js != _python_answer(resolver, name, text)]
    assert mismatches == []
    assert len(requests) >= 45
