"""The memos behind ``rulebook serve``'s Python and docs stages give what a build without them gives.

* :class:`rulebook.compiler.emit.python.to_python.ModuleMemo` (a generated module, or a piece of one, is kept
  while what it read is unchanged): a copy of ``content/1936`` is checked after each of a series
  of single edits (a data cell of a seeded sample of the catalogs and tables, a paragraph that
  moves every declaration below it, a procedure's body, a requirement that cites one more
  position, a worked example's input, titles, a special rule's text, a new constant, a renamed
  entry) and the modules the memo gives are compared, byte for byte, with
  :func:`rulebook.compiler.emit.python.to_python.generate`'s; a catalog's data edit generates only
  ``data.py`` and ``__init__.py``. A memo that misses a read is caught by the same comparison.
* :func:`rulebook.compiler.support.memo.pickled` (the digests every memo compares) tells apart
  values that differ in one field, wherever it is, and writes types with their own pickling
  their own way.
* :mod:`rulebook.compiler.analysis.reads`' keys are the keys of the plain search of what each worked
  example and odds table reaches (the definitions' graph walked from each, no bit masks).
* The spellings the page memo keeps after an edit of the text are the edited text's, and the
  scan that finds the first ones again finds what the word index finds.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import re
import shutil

import pytest

from conftest import CONTENT
from test_page_memo import EDITS, SEED, _data_edits, _edit

SAMPLE = 12  # catalogs and tables whose data an edit changes (seeded)


class _Parses:
    """Parsing as ``serve`` does it: a file whose text was parsed before is not parsed again."""

    def __init__(self) -> None:
        from rulebook.compiler.pipeline import driver

        self.stages = driver.Stages()
        self.done: dict = {}
        self.stages.parse = self.parse

    def parse(self, text: str, filename: str):
        from rulebook.rules_dsl.parser import parse

        if (text, filename) not in self.done:
            self.done[(text, filename)] = parse(text, filename)
        module, diags = self.done[(text, filename)]
        return module, list(diags)


def _digests(program):
    from rulebook.compiler.support.memo import pickled

    parts = [pickled(value) for value in (program.rulebook, *program.decls.items(), *program.examples)]
    assert None not in parts
    digests = [hashlib.sha256(part).digest() for part in parts]
    return dict(zip(program.decls, digests[1:])), digests[1 + len(program.decls):], digests[0]


OTHER_EDITS = [
    ("a paragraph that moves what follows", "06-disparo.rules", "Esta sección sustituye al antiguo sistema de disparo.",
     "Esta sección sustituye al antiguo sistema de disparo.\n\nPárrafo añadido."),
    *EDITS[:6],
    # one more position cited: the procedures after it in procedures.py cite theirs under other numbers
    ("a requirement added", "06-disparo.rules", "    require distancia <= 79,",
     '    require distancia >= 0, "Distancia negativa"\n    require distancia <= 79,'),
    *EDITS[6:],
    ("a new constant", "06-disparo.rules", "### 1. Modos de fuego",
     'const alcance_de_prueba "Alcance de prueba" = 7\n\n### 1. Modos de fuego'),
]


def _run_edits(folder) -> tuple[list[str], list[tuple[str, list[str]]], dict[str, list[str]]]:
    """Apply the edits one after another; after each, the memo's modules against a fresh
    generation. Returns the edits applied, the stale modules of each, and the modules each generated."""
    from rulebook.compiler.pipeline import driver
    from rulebook.compiler.emit.python import to_python

    parses, memo = _Parses(), to_python.ModuleMemo()

    def generated() -> tuple[bool, list[str]]:
        result = driver.check(folder, parses.stages)
        if not result.ok:
            return False, []
        program = result.program
        with_memo = memo.generate(program, *_digests(program))
        fresh = to_python.generate(program)
        return True, sorted(set(with_memo) ^ set(fresh)) + [rel for rel in fresh if rel in with_memo and with_memo[rel] != fresh[rel]]

    ok, differ = generated()
    assert ok and differ == []
    program = driver.check(folder, parses.stages).program
    applied, stale, regenerated = [], [], {}
    for label, file, old, new in _data_edits(program, program.sources, SAMPLE) + OTHER_EDITS:
        _edit(folder / file, old, new)
        ok, differ = generated()
        if not ok:  # the edit breaks a rule of the rulebook (a constraint): undone
            _edit(folder / file, new, old)
            assert generated()[0]
            continue
        applied.append(label)
        regenerated[label] = list(memo.generated)
        if differ:
            stale.append((label, differ))
    return applied, stale, regenerated


def test_modules_kept_across_edits_are_the_modules_a_fresh_generation_writes(tmp_path):
    folder = tmp_path / "1936"
    shutil.copytree(CONTENT, folder)
    applied, stale, regenerated = _run_edits(folder)
    assert len(applied) >= 15
    assert stale == []
    catalogs = [names for label, names in regenerated.items() if label.startswith("data of catalog ")]
    # the resolvers do not read a catalog's data; types.py reads its ids (the Literal of a ref's ids, for type checkers),
    # matchups.py the ids of the catalogs a matchup pairs
    assert catalogs and all(names in (["types", "data", "__init__"], ["types", "data", "matchups", "__init__"]) for names in catalogs)
    assert "procedures" in regenerated["a procedure's body"] and "examples" in regenerated["an example's input"]
    # the content hash: nothing else read the prose (matchups.py, a few lines per matchup, is written again on every edit)
    assert [name for name in regenerated["prose of a section"] if name != "matchups"] == ["__init__"]


MISSED = {
    # the worked examples read without being noted: an example's edit keeps examples.py
    "examples": ("program_views", "NotedProgram", "examples", property(lambda self: self.program.examples), "examples.py"),
    # a declaration read by name compared by nothing: a catalog's data edit keeps its lines of data.py
    "declarations": ("program_views", "ReadDigests", "of", lambda self, read: b"same" if read[0] == "decl" else self._digest(read), "data.py"),
    # the numbers a kept procedure cites positions by taken as they were: procedures.py keeps old numbers
    "numbers": ("generation", "Citations", "replayable", lambda self, journal: True, "procedures.py"),
}


@pytest.mark.parametrize("missed", sorted(MISSED))
def test_a_module_memo_that_misses_a_read_is_caught(tmp_path, monkeypatch, missed):
    """The comparison above fails when the memo misses a read."""
    import importlib

    module_name, owner, attribute, replacement, module = MISSED[missed]
    emitter_module = importlib.import_module(f"rulebook.compiler.emit.python.{module_name}")
    monkeypatch.setattr(getattr(emitter_module, owner), attribute, replacement)
    folder = tmp_path / "1936"
    shutil.copytree(CONTENT, folder)
    _applied, stale, _regenerated = _run_edits(folder)
    assert any(rel.endswith("/" + module) for _label, differ in stale for rel in differ)


# ---------------------------------------------------------------------------- pickled


@dataclasses.dataclass(frozen=True, slots=True)
class Leaf:
    name: str
    value: int = 0
    hidden: int = dataclasses.field(default=0, compare=False)


@dataclasses.dataclass(frozen=True, slots=True)
class Node:
    kind: str
    children: tuple = ()
    leaf: Leaf | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Empty:
    pass


@dataclasses.dataclass(frozen=True, slots=True)
class OwnPickling:
    """Pickled by its own ``__reduce__`` (which keeps only ``kept``): written that way."""

    kept: int
    dropped: int

    def __reduce__(self):
        return OwnPickling, (self.kept, 0)


def _tree(leaf_value: int = 1, hidden: int = 0, name: str = "b", kind: str = "root") -> Node:
    return Node(kind, (Node("x", (), Leaf("a", 1)), Node("y", (Empty(),), Leaf(name, leaf_value, hidden))), Leaf("c", 3))


def test_pickled_tells_apart_values_that_differ_in_one_field_anywhere():
    from rulebook.compiler.support.memo import pickled

    base = pickled(_tree())
    assert base is not None and pickled(_tree()) == base  # equal values, equal bytes
    variants = [_tree(leaf_value=2), _tree(hidden=5), _tree(name="B"), _tree(kind="raíz"),
                Node("root", (Node("x", (), Leaf("a", 1)),), Leaf("c", 3)), [_tree()], (_tree(),)]
    found = [pickled(v) for v in variants]
    assert None not in found and len(set(found) | {base}) == len(variants) + 1
    shared = Leaf("s", 1)
    assert pickled(Node("r", (shared, shared))) == pickled(Node("r", (Leaf("s", 1), Leaf("s", 1))))  # sharing does not count
    assert pickled(Empty()) != pickled(Leaf("", 0))


def test_pickled_writes_a_type_with_its_own_pickling_its_own_way():
    import copyreg
    from fractions import Fraction

    from rulebook.compiler.support.memo import pickled

    assert pickled(OwnPickling(1, 2)) == pickled(OwnPickling(1, 3))  # what its __reduce__ keeps
    assert pickled(OwnPickling(1, 2)) != pickled(OwnPickling(2, 2))
    assert pickled(Fraction(1, 3)) != pickled(Fraction(2, 3))
    assert complex in copyreg.dispatch_table
    assert pickled(complex(1, 2)) != pickled(complex(1, 3))
    assert pickled(lambda: 0) is None  # does not pickle


# ---------------------------------------------------------------------------- reads


def _plain_key(graph, modules, *roots) -> str | None:
    """A key of :mod:`rulebook.compiler.analysis.reads` worked out by walking the graph from each root."""

    def reach(names) -> set[int]:
        seen: set[int] = set()
        todo = [i for n in names for i in graph.defining.get(n, ())]
        while todo:
            i = todo.pop()
            if i not in seen:
                seen.add(i)
                todo.extend(j for n in graph.uses[i] for j in graph.defining.get(n, ()))
        return seen

    roots_used = set()
    for m in modules:
        roots_used |= m.roots
    digest = hashlib.sha256(graph.global_digest.encode())
    reached = reach(roots_used)
    for registry, which in roots:
        element = graph.elements.get(registry, {}).get(which)
        if element is None:
            return None
        digest.update(f"{registry}\0{which!r}\0{element[0]}\0".encode())
        reached |= reach(element[1])
    for d in sorted(graph.digests[i] for i in reached):
        digest.update(d.encode())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def built_package(tmp_path_factory):
    from rulebook.compiler.pipeline import driver, pyload

    out = tmp_path_factory.mktemp("reads") / "build"
    assert driver.build(CONTENT, out, site=False).ok
    return pyload.load_package(out / "python")


def test_reads_keys_are_those_of_a_plain_walk_of_the_graph(built_package, monkeypatch):
    from pathlib import Path

    from rulebook.compiler.analysis import reads

    modules = []
    for path in sorted(Path(built_package.__file__).parent.glob("*.py")):
        data = path.read_bytes()
        modules.append(reads._module(reads._CONTENT_HASH.sub(b"CONTENT_HASH = None", reads.POSITION.sub(b".rules:#", data))))
    graph = reads._Graph(modules)
    examples = built_package.examples.EXAMPLES
    roots = [(("EXAMPLES", i), ("PROCEDURES", ex.procedure)) for i, ex in enumerate(examples)]
    roots += [(("ODDS", i),) for i in range(len(built_package.odds.ODDS))] + [(("ODDS", 10**6),)]
    keys = [graph.key(*r) for r in roots]
    assert keys == [_plain_key(graph, modules, *r) for r in roots]
    assert keys[-1] is None and len(set(keys[:-1])) > len(examples) // 2  # examples read different code
    with reads.across_builds():
        built_package.__dict__.pop("__rulebook_reads__", None)
        reads._LAST[:] = [None, (None, None)]
        assert reads.example_keys(built_package) == keys[:len(examples)]


def test_reach_masks_follow_cycles_and_chains():
    from rulebook.compiler.analysis.reads import _reach_masks

    # 0 → 1 → 2 → 0 (a cycle), 2 → 3, 4 alone, 5 → 4, 6 → 6
    edges = [[1], [2], [0, 3], [], [], [4], [6]]
    masks = _reach_masks(edges)
    members = [{i for i in range(len(edges)) if m >> i & 1} for m in masks]
    assert members == [{0, 1, 2, 3}, {0, 1, 2, 3}, {0, 1, 2, 3}, {3}, {4}, {4, 5}, {6}]
    chain = [[i + 1] for i in range(5000)] + [[]]  # deep: no recursion limit
    assert _reach_masks(chain)[0] == (1 << 5001) - 1


# ---------------------------------------------------------------------------- spellings after an edit


def test_spellings_reused_after_an_edit_are_those_of_the_edited_text(program):
    """``rulebook serve`` keeps a spelling found in the previous text when the words it looks for
    are not written where the edit changed the text (:meth:`rulebook.compiler.emit.site.pages.reading.NotedReadable._unchanged`).
    Seeded edits of the rulebook's text — a phrase written again, a word deleted, an accent
    changed, two words joined or split, a line break added, a dash between two words deleted
    (which makes them a phrase) — and every spelling the pages ask for, and the phrases around
    those dashes: each answer kept from the previous text is the edited text's own answer."""
    from rulebook.compiler.emit.site.pages.memo import PageReads
    from rulebook.compiler.emit.site.pages.reading import NotedReadable
    from rulebook.compiler.emit.site.readable import Readable, fold, words_of

    def reading(text: str, previous=None):
        r = NotedReadable(program, PageReads())
        r._corpus, r._folded = text, fold(text)
        r.previous = previous
        return r

    text = Readable(program)._text()[0]
    rng = random.Random(SEED)
    dashes = rng.sample(list(re.finditer(r"(\w+)\s+([^\w\s]+)\s+(\w+)", text)), 12)
    phrases = sorted({tuple(words_of(name)) for name in program.decls} | {(m.group(1), m.group(3)) for m in dashes})
    words = sorted({w for phrase in phrases for w in phrase} | {"maximas", "sistemas", "disparos", "cobertura"})
    queries = [("spelling", p) for p in phrases] + [("word", w) for w in words]
    base = reading(text)
    answers = {q: base._known(q[0], q[1], getattr(Readable, q[0]).__get__(base)) for q in queries}
    tokens = [m for m in re.finditer(r"\w+", text)]
    kept = checked = 0
    for n in range(42):
        m = tokens[rng.randrange(len(tokens))]
        kind = n % 7
        if kind == 0:  # a phrase written again, in another spelling
            phrase = " ".join(rng.choice(phrases))
            new = text[:m.start()] + phrase.upper() + " " + text[m.start():]
        elif kind == 1:  # a word deleted
            new = text[:m.start()] + text[m.end():]
        elif kind == 2:  # an accent
            word = m.group().replace("a", "á", 1).replace("o", "ó", 1)
            new = text[:m.start()] + word + text[m.end():]
        elif kind == 3:  # joined to the next word
            after = text.find(" ", m.end())
            new = text[:after] + text[after + 1:] if after > 0 else text + "x"
        elif kind == 4:  # split
            new = text[:m.start() + 1] + " " + text[m.start() + 1:]
        elif kind == 5:  # a line break
            new = text[:m.end()] + "\n" + text[m.end():]
        else:  # the dash between two words
            dash = dashes[n // 7]
            new = text[:dash.start(2)] + text[dash.end(2):]
        edited = reading(new, (text, answers))
        fresh = reading(new)
        for query, arg in queries:
            got = edited._known(query, arg, getattr(Readable, query).__get__(edited))
            kept += edited._unchanged(query, arg)
            checked += 1
            assert got == fresh._known(query, arg, getattr(Readable, query).__get__(fresh)), (n, query, arg)
    assert kept > 0.9 * checked  # most answers are kept


def test_a_scan_of_the_text_finds_what_its_word_index_finds(program):
    """After an edit, the first spellings looked up again scan the text (``reading.TextScan``) rather
    than index it: the same counts, for every declaration's name, its words and their stems, and
    words written in a row many times over (matches do not overlap)."""
    from rulebook.compiler.emit.site.pages.reading import TextScan
    from rulebook.compiler.emit.site.readable import Readable, _WordIndex, fold, words_of

    corpus, folded = Readable(program)._text()
    corpus += "\nuna una una una. la la la"
    folded = fold(corpus)
    scan, index = TextScan(corpus, folded), _WordIndex(corpus, folded)
    phrases = {tuple(fold(w) for w in words_of(name)) for name in program.decls} | {("una", "una"), ("la", "la", "la"), ("a",)}
    for words in sorted(phrases):
        assert scan.phrase(list(words)) == index.phrase(list(words)), words
    stems = {w[:max(4, len(w) - 2)] for words in phrases for w in words if "_" not in w and len(w) >= 4}
    for stem in sorted(stems):
        assert scan.kin(stem) == index.kin(stem), stem
    assert scan.phrase(["una", "una"])["una una"] >= 2
