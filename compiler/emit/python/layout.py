"""Python code as a small tree of docs, laid out in lines of at most :data:`WIDTH` characters.

Reads: docs built by the writers of the package's modules — string literals (:class:`Text`),
calls and collections (:class:`Group`), operator chains (:class:`Chain`), parts written one
after the other (:class:`Seq`), items with a comment (:class:`Noted`); plain strings are code
written as they are. Produces: the lines of one statement (:func:`layout`), each written on
one line when it fits, else broken at its top-level commas or operators, string literals
split into implicitly joined pieces.

Only :class:`Text` (``repr()``) and the comma of ``(x,)`` are Python spelling; the
breaking of groups and chains is the same for any language with brackets and infix
operators.

Docs are named tuples: immutable, and built, hashed and compared by C code (a data literal
of ``data.py`` is thousands of docs; docs are the keys of :func:`laid_out`'s memo and of
the tables of values a module builds once). Docs of different classes differ in their
number of fields or in the type of the first, so they never compare equal.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple, Union

WIDTH = 120
INDENT = "    "


class Text(NamedTuple):
    """A string literal: written with ``repr()``; when too long, split into
    implicitly joined pieces inside parentheses."""

    value: str


class Group(NamedTuple):
    """``head`` + ``open`` + items separated by commas + ``close``: a call, a tuple,
    a dict, a subscript. ``trailing_comma`` writes a comma after the last item on one
    line too (``(x,)``); ``always_break`` puts one item per line even when all would fit."""

    head: str
    items: tuple["Doc", ...]
    open: str = "("
    close: str = ")"
    trailing_comma: bool = False
    always_break: bool = False


class Chain(NamedTuple):
    """Operands joined by operators in parentheses: ``(a + b - c)``, ``(x if c else y)``,
    ``body for v in xs if c``. Without ``parens`` (the sole argument of a call) the
    call's parentheses hold it."""

    first: "Doc"
    rest: tuple[tuple[str, "Doc"], ...]
    parens: bool = True


class Seq(NamedTuple):
    """Parts written one after the other (``obj.field``, ``name=value``, ``x = call(…)``)."""

    parts: tuple["Doc", ...]


class Noted(NamedTuple):
    """An item of a group followed by a comment (``value,  # note``): the group is
    then written one item per line. ``note`` is a Python name (the parameter the
    value fills)."""

    doc: "Doc"
    note: str


Doc = Union[str, Text, Group, Chain, Seq, Noted]


def call(head: str, *items: Doc) -> Group:
    return Group(head, tuple(items))


def kwargs_call(head: str, fields: list[tuple[str, Doc]]) -> Group:
    """``head(name=value, …)`` with one keyword per line: a protocol object of the runtime."""
    return Group(head, tuple(Seq((name + "=", value)) for name, value in fields), always_break=True)


def tuple_of(items: list[Doc], always_break: bool = False) -> Group:
    return Group("", tuple(items), trailing_comma=len(items) == 1, always_break=always_break)


def dict_of(pairs: list[tuple[Doc, Doc]], always_break: bool = False) -> Group:
    return Group("", tuple(Seq((k, ": ", v)) for k, v in pairs), "{", "}", always_break=always_break)


def _sole_chain_bare(group: Group) -> tuple[Doc, ...]:
    """A call's only argument needs no parentheses of its own."""
    if group.head and group.open == "(" and len(group.items) == 1 and isinstance(group.items[0], Chain):
        return (group.items[0]._replace(parens=False),)
    return group.items


def flat(doc: Doc) -> str:
    """The doc on one line."""
    if isinstance(doc, str):
        return doc
    if isinstance(doc, Text):
        return repr(doc.value)
    if isinstance(doc, Seq):
        return "".join(flat(p) for p in doc.parts)
    if isinstance(doc, Noted):  # never written on one line (see must_break)
        return flat(doc.doc)
    if isinstance(doc, Group):
        inner = ", ".join(flat(i) for i in _sole_chain_bare(doc))
        return doc.head + doc.open + inner + ("," if doc.trailing_comma else "") + doc.close
    inner = flat(doc.first) + "".join(f" {op} {flat(x)}" for op, x in doc.rest)
    return f"({inner})" if doc.parens else inner


