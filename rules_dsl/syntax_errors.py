"""Syntax errors, told in the words of the language.

Reads a Lark :class:`~lark.exceptions.UnexpectedInput` raised on one declaration (with the
declaration's lines and its offset in the file). Produces a
:class:`~rulebook.rules_dsl.diagnostics.Diagnostic`: what was found and what was expected
(terminals named as written, "a name", "a new line"…), with a hint where one helps: a
misspelt keyword, a line that starts in the middle of an expression, a reserved word used
as a name, a roll with a per-die condition (``each d if …``) used inside an expression, an army block opened on its own line, and an ``odds`` declaration in the old
one-line form (rewritten as the block it should be, :func:`legacy_odds`).
"""

from __future__ import annotations

import re

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from .diagnostics import Diagnostic, Edit, Span, did_you_mean
from .grammar import lark_parser
from .keywords import KEYWORDS, reserved

ODDS_BLOCK_HINT = """an odds table is a block:
  odds nombre "Título" {
    procedure resolutor(param: eje, …)
    each perfil in catalogo "Título"      # optional: one table per entry
    rows eje in -3..2 "Título"
    columns otro in Enum "Título"         # optional
    cell probability(result.campo)        # or: cells outcomes(result.campo)
  }"""

EACH_HINT = ("a roll with a per-die condition (each d if …) is a whole value: put it in brackets, "
             "(roll d6 times n count each d if d >= 4) + 1, or name it with let")
_AFTER_EACH = re.compile(r"\b(?:count|reroll|explode)\s+each\s*$")
_IN_EACH = re.compile(r"\beach\s+\w+\s+if\b")
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
    lark = lark_parser()
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


_STRING_OR_COMMENT = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|#.*$')
_KW = r"(?P<word>" + "|".join(sorted(KEYWORDS, key=len, reverse=True)) + r")(?!\w)"
_BINDINGS = (  # (pattern, what the word would name); the word is the group "word"
    (re.compile(r"(?<![\w.])let\s+" + _KW + r"(?=\s*=)"), "a value"),
    (re.compile(r"(?<![\w.])for\s+" + _KW + r"(?=\s+in\b)"), "a loop variable"),
    (re.compile(r"^\s*(?:rows|columns|each)\s+" + _KW + r"(?=\s+in\b)"), "an axis of an odds table"),
)
_PARAM = re.compile(r"(?:[(,]|^)\s*" + _KW + r"(?=\s*:)")
_WORD_BEFORE = re.compile(r"(?<![\w.])" + _KW + r"\s*$")


def _blanked(line: str) -> str:
    """``line`` with its strings and comment blanked out (the columns kept)."""
    return _STRING_OR_COMMENT.sub(lambda m: " " * len(m.group()), line)


def reserved_word_diagnostics(err: UnexpectedInput, filename: str, offset: int, lines: list[str]) -> list[Diagnostic]:
    """A declaration that failed to parse because a reserved word names something: one
    error at each such word, instead of the syntax error it causes further on (``let roll =
    roll 2d6`` breaks at the next ``roll - 1``, not at the ``let``); [] when that is not it.

    The words looked for: a ``let`` value, a loop variable, an odds axis and a parameter of
    the declaration's head, each before the syntax error; else the word right before the
    ``:`` the parser stopped at (``Hit(roll: 3)``: a field named like a keyword, which data
    rows and ``hit.roll`` read as a name, but an argument by name cannot)."""
    if not isinstance(err, UnexpectedToken) or not lines:
        return []
    where = (err.line or 1, err.column or 1) if err.token.type != "$END" else (len(lines) + 1, 1)
    text = [_blanked(line) for line in lines]
    found: dict[tuple[int, int], tuple[str, str]] = {}
    head = next((i for i, line in enumerate(text) if re.match(r"(procedure|rule)\b", line)), None)
    head_end = next((i for i, line in enumerate(text) if head is not None and i >= head and ("{" in line or "->" in line)), head)
    for i, line in enumerate(text):
        matches = [(m, what) for pattern, what in _BINDINGS for m in pattern.finditer(line)]
        if head is not None and head <= i <= head_end:
            matches += [(m, "a parameter") for m in _PARAM.finditer(line.split("->")[0].split("{")[0])]
        for m, what in matches:
            if (i + 1, m.start("word") + 1) <= where:
                found.setdefault((i + 1, m.start("word") + 1), (m.group("word"), what))
    if not found and 1 <= where[0] <= len(text):
        before = _WORD_BEFORE.search(text[where[0] - 1][: where[1] - 1])
        if before and err.token.type == "COLON":  # `Hit(roll: 3)`: a field or argument named like a keyword
            found[(where[0], before.start("word") + 1)] = (before.group("word"), "")
    out = []
    for (line, col), (word, what) in sorted(found.items()):
        message, hint = reserved(word, what or "a field or parameter given by name")
        if not what:
            hint = f"rename the field or parameter everywhere (e.g. '{word}_'), or give the values by position"
        out.append(Diagnostic("error", message, Span(filename, line + offset, col, line + offset, col + len(word)), hint, "reserved"))
    return out


