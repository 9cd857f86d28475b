"""A literate ``.rules`` file split into prose and ```` ```rules ```` fences, the fences laid out.

Reads a file's text. Produces the text with the code of each fence laid out
(:func:`format_fences`; :mod:`rulebook.compiler.format.layout`), the opening line of a
fence written ```` ```rules ```` and its closing line ```` ``` ````. Every line outside the
fences is kept byte for byte (its line end too). A fence is found as the parser finds it
(:mod:`rulebook.rules_dsl.parser`): an unindented ```` ```rules ```` line opens it, the
next ```` ``` ```` line closes it. A fence without its closing line, or whose code the
layout cannot read, is kept as it is (the parser then reports it).
"""

from __future__ import annotations

from rulebook.rules_dsl.parser import FENCE_CLOSE, FENCE_OPEN

from .layout import Unformattable, layout_fence

_PLAIN_ENDS = ("\n", "\r\n", "")


def _newline(lines: list[str]) -> str:
    for line in lines:
        if line.endswith("\r\n"):
            return "\r\n"
        if line.endswith("\n"):
            return "\n"
    return "\n"


def fences(text: str) -> list[tuple[int, int]]:
    """The fences of a file as (line of the opening ```` ```rules ````, line of its closing
    ```` ``` ````), 0-based; an unclosed fence is left out."""
    lines = text.splitlines()
    found: list[tuple[int, int]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if FENCE_OPEN.match(line.strip()) and not line.startswith((" ", "\t")):
            j = i + 1
            while j < len(lines) and not FENCE_CLOSE.match(lines[j]):
                j += 1
            if j >= len(lines):
                break
            found.append((i, j))
            i = j + 1
            continue
        i += 1
    return found


def format_fences(text: str, wanted=None) -> tuple[str, list[tuple[int, int, str]]]:
    """``text`` with its fences laid out, and the fences left as they were (line, column,
    why; 1-based). ``wanted(open_line, close_line)`` (0-based) chooses the fences to lay
    out (all by default)."""
    lines = text.splitlines(keepends=True)
    nl = _newline(lines)
    out: list[str] = []
    kept: list[tuple[int, int, str]] = []
    at = 0
    for start, end in fences(text):
        out.extend(lines[at:start])
        at = end + 1
        block = lines[start : end + 1]
        if (wanted is not None and not wanted(start, end)) or any(_ending(ln) not in _PLAIN_ENDS for ln in block):
            out.extend(block)
            continue
        code = [_body(ln) for ln in block[1:-1]]
        try:
            laid = layout_fence(code)
        except Unformattable as err:
            kept.append((start + 2 + err.line, err.column, err.reason))
            out.extend(block)
            continue
        close_end = _ending(block[-1])
        out.append("```rules" + nl)
        out.extend(ln + nl for ln in laid)
        out.append("```" + close_end)
    out.extend(lines[at:])
    return "".join(out), kept


def _ending(line: str) -> str:
    body = _body(line)
    return line[len(body):]


_TERMINATORS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def _body(line: str) -> str:
    """A line without its line end."""
    if line.endswith("\r\n"):
        return line[:-2]
    return line[:-1] if line and line[-1] in _TERMINATORS else line
