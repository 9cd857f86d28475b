"""Parse a literate `.rules` file into a :class:`rulebook.rules_dsl.nodes.Module`.

Entry point: :func:`parse(text, filename) -> (Module, list[Diagnostic])`.

A file is prose (a small Markdown subset, see LANGUAGE.md) with declarations in
```` ```rules ```` fences. Prose is parsed here by a line scanner into prose
nodes; fenced code is parsed by the Lark LALR grammar in ``grammar.lark``.
Each top-level declaration of a fence is parsed on its own, so one run reports
one syntax error per broken declaration instead of stopping at the first.

Work is linear in the size of the file: the prose scanners never rescan a line
for an opener that has no closer, and numbers, strings and names over their
limits (:data:`MAX_NUMBER_DIGITS`, :data:`MAX_STRING_CHARS`,
:data:`MAX_NAME_CHARS`), and lines of prose over :data:`MAX_LINE_CHARS`, are
refused with a diagnostic before they are used.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import GrammarError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError

from . import nodes as n
from .diagnostics import Diagnostic, Span
# KEYWORDS is re-exported: the checker imports it from here.
from .keywords import DECLARATION_KEYWORDS, KEYWORDS  # noqa: F401

GRAMMAR_PATH = Path(__file__).with_name("grammar.lark")
FENCE_OPEN = re.compile(r"^```\s*rules\s*$")
FENCE_CLOSE = re.compile(r"^```\s*$")
DECL_START = re.compile(r"^(@|(?:" + "|".join(DECLARATION_KEYWORDS) + r")\b)")


MAX_NUMBER_DIGITS = 100
"""Digits of a number literal (the manual's longest has 13: exact probabilities)."""

MAX_STRING_CHARS = 10_000
"""Characters of a string literal (the manual's longest has about 1,000)."""

MAX_LINE_CHARS = 10_000
"""Characters of a line of prose (the manual's longest has about 1,000). Prose and
strings become Markdown for the site, whose parser is slow on very long lines."""

MAX_NAME_CHARS = 80
"""Characters of a name: it becomes a Python identifier and part of file names."""


class LiteralTooLong(Exception):
    """A token over its size limit (see :data:`MAX_NUMBER_DIGITS` and its siblings)."""

    def __init__(self, token: Token, message: str, hint: str) -> None:
        super().__init__(message)
        self.token = token
        self.message = message
        self.hint = hint


def _check_size(tok: Token) -> None:
    """Raise :class:`LiteralTooLong` for a number, dice, string or name over its limit,
    before it costs memory or time (an ``int()`` of thousands of digits, a name too
    long to become a file name)."""
    if tok.type in ("NUMBER", "DICE"):
        digits = sum(ch.isdigit() for ch in tok)
        if digits > MAX_NUMBER_DIGITS:
            raise LiteralTooLong(tok, f"this number has {digits} digits; at most {MAX_NUMBER_DIGITS} are allowed",
                                 "write a smaller number, or compute it from smaller ones")
    elif tok.type == "STRING" and len(tok) - 2 > MAX_STRING_CHARS:
        raise LiteralTooLong(tok, f"this text has {len(tok) - 2} characters; at most {MAX_STRING_CHARS} are allowed",
                             "long explanations belong in the prose around the ```rules block")
    elif tok.type == "NAME" and len(tok) > MAX_NAME_CHARS:
        raise LiteralTooLong(tok, f"this name has {len(tok)} characters; at most {MAX_NAME_CHARS} are allowed",
                             "choose a shorter name (it becomes a Python name and a file name)")


_SIZED_TOKENS = frozenset(("NUMBER", "DICE", "STRING", "NAME"))
_SHORTEST_LIMIT = min(MAX_NUMBER_DIGITS, MAX_STRING_CHARS + 2, MAX_NAME_CHARS)
"""No token of at most this many characters is over its limit (a number's digits are some of
its characters, a string's quotes two more): only longer ones are measured."""


class _NewlinePostLex:
    """Drops newlines inside ( ) and [ ], collapses runs of them (LANGUAGE.md §2),
    and refuses literals over their size limit."""

    always_accept = ("_NL",)

    def process(self, stream):
        depth = 0
        last_nl = False
        for tok in stream:
            kind = tok.type
            if len(tok) > _SHORTEST_LIMIT and kind in _SIZED_TOKENS:
                _check_size(tok)
            if kind == "LPAR" or kind == "LSQB":
                depth += 1
            elif kind == "RPAR" or kind == "RSQB":
                depth = max(0, depth - 1)
            elif kind == "_NL":
                if depth or last_nl:
                    continue
                last_nl = True
                yield tok
                continue
            last_nl = False
            yield tok


def _cache_path() -> str | bool:
    """Where Lark keeps the built parser tables between runs (keyed by the grammar
    and options, so a changed grammar is rebuilt); False when it cannot be written."""
    import os

    folder = GRAMMAR_PATH.parent / "__pycache__"
    try:
        folder.mkdir(exist_ok=True)
    except OSError:
        return False
    if not os.access(folder, os.W_OK):
        return False
    import lark

    return str(folder / f"grammar.lark-{lark.__version__}.cache")


@lru_cache(maxsize=1)
def _lark() -> Lark:
    return Lark(
        GRAMMAR_PATH.read_text(encoding="utf-8"),
        parser="lalr",
        strict=True,
        propagate_positions=True,
        maybe_placeholders=True,
        postlex=_NewlinePostLex(),
        cache=_cache_path(),
    )


# ----------------------------------------------------------------------------- prose

_INLINE_OPENER = re.compile(r"[*`\[]")
_REF_STOP = re.compile(r"[\]\s]")
_HEADING = re.compile(r"^(#{1,4})\s+(.*)$")
_HEADING_NUMBER = re.compile(r"^(\d+(?:\.\d+)*)\.?\s")
_ORDERED = re.compile(r"^(\d{1,9})[.)]\s+(.*)$")  # at most 9 digits, as in CommonMark
_BULLET = re.compile(r"^[-*+]\s+(.*)$")


class _NextMatch:
    """The first match of ``pattern`` at or after ``start``, for starts that never
    decrease: a search is repeated only once the previous match lies behind, so
    all the calls on one line cost one pass over it."""

    def __init__(self, text: str, pattern: re.Pattern) -> None:
        self.text = text
        self.pattern = pattern
        self.found = -2  # -2: not searched yet; -1: no match after the last start

    def __call__(self, start: int) -> int:
        if self.found == -1 or self.found >= start:
            return self.found
        m = self.pattern.search(self.text, start)
        self.found = m.start() if m else -1
        return self.found


_DOUBLE_STAR = re.compile(r"\*\*")
_STAR = re.compile(r"\*")
_BACKTICK = re.compile(r"`")


def _word_or_star(ch: str) -> bool:
    return ch == "*" or ch == "_" or ch.isalnum()


def inline_runs(text: str) -> list[tuple[int, int, str, str]]:
    r"""``(start, end, kind, content)`` of each ``**bold**``, ``*italic*``, ```code```
    and ``[[ref]]`` run of a line, left to right; ``kind`` is strong, em, code or ref.

    The runs are those of the regular expression
    ``\*\*(.+?)\*\*|(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])|`([^`]+)`|\[\[([^\]\s]+)\]\]``
    (alternatives tried in that order at each position), found in time linear in
    the line: an opener without a closer does not rescan the rest of the line.
    """
    runs: list[tuple[int, int, str, str]] = []
    next_double, next_star = _NextMatch(text, _DOUBLE_STAR), _NextMatch(text, _STAR)
    next_tick, next_ref_stop = _NextMatch(text, _BACKTICK), _NextMatch(text, _REF_STOP)
    size = len(text)
    i = 0
    while (m := _INLINE_OPENER.search(text, i)) is not None:
        i = m.start()
        ch = text[i]
        if ch == "*":
            if text.startswith("**", i) and (j := next_double(i + 3)) >= 0:
                runs.append((i, j + 2, "strong", text[i + 2 : j]))
                i = j + 2
                continue
            opens = (i == 0 or not _word_or_star(text[i - 1])) and i + 1 < size and text[i + 1] != "*" and not text[i + 1].isspace()
            if opens and (j := next_star(i + 2)) >= 0 and (j + 1 == size or not _word_or_star(text[j + 1])):
                runs.append((i, j + 1, "em", text[i + 1 : j]))
                i = j + 1
                continue
        elif ch == "`":
            if (j := next_tick(i + 1)) > i + 1:
                runs.append((i, j + 1, "code", text[i + 1 : j]))
                i = j + 1
                continue
        elif text.startswith("[[", i) and (j := next_ref_stop(i + 2)) > i + 2 and text.startswith("]]", j):
            runs.append((i, j + 2, "ref", text[i + 2 : j]))
            i = j + 2
            continue
        i += 1
    return runs


def parse_inlines(text: str, filename: str, line: int, col: int) -> tuple[n.Inline, ...]:
    """Split a line of prose into text, bold, italic, code and ``[[ref]]`` runs."""
    out: list[n.Inline] = []
    pos = 0
    for start, end, kind, content in inline_runs(text):
        if start > pos:
            out.append(n.Text(text[pos:start]))
        if kind == "strong":
            out.append(n.Strong(content))
        elif kind == "em":
            out.append(n.Emph(content))
        elif kind == "code":
            out.append(n.Code(content))
        else:
            out.append(n.Ref(content, Span(filename, line, col + start, line, col + end)))
        pos = end
    if pos < len(text):
        out.append(n.Text(text[pos:]))
    return tuple(out)


def _prose_blocks(lines: list[tuple[int, str]], filename: str) -> list[n.Prose]:
    """Turn prose lines (line number, text) into headings, paragraphs, lists, notes.

    As in the printed manual, every non-empty line of text is a paragraph of its
    own; consecutive list items form one list. Inline runs keep their exact
    columns, so a bad ``[[link]]`` is reported where it is written.
    """
    blocks: list[n.Prose] = []
    items: list[tuple[int, int, str]] = []  # (line, column of the text, text)
    list_kind: bool | None = None
    list_start = 1

    def span(lineno: int, line: str) -> Span:
        return Span(filename, lineno, 1, lineno, len(line) + 1)

    def flush_list() -> None:
        nonlocal list_kind
        if items:
            first, last = items[0][0], items[-1][0]
            blocks.append(
                n.ListBlock(
                    bool(list_kind),
                    tuple(parse_inlines(t, filename, ln, col) for ln, col, t in items),
                    Span(filename, first, 1, last, 1),
                    list_start,
                )
            )
            items.clear()
        list_kind = None

    for lineno, raw in lines:
        line = raw.rstrip()
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if not stripped:
            flush_list()
            continue
        if m := _HEADING.match(stripped):
            flush_list()
            title = m.group(2).rstrip("#").rstrip()  # a closing run of #s is not part of the title
            num = _HEADING_NUMBER.match(title)
            col = indent + m.start(2) + 1
            blocks.append(n.Heading(len(m.group(1)), parse_inlines(title, filename, lineno, col), num.group(1) if num else None, span(lineno, line)))
            continue
        if stripped in ("---", "***", "___"):
            flush_list()
            blocks.append(n.Separator(span(lineno, line)))
            continue
        if stripped.startswith(">"):
            flush_list()
            body = stripped[1:]
            lead = len(body) - len(body.lstrip())
            col = indent + 1 + lead + 1
            blocks.append(n.Note(parse_inlines(body.strip(), filename, lineno, col), span(lineno, line)))
            continue
        ordered = _ORDERED.match(stripped)
        bullet = _BULLET.match(stripped) if not ordered else None
        if ordered or bullet:
            m = ordered or bullet
            group = 2 if ordered else 1
            kind = bool(ordered)
            if list_kind is not None and list_kind != kind:
                flush_list()
            if list_kind is None:
                list_start = int(ordered.group(1)) if ordered else 1
            list_kind = kind
            items.append((lineno, indent + m.start(group) + 1, m.group(group)))
            continue
        flush_list()
        blocks.append(n.Paragraph(parse_inlines(stripped, filename, lineno, indent + 1), span(lineno, line)))
    flush_list()
    return blocks


# ----------------------------------------------------------------------------- declarations


_ESCAPE = re.compile(r"\\(.)", re.S)
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def _unquote(tok: str) -> str:
    """Decode a string literal: only \\" \\\\ \\n \\t escapes (never eval); any other
    backslash is kept as written."""
    body = tok[1:-1]
    if "\\" not in body:
        return body
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(0)), body)