def syntax_diagnostic(err: UnexpectedInput, filename: str, offset: int, lines: list[str] | None = None) -> Diagnostic:
    line = (err.line or 1) + offset
    col = err.column or 1
    if isinstance(err, UnexpectedToken) and lines and (block := legacy_odds(lines)) is not None:
        start = next(k for k, l in enumerate(lines) if l.startswith("odds"))
        span = Span(filename, offset + start + 1, 1, offset + start + 1, len(lines[start]) + 1)
        last = max(k for k, l in enumerate(lines) if l.strip() and not l.lstrip().startswith("#"))
        whole = Span(filename, offset + start + 1, 1, offset + last + 1, len(lines[last]) + 1)
        return Diagnostic(
            "error", "odds is now a block: 'of', 'for' and 'show' became procedure, rows/columns and cell/cells", span,
            "write it as:\n" + block, "syntax", (Edit(whole, block),),
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
        suggest: tuple[Edit, ...] = ()
        if tok.type == "$END" and "RBRACE" in err.expected:
            return Diagnostic("error", "missing '}': a '{' is still open at the end of the block", span, "close every '{' with a matching '}'", "syntax")
        if tok.type == "$END" and ("RPAR" in err.expected or "RSQB" in err.expected):
            closer = "')'" if "RPAR" in err.expected else "']'"
            return Diagnostic("error", f"missing {closer} at the end of the block", span, None, "syntax")
        odds_words = {"of": "procedure p(…)", "for": "rows x in … (then columns y in …)", "show": "cell … or cells outcomes(…)"}
        if str(tok) in odds_words and lines and any(l.startswith("odds") for l in lines):
            return Diagnostic("error", f"{msg}; expected {expected}", span, f"in an odds block, write {odds_words[str(tok)]} instead of '{tok}'", "syntax")
        if lines and 0 < tok.line <= len(lines) and _AFTER_EACH.search(lines[tok.line - 1][: tok.column - 1]):
            hint = EACH_HINT
        elif str(tok) in ("roll", "draw", "stack") and lines and 0 < tok.line <= len(lines) and _IN_EACH.search(lines[tok.line - 1][: tok.column - 1]):
            hint = "the condition of each d if … is worked out for each face: it cannot roll or draw; roll first, with let"
        elif tok.type == "NAME" and str(tok) not in KEYWORDS:
            kw = did_you_mean(str(tok), KEYWORDS)
            if kw and f"'{kw}'" in _describe_expected(set(err.expected), None):
                hint = f"did you mean '{kw}'?"
                suggest = (Edit(span, kw),)
        elif lines and tok.type not in ("_NL", "$END", "NAME") and 0 < tok.line <= len(lines) and not lines[tok.line - 1][: tok.column - 1].strip() and tok.type in _CONTINUATION:
            hint = "a line cannot start in the middle of an expression: continue it inside ( ) or [ ], or join the lines"
        elif str(tok) == "{" and lines and any(l.startswith("army") for l in lines):
            hint = "in an army, a clause's block opens on the clause's line: units catalogo cost: campo {"
        elif tok.type in {"IF", "ELSE", "LET", "RETURN", "TABLE", "RULE", "ENUM", "IN", "FROM", "COUNT", "BY", "STEP"}:
            hint = f"'{tok}' is a reserved word; choose another name"
        return Diagnostic("error", f"{msg}; expected {expected}", span, hint, "syntax", suggest=suggest)
    if isinstance(err, UnexpectedCharacters):
        span = Span(filename, line, col, line, col + 1)
        ch = err.char
        allowed = _describe_expected(set(err.allowed or ())) if err.allowed else ""
        msg = f"unexpected character {ch!r}" + (f"; expected {allowed}" if allowed else "")
        hint = "strings use straight double quotes \"…\"" if ch in "“”'«»" else None
        return Diagnostic("error", msg, span, hint, "syntax")
    return Diagnostic("error", f"syntax error: {err}", Span(filename, line, col, line, col + 1), None, "syntax")
