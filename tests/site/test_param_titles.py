"""A parameter's title (``nombre: TYPE "Título"``) wherever players and programs read the parameter.

Builds ``tests/site/data/param_titles/`` (one procedure with two titled parameters and one
without) with its site, once, and reads the built files: the procedure's inputs line, its
``@doc``, step label and worked example on the rules page; the calculators' labels
(``assets/calc/data.js``) and search words; ``procedures.json``, the input schema, the Python
docstring and the ``.d.ts`` comment. A parameter without a title keeps its name spelt out.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from rulebook.compiler.pipeline import driver
from player_words import player_lines

CASE = Path(__file__).parent / "data" / "param_titles"


@pytest.fixture(scope="module")
def build(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("param_titles") / "build"
    result = driver.build(CASE, out, site=True)
    assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
    return out


def _player_text(page: str) -> str:
    """The page's text outside the technical details and the source listing."""
    return " ".join(" ".join(line for line, _classes in player_lines(page)).split())


def test_the_inputs_line_and_the_prose_read_the_titles(build):
    page = (build / "site" / "01-cuadros.html").read_text(encoding="utf-8")
    inputs = re.search(r'<p class="rb-inputs">(.*?)</p>', page, re.S)
    assert inputs is not None
    assert " ".join(html.unescape(re.sub(r"<[^>]+>", " ", inputs.group(1))).split()) == \
        "Datos: Renuncia a los Cuadros, Categoría, Distancia enemigo"
    text = _player_text(page)
    assert "Con Renuncia a los Cuadros la unidad nunca forma cuadro." in text  # the @doc
    assert "Si Renuncia a los Cuadros, no forma cuadro" in text  # the step label
    assert "Renuncia a los Cuadros: no, Categoría: Sin cobertura, distancia enemigo: 2" in text  # the worked example
    assert "renuncia_cuadros" not in text and "Renuncia cuadros" not in text and "Cat:" not in text


def test_the_calculator_labels_its_inputs_with_the_titles(build):
    script = (build / "site" / "assets" / "calc" / "data.js").read_text(encoding="utf-8")
    data = json.loads(script[len("window.rbCalcData = "):-2])
    labels = [p[:2] for p in data["procs"]["forma_cuadro"]["p"]]
    assert labels == [["renuncia_cuadros", "Renuncia a los Cuadros"], ["cat", "Categoría"], ["distancia_enemigo", "Distancia enemigo"]]
    page = next(p for p in (build / "site").glob("*.html") if 'data-rb-calc-section="forma_cuadro"' in p.read_text(encoding="utf-8"))
    section = re.search(r'data-rb-calc-section="forma_cuadro" data-search="([^"]*)"', page.read_text(encoding="utf-8"))
    assert section is not None and "Renuncia a los Cuadros Categoría" in html.unescape(section.group(1))


def test_programs_read_the_titles_beside_the_names(build):
    params = json.loads((build / "json" / "procedures.json").read_text(encoding="utf-8"))["procedures"]["forma_cuadro"]["params"]
    assert [(p["name"], p["title"]) for p in params] == [
        ("renuncia_cuadros", "Renuncia a los Cuadros"), ("cat", "Categoría"), ("distancia_enemigo", None)]
    schema = json.loads((build / "schemas" / "procedures" / "forma_cuadro.input.schema.json").read_text(encoding="utf-8"))
    assert schema["properties"]["renuncia_cuadros"]["description"].startswith("Renuncia a los Cuadros. ")
    assert "renuncia_cuadros: bool (Renuncia a los Cuadros)" in (build / "python" / "titulos" / "procedures.py").read_text(encoding="utf-8")
    dts = (build / "js" / "index.d.ts").read_text(encoding="utf-8")
    assert '  /** Renuncia a los Cuadros. */\n  readonly "renuncia_cuadros": boolean;' in dts