def _number(text: str) -> int | Fraction:
    return Fraction(text) if "." in text else int(text)


class _ToAst(Transformer):
    """Lark tree → nodes, shifting positions by the chunk's line offset."""

    def __init__(self, filename: str, line_offset: int, source_lines: list[str]):
        super().__init__(visit_tokens=False)  # no method is named after a token type: tokens stay as they are
        self.filename = filename
        self.off = line_offset
        self.lines = source_lines
        self.problems: list[Diagnostic] = []

    def _call_userfunc(self, tree, new_children=None):
        """Lark's dispatch (``Transformer._call_userfunc``), with the ``v_args(meta=True)``
        methods found once (:data:`_META_RULES`): Lark builds a bound wrapper for them
        at every call (some 40,000 per build of a large rulebook)."""
        method = _META_RULES.get(tree.data)
        if method is None:
            return super()._call_userfunc(tree, new_children)
        try:
            return method(self, tree.meta, new_children if new_children is not None else tree.children)
        except GrammarError:
            raise
        except Exception as e:
            raise VisitError(tree.data, tree, e)

    # -- helpers
    def sp(self, meta) -> Span:
        if getattr(meta, "empty", False) or not hasattr(meta, "line"):
            return Span(self.filename, self.off + 1, 1, self.off + 1, 1)
        return Span(self.filename, meta.line + self.off, meta.column, meta.end_line + self.off, meta.end_column)

    def tsp(self, tok: Token) -> Span:
        return Span(self.filename, tok.line + self.off, tok.column, tok.end_line + self.off, tok.end_column)

    def text_of(self, span: Span) -> str:
        first = self.lines[span.line - 1 - self.off][span.col - 1 :] if span.line == span.end_line else None
        if first is not None:
            return self.lines[span.line - 1 - self.off][span.col - 1 : span.end_col - 1]
        chunk = self.lines[span.line - 1 - self.off : span.end_line - self.off]
        chunk = list(chunk)
        chunk[-1] = chunk[-1][: span.end_col - 1]
        chunk[0] = chunk[0][span.col - 1 :]
        return "\n".join(chunk)

    def whole(self, tok: Token) -> int:
        """A whole-number literal where the grammar allows any number: 1.5 is reported."""
        if "." in tok:
            self.problems.append(Diagnostic("error", f"expected a whole number here, got {tok}", self.tsp(tok), None, "syntax"))
            return int(Fraction(str(tok)))
        return int(tok)

    def __default__(self, data, children, meta):  # pragma: no cover - grammar is exhaustive
        raise ValueError(f"unhandled grammar rule {data}")

    # -- top level
    @v_args(meta=True)
    def start(self, meta, children):
        return [c for c in children if c is not None]

    @v_args(meta=True)
    def item(self, meta, children):
        *anns, decl = children
        span = decl.span
        src = self.text_of(Span(span.file, anns[0].span.line if anns else span.line, 1, span.end_line, span.end_col))
        return decl.__class__(**{**_fields(decl), "annotations": tuple(anns), "source_text": src})

    @v_args(meta=True)
    def annotation(self, meta, c):
        start = self.sp(meta)
        end = c[1].span if c[1] is not None else self.tsp(c[0])
        return n.Annotation(str(c[0]), c[1], Span(start.file, start.line, start.col, end.end_line, end.end_col))

    @v_args(meta=True)
    def rulebook_decl(self, meta, c):
        return n.RulebookDecl(str(c[0]), _unquote(c[1]), _unquote(c[2]) if c[2] else None, _unquote(c[3]) if c[3] else None, self.sp(meta))

    @v_args(meta=True)
    def section_decl(self, meta, c):
        return n.SectionDecl(str(c[0]), _unquote(c[1]), self.sp(meta))

    @v_args(meta=True)
    def odds_decl(self, meta, c):
        """The clauses of an odds block, in any order: one procedure, one rows, one
        cell/cells, at most one each and one columns (reported here when not)."""
        name, title, *items = c
        span = self.sp(meta)
        found: dict[str, list] = {}
        for it in items:
            if it is not None:
                found.setdefault(it[0], []).append(it)
        for word, clauses in found.items():
            if len(clauses) > 1:
                shown = "cell/cells" if word == "show" else word
                self.problems.append(Diagnostic(
                    "error", f"odds {name}: '{shown}' is given twice", clauses[1][-1],
                    "an odds block has one procedure, one rows, one cell or cells, and at most one each and one columns", "syntax",
                ))
        required = (("procedure", "procedure p(…)"), ("rows", 'rows x in a..b "…"'), ("show", "cell probability(…) or cells outcomes(…)"))
        missing = [shown for word, shown in required if word not in found]
        if missing:
            self.problems.append(Diagnostic("error", f"odds {name} needs {', '.join(missing)}", span, ODDS_BLOCK_HINT, "syntax"))
            return n.BrokenDecl(str(name), "odds", span)
        _, proc, args, proc_span = found["procedure"][0]
        _, show, cells, _ = found["show"][0]
        columns = found["columns"][0][1] if "columns" in found else None
        each = found["each"][0][1] if "each" in found else None
        return n.OddsDecl(str(name), _opt_str(title), proc, args, found["rows"][0][1], columns, show, span, procedure_span=proc_span, each=each, cells=cells)

    @v_args(meta=True)
    def odds_procedure(self, meta, c):
        name, *args = c
        return ("procedure", str(name), tuple(a for a in args if a is not None), self.tsp(name))

    @v_args(meta=True)
    def odds_each(self, meta, c):
        span = self.sp(meta)
        return ("each", n.OddsAxis(str(c[0]), None, None, str(c[1]), _opt_str(c[2]), span), span)

    def _axis(self, meta, c):
        name, dom, title = c
        span = self.sp(meta)
        if dom[0] == "range":
            return n.OddsAxis(str(name), dom[1], dom[2], None, _opt_str(title), span)
        if dom[0] == "list":
            return n.OddsAxis(str(name), None, None, None, _opt_str(title), span, tuple(dom[1]))
        return n.OddsAxis(str(name), None, None, dom[1], _opt_str(title), span)

    @v_args(meta=True)
    def odds_rows(self, meta, c):
        return ("rows", self._axis(meta, c), self.sp(meta))

    @v_args(meta=True)
    def odds_columns(self, meta, c):
        return ("columns", self._axis(meta, c), self.sp(meta))

    @v_args(meta=True)
    def odds_cell(self, meta, c):
        return ("show", c[0], False, self.sp(meta))

    @v_args(meta=True)
    def odds_cells(self, meta, c):
        return ("show", c[0], True, self.sp(meta))

    def dom_range(self, c):
        return ("range", c[0], c[1])

    def dom_enum(self, c):
        return ("enum", str(c[0]))

    def dom_list(self, c):
        return ("list", [x for x in c if x is not None])

    @v_args(meta=True)
    def army_decl(self, meta, c):
        name, title, *clauses = c
        return n.ArmyDecl(str(name), _opt_str(title), tuple(x for x in clauses if x is not None), self.sp(meta))

    @v_args(meta=True)
    def army_clause(self, meta, c):
        word, *args, block = c
        return n.ArmyClause(str(word), tuple(a for a in args if a is not None), tuple(block or ()), self.sp(meta), self.tsp(word))

    def army_block(self, c):
        return [x for x in c if x is not None]

    @v_args(meta=True)
    def const_decl(self, meta, c):
        return n.ConstDecl(str(c[0]), _opt_str(c[1]), c[2], self.sp(meta))

    @v_args(meta=True)
    def term_decl(self, meta, c):
        return n.TermDecl(str(c[0]), _unquote(c[1]), _unquote(c[2]), self.sp(meta))

    @v_args(meta=True)
    def show_decl(self, meta, c):
        return n.ShowDecl(str(c[0]), self.sp(meta))

    @v_args(meta=True)
    def enum_decl(self, meta, c):
        name, title, ordered, *members = c
        return n.EnumDecl(str(name), _opt_str(title), ordered is not None, tuple(m for m in members if m is not None), self.sp(meta))

    @v_args(meta=True)
    def enum_member(self, meta, c):
        return n.EnumMember(str(c[0]), _opt_str(c[1]), self.sp(meta))

    @v_args(meta=True)
    def record_decl(self, meta, c):
        name, title, *fields = c
        return n.RecordDecl(str(name), _opt_str(title), tuple(f for f in fields if f is not None), self.sp(meta))

    @v_args(meta=True)
    def field_decl(self, meta, c):
        return n.FieldDecl(str(c[0]), c[1], _opt_str(c[2]), self.sp(meta))

    # -- types
    @v_args(meta=True)
    def type(self, meta, c):
        base, opt = c
        return n.TypeRef(base.kind, base.name, base.args, opt is not None, self.sp(meta))

    @v_args(meta=True)
    def named_type(self, meta, c):
        return n.TypeRef("named", str(c[0]), (), False, self.sp(meta))

    @v_args(meta=True)
    def list_type(self, meta, c):
        return n.TypeRef("list", None, (c[0],), False, self.sp(meta))

    @v_args(meta=True)
    def map_type(self, meta, c):
        return n.TypeRef("map", str(c[0]), (c[1],), False, self.sp(meta))

    @v_args(meta=True)
    def ref_type(self, meta, c):
        return n.TypeRef("ref", "|".join(str(x) for x in c), (), False, self.sp(meta))

    @v_args(meta=True)
    def rule_type(self, meta, c):
        return n.TypeRef("rule", None, (), False, self.sp(meta))

    @v_args(meta=True)
    def id_type(self, meta, c):
        return n.TypeRef("id", None, (), False, self.sp(meta))

    # -- catalogs
    @v_args(meta=True)
    def catalog_decl(self, meta, c):
        name, title, record, *items = c
        columns = None
        columns_span = None
        rows = []
        for it in items:
            if it is None:
                continue
            if isinstance(it, tuple):
                columns, columns_span = it
            else:
                rows.append(it)
        return n.CatalogDecl(str(name), _opt_str(title), str(record), columns, tuple(rows), self.sp(meta), record_span=self.tsp(record), columns_span=columns_span)

    @v_args(meta=True)
    def columns(self, meta, c):
        return (tuple(str(x) for x in c), self.sp(meta))

    @v_args(meta=True)
    def catalog_row(self, meta, c):
        ident = _unquote(c[0]) if c[0].type == "STRING" else str(c[0])
        return n.CatalogRow(ident, tuple(c[1:]), self.sp(meta))

    # -- tables
    @v_args(meta=True)
    def table_decl(self, meta, c):
        name, title, *rest = c
        keys, cols, rows = [], [], []
        across = None
        header = None
        for it in rest:
            if isinstance(it, n.KeySpec):
                keys.append(it)
            elif isinstance(it, tuple) and it and it[0] == "across":
                across = it[1]
            elif isinstance(it, n.ResultCol):
                cols.append(it)
            elif isinstance(it, tuple) and it and it[0] == "header":
                header = it[1]
            elif isinstance(it, n.TableRow):
                rows.append(it)
        return n.TableDecl(str(name), _opt_str(title), tuple(keys), across, tuple(cols), header, tuple(rows), self.sp(meta))

    @v_args(meta=True)
    def key_spec(self, meta, c):
        return n.KeySpec(str(c[0]), c[1], c[2] is not None, _opt_str(c[3]), self.sp(meta))

    @v_args(meta=True)
    def across_spec(self, meta, c):
        return ("across", n.KeySpec(str(c[0]), c[1], False, _opt_str(c[2]), self.sp(meta)))

    @v_args(meta=True)
    def result_col(self, meta, c):
        return n.ResultCol(str(c[0]), c[1], _opt_str(c[2]), self.sp(meta))

    @v_args(meta=True)
    def header_row(self, meta, c):
        return ("header", tuple(c))

    @v_args(meta=True)
    def table_row(self, meta, c):
        keys = []
        title = None
        values = []
        seen_title = False
        for x in c:
            if isinstance(x, Token) and x.type == "STRING":
                title = _unquote(x)
                seen_title = True
            elif x is None and not seen_title:
                seen_title = True
            elif not seen_title:
                keys.append(x)
            else:
                values.append(x)
        return n.TableRow(tuple(keys), title, tuple(values), self.sp(meta))

    @v_args(meta=True)
    def range(self, meta, c):
        lo, hi = c
        lo_incl, lo_v = lo
        hi_incl, hi_v = hi if hi is not None else (True, None)
        return n.RangeKey(lo_v, lo_incl, hi_v, hi_incl, self.sp(meta))

    @v_args(meta=True)
    def range_open_lo(self, meta, c):
        hi_incl, hi_v = c[0]
        return n.RangeKey(None, True, hi_v, hi_incl, self.sp(meta))

    def range_lo(self, c):
        return (c[0] is None, c[1])

    def range_hi(self, c):
        return (c[0] is None, c[1])

    def snum(self, c):
        return _number(c[0])

    def neg_num(self, c):
        return -_number(c[0])

    # -- dice and bags
    @v_args(meta=True)
    def die_decl(self, meta, c):
        name, title, of, *faces = c
        return n.DieDecl(str(name), _opt_str(title), str(of) if of else None, tuple(f for f in faces if f is not None), self.sp(meta))

    @v_args(meta=True)
    def bag_decl(self, meta, c):
        name, title, *entries = c
        return n.BagDecl(str(name), _opt_str(title), tuple(e for e in entries if e is not None), self.sp(meta))

    @v_args(meta=True)
    def bag_entry(self, meta, c):
        return (str(c[0]), self.whole(c[1]), self.sp(meta))

    # -- special rules
    @v_args(meta=True)
    def rule_decl(self, meta, c):
        name, title, params, *items = c
        texts, levels, grants, stacking, combine = [], [], [], None, None
        for kind, payload in (i for i in items if i is not None):
            if kind == "text":
                texts.append(payload)
            elif kind == "level":
                levels.append(payload)
            elif kind == "grants":
                grants.append(payload)
            elif kind == "combine":
                combine = payload
            else:
                stacking = payload
        return n.RuleDecl(str(name), _opt_str(title), params or (), tuple(texts), tuple(levels), tuple(grants), stacking, self.sp(meta),
                          combine=combine)

    def rule_text(self, c):
        return ("text", _unquote(c[0]))

    def rule_level(self, c):
        return ("level", (self.whole(c[0]), _unquote(c[1])))

    @v_args(meta=True)
    def rule_grants(self, meta, c):
        name, *args = c
        return ("grants", n.VApply(str(name), tuple(a for a in args if a is not None), self.sp(meta)))

    def rule_stacking(self, c):
        return ("stacking", _unquote(c[0]))

    def rule_stacking_rule(self, c):
        return ("combine", (str(c[0]), self.tsp(c[0])))

    # -- procedures
    def params(self, c):
        return tuple(p for p in c if p is not None)

    @v_args(meta=True)
    def param(self, meta, c):
        return n.Param(str(c[0]), c[1], c[2], self.sp(meta))

    @v_args(meta=True)
    def procedure_decl(self, meta, c):
        name, title, params, result, *body = c
        return n.ProcedureDecl(str(name), _opt_str(title), params, result, tuple(b for b in body if b is not None), self.sp(meta))

    @v_args(meta=True)
    def step(self, meta, c):
        label, *body = c
        return n.Step(_unquote(label), tuple(b for b in body if b is not None), self.sp(meta))

    @v_args(meta=True)
    def let_stmt(self, meta, c):
        return n.Let(str(c[0]), c[1], self.sp(meta))

    @v_args(meta=True)
    def return_stmt(self, meta, c):
        return n.Return(c[0], self.sp(meta))

    @v_args(meta=True)
    def require_stmt(self, meta, c):
        return n.Require(c[0], _unquote(c[1]), self.sp(meta))

    @v_args(meta=True)
    def if_stmt(self, meta, c):
        cond, *rest = c
        body, branches_extra, orelse = [], [], None
        for x in rest:
            if isinstance(x, tuple) and x and x[0] == "elif":
                branches_extra.append(x[1])
            elif isinstance(x, tuple) and x and x[0] == "else":
                orelse = x[1]
            elif x is not None:
                body.append(x)
        return n.If(((cond, tuple(body)), *branches_extra), orelse, self.sp(meta))

    @v_args(meta=True)
    def repeat_stmt(self, meta, c):
        *body, cond = c
        return n.Repeat(tuple(b for b in body if b is not None), cond, self.sp(meta))

    def elif_clause(self, c):
        cond, *body = c
        return ("elif", (cond, tuple(b for b in body if b is not None)))

    def else_clause(self, c):
        return ("else", tuple(b for b in c if b is not None))

    # -- examples
    @v_args(meta=True)
    def example_decl(self, meta, c):
        name, title, *items = c
        given: tuple = ()
        expects = []
        for it in items:
            if isinstance(it, n.Expect):
                expects.append(it)
            elif isinstance(it, tuple):
                given = it
        return n.ExampleDecl(str(name), _opt_str(title), given, tuple(expects), self.sp(meta), procedure_span=self.tsp(name))

    def given(self, c):
        return tuple(a for a in c if a is not None)

    @v_args(meta=True)
    def expect(self, meta, c):
        return n.Expect(c[0], self.sp(meta))

    @v_args(meta=True)
    def expect_error(self, meta, c):
        return n.Expect(None, self.sp(meta), _unquote(c[0]) if c[0] is not None else "")

    # -- data values
    @v_args(meta=True)
    def v_num(self, meta, c):
        return n.VNum(_number(c[0]), self.sp(meta), str(c[0]))

    @v_args(meta=True)
    def v_neg(self, meta, c):
        return n.VNum(-_number(c[0]), self.sp(meta), "-" + str(c[0]))

    @v_args(meta=True)
    def v_str(self, meta, c):
        return n.VStr(_unquote(c[0]), self.sp(meta))

    @v_args(meta=True)
    def v_true(self, meta, c):
        return n.VBool(True, self.sp(meta))

    @v_args(meta=True)
    def v_false(self, meta, c):
        return n.VBool(False, self.sp(meta))

    @v_args(meta=True)
    def v_none(self, meta, c):
        return n.VNone(self.sp(meta))

    @v_args(meta=True)
    def v_name(self, meta, c):
        return n.VName(str(c[0]), self.sp(meta))

    @v_args(meta=True)
    def v_qualified(self, meta, c):
        return n.VQualified(str(c[0]), str(c[1]), self.sp(meta))

    @v_args(meta=True)
    def v_apply(self, meta, c):
        return n.VApply(str(c[0]), tuple(x for x in c[1:] if x is not None), self.sp(meta))

    @v_args(meta=True)
    def v_list(self, meta, c):
        return n.VList(tuple(x for x in c if x is not None), self.sp(meta))

    @v_args(meta=True)
    def v_record(self, meta, c):
        return n.VRecord(tuple(x for x in c if x is not None), self.sp(meta))

    def positional(self, c):
        return (None, c[0])

    def named(self, c):
        return (str(c[0]), c[1])

    # -- expressions
    @v_args(meta=True)
    def if_expr(self, meta, c):
        return n.IfExpr(c[0], c[1], c[2], self.sp(meta))

    @v_args(meta=True)
    def or_(self, meta, c):
        return self._fold("or", c, meta)

    @v_args(meta=True)
    def and_(self, meta, c):
        return self._fold("and", c, meta)

    def _fold(self, op, c, meta):
        acc = c[0]
        for x in c[1:]:
            acc = n.Binary(op, acc, x, _join(acc.span, x.span))
        return acc

    @v_args(meta=True)
    def not_(self, meta, c):
        return n.Unary("not", c[0], self.sp(meta))

    @v_args(meta=True)
    def compare(self, meta, c):
        return n.Binary(c[1], c[0], c[2], self.sp(meta))

    @v_args(meta=True)
    def in_(self, meta, c):
        return n.Binary("in", c[0], c[1], self.sp(meta))

    def cmp_op(self, c):
        return str(c[0])

    add_op = mul_op = cmp_op

    @v_args(meta=True)
    def arith(self, meta, c):
        acc = c[0]
        for i in range(1, len(c), 2):
            acc = n.Binary(c[i], acc, c[i + 1], _join(acc.span, c[i + 1].span))
        return acc

    @v_args(meta=True)
    def neg(self, meta, c):
        return n.Unary("-", c[0], self.sp(meta))

    @v_args(meta=True)
    def pos(self, meta, c):
        return n.Unary("+", c[0], self.sp(meta))

    @v_args(meta=True)
    def attr(self, meta, c):
        return n.Attr(c[0], str(c[1]), self.sp(meta), self.tsp(c[1]))

    @v_args(meta=True)
    def index(self, meta, c):
        return n.Index(c[0], tuple(c[1:]), self.sp(meta))

    @v_args(meta=True)
    def num(self, meta, c):
        return n.Num(_number(c[0]), self.sp(meta))

    @v_args(meta=True)
    def str_(self, meta, c):
        return n.Str(_unquote(c[0]), self.sp(meta))

    @v_args(meta=True)
    def true_(self, meta, c):
        return n.Bool(True, self.sp(meta))

    @v_args(meta=True)
    def false_(self, meta, c):
        return n.Bool(False, self.sp(meta))

    @v_args(meta=True)
    def none_(self, meta, c):
        return n.NoneLit(self.sp(meta))

    @v_args(meta=True)
    def name(self, meta, c):
        return n.Name(str(c[0]), self.sp(meta))

    @v_args(meta=True)
    def call(self, meta, c):
        return n.Call(str(c[0]), tuple(a for a in c[1:] if a is not None), self.sp(meta), self.tsp(c[0]))

    @v_args(meta=True)
    def list_(self, meta, c):
        return n.ListExpr(tuple(x for x in c if x is not None), self.sp(meta))

    @v_args(meta=True)
    def comprehension(self, meta, c):
        return n.Comprehension(c[0], str(c[1]), c[2], c[3], self.sp(meta))

    @v_args(meta=True)
    def removed(self, meta, c):
        return n.Arg(str(c[0]), c[1], self.sp(meta))

    @v_args(meta=True)
    def named_arg(self, meta, c):
        return n.Arg(str(c[0]), c[1], self.sp(meta))

    @v_args(meta=True)
    def pos_arg(self, meta, c):
        return n.Arg(None, c[0], self.sp(meta))

    @v_args(meta=True)
    def roll(self, meta, c):
        d = c[0]
        return n.Roll(d["die"], d["n"], d["times"], d["keep"], d["count"], self.sp(meta), d["span"])

    @v_args(meta=True)
    def draw(self, meta, c):
        count, bag, mode, *changes = c
        return n.Draw(count, str(bag), self.sp(meta), tuple(a for a in changes if a is not None), str(mode) if mode else "except")

    @v_args(meta=True)
    def stack(self, meta, c):
        name, *rest = c
        args = tuple(a for a in rest if isinstance(a, n.Arg))
        sources = tuple(x for x in rest if isinstance(x, tuple))
        return n.Stack(str(name), args, sources, self.sp(meta), self.tsp(name))

    @v_args(meta=True)
    def source(self, meta, c):
        return (_unquote(c[0]), c[1], self.sp(meta))

    def std_dice(self, c):
        tok, times, keep, count = c
        num, sides = str(tok).split("d")
        return {"die": f"d{sides}", "n": int(num) if num else 1, "times": times, "keep": keep, "count": count, "span": self.tsp(tok)}

    def named_dice(self, c):
        tok, times, keep, count = c
        return {"die": str(tok), "n": None, "times": times, "keep": keep, "count": count, "span": self.tsp(tok)}

    def keep(self, c):
        return (str(c[0]), self.whole(c[1]))

    def count(self, c):
        return (c[0], c[1])