def width(doc: Doc, room: int) -> int:
    """``len(flat(doc))`` when that is at most ``room`` and ``doc`` need not break (see
    :func:`must_break`); else a number over ``room`` (the count stops there, so a long doc
    costs no more than a short one: a doc is measured again at each level it is laid out)."""
    if isinstance(doc, str):
        return len(doc)
    if isinstance(doc, Text):
        return len(repr(doc.value))
    if isinstance(doc, Seq):
        total = 0
        for part in doc.parts:
            total += width(part, room - total)
            if total > room:
                break
        return total
    if isinstance(doc, Group):
        if doc.always_break and doc.items:
            return room + 1
        items = doc.items
        total = len(doc.head) + len(doc.open) + len(doc.close) + doc.trailing_comma + 2 * max(len(items) - 1, 0)
        if doc.head and doc.open == "(" and len(items) == 1 and isinstance(items[0], Chain) and items[0].parens:
            total -= 2  # the sole argument of a call, without parentheses of its own (_sole_chain_bare)
        for item in items:
            total += width(item, room - total)
            if total > room:
                break
        return total
    if isinstance(doc, Chain):
        total = 2 * doc.parens + width(doc.first, room - 2 * doc.parens)
        for op, operand in doc.rest:
            if total > room:
                break
            total += len(op) + 2
            total += width(operand, room - total)
        return total
    return room + 1  # Noted: never on one line


def layout(doc: Doc, indent: int, col: int, tail: int) -> list[str]:
    """Lines for ``doc`` written from column ``col`` of a line indented by ``indent``,
    with ``tail`` characters to follow it. The first line continues the current
    line; the others are complete, with their indentation."""
    if isinstance(doc, str) or width(doc, WIDTH - col - tail) <= WIDTH - col - tail:
        return [flat(doc)]
    if isinstance(doc, Text):
        return _split_text(doc.value, indent)
    if isinstance(doc, Seq):
        return _layout_seq(doc, indent, col, tail)
    if isinstance(doc, Group):
        return _layout_group(doc, indent, tail)
    if isinstance(doc, Noted):
        return layout(doc.doc, indent, col, tail)
    return _layout_chain(doc, indent, col, tail)


def must_break(doc: Doc) -> bool:
    """Does ``doc`` hold a group written one item per line whatever its length?"""
    if isinstance(doc, Noted):
        return True
    if isinstance(doc, Group):
        return (doc.always_break and bool(doc.items)) or any(must_break(i) for i in doc.items)
    if isinstance(doc, Seq):
        return any(must_break(p) for p in doc.parts)
    if isinstance(doc, Chain):
        return must_break(doc.first) or any(must_break(x) for _, x in doc.rest)
    return False


def _split_text(value: str, indent: int) -> list[str]:
    """A long string literal as pieces (cut after spaces, or inside a word too long
    for a line) in parentheses."""
    room = WIDTH - indent - len(INDENT)
    pieces, current = [], ""
    for word in _words(value):
        if current and len(repr(current + word)) > room:
            pieces.append(current)
            current = ""
        while len(word) > 1 and len(repr(word)) > room:
            cut = len(word) - 1
            while cut > 1 and len(repr(word[:cut])) > room:
                cut -= 1
            pieces.append(word[:cut])
            word = word[cut:]
        current += word
    pieces.append(current)
    inner = " " * (indent + len(INDENT))
    return ["("] + [inner + repr(p) for p in pieces] + [" " * indent + ")"]


def _words(value: str) -> list[str]:
    """``value`` cut after each run of spaces (the pieces join back to ``value``)."""
    words, current = [], ""
    for i, ch in enumerate(value):
        current += ch
        if ch == " " and (i + 1 == len(value) or value[i + 1] != " "):
            words.append(current)
            current = ""
    return words + [current] if current else words


