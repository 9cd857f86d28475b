"""Traces for people and bots (issue 25, point 6): the compact text form is short, its lines
are short, and neither it nor the JSON form shows a name internal to the generated package.

Every procedure of the bundled 1936 rulebook is resolved with its first worked example's
inputs (seed 3, traced); the sizes are printed (``pytest -s``) and bounded.
"""

from __future__ import annotations

import json
import re
import statistics

import pytest

from rulebook import runtime

INTERNAL = re.compile(r"_Row_|_proc_|\b_rt\b|_RV_|_SRC\b|(?<![\w.\-])_[A-Za-z]\w*")
"""Names of the generated package's insides: row classes, procedure functions, the runtime
module, dice variables, source tables, and any other name with a leading underscore."""

WIDTH = runtime.trace.COMPACT_WIDTH
DISPARO_DIRECTO_LIMIT = 2000


@pytest.fixture(scope="module")
def traces(package):
    """(procedure, compact text, full text, JSON text) of each procedure's first example that resolves."""
    seen, out = set(), []
    for example in package.examples.EXAMPLES:
        if example.procedure in seen or example.expected_error is not None:
            continue
        seen.add(example.procedure)
        fn = package.PROCEDURES[example.procedure].function
        _result, trace = runtime.sample(fn, seed=3, lang=package.LANG, **example.inputs)
        out.append((example.procedure, trace.render_compact(), trace.render_text(),
                    json.dumps(trace.to_json(), ensure_ascii=False, indent=2)))
    return out


def test_compact_traces_are_short(traces):
    sizes = {name: len(compact) for name, compact, _full, _json in traces}
    full = {name: len(text) for name, _compact, text, _json in traces}
    print(f"\ncompact traces of {len(sizes)} procedures: max {max(sizes.values())} ({max(sizes, key=sizes.get)}), "
          f"median {statistics.median(sizes.values())}; full text: max {max(full.values())}, median {statistics.median(full.values())}")
    assert len(sizes) >= 60
    assert sizes["disparo_directo"] <= DISPARO_DIRECTO_LIMIT
    assert statistics.median(sizes.values()) <= 1000
    assert max(sizes.values()) <= 6000
    for name, compact, _full, _json in traces:
        widest = max(compact.splitlines(), key=len)
        assert len(widest) <= WIDTH, (name, widest)


def test_every_disparo_directo_example_fits(package):
    fn = package.PROCEDURES["disparo_directo"].function
    examples = [e for e in package.examples.EXAMPLES if e.procedure == "disparo_directo" and e.expected_error is None]
    assert len(examples) >= 3
    for example in examples:
        for seed in (1, 3, 7):
            _result, trace = runtime.sample(fn, seed=seed, lang=package.LANG, **example.inputs)
            assert len(trace.render_compact()) <= DISPARO_DIRECTO_LIMIT, (example.title, seed)


def test_no_internal_name_in_any_form(traces):
    for name, compact, full, as_json in traces:
        for form, text in (("compact", compact), ("full", full), ("json", as_json)):
            assert INTERNAL.findall(text) == [], (name, form)


def test_a_table_row_reads_as_its_table(package):
    fn = package.PROCEDURES["tirada_calidad"].function
    _result, trace = runtime.sample(fn, seed=3, lang=package.LANG, calidad="veteran")
    assert "fila = dados_calidad_disparo(" in trace.render_text()
    assert "fila = dados_calidad_disparo(" in trace.render_compact()


def test_nested_procedures_are_indented_and_collapsed_when_they_roll_nothing(package):
    example = next(e for e in package.examples.EXAMPLES if e.procedure == "disparo_directo" and e.inputs.get("modo") == "preciso")
    _result, trace = runtime.sample(package.PROCEDURES["disparo_directo"].function, seed=3, lang=package.LANG, **example.inputs)
    lines = trace.render_compact().splitlines()
    assert lines[0].startswith("Disparo de Tiro tenso [VI.12]: perfil = ")
    assert lines[-1].startswith("⇒ resultado: ResultadoDisparo(")
    assert any(line.startswith("     banda = Banda de distancia del Tiro tenso [VI.4] (distancia = ") and " ⇒ " in line for line in lines)
    steps = [line for line in lines if re.match(r"  \d+\. ", line)]
    assert len(steps) == len(trace.root.steps)
    # a roll shows its dice and what came up, on the line of its step
    assert any(re.search(r"\d+\. .*Dado de disparo.* → -?\d", line) for line in lines)
