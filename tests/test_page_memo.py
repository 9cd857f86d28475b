"""The page memo of ``rulebook serve`` never shows a stale page.

A copy of ``content/1936`` is built the way ``serve`` builds it (its remembering stages,
results kept across builds); then single edits are applied one after another — a data
cell of a seeded sample of the catalogs and tables, an entry's name, an enum value's
title, a record field's title, a special rule's text, a procedure's body, a worked
example's input, a paragraph of prose — and after each rebuild the docs/ written with
the memo (pages of earlier builds reused) are compared, file by file and byte for byte,
with docs/ written by the same build without any memo; and most pages were kept, and
most cards of the card pages rendered again. The
package's modules, generated again only where what they read changed
(:class:`rulebook.compiler.emit.python.to_python.ModuleMemo`), are compared with a fresh generation.
"""

from __future__ import annotations

import random
import re
import shutil

from conftest import CONTENT

SAMPLE = 24  # catalogs and tables whose data an edit changes (seeded)
SEED = 1936


def _tree(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


class _Checked:
    """``to_pages.write_docs`` that, when given a memo, also writes the same pages without
    one into a folder of its own and keeps both trees' differences."""

    def __init__(self, to_pages, scratch) -> None:
        self.write_docs = to_pages.write_docs
        self.scratch = scratch
        self.stale: list[tuple[str, list[str]]] = []
        self.label = ""
        self.reused = 0

    def __call__(self, program, out_dir, package, odds, memo=None, ahead=None, balance_ahead=None):
        self.write_docs(program, out_dir, package, odds, memo, ahead, balance_ahead)
        if memo is None:
            return
        fresh = self.scratch / "fresh"
        shutil.rmtree(fresh, ignore_errors=True)
        fresh.mkdir(parents=True)
        for sub in ("json", "schemas", "js"):  # what the data page publishes and the calculators load, as written by this build
            (fresh / sub).symlink_to(out_dir / sub, target_is_directory=True)
        self.write_docs(program, fresh, package, odds, None)
        with_memo, without = _tree(out_dir / "docs"), _tree(fresh / "docs")
        differ = sorted(set(with_memo) ^ set(without)) + [name for name in without if name in with_memo and with_memo[name] != without[name]]
        if differ:
            self.stale.append((self.label, differ))


def _data_edits(program, sources: dict[str, str], sample: int = SAMPLE) -> list[tuple[str, str, str, str]]:
    """(label, file, old, new): one number of one row, for a seeded sample of the catalogs and tables."""
    from rulebook.compiler import ir

    found = []
    for d in program.decls.values():
        if not isinstance(d, (ir.Catalog, ir.Table)) or d.span.file not in sources:
            continue
        lines = sources[d.span.file].splitlines(keepends=True)[d.span.line: d.span.end_line]
        for line in lines:
            m = re.search(r"\| *(\d+) *(?=\||$)", line.rstrip("\n"))
            if m and line.lstrip()[:1] not in ("#", "/"):
                number = m.group(1)
                new = line[:m.start(1)] + str(int(number) + 1) + line[m.end(1):]
                found.append((f"data of {type(d).__name__.lower()} {d.name}", d.span.file.rsplit("/", 1)[-1], line, new))
                break
    random.Random(SEED).shuffle(found)
    return found[:sample]


EDITS = [
    ("an entry's name", "02-costes-listas.rules", '"2 cm Flak 30"', '"2 cm Flak 30 (modelo tardío)"'),
    ("an enum value's title", "02-costes-listas.rules", '  dotacion "Dotación"', '  dotacion "Dotación de pieza"'),
    ("a record field's title", "02-costes-listas.rules", '  coste: int "Coste"', '  coste: int "Coste en puntos"'),
    ("a special rule's text", "03-reglas-especiales.rules", "Esta unidad está sobrecargada", "Esta unidad va sobrecargada"),
    ("a procedure's body", "06-disparo.rules", "require distancia <= 80,", "require distancia <= 79,"),
    ("an example's input", "06-disparo.rules", "given (distancia: 50)", "given (distancia: 51)"),
    # a word written many times over in one section: how names are spelt on other sections' pages
    ("a spelling in prose", "04-movimiento.rules", "influyen los elementos de movilidad en la táctica.",
     "influyen los elementos de movilidad en la táctica. " + "DISTANCIA, " * 80 + "fin."),
    ("prose of a section", "06-disparo.rules", "Esta sección sustituye al antiguo sistema de disparo.",
     "Esta sección sustituye al viejo sistema de disparo."),
]
"""Single edits of other kinds, one after another (label, file, old text, new text)."""


def _edit(path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_pages_kept_across_edits_are_the_pages_a_build_without_memo_writes(tmp_path, monkeypatch):
    from rulebook.compiler.pipeline import driver
    from rulebook.compiler.analysis import reads
    from rulebook.compiler.emit.site import to_pages
    from rulebook.compiler.emit.site.pages.datasheets import Cards
    from rulebook.compiler.emit.site.pages.memo import PageMemo
    from rulebook.compiler.emit.python import to_python
    from rulebook.compiler.commands.serve import Preview, _Remembering

    folder = tmp_path / "1936"
    shutil.copytree(CONTENT, folder)
    checked = _Checked(to_pages, tmp_path)
    monkeypatch.setattr(to_pages, "write_docs", checked)
    asked: list = []  # what the memo answered for each page of each rebuild (None: rendered again)
    reuse = PageMemo.kept

    def counted(memo, *args):
        page = reuse(memo, *args)
        asked.append(page)
        return page

    monkeypatch.setattr(PageMemo, "kept", counted)
    cards: dict[str, list[int]] = {}  # edit → cards of the card pages rendered again with the memo, and those not reused
    remembered, card = Cards.remembered_card, Cards.card

    def remembered_counted(self, *args):
        cards.setdefault(checked.label, [0, 0])[0] += self.remembered is not None
        return remembered(self, *args)

    def card_counted(self, *args):
        cards.setdefault(checked.label, [0, 0])[1] += self.remembered is not None
        return card(self, *args)

    monkeypatch.setattr(Cards, "remembered_card", remembered_counted)
    monkeypatch.setattr(Cards, "card", card_counted)
    preview = Preview(folder, tmp_path / "work", log=lambda text: None)

    def build() -> bool:
        stages = _Remembering(preview)
        with reads.across_builds():
            result = driver.build(folder, tmp_path / "out", site=False, stages=stages, base=None)  # as serve builds: the declared version
        preview.parsed = stages.parsed
        if result.ok:  # the package, generated module by module with the memo: as a fresh generation
            fresh = to_python.generate(result.program)
            written = _tree(tmp_path / "out" / "python")
            differ = [rel for rel, text in fresh.items() if written.get(rel) != text.encode("utf-8")]
            if differ:
                checked.stale.append((checked.label, differ))
        return result.ok

    assert build()
    program = driver.check(folder).program
    edits = _data_edits(program, program.sources)
    assert len(edits) >= 20
    edits += EDITS
    applied = []
    for label, file, old, new in edits:
        checked.label = label
        _edit(folder / file, old, new)
        if build():
            applied.append(label)
        else:  # the edit breaks a rule of the rulebook (a constraint): undone
            _edit(folder / file, new, old)
            assert build()
    assert len(applied) >= 20
    assert checked.stale == []
    assert sum(page is not None for page in asked) > 0.8 * len(asked)  # most pages were not rendered again
    entries = [counts for label, counts in cards.items() if label.startswith("data of catalog ") and counts[0]]
    assert entries and all(rendered <= 2 < asked for asked, rendered in entries)  # a catalog's data edit: its entry's card