def _continue(lines: list[str], more: list[str]) -> None:
    lines[-1] += more[0]
    lines.extend(more[1:])


def _layout_seq(doc: Seq, indent: int, col: int, tail: int) -> list[str]:
    lines = [""]
    for i, part in enumerate(doc.parts):
        at = col + len(lines[0]) if len(lines) == 1 else len(lines[-1])
        _continue(lines, layout(part, indent, at, _following(doc.parts[i + 1:], tail)))
    return lines


def _following(parts: tuple[Doc, ...], tail: int) -> int:
    """How many characters must follow on the same line: the parts up to the
    opening of the first one that can break (else all of them, and the tail)."""
    width, breaks = _lead(parts)
    return width if breaks else width + tail


def _lead(parts: tuple[Doc, ...]) -> tuple[int, bool]:
    """The width of ``parts`` up to the opening of the first that can break, and whether one can."""
    width = 0
    for part in parts:
        if isinstance(part, Group):
            return width + len(part.head) + len(part.open), True
        if isinstance(part, Chain):
            return width + 1, True
        if isinstance(part, Seq):
            inner, breaks = _lead(part.parts)
            if breaks:
                return width + inner, True
            width += inner
        else:
            width += len(flat(part))
    return width, False


def _layout_group(doc: Group, indent: int, tail: int) -> list[str]:
    items = _sole_chain_bare(doc)
    inner = indent + len(INDENT)
    brackets = len(doc.head) + len(doc.open) + len(doc.close)
    if indent + len(doc.close) + tail <= WIDTH and width(doc, WIDTH - inner + brackets) - brackets <= WIDTH - inner:
        contents = ", ".join(flat(i) for i in items) + ("," if doc.trailing_comma else "")
        return [doc.head + doc.open, " " * inner + contents, " " * indent + doc.close]
    trailing = doc.open != "[" and (len(items) > 1 or doc.trailing_comma)
    lines = [doc.head + doc.open]
    for k, item in enumerate(items):
        comma = "," if k < len(items) - 1 or trailing else ""
        note = f"  # {item.note}" if isinstance(item, Noted) else ""
        sub = layout(item, inner, inner, len(comma) + len(note))
        lines.append(" " * inner + sub[0])
        lines.extend(sub[1:])
        lines[-1] += comma
        if len(lines[-1]) + len(note) <= WIDTH:  # else the line goes without its note
            lines[-1] += note
    lines.append(" " * indent + doc.close)
    return lines


def _layout_chain(doc: Chain, indent: int, col: int, tail: int) -> list[str]:
    inner = indent + len(INDENT) if doc.parens else indent
    if doc.parens and width(doc, WIDTH - inner + 2) - 2 <= WIDTH - inner:
        return ["(", " " * inner + flat(doc._replace(parens=False)), " " * indent + ")"]
    last_tail = 0 if doc.parens else tail
    operands = [("", doc.first)] + [(op + " ", x) for op, x in doc.rest]
    lines = ["("] if doc.parens else []
    for k, (prefix, operand) in enumerate(operands):
        start = col if not lines else inner
        sub = layout(operand, inner, start + len(prefix), last_tail if k == len(operands) - 1 else 0)
        lines.append(("" if not lines else " " * inner) + prefix + sub[0])
        lines.extend(sub[1:])
    if doc.parens:
        lines.append(" " * indent + ")")
    return lines


@lru_cache(maxsize=1 << 15)
def laid_out(doc: Doc, indent: int) -> tuple[str, ...]:
    """``layout(doc, indent, indent, 0)``, remembered (the result is not changed by the
    caller): ``rulebook serve`` generates the package again after an edit, and most
    statements are the ones it laid out before (a doc is a tree of immutable values)."""
    return tuple(layout(doc, indent, indent, 0))