_META_WRAPPER = v_args(meta=True)(lambda self, meta, children: None).visit_wrapper
_META_RULES = {name: method for name, method in vars(_ToAst).items() if getattr(method, "visit_wrapper", None) is _META_WRAPPER}
"""The methods of :class:`_ToAst` that take ``(meta, children)``, by rule name; each is
called as ``method(transformer, meta, children)``."""


def _fields(obj) -> dict:
    return {f: getattr(obj, f) for f in obj.__dataclass_fields__}


def _opt_str(tok) -> str | None:
    return _unquote(tok) if tok is not None else None


def _join(a: Span, b: Span) -> Span:
    return Span(a.file, a.line, a.col, b.end_line, b.end_col)


# ----------------------------------------------------------------------------- syntax errors

ODDS_BLOCK_HINT = """an odds table is a block:
  odds nombre "Título" {
    procedure resolutor(param: eje, …)
    each perfil in catalogo "Título"      # optional: one table per entry
    rows eje in -3..2 "Título"
    columns otro in Enum "Título"         # optional
    cell probability(result.campo)        # or: cells outcomes(result.campo)
  }"""

_COMMENT = re.compile(r'("[^"\\\n]*(?:\\.[^"\\\n]*)*")|#.*$')  # a string unrolled: no memory per character
_ODDS_CLAUSE = re.compile(r"(?<![\w.])(of|each|for|show)(?!\w)")


