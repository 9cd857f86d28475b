"""The site built from content/1936: pages, anchors, glossary, datasheets, data, offline.

Uses the session ``built`` fixture (the bundled rulebook built with the site
into a temporary folder); checks the generated Markdown (``docs/``) and HTML
(``site/``), and runs the usage examples that the data page shows.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CONTENT, filled_in
from unit_pages import unit_page
from rulebook.compiler import ir

ROOT = Path(__file__).resolve().parents[2]


def _read(built: Path, page: str) -> str:
    return (built / "site" / page).read_text(encoding="utf-8")


def _article(page: str) -> str:
    m = re.search(r"<article[^>]*>(.*)</article>", page, re.S)
    assert m
    return m.group(1)


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", fragment))


def _pages(built: Path) -> list[Path]:
    return sorted(p for p in (built / "site").glob("*.html") if p.name != "404.html")


def _search_entries(built: Path) -> list[list]:
    script = (built / "site" / "assets" / "search-index.js").read_text(encoding="utf-8")
    return json.loads(script[script.index("{"):script.rindex("}") + 1])["entries"]


@pytest.fixture(scope="module")
def program():
    from rulebook.compiler.pipeline import driver

    result = driver.check(driver.DEFAULT_RULEBOOK)
    assert result.ok
    return result.program


# ---------------------------------------------------------------- structure


def test_nav_lists_manual_datasheets_glossary_and_data(built):
    mk = (built / "mkdocs.yml").read_text(encoding="utf-8")
    for needle in ('"Manual":', '"Fichas":', "fichas-bando-nacional.md", "fichas-bando-republicano.md",
                   "fichas-perfiles-de-armas.md", '"Glosario":', "datos.md"):
        assert needle in mk, needle


def test_spanish_interface_and_search(built):
    page = _read(built, "index.html")
    assert '<html lang="es"' in page
    assert 'placeholder="Buscar"' in page and "data-rb-search" in page
    assert not (built / "site" / "search").exists(), "MkDocs' own search index is not shipped"


@pytest.mark.parametrize(("term", "kind"), [
    ("Pinned", "Regla especial"), ("Tiznao", "Vehículos ligeros Republicanos"), ("Fricción", "Glosario"), ("Troneras", "Regla especial"),
])
def test_search_index_has_the_terms(built, term, kind):
    entries = _search_entries(built)
    assert any(e[0] == term and e[2] == kind and e[3] >= 3 for e in entries), [e[:4] for e in entries if e[0] == term]


def test_offline_no_external_assets(built):
    for path in _pages(built):
        page = path.read_text(encoding="utf-8")
        for tag in re.findall(r"<(?:script|link|img|iframe)\b[^>]*>", page):
            for url in re.findall(r'(?:src|href)="([^"]*)"', tag):
                assert not re.match(r"(?:https?:)?//", url), (path.name, tag)
        assert "fonts.googleapis" not in page and "fonts.gstatic" not in page, path.name


def test_no_markdown_left_unrendered(built):
    """No backslash escape or ``markdown`` attribute reaches the visible page."""
    for path in _pages(built):
        body = _article(path.read_text(encoding="utf-8"))
        assert not re.search(r"<[a-z]+[^>]*\smarkdown(?:=\"[^\"]*\")?[\s>]", body), path.name
        visible = _text(re.sub(r"<(pre|code)\b[^>]*>.*?</\1>", " ", body, flags=re.S))
        escaped = re.findall(r".{0,30}\\[\\`*_{}\[\]()#+\-.!|>].{0,10}", visible)
        assert not escaped, (path.name, escaped[:3])


def test_dsl_source_is_really_highlighted(built):
    """The rules source of each file (a page for designers) is tokenized by the project's lexer."""
    page = _read(built, "codigo-03-reglas-especiales.html")
    assert page.count('<span class="kd">rule</span>') > 50
    assert re.search(r'<span class="kd">rule</span> <span class="nf">lmg</span>', page)
    # each line has its anchor, and the declarations link to it
    assert 'id="L1"' in page
    assert re.search(r'href="codigo-03-reglas-especiales.html#L\d+"', _read(built, "03-reglas-especiales.html"))
    # and the lexer is the one registered for the language name (the fallback would be plain text)
    from pygments.lexers import get_lexer_by_name

    from rulebook.rules_dsl.pygments_lexer import RulesLexer

    assert isinstance(get_lexer_by_name("rules"), RulesLexer)


