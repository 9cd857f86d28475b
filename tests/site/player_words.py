"""What a player reads on a built site, searched for the rulebook's code names and for doubled words.

Reads a checked rulebook (its IR: :class:`rulebook.compiler.ir.Program`) and the HTML
pages of its built site (``build/site``); produces :class:`Finding` objects, one per
code name (a declaration, field, enum value, table key or column, parameter, local
value or entry id written as the rules file spells it) or doubled word found in the
text a player reads. That text is each page's ``<article>`` minus the "Detalles
técnicos" blocks (class ``rb-tech``) and code listings (``<pre>``); the pages that
show code on purpose (the rules source, the data for tools, the designers' page) are
left out.

A name counts as code when a player could not mistake it for a word: it holds an
underscore or a capital after a small letter (``valor_apilado``, ``BajasMaximas``),
or it is written nowhere in the rulebook's own words (its prose, titles, notes and
labels), as ``inf`` or ``stack``. Names that are also words (``moral``) are never
flagged, nor names the manual's own table cells print (``tabla_danos_componentes``
in 1936's «Daño a Vehículos»: data kept as printed). Doubled words are one to three
words written twice in a row, unless the rulebook's prose writes them so (a double
surname in the credits).

Entry point: :func:`scan`. Also runnable: ``python tests/site/player_words.py
content/napoleonico build/napoleonico/site`` prints every finding.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from rulebook.compiler import ir
from rulebook.compiler.ir import walk
from rulebook.compiler.ir.types import T

CODE_PAGES = ("codigo-", "source-")  # the rules source, one page per file (English addresses: source-)
TOOL_PAGES = ("datos.html", "data-for-tools.html", "disenadores.html", "designers.html", "404.html")
HIDDEN_CLASSES = {"rb-tech", "headerlink"}
HIDDEN_TAGS = {"pre", "script", "style", "template"}
BLOCK_CLASSES = {"rb-tile"}  # links shown as boxes (the home page's tiles)
BLOCK_TAGS = {"p", "li", "td", "th", "dt", "dd", "div", "br", "h1", "h2", "h3", "h4", "h5", "h6", "tr",
              "table", "ul", "ol", "summary", "details", "caption", "figcaption", "blockquote", "section", "hr"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass(frozen=True)
class Finding:
    """One problem: on ``page``, ``what`` (the code name or the doubled words), ``kind`` and the text around it."""

    page: str
    what: str
    kind: str
    context: str
    where: str = ""  # the site's classes around the text (rb-steps: a procedure's steps)

    def __str__(self) -> str:
        return f"{self.page}: {self.kind} «{self.what}» in «{self.context}»" + (f" [{self.where}]" if self.where else "")


# ---------------------------------------------------------------------------- the rulebook's names


def code_names(program: ir.Program) -> dict[str, str]:
    """Every name the rules files give to something → what it names (for the failure message)."""
    names: dict[str, str] = {}

    def add(name: str | None, what: str) -> None:
        if name and name not in names:
            names[name] = what

    for decl in program.decls.values():
        kind = type(decl).__name__.lower()
        add(decl.name, kind)
        if isinstance(decl, ir.Enum):
            for m in decl.members:
                add(m.name, f"value of {decl.name}")
        elif isinstance(decl, ir.Record):
            for f in decl.fields:
                add(f.name, f"field of {decl.name}")
        elif isinstance(decl, ir.Catalog):
            for entry in decl.entries:
                add(entry, f"entry of {decl.name}")
        elif isinstance(decl, ir.Table):
            for k in decl.keys + ((decl.across,) if decl.across else ()):
                add(k.name, f"key of {decl.name}")
            for c in decl.columns:
                add(c.name, f"column of {decl.name}")
            for row in decl.rows:
                for key in row.keys:
                    if isinstance(key, str):
                        add(key, f"row of {decl.name}")
        elif isinstance(decl, ir.Rule):
            for p in decl.params:
                add(p.name, f"parameter of {decl.name}")
            if decl.stacking:
                add(decl.stacking, f"stacking of {decl.name}")
            if decl.combine:
                add(decl.combine, f"stacking of {decl.name}")
        elif isinstance(decl, ir.Procedure):
            for p in decl.params:
                add(p.name, f"parameter of {decl.name}")
            for local in _locals(decl.body):
                add(local, f"value of {decl.name}")
        elif isinstance(decl, ir.Odds):
            for axis in (decl.each, decl.rows, decl.columns):
                if axis is not None:
                    add(axis.name, f"axis of {decl.name}")
    return names


def printed_texts(program: ir.Program) -> list[str]:
    """The text values of the rulebook's data (catalog entries, table cells), nested records
    included: the manual's cells as printed, which may name things as the manual's own
    tables do (``tabla_danos_componentes``)."""
    found: list[str] = []

    def walk_value(v, t) -> None:
        if v is None:
            return
        k = t.kind
        if k == "text" and isinstance(v, str):
            found.append(v)
        elif k == "opt":
            walk_value(v, t.args[0])
        elif k == "list" and isinstance(v, (list, tuple)):
            for x in v:
                walk_value(x, t.args[0])
        elif k == "map" and isinstance(v, dict):
            for x in v.values():
                walk_value(x, t.args[0])
        elif k == "record" and isinstance(v, dict):
            record = program.decls.get(t.name)
            for f in record.fields if isinstance(record, ir.Record) else ():
                walk_value(v.get(f.name), f.type)

    for decl in program.decls.values():
        if isinstance(decl, ir.Catalog):
            for entry in decl.entries.values():
                walk_value(entry, T("record", decl.record))
        elif isinstance(decl, ir.Table):
            for row in decl.rows:
                for c in decl.columns:
                    walk_value(row.values.get(c.name), c.type)
                for v in row.across:
                    walk_value(v, decl.columns[0].type if decl.columns else T("any"))
    return found


def _locals(body: tuple[ir.Stmt, ...]):
    for st in body:
        if isinstance(st, ir.Let):
            yield st.name
        elif isinstance(st, ir.Step):
            yield from _locals(st.body)
        elif isinstance(st, ir.If):
            for _, block in st.branches:
                yield from _locals(block)
            if st.orelse:
                yield from _locals(st.orelse)
        elif isinstance(st, ir.Repeat):
            yield from st.binds
            yield from _locals(st.body)
    for expr in walk.expressions(body):
        for e in walk.walk(expr):
            if isinstance(e, ir.Comprehension):
                yield e.var


WORD = re.compile(r"[^\W_]+")


def own_words(program: ir.Program) -> set[str]:
    """The words (folded: :func:`fold`) the rulebook writes for people: prose, titles, notes, labels."""
    return {fold(w) for t in _prose_texts(program) for w in WORD.findall(t)}


def _prose_texts(program: ir.Program) -> list[str]:
    """The texts the rulebook writes for people: prose, titles, notes, labels."""
    texts: list[str] = []

    def inlines(items) -> None:
        for i in items:
            if isinstance(i, (ir.Text, ir.Strong, ir.Emph)):
                texts.append(i.text)

    def prose(items) -> None:
        for block in items:
            if isinstance(block, (ir.Heading, ir.Paragraph, ir.Note)):
                inlines(block.inlines)
            elif isinstance(block, ir.ListBlock):
                for item in block.items:
                    inlines(item)
            elif isinstance(block, ir.Decl):
                decl_words(block)

    def decl_words(decl: ir.Decl) -> None:
        if decl.has_title:
            texts.append(decl.title)
        texts.append(decl.doc or "")
        texts.append(decl.ref or "")
        if isinstance(decl, ir.Enum):
            texts.extend(m.title for m in decl.members if m.title != m.name)
        elif isinstance(decl, ir.Record):
            texts.extend(f.title or "" for f in decl.fields)
        elif isinstance(decl, ir.Table):
            texts.extend(k.title or "" for k in decl.keys + ((decl.across,) if decl.across else ()))
            texts.extend(c.title or "" for c in decl.columns)
            texts.extend(r.title or "" for r in decl.rows)
        elif isinstance(decl, ir.Rule):
            texts.extend(decl.texts)
            texts.extend(t for _, t in decl.levels)
        elif isinstance(decl, ir.Term):
            texts.append(decl.definition)
        elif isinstance(decl, ir.Odds):
            texts.extend(a.title for a in (decl.each, decl.rows, decl.columns) if a is not None)
        elif isinstance(decl, ir.Procedure):
            texts.extend(st.label for st in decl.body if isinstance(st, ir.Step))
        elif isinstance(decl, ir.Catalog):
            record = program.decls.get(decl.record)
            text_fields = {f.name for f in record.fields if f.type.inner.kind == "text"} if isinstance(record, ir.Record) else set()
            for entry in decl.entries.values():
                texts.extend(v for k, v in entry.items() if k in text_fields and isinstance(v, str))

    for decl in program.decls.values():
        decl_words(decl)
    texts.extend(ex.title for ex in program.examples)
    prose(program.front)
    for section in program.sections:
        texts.append(section.title)
        prose(section.items)
    if program.rulebook is not None:
        texts.append(program.rulebook.title)
    return texts


def fold(word: str) -> str:
    """``word`` in lower case without accents: «Categoría» → «categoria»."""
    return "".join(c for c in unicodedata.normalize("NFD", word.lower()) if not unicodedata.combining(c))


def is_code(name: str, words: set[str]) -> bool:
    """Whether a player would read ``name`` as code rather than as a word.

    ``words``: folded words (:func:`fold`). A name with an underscore or a capital after a
    small letter is code. Any other name is a word when the rulebook writes it, or writes a
    word that starts as it does but for its last two letters (``mosquete``: «mosquetes»;
    ``resiste``: «resistir»): only names that are no word at all (``inf``, ``stack``) count.
    """
    if "_" in name.strip("_") or re.search(r"[a-z][A-Z]", name):
        return True
    if len(name) < 2 or fold(name) in words:
        return False
    stem = fold(name)[:len(name) - 2]
    return len(stem) < 4 or not any(w.startswith(stem) for w in words)


# ---------------------------------------------------------------------------- the pages


class _PlayerText(HTMLParser):
    """The visible text of a page's ``<article>``, one line per block, hidden parts left out."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.lines: list[tuple[str, frozenset[str]]] = []  # (text, classes of the elements around it)
        self.stack: list[tuple[str, bool, frozenset[str]]] = []  # (tag, hidden, classes around)
        self.in_article = 0

    def _hidden(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag, attrs):
        if tag == "article":
            self.in_article += 1
        classes = set((dict(attrs).get("class") or "").split())
        hidden = self._hidden() or tag in HIDDEN_TAGS or bool(classes & HIDDEN_CLASSES)
        if tag in BLOCK_TAGS or classes & BLOCK_CLASSES:
            self._flush()
        if tag not in VOID:
            around = (self.stack[-1][2] if self.stack else frozenset()) | classes
            self.stack.append((tag, hidden, frozenset(around)))

    def handle_startendtag(self, tag, attrs):
        if tag in BLOCK_TAGS:
            self._flush()

    def _flush(self) -> None:
        text = " ".join("".join(self.parts).split())
        if text:
            self.lines.append((text, self.stack[-1][2] if self.stack else frozenset()))
        self.parts = []

    def handle_endtag(self, tag):
        if tag == "article":
            self.in_article -= 1
        if tag in BLOCK_TAGS or (self.stack and self.stack[-1][0] == tag and self.stack[-1][2] & BLOCK_CLASSES):
            self._flush()
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        if self.in_article and not self._hidden():
            self.parts.append(data)