def _top_level_clauses(text: str) -> list[tuple[str, str]]:
    """Split the old one-line-per-clause odds form at its clause words
    (``of``, ``each``, ``for``, ``show``) outside strings and brackets."""
    cuts: list[tuple[int, str]] = []
    depth = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and (m := _ODDS_CLAUSE.match(text, i)):
            cuts.append((i, m.group(1)))
            i = m.end()
            continue
        i += 1
    out = []
    for k, (pos, word) in enumerate(cuts):
        end = cuts[k + 1][0] if k + 1 < len(cuts) else len(text)
        out.append((word, " ".join(text[pos + len(word) : end].split())))
    return out


def legacy_odds(chunk: list[str]) -> str | None:
    """The block form of an odds declaration written in the old form
    (``odds x "T" of p(…) for … show …``), or None if the chunk is not one."""
    lines = [_COMMENT.sub(lambda m: m.group(1) or "", l) for l in chunk]
    body = [l for l in lines if not l.lstrip().startswith("@")]
    text = " ".join(l.strip() for l in body if l.strip())
    m = re.match(r'odds\s+([^\W\d]\w*)\s*("[^"\\\n]*(?:\\.[^"\\\n]*)*")?\s*', text)
    if not m or "{" in text:
        return None
    clauses = _top_level_clauses(text[m.end() :])
    words = [w for w, _ in clauses]
    if not clauses or text[m.end() :].strip()[:2] != "of" or "show" not in words:
        return None
    head = f"odds {m.group(1)}" + (f" {m.group(2)}" if m.group(2) else "") + " {"
    out = [head]
    axes = 0
    for word, rest in clauses:
        if word == "of":
            out.append(f"  procedure {rest}")
        elif word == "each":
            out.append(f"  each {rest}")
        elif word == "for":
            out.append(f"  {'rows' if axes == 0 else 'columns'} {rest}")
            axes += 1
        elif rest.startswith("outcomes("):
            out.append(f"  cells {rest}")
        else:
            out.append(f"  cell {rest}")
    out.append("}")
    return "\n".join(out)