def test_print_stylesheet(built):
    css = (built / "site" / "assets" / "extra.css").read_text(encoding="utf-8")
    assert "@media print" in css
    printed = css[css.index("@media print"):]
    for selector in (".md-header", ".md-sidebar", ".md-footer", ".rb-tech", "details.rb-users", "details.rb-options"):
        assert selector in printed, selector
    assert "break-inside: avoid" in printed
    assert 'href="assets/extra.css"' in _read(built, "fichas-bando-nacional.html")


# ---------------------------------------------------------------- glossary


def test_glossary_abbreviations(built, program):
    terms = program.of(ir.Term)
    assert len(terms) >= 30
    lines = (built / "docs" / "includes" / "glosario.md").read_text(encoding="utf-8").splitlines()
    abbrs = [ln for ln in lines if ln.startswith("*[")]
    assert len(abbrs) == len(terms)
    for t in terms:
        assert any(ln.startswith(f"*[{t.title}]: ") for ln in abbrs), t.title


def test_glossary_page_lists_every_term_with_an_anchor(built, program):
    page = next(p for p in _pages(built) if "glosario" in p.name).read_text(encoding="utf-8")
    for t in program.of(ir.Term):
        assert f'id="{t.name}"' in page, t.name
    # a term that is also a rule points to it
    assert 'href="03-reglas-especiales.html#pinned"' in page


@pytest.mark.parametrize(("page", "term"), [
    ("03-reglas-especiales.html", "Pinned"),
    ("06-iniciativa-y-disparos.html", "INI"),
    ("05-turnos-mando-ordenes-y-acciones.html", "Fricción"),
    ("fichas-bando-republicano-tiznao-lmg.html", "Tiznao"),
])
def test_tooltips_on_term_occurrences(built, page, term):
    found = re.findall(rf'<abbr title="([^"]+)">{re.escape(term)}</abbr>', _read(built, page))
    assert found, (page, term)
    assert all(len(html.unescape(t)) > 20 for t in found)


# ---------------------------------------------------------------- datasheets


def _card(built: Path, index: str, anchor: str) -> str:
    """The card at ``anchor`` (on its own page, linked from its row on ``index``): heading to the article's end."""
    page = _read(built, unit_page(built / "site", index, anchor))
    m = re.search(rf'<h1 id="{re.escape(anchor)}">(.*?)</article>', page, re.S)
    assert m, f"no card #{anchor}"
    return m.group(1)


def _unit_href(built: Path, index: str, anchor: str) -> str:
    return f'href="{unit_page(built / "site", index, anchor)}"'


def test_every_unit_has_a_datasheet(built, program):
    pages = {p.name: p.read_text(encoding="utf-8") for p in _pages(built) if p.name.startswith("fichas-")}
    count = 0
    for catalog in program.of(ir.Catalog):
        if catalog.datasheet is None:
            continue
        for ident in catalog.entries:
            anchor = f"{catalog.name}--{ident}"
            assert sum(bool(re.search(f'<h1 id="{anchor}">', p)) for p in pages.values()) == 1, anchor
            count += 1
    assert count >= 120


def test_datasheet_costs_by_quality(built):
    card = _card(built, "fichas-bando-nacional.html", "infanteria_nacional--n_milicia_falange")
    cost = card[card.index('class="rb-cost"'):]
    assert re.findall(r"<th[^>]*>([^<]*)</th>", cost)[:4] == ["Verde", "Regular", "Veterano", "Élite"]
    assert re.findall(r"<td[^>]*>([^<]*)</td>", cost)[:4] == ["56", "70", "91", "105"]
    # 85 at Veterano is 110,5 → 111 (half up)
    card = _card(built, "fichas-bando-nacional.html", "infanteria_nacional--n_reconocimiento")
    cost = card[card.index('class="rb-cost"'):]
    assert re.findall(r"<td[^>]*>([^<]*)</td>", cost)[:4] == ["68", "85", "111", "128"]
    assert "las mitades se redondean hacia arriba" in _text(_read(built, "fichas-bando-nacional.html"))


