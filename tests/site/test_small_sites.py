"""Small rulebooks that once broke the site build, built with the site (issue 11: F5, F6, F7).

Each folder of ``tests/site/data/sites/`` is a rulebook: ``smallest`` (no
section at all), ``glossary_brackets`` (glossary terms whose titles hold ``]``,
``]:`` and a backslash), ``long_titles`` (two ~300-character section titles
that only differ at the end), ``unnumbered`` (no numbered section, and its
glossary in a file without ``section``: issue 9 §5), ``section_status`` (a section marked not playable, with a doc). Every one must build, with a site whose links all
work, whose page file names are bounded and distinct, and which shows every
section and glossary term.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from rulebook.compiler.pipeline import driver
from rulebook.compiler import ir
from rulebook.compiler.emit.site.to_pages import PAGE_NAME_LIMIT
from crawl import crawl

CASES = sorted(p for p in (Path(__file__).parent / "data" / "sites").iterdir() if p.is_dir())


@pytest.fixture(scope="module", params=CASES, ids=[c.name for c in CASES])
def case(request, tmp_path_factory) -> tuple[Path, ir.Program]:
    out = tmp_path_factory.mktemp(request.param.name) / "build"
    result = driver.build(request.param, out, site=True)
    assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
    return out, result.program


def _text(site: Path) -> str:
    pages = [p.read_text(encoding="utf-8") for p in sorted(site.glob("*.html"))]
    return html.unescape(re.sub(r"<[^>]+>", " ", " ".join(pages)))


def test_builds_with_working_links(case):
    out, _program = case
    report = crawl(out / "site")
    assert (out / "site" / "index.html").exists()
    assert report.broken == [] and report.duplicate_ids == [], (report.broken[:5], report.duplicate_ids[:5])


def test_page_names_are_bounded(case):
    out, _program = case
    names = [p.name for p in (out / "docs").glob("*.md")]
    assert all(len(n) <= PAGE_NAME_LIMIT + len(".md") for n in names), names
    assert len(names) == len(set(names))


def test_every_section_and_term_is_shown(case):
    out, program = case
    text = " ".join(_text(out / "site").split())
    for sec in program.sections:
        assert " ".join(sec.title.split()) in text, sec.title[:40]
    for term in program.of(ir.Term):
        assert term.title in text, term.title


def test_an_empty_source_date_epoch_does_not_fail_the_site(tmp_path, monkeypatch):
    """``SOURCE_DATE_EPOCH=`` (set but empty) used to stop mkdocs with a traceback (issue 11)."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "")
    result = driver.build(Path(__file__).parent / "data" / "sites" / "smallest", tmp_path / "build", site=True)
    assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]


def test_a_glossary_outside_every_section_has_its_own_page(tmp_path):
    """``unnumbered``: no numbered section, and its glossary in a file without ``section``:
    the terms get a glossary page that the home page and the navigation link to."""
    out = tmp_path / "build"
    result = driver.build(Path(__file__).parent / "data" / "sites" / "unnumbered", out, site=True)
    assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
    site = out / "site"
    home = (site / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<a class="rb-tile" href="glosario\.html"><strong>Glosario</strong><span>2 términos</span>', home)
    glossary = (site / "glosario.html").read_text(encoding="utf-8")
    assert 'id="g_carga"' in glossary and 'id="g_moral"' in glossary
    assert 'id="g_carga"' not in (site / "disenadores.html").read_text(encoding="utf-8")
    assert '"Glosario": "glosario.md"' in (out / "mkdocs.yml").read_text(encoding="utf-8")


def test_a_section_status_and_doc_head_its_page(tmp_path):
    """``@status``/``@doc`` on a section: the badge beside the page's title, the doc (escaped) under it."""
    out = tmp_path / "build"
    result = driver.build(Path(__file__).parent / "data" / "sites" / "section_status", out, site=True)
    assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
    (page,) = [p for p in (out / "site").glob("02-*.html")]
    text = page.read_text(encoding="utf-8")
    h1 = re.search(r"<h1[^>]*>(.*?)</h1>", text, re.S).group(1)
    assert "rb-badge--not-playable" in h1
    doc = re.search(r'<p class="rb-doc">(.*?)</p>', text, re.S).group(1)
    assert html.unescape(re.sub(r"<[^>]+>", "", doc)) == "Pendiente: <script>alert(1)</script> *no* es jugable | todavía"
    assert "<script>alert" not in text
    first = next((out / "site").glob("01-*.html")).read_text(encoding="utf-8")
    assert "rb-badge" not in re.search(r"<h1[^>]*>(.*?)</h1>", first, re.S).group(1)