_TOKEN_NAMES = {
    "NAME": "a name",
    "STRING": 'a string ("…")',
    "NUMBER": "a number",
    "DICE": "dice such as 2d6",
    "_NL": "a new line",
    "$END": "the end of the block",
    "ORDERED": "'ordered'",
    "OPTIONAL": "'?'",
    "RANGE": "'range'",
    "KEEP_WHICH": "'highest' or 'lowest'",
    "GT": "'>'",
    "LT": "'<'",
}


def _describe_expected(expected: set[str], limit: int | None = 8) -> str:
    lark = _lark()
    names = []
    for term in sorted(expected):
        if term in _TOKEN_NAMES:
            names.append(_TOKEN_NAMES[term])
            continue
        try:
            pattern = lark.get_terminal(term).pattern
        except KeyError:
            names.append(term)
            continue
        names.append(f"'{pattern.value}'" if pattern.type == "str" else term.lower())
    names = sorted(set(names))
    if limit is not None and len(names) > limit:
        names = names[:limit] + ["…"]
    return ", ".join(names)


def _describe_token(tok: Token) -> str:
    if tok.type == "$END":
        return "end of the block"
    if tok.type == "_NL":
        return "end of the line"
    return f"'{tok}'"


_CONTINUATION = {"PLUS", "MINUS", "STAR", "SLASH", "AND", "OR", "VBAR", "DOT", "EQUAL", "MORETHAN", "LESSTHAN", "__ANON_0", "__ANON_1", "__ANON_2", "__ANON_3", "THEN", "ELSE", "COMMA"}


