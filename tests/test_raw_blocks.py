"""Blocks of finished HTML skip Python-Markdown (compiler/emit/site/mkdocs_raw.py) and the site is
the same as when Markdown passed them through.

The rules source listings are marked by the page generator (``markdown.verbatim``) and
taken out of the page by the ``rulebook-raw`` MkDocs plugin. A build's site must be
byte-identical to the site MkDocs makes from the same pages without the markers and
without the plugin, which is what the site was before; rules text that spells the
markers or the placeholders (in prose, strings, comments, a term, the file name) must
reach the pages escaped, never as a marker; the listing's line anchors must still count
for MkDocs' link checks; a marker out of place is a build error, not a different page.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from conftest import ROOT
from rulebook.compiler.pipeline import driver
from rulebook.compiler.emit.site import to_pages
from rulebook.compiler.emit.site.markdown import VERBATIM_CLOSE, VERBATIM_OPEN, verbatim
from rulebook.compiler.emit.site.mkdocs_raw import put_back, take_out

MARKERS = f"{VERBATIM_OPEN} {VERBATIM_CLOSE} <!--rb-verbatim:0--> <!--rb-verbatim:7-->"
HOSTILE_NAME = f"{VERBATIM_OPEN}tiny.rules"

# Markers in the title, a section heading, prose (with tabs: Markdown expands them), a
# comment, a rule's text (with a tab) and a glossary term (appended to every page).
RULEBOOK = f"""```rules
rulebook tiny "Tiny {MARKERS}" version "1.0" lang "es"
section I "Hostil {MARKERS}"
```

Prosa {MARKERS} y Zeta.
\tCon\ttabuladores {MARKERS}

{MARKERS}

```rules
# comentario {MARKERS}
rule reglita "Regla {MARKERS}" {{
  "Texto\t{MARKERS}"
}}

term zeta "Zeta" "Definición {MARKERS}"
```
"""

PLUGIN_LINE = "plugins:\n  - rulebook-raw\n"


def _build(src: Path, out: Path) -> Path:
    result = driver.build(src, out, site=True)
    assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
    return out


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _pages(build: Path) -> list[Path]:
    """The Markdown pages (not the glossary include: it is not a page, and the snippets
    extension appends it to each page after the plugin has taken the blocks out)."""
    return [p for p in sorted((build / "docs").rglob("*.md")) if "includes" not in p.relative_to(build / "docs").parts]


def _copy_for_mkdocs(build: Path, dest: Path) -> Path:
    """The build's pages, overrides and mkdocs.yml in ``dest``, ready for :func:`to_pages.run_mkdocs`."""
    dest.mkdir()
    shutil.copytree(build / "docs", dest / "docs")
    shutil.copytree(build / "overrides", dest / "overrides")
    shutil.copy2(build / "mkdocs.yml", dest / "mkdocs.yml")
    return dest


def _site_without_the_plugin(build: Path, dest: Path) -> Path:
    """The site MkDocs makes from the build's pages with the markers removed and no plugin."""
    copy = _copy_for_mkdocs(build, dest)
    config = (copy / "mkdocs.yml").read_text(encoding="utf-8")
    assert PLUGIN_LINE in config
    (copy / "mkdocs.yml").write_text(config.replace(PLUGIN_LINE, "plugins: []\n"), encoding="utf-8")
    for page in _pages(copy):
        text = page.read_text(encoding="utf-8")
        page.write_text(text.replace(VERBATIM_OPEN, "").replace(VERBATIM_CLOSE, ""), encoding="utf-8")
    assert to_pages.run_mkdocs(copy) is None
    return copy / "site"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("hostile")
    (src / HOSTILE_NAME).write_text(RULEBOOK, encoding="utf-8")
    return _build(src, tmp_path_factory.mktemp("hostile_out") / "build")


def test_only_the_generator_writes_markers(hostile):
    """The listing is the one marked block; every marker the rules spell reaches the pages escaped."""
    pages = {p.name: p.read_text(encoding="utf-8") for p in _pages(hostile)}
    listings = [name for name in pages if name.startswith("codigo-")]
    assert len(listings) == 1
    for name, text in pages.items():
        expected = 1 if name in listings else 0
        assert (text.count(VERBATIM_OPEN), text.count(VERBATIM_CLOSE)) == (expected, expected), name
    listing = pages[listings[0]]
    assert listing.count("&lt;!--rb-verbatim--&gt;") >= 5  # file name, title, section, prose, comment, rule, term
    for page in (hostile / "site").rglob("*.html"):
        assert "<!--rb-verbatim" not in page.read_text(encoding="utf-8"), page.name


def test_hostile_site_is_the_site_markdown_makes(hostile, tmp_path):
    assert _files(hostile / "site") == _files(_site_without_the_plugin(hostile, tmp_path / "plain"))


def test_bundled_site_is_the_site_markdown_makes(tmp_path):
    build = _build(ROOT / "content" / "napoleonico", tmp_path / "build")
    listings = sorted((build / "docs").glob("codigo-*.md"))
    assert listings and all(VERBATIM_OPEN in p.read_text(encoding="utf-8") for p in listings)
    assert _files(build / "site") == _files(_site_without_the_plugin(build, tmp_path / "plain"))


def test_links_to_listing_lines_are_checked_against_its_anchors(hostile, tmp_path):
    """MkDocs' link check (validation.links.anchors: warn, --strict) finds the lines of the
    listing although Markdown never sees it: a link to a line passes, one to a line that does
    not exist is refused. (Without --quiet: with it MkDocs drops the warnings --strict counts.)"""
    listing = next((hostile / "docs").glob("codigo-*.md")).name
    for line, ok in (("L3", True), ("L999", False)):
        copy = _copy_for_mkdocs(hostile, tmp_path / line)
        index = copy / "docs" / "index.md"
        index.write_text(index.read_text(encoding="utf-8") + f"\n[línea]({listing}#{line})\n", encoding="utf-8")
        proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(copy / "mkdocs.yml")],
                              capture_output=True, text=True, cwd=copy, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
        assert (proc.returncode == 0) == ok, proc.stderr
        assert (f"does not contain an anchor '#{line}'" in proc.stderr) != ok, proc.stderr


def test_markers_out_of_place_are_errors():
    block = verbatim("<p>x</p>")
    assert take_out(f"# T\n\n{block}\n") == ("# T\n\n<!--rb-verbatim:0-->\n", ["<p>x</p>"])
    for page in (f"# T\n{block}\n", f"# T\n\n{block}\ntext\n", f"- item\n\n    {block}\n", f"# T\n\n{VERBATIM_OPEN}<p>x</p>\n",
                 f"# T\n\n<p>x</p>{VERBATIM_CLOSE}\n", f"# T\n\n{VERBATIM_OPEN}<p>{block}</p>{VERBATIM_CLOSE}\n"):
        with pytest.raises(PluginError):
            take_out(page)
    for block in (f"<p>{VERBATIM_OPEN}</p>", "<p>x</p>\n\n<p>y</p>", "<p>x\ny</p>", "<p>x</p>\n", "x"):
        with pytest.raises(ValueError):
            verbatim(block)


def test_a_placeholder_markdown_did_not_keep_is_an_error():
    assert put_back("<h1>T</h1>\n<!--rb-verbatim:0-->", ["<p>x</p>"]) == "<h1>T</h1>\n<p>x</p>"
    for html in ("<h1>T</h1>", "<!--rb-verbatim:0--><!--rb-verbatim:0-->", "<!--rb-verbatim:1-->"):
        with pytest.raises(PluginError):
            put_back(html, ["<p>x</p>"])
