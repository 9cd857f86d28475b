"""Semantic tokens: every name of a file coloured by what it stands for, and the words,
numbers and dice of its ``rules`` fences.

Reads an :class:`~rulebook.compiler.lsp.workspace.Analysis` (the symbol index of
:mod:`~rulebook.compiler.lsp.index`, the declarations' kinds, the file's text). Produces the
``textDocument/semanticTokens/full`` data of one file (LSP's relative encoding, five
integers a token) with the legend :data:`TOKEN_TYPES` / :data:`TOKEN_MODIFIERS`:

* each name the index resolved: a declaration by its kind (``enum``, ``struct`` for a
  record, ``type`` for a catalog, table, die or bag, ``function`` for a procedure, rule or
  odds table, ``variable`` + ``readonly`` for a constant or term, ``namespace`` for an army),
  ``parameter``, ``property`` (a field, a table's key or column), ``enumMember`` (an enum
  value, a catalog id, a kind of token, an army's side, size or option), ``variable`` (a
  ``let`` value, a loop variable), ``function`` + ``defaultLibrary`` (a built-in),
  ``keyword`` (a clause word of an army or ``stacking``), ``decorator`` (``@name``);
  ``declaration`` marks where a name is defined;
* in the fences, outside strings and comments: the reserved words (``keyword``), the
  numbers (``number``) and the dice written ``2d6`` / ``d10`` (``dice``, a type of its own
  whose editors fall back to ``number``: the VS Code extension declares it so).

A name the index knows keeps its reading where a word could also be a keyword (a keyword
used as an enum value, as the lexer allows).
"""

from __future__ import annotations

import re

from rulebook.rules_dsl.keywords import KEYWORDS

from rulebook.compiler.lsp.index import build_index
from rulebook.compiler.lsp.positions import Locator
from rulebook.compiler.lsp.workspace import Analysis

#: The legend (standard LSP token types and modifiers, and ``dice``).
TOKEN_TYPES = ("namespace", "type", "enum", "struct", "enumMember", "property", "function", "parameter", "variable", "keyword", "decorator", "number", "dice")
TOKEN_MODIFIERS = ("declaration", "readonly", "defaultLibrary")
_DECL_TOKENS = {
    "enum": "enum", "record": "struct", "catalog": "type", "table": "type", "die": "type", "bag": "type", "rule": "function",
    "procedure": "function", "odds": "function", "matchup": "function", "const": "variable", "term": "variable", "army": "namespace",
}
_TARGET_TOKENS = {
    "member": "enumMember", "field": "property", "entry": "enumMember", "param": "parameter", "local": "variable", "builtin": "function",
    "choice": "enumMember", "clause": "keyword", "annotation": "decorator", "warning": "enumMember",
}
_LEXICAL = re.compile(r'(?P<string>"(?:[^"\\\n]|\\.)*"?)|(?P<comment>#.*)|(?P<dice>(?<!\w)\d*d\d+(?!\w))|(?P<number>(?<!\w)\d+(?:\.\d+)?(?!\w))|(?P<word>[^\W\d]\w*)')
_FENCE_OPEN = re.compile(r"```\s*rules\s*")


def semantic_tokens(analysis: Analysis, locator: Locator, file: str) -> list[int]:
    """The tokens of ``file``, encoded as LSP wants them."""
    tokens = _name_tokens(analysis, locator, file)
    taken = {(line, start) for line, start, _, _, _ in tokens}
    covered = {}
    for line, start, length, _, _ in tokens:
        covered.setdefault(line, []).append((start, start + length))
    for token in _lexical_tokens(locator, file):
        line, start, length = token[:3]
        if (line, start) in taken or any(a < start + length and start < b for a, b in covered.get(line, ())):
            continue
        tokens.append(token)
    tokens.sort()
    data: list[int] = []
    line = char = 0
    for t_line, t_char, length, kind, modifiers in tokens:
        data += [t_line - line, t_char - (char if t_line == line else 0), length, kind, modifiers]
        line, char = t_line, t_char
    return data


def _name_tokens(analysis: Analysis, locator: Locator, file: str) -> list[tuple[int, int, int, int, int]]:
    """(line, character, length, type, modifiers) of each name the index resolved (0-based)."""
    out = []
    last_end: tuple[int, int] = (-1, -1)
    decls = analysis.known
    for occ in build_index(analysis).by_file.get(file, ()):
        t = occ.target
        if occ.span.line != occ.span.end_line:
            continue
        if t.kind == "decl":
            d = decls.get(t.name)
            kind = _DECL_TOKENS.get(d.kind if d is not None else "")
        else:
            kind = _TARGET_TOKENS.get(t.kind)
        if kind is None:
            continue
        r = locator.range(occ.span)
        if (r.start.line, r.start.character) < last_end or r.end.character <= r.start.character:
            continue  # one token per place (a name indexed twice keeps its first reading)
        modifiers = (1 if occ.definition else 0) | (2 if t.kind == "decl" and kind == "variable" else 0) | (4 if t.kind == "builtin" else 0)
        out.append((r.start.line, r.start.character, r.end.character - r.start.character, TOKEN_TYPES.index(kind), modifiers))
        last_end = (r.end.line, r.end.character)
    return out


def _lexical_tokens(locator: Locator, file: str):
    """Keywords, numbers and dice of the fences (0-based, in the client's code units)."""
    kinds = {"dice": TOKEN_TYPES.index("dice"), "number": TOKEN_TYPES.index("number"), "word": TOKEN_TYPES.index("keyword")}
    inside = False
    for number, text in enumerate(locator.lines(file)):
        if not inside:
            inside = _FENCE_OPEN.fullmatch(text) is not None
            continue
        if text.rstrip() == "```":
            inside = False
            continue
        units = None
        for m in _LEXICAL.finditer(text):
            group = m.lastgroup
            if group in ("string", "comment") or (group == "word" and m.group() not in KEYWORDS):
                continue
            if units is None:
                units = _unit_offsets(locator, text)
            start, end = units(m.start()), units(m.end())
            yield (number, start, end - start, kinds[group], 0)


def _unit_offsets(locator: Locator, text: str):
    """Character index → client code units in ``text`` (the identity for ASCII text)."""
    if text.isascii():
        return lambda i: i
    return lambda i: locator.codec.client_num_units(text[:i])