def _syntax_diagnostic(err: UnexpectedInput, filename: str, offset: int, lines: list[str] | None = None) -> Diagnostic:
    line = (err.line or 1) + offset
    col = err.column or 1
    if isinstance(err, UnexpectedToken) and lines and (block := legacy_odds(lines)) is not None:
        start = next(k for k, l in enumerate(lines) if l.startswith("odds"))
        span = Span(filename, offset + start + 1, 1, offset + start + 1, len(lines[start]) + 1)
        return Diagnostic(
            "error", "odds is now a block: 'of', 'for' and 'show' became procedure, rows/columns and cell/cells", span,
            "write it as:\n" + block, "syntax",
        )
    if isinstance(err, UnexpectedToken):
        tok = err.token
        if tok.type == "$END":
            # point just after the last real token
            line, col = (getattr(tok, "line", None) or err.line or 1) + offset, getattr(tok, "column", None) or col
        span = Span(filename, line, col, line, col + max(1, len(str(tok)) if tok.type not in ("_NL", "$END") else 1))
        expected = _describe_expected(set(err.expected))
        msg = f"unexpected {_describe_token(tok)}"
        hint = None
        if tok.type == "$END" and "RBRACE" in err.expected:
            return Diagnostic("error", "missing '}': a '{' is still open at the end of the block", span, "close every '{' with a matching '}'", "syntax")
        if tok.type == "$END" and ("RPAR" in err.expected or "RSQB" in err.expected):
            closer = "')'" if "RPAR" in err.expected else "']'"
            return Diagnostic("error", f"missing {closer} at the end of the block", span, None, "syntax")
        odds_words = {"of": "procedure p(…)", "for": "rows x in … (then columns y in …)", "show": "cell … or cells outcomes(…)"}
        if str(tok) in odds_words and lines and any(l.startswith("odds") for l in lines):
            return Diagnostic("error", f"{msg}; expected {expected}", span, f"in an odds block, write {odds_words[str(tok)]} instead of '{tok}'", "syntax")
        if tok.type == "NAME" and str(tok) not in KEYWORDS:
            from .diagnostics import did_you_mean

            kw = did_you_mean(str(tok), KEYWORDS)
            if kw and f"'{kw}'" in _describe_expected(set(err.expected), None):
                hint = f"did you mean '{kw}'?"
        elif lines and tok.type not in ("_NL", "$END", "NAME") and 0 < tok.line <= len(lines) and not lines[tok.line - 1][: tok.column - 1].strip() and tok.type in _CONTINUATION:
            hint = "a line cannot start in the middle of an expression: continue it inside ( ) or [ ], or join the lines"
        elif str(tok) == "{" and lines and any(l.startswith("army") for l in lines):
            hint = "in an army, a clause's block opens on the clause's line: units catalogo cost: campo {"
        elif tok.type in {"IF", "ELSE", "LET", "RETURN", "TABLE", "RULE", "ENUM", "IN", "FROM", "COUNT", "BY", "STEP"}:
            hint = f"'{tok}' is a reserved word; choose another name"
        return Diagnostic("error", f"{msg}; expected {expected}", span, hint, "syntax")
    if isinstance(err, UnexpectedCharacters):
        span = Span(filename, line, col, line, col + 1)
        ch = err.char
        allowed = _describe_expected(set(err.allowed or ())) if err.allowed else ""
        msg = f"unexpected character {ch!r}" + (f"; expected {allowed}" if allowed else "")
        hint = "strings use straight double quotes \"…\"" if ch in "“”'«»" else None
        return Diagnostic("error", msg, span, hint, "syntax")
    return Diagnostic("error", f"syntax error: {err}", Span(filename, line, col, line, col + 1), None, "syntax")


