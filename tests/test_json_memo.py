"""The JSON memo of ``rulebook serve`` writes the bytes a fresh build writes.

A copy of ``content/1936`` is built the way ``serve`` rebuilds it (its remembering stages,
whose :class:`rulebook.compiler.emit.data.to_json.JsonMemo` keeps each schema's and document's text and
validation problems from one build to the next, and finds the unchanged files again in
``next/``), through a sequence of edits: a number of a catalog, a line of prose, added
lines (every later source position moves), an edit after which a document no longer fits
its schema (the compiler is made to write one: the checker lets no rulebook do that), a
second edit while it is broken, and the fix; then a number changed again in a build that
fails after writing its JSON (the disk full while the pages are written: ``next/`` keeps
the previous build), and the same JSON in the next build. After each build ``json/`` and ``schemas/``
written with the memo are compared, byte for byte, with those the same build writes without
one, and the problems with the problems; at the end with a fresh ``driver.build``. The
memo was used: a one-number edit serialises and validates a few documents, not all of them.
"""

from __future__ import annotations

import errno
import json
import re
import shutil

from conftest import CONTENT

PROSE = "Esta sección sustituye al antiguo sistema de disparo."
BROKEN = "Párrafo que rompe un documento."  # in a source, examples.json gets a property its schema refuses
DISK_FULL = "Párrafo escrito con el disco lleno."  # in a source, the disk is full when the pages are written


def _tree(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for sub in ("json", "schemas") for p in sorted((folder / sub).rglob("*")) if p.is_file()}


def _cost(row: str, cost: int) -> str:
    """The row with its cost 75 written ``cost`` (the cell's padding kept, however rulebook fmt aligned it)."""
    new = re.sub(r"\| 75( *)\|", lambda m: f"| {cost}{m.group(1)}|", row, count=1)
    assert new != row, row
    return new


