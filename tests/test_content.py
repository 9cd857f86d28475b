"""The bundled rulebook: `rulebook check` reports exactly the manual's
inconsistencies that the content deliberately keeps (each with a position)."""

from __future__ import annotations

from conftest import DATA, compare_golden


def test_check_reports_exactly_the_deliberate_warnings(checked, update_goldens):
    assert checked.ok
    assert all(d.span.line > 0 and d.span.col > 0 for d in checked.diagnostics)
    # positions are checked above; the golden leaves line numbers out so that
    # editing the prose above a warning does not break it
    lines = sorted(f"{d.span.file}: {d.code}: {d.message}" for d in checked.diagnostics)
    compare_golden("\n".join(lines) + "\n", DATA / "deliberate_warnings.txt", update_goldens)


def test_catalog_counts(program):
    from rulebook.compiler import ir

    units = [c for c in program.catalogs.values() if c.record.startswith("Unidad")]
    assert sum(len(c.entries) for c in units if c.status != "deferred") == 123
    assert sum(len(c.entries) for c in units) == 134  # with the 11 deferred aircraft
    assert len(program.of(ir.Rule)) == 60
    assert len(program.catalogs["perfiles_armas"].entries) == 38
    assert len(program.catalogs["perfiles_tiro_indirecto"].entries) == 14
