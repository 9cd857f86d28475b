"""Issue 9: the bundled Napoleonic rulebook (``content/napoleonico``) checks, tests and builds.

Checks it (no errors; exactly the warnings listed, without line numbers, in
``tests/data/napoleonico_warnings.txt``), runs every worked example over exact
distributions with the compiled resolvers, and builds it once per session with the
site, whose pages must show the «No jugable» mark of the charts the seed cites
without giving them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import DATA, ROOT, build_rulebook, compare_golden

CONTENT = ROOT / "content" / "napoleonico"


@pytest.fixture(scope="module")
def checked():
    from rulebook.compiler.pipeline import driver

    result = driver.check(CONTENT)
    assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
    return result


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return build_rulebook(tmp_path_factory, CONTENT, "napoleonico", site=True)[1]


def test_check_reports_only_the_listed_warnings(checked, update_goldens):
    assert all(d.span.line > 0 and d.span.col > 0 for d in checked.diagnostics)
    lines = sorted(f"{d.span.file}: {d.code}: {d.message}" for d in checked.diagnostics)
    compare_golden("".join(f"{line}\n" for line in lines), DATA / "napoleonico_warnings.txt", update_goldens)


def test_every_example_passes(checked):
    from rulebook.compiler.pipeline import pyload
    from rulebook.compiler.analysis.examples import run_examples

    results = run_examples(pyload.compile_and_load(checked.program))
    assert len(results) >= 100
    failed = [f"{r.procedure}: {r.title} ({r.src}): {r.failures or r.error}" for r in results if not r.ok]
    assert not failed, "\n".join(failed)


def test_build_writes_the_site_with_the_not_playable_marks(built):
    site = built / "site"
    assert (site / "index.html").exists()
    pages = {p.name: p.read_text(encoding="utf-8") for p in site.glob("*.html")}
    fire = next(text for name, text in pages.items() if name.startswith("05-"))
    assert "No jugable" in fire and "Carta de Fuego de Combate" in fire
    density = next(text for name, text in pages.items() if name.startswith("03-"))
    assert "No jugable" in density
    assert not any("No jugable" in text for name, text in pages.items() if name.startswith(("01-", "07-")))
    assert (built / "json" / "manifest.json").exists()
    assert (built / "python" / "napoleonico" / "__init__.py").exists()