def _edit(path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


class _Compared:
    """``to_json.write_all`` that, when given a memo, also writes the same build without one
    into a folder of its own and keeps what differs (files, problems) and the memo's counts."""

    def __init__(self, to_json, scratch) -> None:
        self.write_all = to_json.write_all
        self.scratch = scratch
        self.differ: list[tuple[str, list[str]]] = []
        self.counts: list[tuple[int, int, int]] = []  # (serialised, validated, linked) of each build
        self.problems: list[str] = []
        self.label = ""

    def __call__(self, program, out_dir, odds_tables=(), package=None, memo=None):
        odds_tables = list(odds_tables)
        problems = self.write_all(program, out_dir, odds_tables, package, memo)
        if memo is None:
            return problems
        self.counts.append((memo.serialised, memo.validated, memo.linked))
        self.problems = problems
        fresh = self.scratch / "fresh"
        shutil.rmtree(fresh, ignore_errors=True)
        fresh.mkdir(parents=True)
        expected = self.write_all(program, fresh, odds_tables, package)
        if expected != problems:
            self.differ.append((self.label, ["problems"]))
        elif not problems:
            with_memo, without = _tree(out_dir), _tree(fresh)
            names = sorted(set(with_memo) ^ set(without)) + [n for n in without if n in with_memo and with_memo[n] != without[n]]
            if names:
                self.differ.append((self.label, names))
        return problems


def test_json_and_schemas_kept_across_edits_are_a_fresh_builds(tmp_path, monkeypatch):
    from rulebook.compiler.pipeline import driver
    from rulebook.compiler.analysis import reads
    from rulebook.compiler.emit.data import to_json
    from rulebook.compiler.emit.site import to_pages
    from rulebook.compiler.commands.serve import Preview, _Remembering

    folder = tmp_path / "1936"
    shutil.copytree(CONTENT, folder)
    compared = _Compared(to_json, tmp_path)
    monkeypatch.setattr(to_json, "write_all", compared)
    documents = to_json.documents

    def with_a_bug(program, *args):
        docs = documents(program, *args)
        if any(BROKEN in text for text in program.sources.values()):
            docs["examples.json"]["fuera_del_esquema"] = True
        return docs

    monkeypatch.setattr(to_json, "documents", with_a_bug)
    write_docs = to_pages.write_docs

    def disk_full(program, out_dir, *args):
        if any(DISK_FULL in text for text in program.sources.values()):
            raise OSError(errno.ENOSPC, "No space left on device", str(out_dir / "docs"))
        return write_docs(program, out_dir, *args)

    monkeypatch.setattr(to_pages, "write_docs", disk_full)
    preview = Preview(folder, tmp_path / "work", log=lambda text: None)

    def build(label: str) -> bool:
        compared.label = label
        stages = _Remembering(preview)
        with reads.across_builds():
            result = driver.build(folder, preview.next, site=False, stages=stages, base=None)  # as serve builds: the declared version
        preview.parsed = stages.parsed
        return result.ok

    costs = folder / "02-costes-listas.rules"
    row = next(line for line in costs.read_text(encoding="utf-8").splitlines() if line.split("|")[0].strip() == "n_flak_30_20")
    assert build("first")
    files = len(_tree(preview.next))
    assert build("nothing changed")
    assert compared.counts[-1][0] <= 2 and compared.counts[-1][2] >= files - 2  # the bundle and the manifest, at most
    _edit(costs, row, _cost(row, 76))
    assert build("a number")
    serialised, validated, linked = compared.counts[-1]
    assert 0 < serialised < 10 and 0 < validated < 7 and linked > files - 10  # with logic.json and changelog.json (its content hash)
    assert b'"coste": 76' in (preview.next / "json" / "antiaereos_nacionales.json").read_bytes()
    _edit(folder / "06-disparo.rules", PROSE, PROSE.replace("antiguo", "viejo"))
    assert build("a line of prose")
    _edit(folder / "06-disparo.rules", PROSE.replace("antiguo", "viejo"), PROSE + "\n\nUn párrafo.\n\nY otro más.")
    assert build("added lines")
    _edit(folder / "06-disparo.rules", "Y otro más.", BROKEN)
    assert not build("a broken document")
    assert compared.problems and all(p.startswith("json/examples.json: ") for p in compared.problems)
    assert "fuera_del_esquema" in compared.problems[0]
    _edit(costs, _cost(row, 76), row)
    assert not build("a number while broken")
    assert compared.counts[-1][1] < 5
    _edit(folder / "06-disparo.rules", BROKEN, "Y otro más.")
    assert build("fixed")
    three = _cost(row, 77)
    _edit(costs, row, three)
    _edit(folder / "06-disparo.rules", "Y otro más.", DISK_FULL)
    assert not build("the disk full")
    assert b'"coste": 75' in (preview.next / "json" / "antiaereos_nacionales.json").read_bytes()
    _edit(folder / "06-disparo.rules", DISK_FULL, "Y otro más.")
    assert build("the same number again")
    assert b'"coste": 77' in (preview.next / "json" / "antiaereos_nacionales.json").read_bytes()
    assert compared.differ == []
    fresh = driver.build(folder, tmp_path / "fresh", site=False)
    assert fresh.ok
    tree = _tree(tmp_path / "fresh")
    assert _tree(preview.next) == tree
    bundle = json.loads(tree["json/rulebook.json"])  # written from its parts' texts: as json.dumps writes it
    assert tree["json/rulebook.json"] == (json.dumps(bundle, ensure_ascii=False, indent=2) + "\n").encode()
    assert bundle["catalogs"]["antiaereos_nacionales"] == json.loads(tree["json/antiaereos_nacionales.json"])


def test_a_document_holding_documents_already_written_reads_as_json_dumps_writes_it():
    from rulebook.compiler.emit.data import to_json

    part = {"a": [1, 2.5, {"b": "línea\nsegunda"}], "c": {}}
    odd = {"t": (1, 2)}  # not plain data: json.dumps writes it
    written = {"x.json": (part, to_json.dumps(part)), "o.json": (odd, to_json.dumps(odd))}
    for doc in ({"x": part, "y": {"x": part, "w": [part]}}, {"x": dict(part), "z": part}, {"x": part, "o": odd}):
        assert to_json.dumps(doc, written) == json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def test_a_kept_verdict_needs_the_same_value_of_the_same_type_against_the_same_schemas():
    """``True == 1`` and ``{"a": 1, "b": 2} == {"b": 2, "a": 1}`` in Python; not in a JSON
    file or for a JSON Schema. A schema that changes validates every document again."""
    from rulebook.compiler.emit.data import to_json

    schema_id = "https://rulebook.invalid/x/1/schemas/x.schema.json"
    memo = to_json.JsonMemo()

    def build(kind: str, doc: dict) -> tuple[list[str], str, int, int]:
        memo.begin()
        schema = {"$id": schema_id, "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                  "properties": {"$schema": {"type": "string"}, "a": {"type": kind}, "b": {}}}
        schemas = {"x.schema.json": memo.schema("x.schema.json", schema)}
        problems = to_json.validate({"d.json": doc}, schemas, memo)
        text = memo.text("json/d.json", doc)
        memo.end()
        return problems, text, memo.validated, memo.serialised

    one = {"$schema": schema_id, "a": 1, "b": 2}
    assert build("integer", one) == ([], to_json.dumps(one), 1, 1)
    assert build("integer", dict(one)) == ([], to_json.dumps(one), 0, 0)
    true = {"$schema": schema_id, "a": True, "b": 2}
    assert build("integer", true) == (["json/d.json: $.a: True is not of type 'integer'"], to_json.dumps(true), 1, 1)
    assert build("integer", one)[2:] == (1, 1)
    swapped = {"$schema": schema_id, "b": 2, "a": 1}
    assert build("integer", swapped) == ([], to_json.dumps(swapped), 1, 1)
    assert build("string", swapped) == (["json/d.json: $.a: 1 is not of type 'string'"], to_json.dumps(swapped), 1, 0)