def player_lines(html: str) -> list[tuple[str, frozenset[str]]]:
    """The text a player reads on a page, one entry per block (spaces collapsed), with the
    classes of the elements around it (``rb-steps``: a procedure's steps, ``rb-example``...)."""
    start, end = html.find("<article"), html.rfind("</article>")
    parser = _PlayerText()
    parser.feed(html[start:end + len("</article>")] if 0 <= start < end else html)
    parser.close()
    parser._flush()
    return parser.lines


def player_pages(site: Path) -> dict[str, str]:
    """Page path (relative to the site) → its HTML, for every page a player reads."""
    pages = {}
    for path in sorted(site.rglob("*.html")):
        rel = path.relative_to(site).as_posix()
        if rel.startswith(CODE_PAGES) or rel in TOOL_PAGES or "/" in rel:
            continue  # the rules source, the data for tools (datos/…), the designers' vocabulary
        pages[rel] = path.read_text(encoding="utf-8")
    return pages


TOKEN = re.compile(r"\w+")
DOUBLED = re.compile(r"(?<![\w])([^\W\d_]{2,}(?:\s+[^\W\d_]+){0,2})\s+\1(?![\w])", re.IGNORECASE)


def _around(line: str, start: int, end: int, width: int = 60) -> str:
    return ("…" if start > width else "") + line[max(0, start - width):end + width] + ("…" if end + width < len(line) else "")


