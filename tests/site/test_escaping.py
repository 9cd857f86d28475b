"""The rules' text reaches the site as data: markup in it is shown, never interpreted.

A tiny rulebook whose texts are full of Jinja, HTML and Markdown syntax
(prose, a rule description, a table cell, catalog text, a glossary term) is
built with the site; every page must show those texts as written.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from rulebook.compiler.pipeline import driver

# Each of these would do something if it were read as markup:
# Jinja, HTML, abbreviations, snippet inclusion (of a file that exists), tables,
# emphasis, links, attribute lists, admonitions, comments and entities.
HOSTILE = [
    "{{ 7*7 }}",
    "{% raw %}",
    "<script>alert(1)</script>",
    "*[x]: y",
    '--8<-- "includes/glosario.md"',
    "| a |",
    "**b**",
    "[l](http://example.com)",
    "{: .clase }",
    "<!-- c -->",
    "&amp;",
]
HOSTILE_TEXT = " ".join(HOSTILE)


def _dsl(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


RULEBOOK = f"""```rules
rulebook tiny "Tiny {{{{ 7*7 }}}}" version "1.0" lang "es"
section I "Hostil"
```

Prosa {HOSTILE_TEXT} y Zeta.

*[x]: y

--8<-- "includes/glosario.md"

| a | b |

!!! note "x"

```rules
rule reglita "Reglita" {{
  "Regla {_dsl(HOSTILE_TEXT)}"
}}

table tablita "Tablita"
  by id: id "id"
  -> texto: text "Texto"
{{
  uno "Uno" | "Celda {_dsl(HOSTILE_TEXT)}"
}}

record Cosa "Cosa" {{
  nombre: text "Nombre"
  nota: text "Nota"
}}

catalog cosas "Cosas" of Cosa {{
  c1 | "Cosa <script>alert(1)</script>" | "Nota {_dsl(HOSTILE_TEXT)}"
}}

term zeta "Zeta" "Definición {_dsl(HOSTILE_TEXT)}"
```
"""


def _text(page: str) -> str:
    """The visible text of the page's article, entities decoded."""
    m = re.search(r"<article[^>]*>(.*)</article>", page, re.S)
    body = m.group(1) if m else page
    body = re.sub(r"<details class=\"rb-code\">.*?</details>", " ", body, flags=re.S)  # the highlighted source
    return html.unescape(re.sub(r"<[^>]+>", "", body))


@pytest.fixture(scope="module")
def tiny_site(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("tiny")
    (src / "tiny.rules").write_text(RULEBOOK, encoding="utf-8")
    out = tmp_path_factory.mktemp("tiny_out") / "build"
    result = driver.build(src, out, site=True)
    errors = [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
    assert result.ok, errors
    return out


def _page(out: Path) -> str:
    pages = sorted((out / "site").glob("01-*.html"))
    assert pages, "the section page was not built"
    return pages[0].read_text(encoding="utf-8")


def test_build_succeeds_and_writes_the_section(tiny_site):
    assert (tiny_site / "site" / "index.html").exists()
    assert (tiny_site / "docs" / "includes" / "glosario.md").exists()


def test_no_markup_is_interpreted(tiny_site):
    page = _page(tiny_site)
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<strong>b</strong>" not in page.split("<details")[0].split("Regla ", 1)[-1]
    assert '<a href="http://example.com"' not in page
    assert 'class="clase"' not in page
    assert "<!-- c -->" not in page
    assert '<abbr title="y">' not in page
    assert "49" not in _text(page)
    # the snippet was not included: the glossary's abbreviation lines are not in the page text
    assert "*[Zeta]" not in _text(page)
    assert not re.search(r"<table>\s*<thead>\s*<tr>\s*<th>a</th>", page), "a '| a |' text became a table"


@pytest.mark.parametrize("where", ["Regla ", "Celda ", "Nota "])
def test_rule_cell_and_catalog_texts_appear_as_written(tiny_site, where):
    text = _text(_page(tiny_site))
    assert where + HOSTILE_TEXT in text


def test_prose_appears_as_written(tiny_site):
    text = _text(_page(tiny_site))
    # prose may use **bold** (it is the prose syntax); everything else is literal
    for h in HOSTILE:
        if h != "**b**":
            assert h in text, h
    for line in ("*[x]: y", '--8<-- "includes/glosario.md"', "| a | b |", '!!! note "x"'):
        assert line in text


def test_catalog_name_is_escaped_in_its_row(tiny_site):
    page = _page(tiny_site)
    assert "Cosa &lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_glossary_tooltip_shows_the_definition_as_text(tiny_site):
    page = _page(tiny_site)
    m = re.search(r'<abbr title="([^"]*)">Zeta</abbr>', page)
    assert m, "the term 'Zeta' has no tooltip"
    assert html.unescape(m.group(1)) == "Definición " + HOSTILE_TEXT


def test_site_title_is_escaped(tiny_site):
    page = (tiny_site / "site" / "index.html").read_text(encoding="utf-8")
    assert "<title>Tiny {{ 7*7 }}</title>" in page


def test_highlighted_source_escapes_the_strings(tiny_site):
    """The rules source page shows the strings, escaped, inside highlighted tokens."""
    page = (tiny_site / "site" / "codigo-tiny.html").read_text(encoding="utf-8")
    assert '<span class="kd">rule</span>' in page
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