def test_datasheet_links_rules_with_parameters_and_weapons(built):
    card = _card(built, "fichas-bando-nacional.html", "infanteria_nacional--n_cazadores_montana")
    assert '<a href="03-reglas-especiales.html#lmg">LMG(2)</a>' in card
    assert _unit_href(built, "fichas-perfiles-de-armas.html", "perfiles_armas--fusiles_seccion") in card
    assert "CF" in card and "CL" in card and "CT" in card
    vehicle = _card(built, "fichas-bando-republicano.html", "vehiculos_ligeros_republicanos--r_tiznao")
    assert "RF" in vehicle and "RL" in vehicle and "RT" in vehicle
    assert "Movimiento (Normal / Carretera)" in html.unescape(re.sub(r"<[^>]+>", "", vehicle))


def test_deferred_catalogs_have_badges(built):
    card = _card(built, "fichas-bando-nacional.html", "aviones_nacionales--n_avion_bf109")
    assert "rb-badge--deferred" in card


def test_rule_lists_units_that_have_it(built):
    page = _read(built, "03-reglas-especiales.html")
    section = page[page.index('id="lmg"'):page.index('id="casco"')]
    assert "Fichas que la tienen" in section
    assert _unit_href(built, "fichas-bando-nacional.html", "infanteria_nacional--n_cazadores_montana") in section
    assert "X = 2" in _text(section)


def test_profile_lists_units_that_carry_it(built):
    card = _card(built, "fichas-perfiles-de-armas.html", "perfiles_armas--pistola")
    assert "Aparece en" in card
    assert _unit_href(built, "fichas-bando-nacional.html", "infanteria_nacional--n_oficial") in card


def test_every_rule_and_profile_has_its_anchor(built, program):
    rules_page = _read(built, "03-reglas-especiales.html")
    for d in program.of(ir.Rule):
        if d.span.file.endswith("03-reglas-especiales.rules"):
            assert f'id="{d.name}"' in rules_page, d.name
    profiles = _read(built, "fichas-perfiles-de-armas.html")
    for ident in program.catalogs["perfiles_armas"].entries:
        assert f'<tr id="perfiles_armas--{ident}">' in profiles, ident  # the old anchor: the row linking to the card
        assert f'<h1 id="perfiles_armas--{ident}">' in _read(built, unit_page(built / "site", "fichas-perfiles-de-armas.html", f"perfiles_armas--{ident}"))


# ---------------------------------------------------------------- data for tools


def test_data_is_published(built):
    site = built / "site" / "datos"
    assert (site / "json" / "infanteria_nacional.json").exists()
    assert (site / "schemas" / "infanteria_nacional.schema.json").exists()
    assert (site / "schemas" / "procedures").is_dir()
    glossary = json.loads((site / "glosario.json").read_text(encoding="utf-8"))
    assert len(glossary["terms"]) >= 30
    page = _read(built, "datos.html")
    assert 'href="datos/json/rulebook.json"' in page
    assert 'href="datos/schemas/infanteria_nacional.schema.json"' in page


def _code_blocks(page: str, lang: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", b)) for b in re.findall(rf'<div class="language-{lang} highlight">(.*?)</div>', page, re.S)]


def test_data_page_python_examples_run(built):
    page = _read(built, "datos.html")
    python = _code_blocks(page, "python")
    assert len(python) == 2
    # no __pycache__ in the shared build folder (other tests compare build trees); the generated
    # package importable as `pip install build/python/<package>` leaves it
    env = {"PYTHONPATH": os.pathsep.join([str(ROOT), str(built / "python")]), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}
    # the resolver example runs anywhere once the package is installed
    run = subprocess.run([sys.executable, "-c", python[0]], cwd=built.parent, capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip()
    # so does the schema example, from the folder that holds build/ (it reads build/site/datos/)
    schema = filled_in(python[1], "es", CONTENT, built.name)
    assert schema != python[1]
    run = subprocess.run([sys.executable, "-c", schema], cwd=built.parent, capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr


def test_data_page_cli_example_runs(built):
    import shlex

    page = _read(built, "datos.html")
    (cli,) = [b for b in _code_blocks(page, "bash") if b.startswith("rulebook resolve ")]
    argv = shlex.split(filled_in(cli, "es", CONTENT, built.name).strip())
    assert str(CONTENT) in argv
    assert argv[:2] == ["rulebook", "resolve"]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run([sys.executable, "-m", "rulebook.compiler.commands.cli", *argv[1:]], cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)