# ----------------------------------------------------------------------------- entry point


def _split_chunks(block: list[tuple[int, str]]) -> list[tuple[int, list[str]]]:
    """Split a fence into top-level declarations (each starts at column 0)."""
    chunks: list[tuple[int, list[str]]] = []
    cur: list[str] = []
    start = block[0][0] if block else 0
    pending_annotation = False
    has_code = False  # cur holds a line that is neither blank nor a comment
    for lineno, line in block:
        starts = bool(DECL_START.match(line))
        if starts and not pending_annotation and has_code:
            chunks.append((start, cur))
            cur, start, has_code = [], lineno, False
        if not cur:
            start = lineno
        cur.append(line)
        has_code = has_code or bool(line.strip() and not line.lstrip().startswith("#"))
        if starts:
            pending_annotation = line.startswith("@")
    if cur:
        chunks.append((start, cur))
    return chunks


def parse(text: str, filename: str) -> tuple[n.Module, list[Diagnostic]]:
    """Parse a `.rules` file.

    Args:
        text: the file's contents.
        filename: the path reported in spans and diagnostics.

    Returns:
        The module (whatever could be parsed) and the syntax diagnostics.
    """
    lines = text.splitlines()
    items: list = []
    diags: list[Diagnostic] = []
    prose: list[tuple[int, str]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if FENCE_OPEN.match(line.strip()) and not line.startswith((" ", "\t")):
            items.extend(_prose_blocks(prose, filename))
            prose = []
            start = i + 2  # 1-based line number of the first code line
            j = i + 1
            while j < len(lines) and not FENCE_CLOSE.match(lines[j]):
                j += 1
            if j >= len(lines):
                diags.append(Diagnostic("error", "unclosed ```rules block; expected a closing ``` line", Span(filename, i + 1, 1, i + 1, len(line) + 1), None, "syntax"))
            block = [(start + k, lines[i + 1 + k]) for k in range(j - i - 1)]
            for chunk_start, chunk in _split_chunks(block):
                items.extend(_parse_chunk(chunk, chunk_start - 1, filename, diags))
            i = j + 1
            continue
        if len(line) > MAX_LINE_CHARS:
            diags.append(Diagnostic(
                "error", f"this line of prose has {len(line)} characters; at most {MAX_LINE_CHARS} are allowed",
                Span(filename, i + 1, MAX_LINE_CHARS + 1, i + 1, len(line) + 1), "split it into several lines", "limit",
            ))
            line = ""
        prose.append((i + 1, line))
        i += 1
    items.extend(_prose_blocks(prose, filename))
    return n.Module(filename, tuple(items), text), diags


_DECL_NAME = re.compile(r"^(rulebook|enum|record|catalog|table|die|bag|rule|procedure|term|odds|const|army)\s+([^\W\d]\w*)")


def _broken(chunk: list[str], offset: int, filename: str) -> list:
    """A placeholder for a declaration that could not be read, so that its uses are
    not also reported as unknown names."""
    for i, line in enumerate(chunk):
        m = _DECL_NAME.match(line)
        if m:
            span = Span(filename, offset + i + 1, 1, offset + i + 1, len(line) + 1)
            return [n.BrokenDecl(m.group(2), m.group(1), span)]
    return []


_remembered: dict[str, object] = {}
_remember_limit = 0


def remember_parses(limit: int) -> None:
    """Keep the Lark trees of up to ``limit`` declarations, keyed by their text, so that re-parsing
    an edited file only parses the declarations that changed (the language server's edit loop).

    A tree holds positions relative to its declaration (the AST builder adds the file and line
    offset) and is never modified, so one tree serves every place the same text appears. Off (0) by
    default: a one-shot build parses each declaration once and would only hold memory."""
    global _remember_limit
    _remember_limit = max(0, limit)
    _remembered.clear()


def _tree(text: str):
    tree = _remembered.get(text)
    if tree is None:
        tree = _lark().parse(text)
        if _remember_limit:
            if len(_remembered) >= _remember_limit:
                _remembered.pop(next(iter(_remembered)))  # the oldest
            _remembered[text] = tree
    return tree


def _parse_chunk(chunk: list[str], offset: int, filename: str, diags: list[Diagnostic]) -> list:
    too_deep = Diagnostic("error", "this declaration is nested too deeply to read", Span(filename, offset + 1, 1, offset + 1, 2), "split the expression with let", "syntax")
    text = "\n".join(chunk) + "\n"
    try:
        tree = _tree(text)
    except RecursionError:
        diags.append(too_deep)
        return []
    except UnexpectedInput as err:
        diags.append(_syntax_diagnostic(err, filename, offset, chunk))
        return _broken(chunk, offset, filename)
    except LiteralTooLong as err:
        tok = err.token
        span = Span(filename, tok.line + offset, tok.column, tok.end_line + offset, tok.end_column)
        diags.append(Diagnostic("error", err.message, span, err.hint, "limit"))
        return _broken(chunk, offset, filename)
    transformer = _ToAst(filename, offset, chunk)
    try:
        items = transformer.transform(tree)
    except RecursionError:
        diags.append(too_deep)
        return []
    except VisitError as err:  # pragma: no cover - a bug, reported without a traceback
        if isinstance(err.orig_exc, RecursionError):
            diags.append(too_deep)
            return []
        diags.append(Diagnostic("error", f"internal error while reading this declaration: {err.orig_exc}", Span(filename, offset + 1, 1, offset + 1, 2), None, "internal"))
        return []
    diags.extend(transformer.problems)
    return items