def scan(program: ir.Program, site: Path, words: set[str] | None = None) -> list[Finding]:
    """Every code name and doubled word in the text players read on ``site``.

    ``words``: the words people write in the rulebook's language (by default the
    rulebook's own, :func:`own_words`); a name that is one of them is not code.
    Words the rulebook's own prose writes twice (a double surname) are not doubled words, and
    names the manual's own table cells print (:func:`printed_texts`) are shown as printed.
    """
    words = own_words(program) if words is None else words
    written_twice = {m.group(0).lower() for t in _prose_texts(program) for m in DOUBLED.finditer(t)}
    printed = {token for text in printed_texts(program) for token in TOKEN.findall(text)}
    names = {n: what for n, what in code_names(program).items() if is_code(n, words) and n not in printed}
    found: list[Finding] = []
    for page, html in player_pages(site).items():
        for line, classes in player_lines(html):
            where = " ".join(sorted(c for c in classes if c.startswith("rb-")))
            for m in TOKEN.finditer(line):
                if m.group(0) in names:
                    found.append(Finding(page, m.group(0), names[m.group(0)], _around(line, m.start(), m.end()), where))
            for m in DOUBLED.finditer(line):
                if m.group(0).lower() not in written_twice:
                    found.append(Finding(page, m.group(0), "doubled words", _around(line, m.start(), m.end()), where))
    return found


if __name__ == "__main__":
    from rulebook.compiler.pipeline import driver

    checked = driver.check(Path(sys.argv[1]))
    words = set().union(*(own_words(driver.check(Path(extra)).program) for extra in sys.argv[3:]))
    findings = scan(checked.program, Path(sys.argv[2]), own_words(checked.program) | words)
    for f in findings:
        print(f)
    print(len(findings), "findings")
