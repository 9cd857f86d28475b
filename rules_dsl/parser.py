"""Parse a literate `.rules` file into a :class:`rulebook.rules_dsl.nodes.Module`.

Entry point: :func:`parse(text, filename) -> (Module, list[Diagnostic])`.

A file is prose (a small Markdown subset, see LANGUAGE.md) with declarations in
```` ```rules ```` fences. Prose is parsed by a line scanner into prose nodes
(:mod:`rulebook.rules_dsl.prose`); fenced code is parsed by the Lark LALR grammar in
``grammar.lark`` (:mod:`rulebook.rules_dsl.grammar`) and turned into nodes by
:class:`ToAst`, whose parts (declarations, procedures, data, expressions) each live in a
module of their own. Each top-level declaration of a fence is parsed on its own, so one
run reports one syntax error per broken declaration instead of stopping at the first
(:mod:`rulebook.rules_dsl.syntax_errors` words it).

Work is linear in the size of the file: the prose scanners never rescan a line
for an opener that has no closer, and numbers, strings and names over their
limits (:data:`MAX_NUMBER_DIGITS`, :data:`MAX_STRING_CHARS`,
:data:`MAX_NAME_CHARS`), and lines of prose over :data:`MAX_LINE_CHARS`, are
refused with a diagnostic before they are used.
"""

from __future__ import annotations

import re

from lark.exceptions import UnexpectedInput, VisitError

from . import nodes as n
from .ast_data import DataToAst
from .ast_declarations import DeclarationsToAst
from .ast_expressions import ExpressionsToAst
from .ast_procedures import ProceduresToAst
from .diagnostics import Diagnostic, Span
from .grammar import MAX_LINE_CHARS, LiteralTooLong
from .grammar import lark_parser as _lark  # called as parser._lark(): bench/run.py counts the parses by replacing it
from .prose import prose_blocks
from .syntax_errors import reserved_word_diagnostics, syntax_diagnostic

# Re-exported: the checker imports KEYWORDS from here; callers and tests read the limits,
# the grammar's path and the prose scanner's pieces from here too.
from .grammar import GRAMMAR_PATH, MAX_NAME_CHARS, MAX_NUMBER_DIGITS, MAX_STRING_CHARS  # noqa: F401
from .keywords import DECLARATION_KEYWORDS, KEYWORDS  # noqa: F401
from .prose import _HEADING, inline_runs, parse_inlines  # noqa: F401
from .prose import prose_blocks as _prose_blocks  # noqa: F401

FENCE_OPEN = re.compile(r"^```\s*rules\s*$")
FENCE_CLOSE = re.compile(r"^```\s*$")
DECL_START = re.compile(r"^(@|(?:" + "|".join(DECLARATION_KEYWORDS) + r")\b)")


class ToAst(DeclarationsToAst, ProceduresToAst, DataToAst, ExpressionsToAst):
    """The AST builder: one Lark tree of a top-level declaration → its node. Each part
    handles the rules of its area of the grammar (no rule is handled by two parts)."""


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
            items.extend(prose_blocks(prose, filename))
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
    items.extend(prose_blocks(prose, filename))
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
_remembered_nodes: dict[tuple[str, int, str], tuple[tuple, tuple[Diagnostic, ...]]] = {}
_remember_limit = 0


def remember_parses(limit: int) -> None:
    """Keep the Lark trees of up to ``limit`` declarations, keyed by their text, so that re-parsing
    an edited file only parses the declarations that changed (the language server's edit loop).

    A tree holds positions relative to its declaration (the AST builder adds the file and line
    offset) and is never modified, so one tree serves every place the same text appears. Off (0) by
    default: a one-shot build parses each declaration once and would only hold memory.

    The nodes built from a tree are kept too, keyed by the declaration's text, file and first
    line (their spans hold both): an edit that keeps the lines where they were — typing within
    a line — builds only the edited declaration's nodes again. Nodes are immutable, so they are
    shared as the trees are."""
    global _remember_limit
    _remember_limit = max(0, limit)
    _remembered.clear()
    _remembered_nodes.clear()


def _remember(store: dict, key, value) -> None:
    if _remember_limit:
        if len(store) >= _remember_limit:
            store.pop(next(iter(store)))  # the oldest
        store[key] = value


def _tree(text: str):
    tree = _remembered.get(text)
    if tree is None:
        tree = _lark().parse(text)
        _remember(_remembered, text, tree)
    return tree


def _parse_chunk(chunk: list[str], offset: int, filename: str, diags: list[Diagnostic]) -> list:
    too_deep = Diagnostic("error", "this declaration is nested too deeply to read", Span(filename, offset + 1, 1, offset + 1, 2), "split the expression with let", "syntax")
    text = "\n".join(chunk) + "\n"
    known = _remembered_nodes.get((text, offset, filename))
    if known is not None:
        diags.extend(known[1])
        return list(known[0])
    try:
        tree = _tree(text)
    except RecursionError:
        diags.append(too_deep)
        return []
    except UnexpectedInput as err:
        diags.extend(reserved_word_diagnostics(err, filename, offset, chunk) or [syntax_diagnostic(err, filename, offset, chunk)])
        return _broken(chunk, offset, filename)
    except LiteralTooLong as err:
        tok = err.token
        span = Span(filename, tok.line + offset, tok.column, tok.end_line + offset, tok.end_column)
        diags.append(Diagnostic("error", err.message, span, err.hint, "limit"))
        return _broken(chunk, offset, filename)
    transformer = ToAst(filename, offset, chunk)
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
    _remember(_remembered_nodes, (text, offset, filename), (tuple(items), tuple(transformer.problems)))
    return items
