"""Checked program (:class:`rulebook.compiler.ir.Program`) → a generated, importable Python package of resolvers.

Reads only the typed IR. Entry point: :func:`generate(program) -> dict[str, str]`
(file name → source); :func:`write_package(program, folder)` writes it. A long-running
caller (``rulebook serve``) keeps a :class:`ModuleMemo`, whose ``generate`` gives the same
modules but writes again only what reads a declaration or worked example that changed.

The package (named after the rulebook id) holds:

* ``types.py`` — enum values and orders, one class per record
  (``rulebook.runtime.Record``: an immutable value with slots; resolvers build one with
  ``R._new(value, …)``, faster than a class call);
* ``data.py`` — constants, catalogs, tables, dice and bags as Python literals,
  and ``GRANTS``: the special rules each rule grants (read by ``has_rule`` and
  ``rule_param`` through ``rulebook.runtime.granted``);
* ``procedures.py`` — one function per procedure, ``fn(ctx, **params)``: the fast
  resolvers, which only roll dice (steps are comments; a table is indexed
  directly where the types guarantee the row). The body of a ``repeat … until``
  is a function of its own, ``_repeat_<procedure>_<n>(ctx, <values it reads>)``,
  run by ``ctx.repeat``. Calls between procedures and record builders
  (``_new_<record>``, a module-level name for ``_t.<record>._new``; for a record
  of bools, whole numbers and strings, one that gives back the equal record built
  already) pass their arguments by position where that keeps the order written,
  each noted with the parameter it fills: the cheapest calls for Python;
* ``traced.py`` — the same functions, traced (``fn.traced``): they report steps,
  bindings and rolls to the context, look every table up with the rule's
  position, and give each roll the state exact enumeration may merge on (from
  :mod:`rulebook.compiler.analysis.liveness`);
* ``examples.py`` — the worked examples, as :class:`rulebook.runtime.Example` objects;
* ``odds.py`` — the odds tables, as :class:`rulebook.runtime.Odds` objects;
* ``__init__.py`` — the public API: a :class:`rulebook.runtime.Procedure` per procedure.

Every DSL name goes through :func:`rulebook.compiler.emit.python.names.py_name`; every literal,
docstring and comment text through ``repr()``. The code imports nothing but
the runtime, the package's own copy (``from . import _runtime``: see
:mod:`rulebook.compiler.emit.python.to_project`). Source positions cited by code go through one table per module
(``_SRC[i]``). Code is laid out by a small pretty-printer that breaks long
calls, collections and operator chains over several lines, so no line is over
:data:`WIDTH` characters except the entries of the catalog and table literals
of ``data.py`` (one entry per line).
"""

from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from fractions import Fraction
from pathlib import Path
from typing import Any, Union

from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler import ir
from rulebook.compiler.analysis import liveness
from rulebook.compiler.ir.builtins import BUILTINS
from rulebook.compiler.support.i18n import of_rulebook
from rulebook.compiler.support.memo import ALL, NotedMapping
from rulebook.compiler.emit.python.names import module_name, py_name
from rulebook.compiler.ir.sources import content_hash
from rulebook.compiler.emit.python.to_project import VENDORED, distribution_version, project_files
from rulebook.compiler.ir.types import DEC, T

WIDTH = 120
INDENT = "    "

# ---------------------------------------------------------------------------- layout
#
# Code is built as a small tree (Doc) and laid out at the end: a node is written
# on one line when it fits, else broken at its top-level commas or operators.


@dataclass(frozen=True, slots=True)
class Text:
    """A string literal: written with ``repr()``; when too long, split into
    implicitly joined pieces inside parentheses."""

    value: str


@dataclass(frozen=True, slots=True)
class Group:
    """``head`` + ``open`` + items separated by commas + ``close``: a call, a tuple,
    a dict, a subscript. ``tuple_of_one`` writes the comma of ``(x,)``;
    ``always_break`` puts one item per line even when all would fit."""

    head: str
    items: tuple["Doc", ...]
    open: str = "("
    close: str = ")"
    tuple_of_one: bool = False
    always_break: bool = False


@dataclass(frozen=True, slots=True)
class Chain:
    """Operands joined by operators in parentheses: ``(a + b - c)``, ``(x if c else y)``,
    ``body for v in xs if c``. Without ``parens`` (the sole argument of a call) the
    call's parentheses hold it."""

    first: "Doc"
    rest: tuple[tuple[str, "Doc"], ...]
    parens: bool = True


@dataclass(frozen=True, slots=True)
class Seq:
    """Parts written one after the other (``obj.field``, ``name=value``, ``x = call(…)``)."""

    parts: tuple["Doc", ...]


@dataclass(frozen=True, slots=True)
class Noted:
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
    return Group("", tuple(items), tuple_of_one=len(items) == 1, always_break=always_break)


def dict_of(pairs: list[tuple[Doc, Doc]], always_break: bool = False) -> Group:
    return Group("", tuple(Seq((k, ": ", v)) for k, v in pairs), "{", "}", always_break=always_break)


def _sole_chain_bare(group: Group) -> tuple[Doc, ...]:
    """A call's only argument needs no parentheses of its own."""
    if group.head and group.open == "(" and len(group.items) == 1 and isinstance(group.items[0], Chain):
        return (dataclasses.replace(group.items[0], parens=False),)
    return group.items


def flat(doc: Doc) -> str:
    """The doc on one line."""
    if isinstance(doc, str):
        return doc
    if isinstance(doc, Text):
        return repr(doc.value)
    if isinstance(doc, Seq):
        return "".join(flat(p) for p in doc.parts)
    if isinstance(doc, Noted):  # never written on one line (see _must_break)
        return flat(doc.doc)
    if isinstance(doc, Group):
        inner = ", ".join(flat(i) for i in _sole_chain_bare(doc))
        return doc.head + doc.open + inner + ("," if doc.tuple_of_one else "") + doc.close
    inner = flat(doc.first) + "".join(f" {op} {flat(x)}" for op, x in doc.rest)
    return f"({inner})" if doc.parens else inner


def layout(doc: Doc, indent: int, col: int, tail: int) -> list[str]:
    """Lines for ``doc`` written from column ``col`` of a line indented by ``indent``,
    with ``tail`` characters to follow it. The first line continues the current
    line; the others are complete, with their indentation."""
    one_line = flat(doc)
    if isinstance(doc, str) or (col + len(one_line) + tail <= WIDTH and not _must_break(doc)):
        return [one_line]
    if isinstance(doc, Text):
        return _split_text(doc.value, indent)
    if isinstance(doc, Seq):
        return _layout_seq(doc, indent, col, tail)
    if isinstance(doc, Group):
        return _layout_group(doc, indent, tail)
    if isinstance(doc, Noted):
        return layout(doc.doc, indent, col, tail)
    return _layout_chain(doc, indent, col, tail)


def _must_break(doc: Doc) -> bool:
    """Does ``doc`` hold a group written one item per line whatever its length?"""
    if isinstance(doc, Noted):
        return True
    if isinstance(doc, Group):
        return (doc.always_break and bool(doc.items)) or any(_must_break(i) for i in doc.items)
    if isinstance(doc, Seq):
        return any(_must_break(p) for p in doc.parts)
    if isinstance(doc, Chain):
        return _must_break(doc.first) or any(_must_break(x) for _, x in doc.rest)
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
    contents = ", ".join(flat(i) for i in items) + ("," if doc.tuple_of_one else "")
    if not _must_break(doc) and inner + len(contents) <= WIDTH and indent + len(doc.close) + tail <= WIDTH:
        return [doc.head + doc.open, " " * inner + contents, " " * indent + doc.close]
    trailing = doc.open != "[" and (len(items) > 1 or doc.tuple_of_one)
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
    bare = flat(dataclasses.replace(doc, parens=False))
    if doc.parens and inner + len(bare) <= WIDTH and not _must_break(doc):
        return ["(", " " * inner + bare, " " * indent + ")"]
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
def _laid_out(doc: Doc, indent: int) -> tuple[str, ...]:
    """``layout(doc, indent, indent, 0)``, remembered (the result is not changed by the
    caller): ``rulebook serve`` generates the package again after an edit, and most
    statements are the ones it laid out before (a doc is a tree of frozen values)."""
    return tuple(layout(doc, indent, indent, 0))


class Writer:
    """Lines of a module body with an indentation level; statements are laid out to fit."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.level = 0

    def line(self, text: str = "") -> None:
        self.lines.append((INDENT * self.level + text) if text else "")

    def code(self, doc: Doc) -> None:
        """A statement (or a module-level assignment), broken over lines when too long."""
        indent = len(INDENT) * self.level
        try:
            lines = _laid_out(doc, indent)
        except TypeError:  # a part that does not hash: laid out each time
            lines = layout(doc, indent, indent, 0)
        self.lines.append(INDENT * self.level + lines[0])
        self.lines.extend(lines[1:])

    def comment(self, text: str) -> None:
        """A comment (rules text made safe by :func:`_inline`), wrapped to fit."""
        room = WIDTH - len(INDENT) * self.level - 2
        for line in textwrap.wrap(_inline(text), room, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False):
            self.line("# " + line)

    def docstring(self, lines: list[str]) -> None:
        """A docstring of rules text (made safe by :func:`_inline`), each line wrapped to fit."""
        room = WIDTH - len(INDENT) * self.level - 6
        wrapped: list[str] = []
        for line in lines:
            wrapped.extend(textwrap.wrap(_inline(line), room, break_long_words=False, break_on_hyphens=False) or [""])
        wrapped[0] = '"""' + wrapped[0]
        wrapped[-1] += '"""'
        for line in wrapped:
            self.line(line)

    def condition(self, keyword: str, cond: Doc) -> None:
        """``if cond:``: a chain without its parentheses when the line fits."""
        self.statement(keyword + " ", cond, ":")

    def statement(self, head: str, value: Doc, tail: str = "") -> None:
        """``head value tail`` (``x = value``, ``return value``, ``if value:``): a chain
        without its parentheses when the line fits."""
        if isinstance(value, Chain) and not _must_break(value):
            bare = f"{head}{flat(dataclasses.replace(value, parens=False))}{tail}"
            if len(INDENT) * self.level + len(bare) <= WIDTH:
                self.line(bare)
                return
        self.code(Seq((head, value, tail)))

    def indent(self) -> None:
        self.level += 1

    def outdent(self) -> None:
        self.level -= 1


# ---------------------------------------------------------------------------- text in code


def _inline(text: str) -> str:
    """Rules text made safe inside a generated docstring or comment: its ``repr()``
    without the quotes (no line breaks, backslashes escaped), double quotes escaped."""
    return repr(text)[1:-1].replace('"', '\\"')


def _python_literal(v: Any) -> str:
    """A Python literal for a plain data value (str/int/bool/None/Fraction)."""
    if isinstance(v, Fraction):
        return f"_rt.Fraction({v.numerator}, {v.denominator})"
    if isinstance(v, (str, int, bool)) or v is None:
        return repr(v)
    raise TypeError(type(v))


def _literal_doc(v: ir.Scalar) -> Doc:
    """The doc of a literal in code."""
    if isinstance(v, Fraction):
        return call("_rt.Fraction", str(v.numerator), str(v.denominator))
    if isinstance(v, str):
        return Text(v)
    return _python_literal(v)


def _constant_doc(v: Any) -> Doc:
    """The doc of a constant made of tuples, strings and plain values (type descriptors)."""
    if isinstance(v, tuple):
        return tuple_of([_constant_doc(x) for x in v])
    return _literal_doc(v)


def type_desc(t: T) -> tuple:
    """The runtime descriptor of a type (see rulebook.runtime.records)."""
    k = t.kind
    if k == "opt":
        return ("opt", type_desc(t.args[0]))
    if k == "list":
        return ("list", type_desc(t.args[0]))
    if k == "map":
        return ("map", t.name, type_desc(t.args[0]))
    if k in ("enum", "record", "ref"):
        return (k, t.name)
    if k == "refs":
        return ("id",)
    if k == "any":
        return ("text",)
    return (k,)


class SourceTable:
    """The source positions (``file:line``) cited by one module's code, each written once."""

    def __init__(self) -> None:
        self.positions: dict[str, int] = {}
        self.journal: list | None = None  # while a piece is written: each position cited (PythonEmitter.piece)

    def cite(self, span: Span) -> str:
        """``_SRC[i]`` for the position of ``span``."""
        src = span.src
        if src not in self.positions:
            self.positions[src] = len(self.positions)
        if self.journal is not None:
            self.journal.append(("src", src, self.positions[src]))
        return f"_SRC[{self.positions[src]}]"

    def write(self, w: Writer) -> None:
        if not self.positions:
            return
        w.line()
        w.line("# source positions (file.rules:LINE) cited below as _SRC[i]")
        w.line("_SRC = (")
        for src, i in self.positions.items():
            w.line(f"{INDENT}{src!r},  # {i}")
        w.line(")")


# ---------------------------------------------------------------------------- the emitter

_SAME_LEVEL = {"+": ("+", "-"), "-": ("+", "-"), "*": ("*",), "and": ("and",), "or": ("or",)}
_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
_MIRRORED = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_SHAREABLE = frozenset({"bool", "int", "text", "id", "enum", "ref", "refs"})
"""Kinds of the fields of a record that resolvers may take from the equal record built
already (``_rt.Record._shared``): Python values (bool, int, str, None) hashed and
compared by C code, of one Python type per kind (an ``int`` field never holds a
bool), so that an equal record is the same record. Not ``decimal`` (``Fraction``
hashes in Python code), lists, maps, records or counts."""

_HELPERS = "_min, _max, _abs, _len, _sum, _any, _all = min, max, abs, len, sum, any, all"
RUNTIME_IMPORT = f"from . import {VENDORED} as _rt"
"""How every generated module imports the runtime (the one place that names it)."""
_ALIASES = {"data": "_d", "types": "_t", "traced": "_traced"}


class _Liveness:
    """:func:`rulebook.compiler.analysis.liveness.analyse`'s answers, worked out as the emitter asks for them:
    the procedures that roll dice once per generation (noted as that set itself, the read
    ``("random",)``: :class:`_ReadDigests`), the choices of a procedure when it is written (what
    that reads is noted in the procedure's piece: :meth:`PythonEmitter.piece_value`). Each
    procedure's analysis reads only the procedure, the records it builds and that set."""

    def __init__(self, emitter: PythonEmitter) -> None:
        self.emitter = emitter

    @property
    def random(self) -> set[str]:
        return self.emitter._once("random", lambda p: liveness._random_procedures(p.of(ir.Procedure)), derived=True)

    def choice(self, node: ir.Expr | ir.Repeat) -> liveness.Choice:
        name = self.emitter.procedure_name
        if name is None:  # not in a procedure: the whole analysis
            return self.emitter._once("liveness", liveness.analyse).choice(node)
        random = self.random
        return self.emitter._once(("choices", name), lambda p: _choices(p, name, random)).choice(node)


def _choices(program: ir.Program, name: str, random: set[str]) -> liveness.Liveness:
    """The analysis of the procedure ``name`` alone (what :func:`rulebook.compiler.analysis.liveness.analyse` finds for it)."""
    result = liveness.Liveness(random=random)
    if name in random:
        liveness._Procedure(program, program.decls[name], result).analyse()
    return result


class PythonEmitter:
    """Generates the package's modules from a checked program."""

    def __init__(self, program: ir.Program, sources: list[str] | None = None):
        self.p = program
        self.sources = sorted({d.file for d in program.decls.values()}) if sources is None else sources
        self.shared: dict = {}  # what the modules read, worked out once: see _once
        self.src = SourceTable()
        self.random_variables: dict[Doc, int] = {}  # random variable → its number (from 0): _RV_{i + 1}
        self.constant_records: dict[Doc, int] = {}  # records whose fields are all constants: built once, _RECORD_{i + 1}
        self.traced = False  # writing traced.py (the twins) rather than procedures.py
        self.in_procedure = False  # writing a procedure body, where ``ctx`` counts loops
        self.procedure_name: str | None = None  # the procedure being written (its choices: _Liveness)
        self.pieces: tuple[dict, dict, _ReadDigests] | None = None  # see piece()
        self.journal: list | None = None  # while a piece is written: what it did to the emitter (see piece())
        self.repeats: list[ir.Repeat] = []  # repeats met in the procedure being written: their bodies follow it
        self.step_number: int | None = None  # the step being written
        self.range_tables: dict[str, ir.Table] = {}  # ranged tables the fast resolvers look up: _range_<table>
        self.record_builders: set[str] = set()  # records the resolvers being written build: _new_<record>

    @property
    def liveness(self) -> _Liveness:
        """Which procedures roll dice, and what each choice's future reads (:mod:`rulebook.compiler.analysis.liveness`)."""
        return _Liveness(self)

    @property
    def grants(self) -> dict[str, tuple[ir.RuleApp, ...]]:
        """The special rules each rule grants directly (:func:`_granted`)."""
        return self._once("grants", _granted)

    @property
    def granted_rules(self) -> set[str]:
        """The special rules some rule grants."""
        return self._once("granted_rules", lambda p: {a.rule for apps in _granted(p).values() for a in apps})

    def _once(self, name: Any, compute, derived: bool = False):
        """``compute(program)``, worked out once for all the modules of one generation (``self.shared``).
        When the program notes reads (:class:`_NotedProgram`, for :class:`ModuleMemo`), what the
        computation read is noted apart, and added to the reads of every module that uses it;
        ``derived``: the value itself is noted instead, as the read ``(name,)`` (see :class:`_ReadDigests`)."""
        p = self.p
        if name not in self.shared:
            if isinstance(p, _NotedProgram):
                reads, p.reads = p.reads, set()
                try:
                    value = compute(p)
                finally:
                    reads, p.reads = p.reads, reads
                self.shared[name] = (value, frozenset({(name,)} if derived else reads))
            else:
                self.shared[name] = (compute(p), frozenset())
        value, reads = self.shared[name]
        if isinstance(p, _NotedProgram):
            p.reads |= reads
        return value

    # ------------------------------------------------------------------ modules
    def header(self, w: Writer, doc: str) -> None:
        """The generated-file header and the module docstring."""
        w.comment("Generated by rulebook from " + (", ".join(self.sources) or "no files") + ".")
        w.comment("Do not edit: change the .rules files and rebuild.")
        w.line('"""' + doc + '"""')

    def module(self, doc: str, body: Writer, imports: tuple[str, ...] = ("data", "types"), helpers: bool = False) -> str:
        """A module: header, imports (``from . import data as _d``…), the source table and
        random variables its body cites (collected while the body was written), then the body."""
        w = Writer()
        self.header(w, doc)
        w.line()
        w.line(RUNTIME_IMPORT)
        for mod in imports:
            w.line(f"from . import {mod} as {_ALIASES[mod]}")
        if helpers:
            w.line()
            w.line(_HELPERS)
        self.src.write(w)
        if self.random_variables:
            w.line()
            w.line("# random variables with fixed shape, built once (_rt.Pools: once per number of dice)")
            for i, rv in enumerate(self.random_variables, 1):
                w.code(Seq((f"_RV_{i} = ", rv)))
        if self.constant_records:
            w.line()
            w.line("# records whose fields are all constants, built once (records are immutable)")
            for i, record in enumerate(self.constant_records, 1):
                w.code(Seq((f"_RECORD_{i} = ", record)))
        w.lines.extend(body.lines)
        self.src = SourceTable()
        self.random_variables = {}
        self.constant_records = {}
        return "\n".join(w.lines).rstrip() + "\n"

    # ------------------------------------------------------------------ types.py
    def types_module(self) -> str:
        w = Writer()
        for e in sorted(self.p.enums.values(), key=lambda d: d.name):
            m = py_name(e.name)
            w.line()
            w.comment(f"enum {e.name} ({e.span.src})")
            w.code(Seq((f"VALUES_{m} = ", tuple_of([Text(x.name) for x in e.members]))))
            w.code(Seq((f"TITLES_{m} = ", dict_of([(Text(x.name), Text(x.title)) for x in e.members]))))
            w.code(Seq((f"ORD_{m} = ", dict_of([(Text(x.name), str(i)) for i, x in enumerate(e.members)]))))
        for r in sorted(self.p.records.values(), key=lambda d: d.name):
            self.record_class(w, py_name(r.name), [(f.name, f.type, f.title) for f in r.fields], r.title, r.span.src)
        for t in sorted(self.p.tables.values(), key=lambda d: d.name):
            if len(t.columns) > 1 and t.across is None:
                fields = [(c.name, c.type, c.title) for c in t.columns]
                self.record_class(w, f"_Row_{py_name(t.name)}", fields, f"Fila de la tabla {t.name}", t.span.src)
        return self.module("Enumerations and record types of the rulebook.", w, imports=())

    def record_class(self, w: Writer, cls: str, fields: list[tuple[str, T, str | None]], title: str, src: str) -> None:
        """``class R(_rt.Record)``: its fields as slots (each with its type and title), their
        names in the rules when one differs (``_names``), and ``R._new(field, …)``, which
        resolvers call to build one: it fills in a writable twin, then makes it read-only
        (see :class:`rulebook.runtime.Record`)."""
        names = [py_name(name) for name, _, _ in fields]
        w.line()
        w.line()
        w.line(f"class {cls}(_rt.Record):")
        w.indent()
        w.docstring([f"{title} ({src})."])
        w.line()
        if fields:
            w.line("__slots__ = (")
            w.indent()
            for (_, ftype, ftitle), field in zip(fields, names):
                w.line(f"{field!r},  # {_inline(str(ftype) + (f' — {ftitle}' if ftitle else ''))}")
            w.outdent()
            w.line(")")
        else:
            w.line("__slots__ = ()")
        if any(field != name for field, (name, _, _) in zip(names, fields)):
            w.code(Seq(("_names = ", tuple_of([Text(name) for name, _, _ in fields]))))
        # the class by its name, unless a field (a parameter of _new) has that name: then by
        # the cell Python gives methods for their own class
        me = "__class__" if cls in names else cls
        w.line()
        w.line("@staticmethod")
        w.code(Seq(("def ", Group("_new", tuple(names)), ":")))
        w.indent()
        w.line(f"self = {me}._writable()")
        for field in names:
            w.line(f"self.{field} = {field}")
        w.line(f"self.__class__ = {me}  # read-only from here on")
        w.line("return self")
        w.outdent()
        w.outdent()

    # ------------------------------------------------------------------ data.py
    def value(self, v: Any, t: T) -> str:
        """Python source for data value ``v`` of type ``t`` (record classes from ``types``)."""
        k = t.kind
        if v is None:
            return "None"
        if k == "opt":
            return self.value(v, t.args[0])
        if k == "list":
            items = [self.value(x, t.args[0]) for x in v]
            return "(" + "".join(i + ", " for i in items).rstrip(" ") + ")" if items else "()"
        if k == "map":
            return "{" + ", ".join(f"{k2!r}: {self.value(x, t.args[0])}" for k2, x in v.items()) + "}"
        if k == "record":
            fields = self.p.records[t.name].fields
            args = ", ".join(f"{py_name(f.name)}={self.value(v.get(f.name), f.type)}" for f in fields)
            return f"_t.{py_name(t.name)}({args})"
        if k == "rule":
            args = ", ".join(f"({a!r}, {repr(x) if isinstance(x, (list, dict)) else _python_literal(x)})" for a, x in v["args"].items())
            return f"_rt.RuleApp({v['rule']!r}, ({args}{',' if len(v['args']) == 1 else ''}))"
        return _python_literal(v)

    def data_module(self) -> str:
        w = Writer()
        for k in sorted(self.p.of(ir.Const), key=lambda d: d.name):
            w.line()
            w.comment(f"const {k.name} ({k.span.src}): {k.title}")
            w.code(Seq((f"CONST_{py_name(k.name)} = ", _literal_doc(k.value))))
        for c in sorted(self.p.catalogs.values(), key=lambda d: d.name):
            self.piece(w, c.name, self.catalog_data)
        for t in sorted(self.p.tables.values(), key=lambda d: d.name):
            self.piece(w, t.name, self.table_data)
        if self.grants:
            w.line()
            w.comment("special rules each rule grants directly (runtime.granted follows the chain): has_rule and rule_param see them")
            w.line("GRANTS = {")
            for name, apps in self.grants.items():
                w.line(f"{INDENT}{name!r}: ({''.join(self.rule_app(a) + ', ' for a in apps).rstrip(' ')}),")
            w.line("}")
        for d in sorted(self.p.of(ir.Die), key=lambda d: d.name):
            w.line()
            w.comment(f"die {d.name} ({d.span.src})")
            w.code(Seq((f"DIE_{py_name(d.name)} = ", call("_rt.Die", Text(d.title), tuple_of([_literal_doc(f) for f in d.faces])))))
        for b in sorted(self.p.of(ir.Bag), key=lambda d: d.name):
            tokens = tuple_of([tuple_of([Text(kind), str(count)]) for kind, count in b.tokens])
            w.line()
            w.comment(f"bag {b.name} ({b.span.src})")
            w.code(Seq((f"BAG_{py_name(b.name)} = ", call("_rt.Bag", Text(b.title), tokens))))
        return self.module("Constants, catalogs, tables, dice and bags of the rulebook, as Python data.", w, imports=("types",))

    def catalog_data(self, w: Writer, c: ir.Catalog) -> None:
        record = T("record", c.record)
        w.line()
        w.comment(f"catalog {c.name} ({c.span.src})")
        w.line(f"CATALOG_{py_name(c.name)} = {{")
        for ident, entry in c.entries.items():
            w.line(f"{INDENT}{ident!r}: {self.value(entry, record)},")
        w.line("}")

    def piece(self, w: Writer, name: str, write) -> None:
        """``write(w, declaration)`` for the declaration ``name`` (at the module's top level), through
        :meth:`piece_value`: the lines written for it in the previous generation are taken again
        when all they read is as it was."""
        decl = self.p.decls[name]
        if self.pieces is None:
            write(w, decl)
            return
        assert w.level == 0

        def lines() -> list[str]:
            own = Writer()
            write(own, decl)
            assert own.level == 0
            return own.lines

        w.lines.extend(self.piece_value(name, {("decl", name)}, lines))

    def piece_value(self, key: Any, reads: set[tuple], compute) -> Any:
        """``compute()``, remembered under ``key`` across generations of one module (:class:`ModuleMemo`
        gives ``self.pieces``: the previous generation's pieces, this one's and the digests of this
        build's reads). ``reads``: what ``compute`` reads beside what it reads of the program (noted).

        A piece is what one declaration or worked example makes of a module, and what it does to
        the emitter: the positions, random variables and constant records it cites (each numbered
        in the order a module first cites it), the ranged tables it looks up and the record builders
        it calls. All of these are noted in a journal while it is computed. It is taken again when
        its reads have the same digests and each citation of its journal would get the same number
        now (so its text is the same); its journal is then replayed."""
        if self.pieces is None:
            return compute()
        old, new, digests = self.pieces
        noted = self.p
        assert isinstance(noted, _NotedProgram) and self.journal is None
        before = noted.reads
        found = old.get(key)
        if found is not None and all(digests.of(read) == d for read, d in found[0].items()) and self._replayable(found[1]):
            self._replay(found[1])
            before |= found[0].keys()
            new[key] = found
            return found[2]
        journal: list = []
        noted.reads = set(reads)
        self.journal = self.src.journal = journal
        try:
            value = compute()
        finally:
            self.journal = self.src.journal = None
            reads, noted.reads = noted.reads, before | noted.reads
        new[key] = ({read: digests.of(read) for read in reads}, journal, value)
        return value

    def _numbered(self, kind: str) -> dict:
        return {"src": self.src.positions, "rv": self.random_variables, "record": self.constant_records}[kind]

    def _replayable(self, journal: list) -> bool:
        """Whether each citation of ``journal`` would get the number it got then."""
        added: dict[str, dict] = {"src": {}, "rv": {}, "record": {}}  # numbered after those of the module so far
        for kind, value, number in journal:
            if number is None:  # a ranged table or a record builder: no number
                continue
            numbered, mine = self._numbered(kind), added[kind]
            now = numbered[value] if value in numbered else len(numbered) + mine.setdefault(value, len(mine))
            if now != number:
                return False
        return True

    def _replay(self, journal: list) -> None:
        """Do to the emitter what the piece that made ``journal`` did."""
        for kind, value, _number in journal:
            if kind in ("src", "rv", "record"):
                numbered = self._numbered(kind)
                numbered.setdefault(value, len(numbered))
            elif kind == "range":
                self.range_tables.setdefault(value, self.p.program.decls[value])  # type: ignore[attr-defined]
            else:
                self.record_builders.add(value)

    def rule_app(self, app: ir.RuleApp) -> str:
        """``_rt.RuleApp('rule', (('X', 2),))``: a special rule applied with its arguments."""
        return self.value({"rule": app.rule, "args": dict(app.args)}, T("rule"))

    def row_value(self, t: ir.Table, row: ir.TableRow) -> str:
        if t.across is not None:
            column = t.columns[0].type
            return "{" + ", ".join(f"{_python_literal(a)}: {self.value(v, column)}" for a, v in zip(t.across_values, row.across)) + "}"
        if len(t.columns) == 1:
            return self.value(row.values[t.columns[0].name], t.columns[0].type)
        args = ", ".join(f"{py_name(c.name)}={self.value(row.values[c.name], c.type)}" for c in t.columns)
        return f"_t._Row_{py_name(t.name)}({args})"

    def range_row(self, t: ir.Table, row: ir.TableRow, pos: int = 0) -> str:
        """``lo, lo_inclusive, hi, hi_inclusive, value`` of a row keyed by a range (at key ``pos``)."""
        r = row.keys[pos]
        return f"{_python_literal(r.lo)}, {r.lo_inclusive}, {_python_literal(r.hi)}, {r.hi_inclusive}, {self.row_value(t, row)}"

    def table_data(self, w: Writer, t: ir.Table) -> None:
        w.line()
        w.comment(f"table {t.name} ({t.span.src})")
        if t.ranged and len(t.keys) == 1:
            w.line(f"TABLE_{py_name(t.name)} = (")
            for row in t.rows:
                w.line(f"{INDENT}({self.range_row(t, row)}),  # {_inline(row.span.src)}")
            w.line(")")
            return
        if t.ranged:
            # the other keys pick a tuple of range rows: {other keys: ((lo, lo_in, hi, hi_in, value), …)}
            pos = next(i for i, k in enumerate(t.keys) if k.ranged)
            groups: dict[str, list[ir.TableRow]] = {}
            for row in t.rows:
                others = [k for i, k in enumerate(row.keys) if i != pos]
                key = _python_literal(others[0]) if len(others) == 1 else "(" + ", ".join(_python_literal(k) for k in others) + ")"
                groups.setdefault(key, []).append(row)
            w.line(f"TABLE_{py_name(t.name)} = {{")
            for key, rows in groups.items():
                w.line(f"{INDENT}{key}: (")
                for row in rows:
                    w.line(f"{INDENT}{INDENT}({self.range_row(t, row, pos)}),  # {_inline(row.span.src)}")
                w.line(f"{INDENT}),")
            w.line("}")
            return
        w.line(f"TABLE_{py_name(t.name)} = {{")
        for row in t.rows:
            key = _python_literal(row.keys[0]) if len(row.keys) == 1 else "(" + ", ".join(_python_literal(k) for k in row.keys) + ")"
            w.line(f"{INDENT}{key}: {self.row_value(t, row)},")
        w.line("}")

    # ------------------------------------------------------------------ procedures.py
    def procedures_module(self, traced: bool) -> str:
        """``procedures.py`` (the fast resolvers) or, with ``traced``, ``traced.py`` (their twins)."""
        self.traced = traced
        w = Writer()
        procedures = self.p.of(ir.Procedure)
        for d in procedures:
            self.piece(w, d.name, self.procedure)
        for t in self.range_tables.values():
            self.range_function(w, t)
        self.range_tables = {}
        w.line()
        w.line()
        w.line("# internal aliases: calls between procedures never see a local of the same name")
        for d in procedures:
            w.line(f"_proc_{py_name(d.name)} = {py_name(d.name)}")
        if self.record_builders:
            w.line()
            w.comment("the records the resolvers build, each by a name of its own (the cheapest call); a record "
                      "whose fields are bools, whole numbers or strings is built once for equal fields "
                      "(_rt.Record._shared: records are immutable)")
            for name in sorted(self.record_builders):
                builder = f"_t.{py_name(name)}._new"
                if all(f.type.inner.kind in _SHAREABLE for f in self.p.records[name].fields):
                    builder = f"_rt.Record._shared({builder})"
                w.line(f"_new_{py_name(name)} = {builder}")
        self.record_builders = set()
        if traced:
            return self.module(_TRACED_DOC, w, helpers=True)
        return self.module(_FAST_DOC, w, imports=("data", "types", "traced"), helpers=True)

    def procedure(self, w: Writer, d: ir.Procedure) -> None:
        params: list[Doc] = ["ctx"]
        for prm in d.params:
            params.append(Seq((py_name(prm.name) + "=", self.expr(prm.default))) if prm.default is not None else py_name(prm.name))
        w.line()
        w.line()
        if not self.traced:
            w.line(f"@_rt.traced_by(_traced.{py_name(d.name)})")
        w.code(Seq(("def ", Group(py_name(d.name), tuple(params)), ":")))
        w.indent()
        w.docstring([
            d.title + (f" ({d.ref})" if d.ref else "") + ".",
            "",
            *[f"{prm.name}: {prm.type}" for prm in d.params],
            f"Result: {d.result}",
            "",
            f"Generated from {d.span.src}.",
        ])
        if self.traced:
            arguments = dict_of([(Text(prm.name), py_name(prm.name)) for prm in d.params])
            w.code(call("ctx.enter", Text(d.name), Text(d.title), Text(d.ref), self.src.cite(d.span), arguments))
        self.in_procedure = True
        self.procedure_name = d.name
        self.step_number = None
        self.block(w, d.body, d, top=True)
        w.outdent()
        while self.repeats:
            self.repeat_body(w, d, self.repeats.pop(0))
        self.in_procedure = False
        self.procedure_name = None

    def range_function(self, w: Writer, t: ir.Table) -> None:
        """``_range_<table>(key, src)``: a table keyed by one range, as tests of its rows
        in order (the fast resolvers' lookup); past the last row, ``_rt.lookup_range``
        gives the rule error."""
        table = f"TABLE_{py_name(t.name)}"
        w.line()
        w.line()
        w.comment(f"table {t.name} ({t.span.src}), looked up by range")
        w.line(f"def _range_{py_name(t.name)}(key, src):")
        w.indent()
        w.docstring([f"The value of the first row of {t.name} whose range holds key."])
        scalar = len(t.columns) == 1 and t.across is None
        for i, row in enumerate(t.rows):
            r = row.keys[0]
            value = row.values[t.columns[0].name] if scalar else None
            shown = _python_literal(value) if scalar and isinstance(value, (str, int, bool, Fraction, type(None))) else f"_d.{table}[{i}][4]"
            bounds: list[tuple[str, Doc]] = []
            first: Doc = "key"
            if r.lo is not None:
                first = _python_literal(r.lo)
                bounds.append(("<=" if r.lo_inclusive else "<", "key"))
            if r.hi is not None:
                bounds.append(("<=" if r.hi_inclusive else "<", _python_literal(r.hi)))
            if not bounds:
                w.line(f"return {shown}")
                break
            w.condition("if", Chain(first, tuple(bounds)))
            w.indent()
            w.line(f"return {shown}")
            w.outdent()
        else:
            w.statement("return ", call("_rt.lookup_range", f"_d.{table}", "key", Text(t.name), "src"))
        w.outdent()

    def repeat_name(self, proc: ir.Procedure, rep: ir.Repeat) -> str:
        return f"_repeat_{py_name(proc.name)}_{rep.number}"

    def repeat_body(self, w: Writer, d: ir.Procedure, rep: ir.Repeat) -> None:
        """The body of a ``repeat``, as a function of the values it reads from before
        the repeat: one run, returning ``(condition, (bound values…))``."""
        w.line()
        w.line()
        w.code(Seq(("def ", Group(self.repeat_name(d, rep), ("ctx", *[py_name(name) for name in rep.reads])), ":")))
        w.indent()
        w.docstring([f"One run of the repeat of {d.name} until {rep.text} ({rep.span.src}).", "",
                     "Returns whether the condition holds and the values the repeat binds."])
        self.block(w, rep.body, d)
        w.statement("return ", tuple_of([self.expr(rep.cond), tuple_of([py_name(name) for name in rep.binds])]))
        w.outdent()

    def block(self, w: Writer, stmts: tuple[ir.Stmt, ...], proc: ir.Procedure, top: bool = False) -> None:
        """Statements; a step starts after a blank line unless it opens a nested block
        (traced: ``ctx.step(…)``; fast: a comment with the step's number and label)."""
        if not stmts:
            w.line("pass")
        for k, st in enumerate(stmts):
            if isinstance(st, ir.Step):
                if top or k > 0:
                    w.line()
                self.step_number = st.number
                if self.traced:
                    w.code(call("ctx.step", str(st.number), Text(st.label), Text(proc.ref), self.src.cite(st.span)))
                else:
                    w.comment(f"{st.number}. {st.label}")
                if st.body:
                    self.block(w, st.body, proc)
                elif not self.traced:
                    w.line("pass")
            elif isinstance(st, ir.Let):
                value = self.list_index(st.value, inline=True) if isinstance(st.value, ir.ListIndex) else self.expr(st.value)
                if self.traced:
                    value = call("ctx.let", Text(st.name), value, self.src.cite(st.span))
                w.statement(py_name(st.name) + " = ", value)
            elif isinstance(st, ir.Return):
                value = self.expr(st.value)
                w.statement("return ", call("ctx.leave", value) if self.traced else value)
            elif isinstance(st, ir.Repeat):
                self.repeats.append(st)
                fields: list[Doc] = [
                    self.repeat_name(proc, st),
                    dict_of([(Text(py_name(name)), py_name(name)) for name in st.reads]),
                    self.src.cite(st.span),
                    Seq(("until=", Text(st.text))),
                    Seq(("procedure=", Text(proc.name))),
                ]
                if self.step_number is not None:
                    fields.append(Seq(("step=", str(self.step_number))))
                found = self.liveness.choice(st)
                if self.traced and found.state is not None:
                    fields.append(Seq(("state=", self.state(found.state))))
                target = ", ".join(py_name(name) for name in st.binds) + ("," if len(st.binds) == 1 else "")
                w.statement(target + " = ", call("ctx.repeat", *fields))
            elif isinstance(st, ir.Require):
                w.code(Seq(("if not ", self.expr(st.cond), ":")))
                w.indent()
                w.code(Seq(("raise ", call("_rt.RuleError", Text(st.message), self.src.cite(st.span)))))
                w.outdent()
            else:
                for i, (cond, body) in enumerate(st.branches):
                    w.condition("if" if i == 0 else "elif", self.expr(cond))
                    w.indent()
                    self.block(w, body, proc)
                    w.outdent()
                if st.orelse is not None:
                    w.line("else:")
                    w.indent()
                    self.block(w, st.orelse, proc)
                    w.outdent()

    # ------------------------------------------------------------------ expressions
    def expr(self, e: ir.Expr) -> Doc:
        match e:
            case ir.Literal():
                return _literal_doc(e.value)
            case ir.Local():
                return py_name(e.name)
            case ir.ConstRef():
                return f"_d.CONST_{py_name(e.name)}"
            case ir.EnumValue():
                return Text(e.member)
            case ir.EntryId():
                return Text(e.ident)
            case ir.FieldAccess():
                return self.field_access(e)
            case ir.CountOf():
                return Seq((self.expr(e.obj), Group("", (Text(e.kind),), "[", "]")))
            case ir.TableLookup():
                return self.table_lookup(e)
            case ir.CatalogLookup():
                present = e.key.type == T("ref", e.catalog)
                return self.lookup(f"_d.CATALOG_{py_name(e.catalog)}", self.expr(e.key), e.catalog, e.span, present)
            case ir.MapIndex():
                present = e.obj.type.kind == "map" and e.key.type.kind == "enum"  # maps have every key
                return self.lookup(self.expr(e.obj), self.expr(e.key), "map", e.span, present)
            case ir.ListIndex():
                return self.list_index(e, inline=False)
            case ir.ProcedureCall():
                if self.traced and e.procedure in self.liveness.random:
                    return self.random_call(e)
                return call(f"_proc_{py_name(e.procedure)}", "ctx", *self.arguments(e))
            case ir.RecordNew():
                return self.record_new(e)
            case ir.BuiltinCall():
                return self.builtin(e)
            case ir.Unary():
                return Chain(Seq(("not " if e.op == "not" else e.op, self.expr(e.operand))), ())
            case ir.Binary():
                return self.binary(e)
            case ir.Conditional():
                return Chain(self.expr(e.then), (("if", self.expr(e.cond)), ("else", self.expr(e.other))))
            case ir.ListOf():
                return tuple_of([self.expr(x) for x in e.items])
            case ir.Comprehension():
                iterable = self.expr(e.iterable)
                clauses = [(f"for {py_name(e.var)} in", call("ctx.loop", iterable) if self.in_procedure else iterable)]
                if e.cond is not None:
                    clauses.append(("if", self.expr(e.cond)))
                return call("tuple", Chain(self.expr(e.body), tuple(clauses)))
            case ir.Roll():
                return self.roll(e)
            case ir.Draw():
                return self.draw(e)
            case ir.Sources():
                values = tuple_of([self.expr(v) for _, v in e.items])
                if self.traced:  # the trace lists each source that applies
                    pairs = tuple_of([tuple_of([Text(label), self.expr(v)]) for label, v in e.items])
                    return call("ctx.sources", pairs, self.src.cite(e.span))
                return call("tuple", Chain("_m", (("for _m in", values), ("if", "_m != 0"))))
        raise AssertionError(type(e))

    def record_new(self, e: ir.RecordNew) -> Doc:
        """In a resolver, ``_new_R(value, …)``: ``_t.R._new`` under a module-level name (see
        :meth:`procedures_module`), the fields by position in the record's order (each value
        noted with its field unless it is the local of that name); with constant fields
        only, ``_RECORD_i``: the record built once, when the module is imported
        (``_t.R(field=…)``). Elsewhere ``_t.R._new(field=…)``."""
        given = dict(e.args)
        values = []
        for f in self.p.records[e.record].fields:
            default = "()" if f.type.kind == "list" else "None"
            values.append((py_name(f.name), self.expr(given[f.name]) if f.name in given else default))
        by_name = [Seq((name + "=", value)) for name, value in values]
        if self.in_procedure and all(isinstance(v, (ir.Literal, ir.EnumValue, ir.ConstRef)) for v in given.values()):
            record = call(f"_t.{py_name(e.record)}", *by_name)
            index = self.constant_records.setdefault(record, len(self.constant_records))
            if self.journal is not None:
                self.journal.append(("record", record, index))
            return f"_RECORD_{index + 1}"
        if not self.in_procedure:
            return call(f"_t.{py_name(e.record)}._new", *by_name)
        self.record_builders.add(e.record)
        if self.journal is not None:
            self.journal.append(("builder", e.record, None))
        return call(f"_new_{py_name(e.record)}", *[_positional(name, value) for name, value in values])

    def list_index(self, e: ir.ListIndex, inline: bool) -> Doc:
        """``_rt.index(xs, i, src)`` (0-based; out of range: a rule error). The value of a
        ``let`` (``inline``), when ``xs`` and ``i`` are locals or literals (read twice at
        no cost), has its bounds checked inline in the fast resolver:
        ``x = xs[i] if 0 <= i < _len(xs) else _rt.index(xs, i, src)``."""
        seq, i = self.expr(e.obj), self.expr(e.index)
        checked = call("_rt.index", seq, i, self.src.cite(e.span))
        if not inline or self.traced or not isinstance(e.obj, ir.Local) or e.index.type.kind != "int":
            return checked
        if isinstance(e.index, ir.Literal) and type(e.index.value) is int and e.index.value >= 0:
            inside: Doc = Chain(i, (("<", call("_len", seq)),))
        elif isinstance(e.index, ir.Local):
            inside = Chain("0", (("<=", i), ("<", call("_len", seq))))
        else:
            return checked
        return Chain(Seq((seq, Group("", (i,), "[", "]"))), (("if", inside), ("else", checked)))

    def arguments(self, e: ir.ProcedureCall) -> list[Doc]:
        """The arguments of a call, in the order written: by position while that is the
        order of the parameters (each value noted with its parameter unless it is the
        local of that name: ``f(ctx, m, p)``), then ``name=value``. A call by position is
        the cheaper one for Python."""
        params = [prm.name for prm in self.p.decls[e.procedure].params]
        docs: list[Doc] = []
        by_position = True
        for i, (name, value) in enumerate(e.args):
            by_position = by_position and i < len(params) and params[i] == name
            doc = self.expr(value)
            docs.append(_positional(py_name(name), doc) if by_position else Seq((py_name(name) + "=", doc)))
        return docs

    def lookup(self, mapping: Doc, key: Doc, name: str, span: Span, present: bool) -> Doc:
        """``mapping[key]``: in fast resolvers a plain subscript when the types guarantee
        the key is there, else ``_rt.lookup``, whose error names the table and the rule."""
        if present and not self.traced:
            return Seq((mapping, Group("", (key,), "[", "]")))
        return call("_rt.lookup", mapping, key, Text(name), self.src.cite(span))

    def field_access(self, e: ir.FieldAccess) -> Doc:
        obj = self.expr(e.obj)
        if e.via in ("catalog", "table"):
            mapping = f"_d.{'CATALOG' if e.via == 'catalog' else 'TABLE'}_{py_name(e.owner)}"
            obj = self.lookup(mapping, obj, e.owner, e.span, e.obj.type == T("ref", e.owner))
            if e.via == "table" and len(self.p.tables[e.owner].columns) == 1:
                return obj
        if e.nullable:
            return call("_rt.field", obj, Text(py_name(e.field)), self.src.cite(e.span))
        return Seq((obj, "." + py_name(e.field)))

    def table_lookup(self, e: ir.TableLookup) -> Doc:
        t = self.p.tables[e.table]
        table = f"_d.TABLE_{py_name(e.table)}"
        keys = [self.expr(k) for k in e.keys]
        fast = self.in_procedure and not self.traced
        if t.ranged and len(t.keys) == 1 and fast and e.keys[0].type.kind in ("int", "decimal"):
            self.range_tables.setdefault(t.name, t)
            if self.journal is not None:
                self.journal.append(("range", t.name, None))
            found = call(f"_range_{py_name(t.name)}", keys[0], self.src.cite(e.span))
        elif t.ranged and len(t.keys) == 1:
            found = call("_rt.lookup_range", table, keys[0], Text(e.table), self.src.cite(e.span))
        elif t.ranged:
            pos = next(i for i, k in enumerate(t.keys) if k.ranged)
            others = [k for i, k in enumerate(keys[: len(t.keys)]) if i != pos]
            rows = self.lookup(table, others[0] if len(others) == 1 else tuple_of(others), e.table, e.span, False)
            found = call("_rt.lookup_range", rows, keys[pos], Text(e.table), self.src.cite(e.span))
        else:
            key = keys[0] if len(t.keys) == 1 else tuple_of(keys[: len(t.keys)])
            found = self.lookup(table, key, e.table, e.span, self.every_row(t, e.keys))
        if t.across is not None:
            present = self.every_member(e.keys[-1], t.across_values)
            found = self.lookup(found, keys[-1], e.table, e.span, present)
        return found

    def every_row(self, t: ir.Table, keys: tuple[ir.Expr, ...]) -> bool:
        """Does the table have a row for every value the key expressions can take (enum keys)?"""
        rows = {tuple(r.keys) for r in t.rows}
        members = []
        for key in keys[: len(t.keys)]:
            if key.type.kind != "enum":
                return False
            members.append(self.p.enums[key.type.name].values)
        combinations = [()]
        for values in members:
            combinations = [c + (v,) for c in combinations for v in values]
        return all(c in rows for c in combinations)

    def every_member(self, key: ir.Expr, values: tuple) -> bool:
        """Is ``key`` an enum value found among ``values`` whatever it is?"""
        return key.type.kind == "enum" and set(self.p.enums[key.type.name].values) <= set(values)

    def builtin(self, e: ir.BuiltinCall) -> Doc:
        """A built-in call written from its template in :mod:`rulebook.compiler.ir.builtins`."""
        template = BUILTINS[e.name].python
        if e.name in ("min", "max") and len(e.args) == 1 and e.args[0].type.kind == "list":
            # of a list, which may be empty: a rule error naming the line, not a crash
            template = "_rt.smallest({0}, {src})" if e.name == "min" else "_rt.largest({0}, {src})"
        args = [self.expr(a) for a in e.args]
        if e.name in ("has_rule", "rule_param") and e.rule in self.granted_rules:
            args[0] = call("_rt.granted", args[0], "_d.GRANTS")  # the rules the list grants count too
        rule = self.p.decls.get(e.rule) if e.rule else None
        if e.name == "rule_param" and isinstance(rule, ir.Rule) and rule.combine not in (None, "first"):
            # several applications of the rule: combined as it declares (stacking sum|max|min)
            return call("_rt.stacked_param", args[0], repr(e.rule), repr(e.param), repr(rule.combine))
        fills: dict[str, Doc | list[Doc]] = {"args": args, **{str(i): a for i, a in enumerate(args)}}
        if "{src}" in template:
            fills["src"] = self.src.cite(e.span)
        if e.rule is not None:
            fills["rule"] = repr(e.rule)
        if e.param is not None:
            fills["param"] = repr(e.param)
        if e.args and e.args[0].type.inner.kind == "enum":
            fills["enum"] = py_name(e.args[0].type.inner.name)
        return _template(template, fills)

    def binary(self, e: ir.Binary) -> Doc:
        op = e.op
        if (op in ("+", "-", "*") and e.type != DEC) or (op in ("and", "or") and isinstance(e.left, ir.Binary) and e.left.op == op):
            return self.chain(e)
        a, b = self.expr(e.left), self.expr(e.right)
        if op == "/":
            return call("_rt.div", a, b, self.src.cite(e.span))
        if op in ("+", "-", "*"):
            return call("_rt.normalize", Chain(a, ((op, b),)))
        if op in ("==", "!=") and (_is_none(e.left) or _is_none(e.right)):
            return Chain(a, (("is" if op == "==" else "is not", b),))
        if e.enum is not None:
            order = f"_t.ORD_{py_name(e.enum)}"
            return Chain(Seq((order, Group("", (a,), "[", "]"))), ((op, Seq((order, Group("", (b,), "[", "]")))),))
        return Chain(a, ((op, b),))

    def chain(self, e: ir.Binary) -> Doc:
        """``a + b - c`` (one precedence level, left-associative) as one chain."""
        terms = []
        node: ir.Expr = e
        while isinstance(node, ir.Binary) and node.op in _SAME_LEVEL[e.op] and node.type != DEC:
            terms.append((node.op, node.right))
            node = node.left
        return Chain(self.expr(node), tuple((op, self.expr(right)) for op, right in reversed(terms)))

    def roll(self, e: ir.Roll) -> Doc:
        """``ctx.roll(rv)``. A random variable of fixed shape is built once, at import
        (``_RV_i``); one whose number of dice varies, once per number
        (``_RV_i[count]``, a :class:`rulebook.runtime.Pools`); else on every roll."""
        src = Seq(("src=", self.src.cite(e.span)))
        die = call("_rt.std_die", str(e.sides)) if e.die is None else f"_d.DIE_{py_name(e.die)}"
        count = self.expr(e.times) if e.times is not None else str(e.count)
        constant = e.times is None or isinstance(e.times, ir.Literal)
        fixed = True  # the shape, but for the number of dice
        if e.test is not None:
            op, threshold = e.test
            fixed = isinstance(threshold, (ir.Literal, ir.EnumValue))

            def of(n: Doc) -> Doc:
                return call("_rt.pool_count", die, n, Text(op), self.expr(threshold), src)
        elif e.named_faces and e.times is not None:
            def of(n: Doc) -> Doc:
                return call("_rt.pool_faces", die, n, src)
        elif e.keep is not None:
            def of(n: Doc) -> Doc:
                return call("_rt.pool_sum", die, n, Text(e.keep[0]), str(e.keep[1]), src)
        elif e.times is None and e.count == 1:
            def of(n: Doc) -> Doc:
                return call("_rt.roll_one", die)
        else:
            def of(n: Doc) -> Doc:
                return call("_rt.pool_sum", die, n, src)
        if not fixed:
            return self.choice(e, of(count))
        if constant:
            return self.choice(e, self.built_once(of(count)))
        pools = self.built_once(call("_rt.Pools", Seq(("lambda _n: ", of("_n")))))
        return self.choice(e, Seq((pools, Group("", (count,), "[", "]"))))

    def built_once(self, rv: Doc) -> str:
        """``_RV_i``: a module-level name for ``rv``, built once when the module is imported."""
        index = self.random_variables.setdefault(rv, len(self.random_variables))
        if self.journal is not None:
            self.journal.append(("rv", rv, index))
        return f"_RV_{index + 1}"

    def draw(self, e: ir.Draw) -> Doc:
        src = self.src.cite(e.span)
        bag: Doc = f"_d.BAG_{py_name(e.bag)}"
        if e.removed:
            removed = dict_of([(Text(kind), self.expr(n)) for kind, n in e.removed])
            bag = call("_rt.bag_without" if e.mode == "except" else "_rt.bag_with", bag, removed, src)
        return self.choice(e, call("_rt.bag_draw", bag, self.expr(e.count), Seq(("src=", src))))

    def choice(self, e: ir.Roll | ir.Draw, rv: Doc) -> Doc:
        """``ctx.roll(rv)``; traced, with the roll's text and position, its state and the
        counts read (see :mod:`rulebook.compiler.analysis.liveness`)."""
        if not self.traced:
            return call("ctx.roll", rv)
        items: list[Doc] = [rv, Text(e.text), self.src.cite(e.span)]
        found = self.liveness.choice(e)
        if found.state is not None:
            items.append(Seq(("state=", self.state(found.state))))
        if found.reads is not None:
            items.append(Seq(("reads=", tuple_of([Text(kind) for kind in found.reads]))))
        return call("ctx.roll", *items)

    def random_call(self, e: ir.ProcedureCall) -> Doc:
        """A call of a procedure that rolls dice, in a traced resolver: ``ctx.call(…)``,
        so that exact enumeration takes the callee's results as one choice."""
        args = dict_of([(Text(py_name(name)), self.expr(value)) for name, value in e.args])
        items: list[Doc] = [f"_proc_{py_name(e.procedure)}", args, self.src.cite(e.span)]
        found = self.liveness.choice(e)
        if found.state is not None:
            items.append(Seq(("state=", self.state(found.state))))
        return call("ctx.call", *items)

    def state(self, parts: tuple) -> Doc:
        """``lambda _v: (…)``: the values the rest of the procedure reads after a choice of ``_v``."""
        docs: list[Doc] = []
        for part in parts:
            if isinstance(part, liveness.Item):
                docs.append(f"_v[{part.index}]")
            elif isinstance(part, liveness.Sum):
                (sign, first), rest = part.terms[0], part.terms[1:]
                head = _state_name(first) if sign > 0 else Seq(("-", _state_name(first)))
                docs.append(Chain(head, tuple(("+" if s > 0 else "-", _state_name(n)) for s, n in rest)) if rest else head)
            elif part.counts:
                docs.extend(Seq((_state_name(part.name), Group("", (Text(kind),), "[", "]"))) for kind in part.fields)
            elif part.fields:
                docs.extend(f"{_state_name(part.name)}.{py_name(f)}" for f in part.fields)
            else:
                docs.append(_state_name(part.name))
        return Seq(("lambda _v: ", tuple_of(docs)))

    # ------------------------------------------------------------------ examples.py
    def examples_module(self) -> str:
        w = Writer()
        w.line()
        examples = self.p.examples
        digests = self.pieces[2].examples if self.pieces is not None else None
        docs = [self.example(ex) if digests is None else self.piece_value(("example", digests[i]), set(), lambda ex=ex: self.example(ex))
                for i, ex in enumerate(examples)]
        w.code(Seq(("EXAMPLES = ", tuple_of(docs, always_break=True))))
        return self.module(
            "The rulebook's worked examples, as checks over exact distributions.\n\n"
            "``EXAMPLES`` lists ``runtime.Example`` objects, in rulebook order: a procedure,\n"
            "its inputs (keyword arguments) and the expectations that must hold over the\n"
            "exact distribution of its results, or the rule error it must stop with\n"
            "(see ``runtime.protocol``).",
            w, helpers=True,
        )

    def example(self, ex: ir.Example) -> Doc:
        src = self.src.cite(ex.span)
        inputs = dict_of([(Text(py_name(name)), self.expr(value)) for name, value, _text in ex.given])
        expectations = [self.expectation(x) for x in ex.expects if x.expr is not None]
        fields: list[tuple[str, Doc]] = [
            ("procedure", Text(ex.procedure)), ("title", Text(ex.title)), ("src", src), ("inputs", inputs),
        ]
        if expectations:
            fields.append(("expectations", tuple_of(expectations, always_break=True)))
        if ex.expected_error is not None:
            fields.append(("expected_error", Text(ex.expected_error)))
        return kwargs_call("_rt.Example", fields)

    def expectation(self, x: ir.Expect) -> Doc:
        fields: list[tuple[str, Doc]] = [("text", Text(x.text)), ("src", self.src.cite(x.span))]
        e = x.expr
        if isinstance(e, ir.Binary) and not x.per_outcome and _is_comparison(e):
            op, actual, expected = e.op, e.left, e.right
            if _reads_probability(expected) and not _reads_probability(actual):
                op, actual, expected = _MIRRORED[op], expected, actual
            fields += [
                ("op", Text(op)),
                ("actual", Seq(("lambda _dist: ", self.expr(actual)))),
                ("expected", Seq(("lambda _dist: ", self.expr(expected)))),
            ]
        else:
            fields.append(("check", Seq(("lambda result, _dist: ", call("bool", self.expr(e))))))
            if x.per_outcome:
                fields.append(("per_outcome", "True"))
        return kwargs_call("_rt.Expectation", fields)

    # ------------------------------------------------------------------ odds.py
    def odds_module(self) -> str:
        w = Writer()
        w.line()
        w.code(Seq(("ODDS = ", tuple_of([self.odds(d) for d in self.p.of(ir.Odds)], always_break=True))))
        return self.module(
            "Odds tables: exact probabilities computed by the resolvers for a grid of inputs.\n\n"
            "``ODDS`` lists ``runtime.Odds`` objects: a procedure, its axes (rows, optional\n"
            "columns, optional ``each`` for one grid per value), ``inputs(row, column, group)``\n"
            "giving the procedure's keyword arguments and the ``cell`` shown (see\n"
            "``runtime.protocol``).",
            w, helpers=True,
        )

    def axis(self, axis: ir.OddsAxis) -> Doc:
        values = axis.values
        if axis.source == "enum":
            shown: Doc = f"_t.VALUES_{py_name(axis.of)}"
        elif axis.source == "catalog":
            shown = call("tuple", f"_d.CATALOG_{py_name(axis.of)}")
        elif axis.source == "range" and values and values == tuple(range(values[0], values[-1] + 1)):
            shown = call("tuple", call("range", _python_literal(values[0]), _python_literal(values[-1] + 1)))
        else:
            shown = _constant_doc(tuple(values))
        return call("_rt.OddsAxis", Seq(("name=", Text(axis.name))), Seq(("title=", Text(axis.title))), Seq(("values=", shown)))

    def odds(self, d: ir.Odds) -> Doc:
        variables = [py_name(d.rows.name), py_name(d.columns.name) if d.columns is not None else "_column=None"]
        variables.append(f"{py_name(d.each.name)}=None" if d.each is not None else "_group=None")
        inputs = dict_of([(Text(py_name(name)), self.expr(value)) for name, value in d.args])
        fields: list[tuple[str, Doc]] = [
            ("name", Text(d.name)), ("title", Text(d.title)), ("ref", Text(d.ref)), ("src", self.src.cite(d.span)),
            ("procedure", Text(d.procedure)), ("rows", self.axis(d.rows)),
        ]
        if d.columns is not None:
            fields.append(("columns", self.axis(d.columns)))
        if d.each is not None:
            fields.append(("each", self.axis(d.each)))
        fields.append(("inputs", Seq((f"lambda {', '.join(variables)}: ", inputs))))
        if d.show_kind == "outcomes":
            fields += [("kind", Text("outcomes")), ("cell", Seq(("lambda result: ", self.expr(d.show))))]
        else:
            fields.append(("cell", Seq(("lambda result, _dist: ", self.expr(d.show)))))
        return kwargs_call("_rt.Odds", fields)

    # ------------------------------------------------------------------ __init__.py
    def init_module(self, package: str) -> str:
        rb = self.p.rulebook
        title = rb.title if rb else package
        w = Writer()
        self.header(w, "\n".join([
            f"Resolvers of «{_inline(title)}», generated by rulebook.",
            "",
            "Usage::",
            "",
            f"    import {package}",
            f"    from {package} import runtime  # the runtime this package carries",
            f"    proc = {package}.PROCEDURES['<nombre>']",
            "    result, trace = runtime.sample(proc.function, seed=1, **inputs)",
            "    distribution = runtime.exact(proc.function, **inputs)",
            "",
            "or call a procedure directly with a context:",
            f"``{package}.procedures.<nombre>(runtime.SampleContext(seed=1), …)``.",
            "Inputs use the JSON shapes of ``schemas/``; ``proc.convert(json_dict)`` turns",
            "JSON input into resolver values (``runtime.InputError`` names the bad path).",
        ]))
        w.line()
        w.line(RUNTIME_IMPORT)
        w.line("from . import data, examples, odds, procedures, traced, types")
        w.line()
        w.line("runtime = _rt  # the runtime this package was generated against: runtime.exact, runtime.sample, …")
        w.code(Seq(("__version__ = ", Text(distribution_version(self.p)))))
        w.code(Seq(("CONTENT_HASH = ", Text(content_hash(self.p)))))
        w.line()
        w.code(Seq(("RULEBOOK = ", Text(rb.name if rb else package))))
        w.code(Seq(("TITLE = ", Text(title))))
        w.code(Seq(("VERSION = ", Text(rb.version if rb else ""))))
        w.code(Seq(("LANG = ", Text(of_rulebook(self.p)))))  # the players' language: trace.render_text(lang=LANG)
        w.line()
        w.code(Seq(("SCHEMA = ", kwargs_call("_rt.Schema", [
            ("records", dict_of([(Text(r.name), self.schema_record(r)) for r in sorted(self.p.records.values(), key=lambda d: d.name)], always_break=True)),
            ("enums", dict_of([(Text(name), f"types.VALUES_{py_name(name)}") for name in sorted(self.p.enums)])),
            ("catalogs", dict_of(
                [(Text(c), f"data.CATALOG_{py_name(c)}") for c in sorted(self.p.catalogs)]
                + [(Text(t.name), f"data.TABLE_{py_name(t.name)}") for t in sorted(self.p.tables.values(), key=lambda d: d.name) if t.keyed_by_id]
            )),
        ]))))
        w.line()
        procedures = [(Text(d.name), self.procedure_object(d)) for d in self.p.of(ir.Procedure)]
        w.code(Seq(("PROCEDURES = ", dict_of(procedures, always_break=True))))
        w.line()
        names = ["PROCEDURES", "SCHEMA", "RULEBOOK", "TITLE", "VERSION", "LANG", "CONTENT_HASH", "runtime", "data", "examples", "odds", "procedures", "traced", "types"]
        w.code(Seq(("__all__ = ", Group("", tuple(f'"{name}"' for name in names), "[", "]"))))
        return "\n".join(w.lines).rstrip() + "\n"

    def schema_record(self, r: ir.Record) -> Doc:
        fields = [_constant_doc((f.name, py_name(f.name), type_desc(f.type))) for f in r.fields]
        return tuple_of([f"types.{py_name(r.name)}", tuple_of(fields)])

    def procedure_object(self, d: ir.Procedure) -> Doc:
        params = []
        for prm in d.params:
            fields = [Seq(("name=", Text(prm.name))), Seq(("type=", _constant_doc(type_desc(prm.type))))]
            if prm.default is not None:
                fields.append("has_default=True")
            if py_name(prm.name) != prm.name:
                fields.append(Seq(("keyword=", Text(py_name(prm.name)))))
            params.append(call("_rt.Param", *fields))
        fields: list[tuple[str, Doc]] = [
            ("name", Text(d.name)), ("title", Text(d.title)), ("ref", Text(d.ref)), ("src", Text(d.span.src)),
            ("function", f"procedures.{py_name(d.name)}"), ("params", tuple_of(params)),
            ("result", Text(str(d.result))), ("schema", "SCHEMA"),
        ]
        result = self.p.get(d.result.inner.name, ir.Enum) if d.result.inner.kind == "enum" else None
        if result is not None and result.ordered:
            fields.append(("result_order", f"types.VALUES_{py_name(result.name)}"))
        return kwargs_call("_rt.Procedure", fields)


# ---------------------------------------------------------------------------- helpers


def _granted(program: ir.Program) -> dict[str, tuple[ir.RuleApp, ...]]:
    """Each rule that grants others → the applications it grants directly. The rules
    those grant in turn are found at run time by ``rulebook.runtime.granted`` (a chain of n
    grants stays n entries here, not the n²/2 of its closure)."""
    return {r.name: tuple(r.grants) for r in sorted(program.of(ir.Rule), key=lambda r: r.name) if r.grants}


def _state_name(name: str) -> str:
    """A local in a state lambda: the chosen value is its argument ``_v``."""
    return "_v" if name == liveness.VALUE else py_name(name)


def _positional(name: str, value: Doc) -> Doc:
    """``value`` given by position to the parameter ``name``: noted with the name, unless
    it is the name (a local passed on to the parameter of the same name)."""
    return value if flat(value) == name else Noted(value, name)


def _is_none(e: ir.Expr) -> bool:
    return isinstance(e, ir.Literal) and e.value is None


def _is_comparison(e: ir.Binary) -> bool:
    """A comparison of two values whose sides can be shown on their own."""
    return e.op in _COMPARISONS and e.enum is None and not _is_none(e.left) and not _is_none(e.right)


def _reads_probability(e: Any) -> bool:
    """Does the expression call ``probability(…)``?"""
    if isinstance(e, ir.BuiltinCall) and e.name == "probability":
        return True
    if isinstance(e, tuple):
        return any(_reads_probability(x) for x in e)
    if dataclasses.is_dataclass(e) and not isinstance(e, type):
        return any(_reads_probability(getattr(e, f.name)) for f in dataclasses.fields(e) if f.name not in ("type", "span"))
    return False


def _template(template: str, fills: dict[str, Any]) -> Doc:
    """The doc of a call template of :mod:`rulebook.compiler.ir.builtins` (``_rt.shift(_t.VALUES_{enum}, {0}, {src})``):
    brackets become groups and ``{name}`` is replaced by ``fills[name]`` (a list
    fills several items, a str is text)."""
    items, end = _template_items(template, 0, "", fills)
    assert end == len(template) and len(items) == 1, template
    return items[0]


def _template_items(template: str, pos: int, closing: str, fills: dict[str, Any]) -> tuple[list[Doc], int]:
    """The comma-separated items of ``template`` from ``pos`` up to ``closing`` (or
    the end), and the position reached."""
    items: list[Doc] = []
    parts: list[Doc] = []
    text = ""
    while pos < len(template) and template[pos] != closing:
        ch = template[pos]
        if ch == "{":
            end = template.index("}", pos)
            fill = fills[template[pos + 1:end]]
            if isinstance(fill, list):
                items.extend(fill)
            elif isinstance(fill, str):
                text += fill
            else:
                parts += ([text] if text else []) + [fill]
                text = ""
            pos = end + 1
        elif ch in "([":
            close = ")" if ch == "(" else "]"
            inner, pos = _template_items(template, pos + 1, close, fills)
            parts.append(Group(text, tuple(inner), ch, close))
            text = ""
            pos += 1
        elif ch == ",":
            items.append(_joined(parts + ([text] if text else [])))
            parts, text = [], ""
            pos += 1
            while template[pos] == " ":
                pos += 1
        else:
            text += ch
            pos += 1
    if parts or text:
        items.append(_joined(parts + ([text] if text else [])))
    return items, pos


def _joined(parts: list[Doc]) -> Doc:
    return parts[0] if len(parts) == 1 else Seq(tuple(parts))


_FAST_DOC = (
    "The rulebook's procedures: one resolver function per procedure.\n\n"
    "Each function takes a context first (``runtime.SampleContext(seed, trace=False)``\n"
    "for a random resolution), then the procedure's parameters by name. These are\n"
    "the fast resolvers: they only roll dice. Each one's twin in ``traced.py``\n"
    "(``fn.traced``) also reports its steps, bindings and rolls:\n"
    "``runtime.sample(fn, trace=True, …)`` records them, and\n"
    "``runtime.exact(fn, **params)`` enumerates the twin's rolls for the exact\n"
    "distribution of results."
)

_TRACED_DOC = (
    "The rulebook's procedures, traced: the twins of ``procedures.py``.\n\n"
    "Each function reports to its context where it is (``ctx.enter``, ``ctx.step``,\n"
    "``ctx.let``, ``ctx.leave``) and rolls dice with the rules text and position of\n"
    "each roll. ``state=lambda _v: (…)`` lists what the rest of the procedure reads\n"
    "once the roll gives ``_v``, and ``reads`` the only counts read: exact\n"
    "enumeration (``runtime.exact``) explores each distinct state once. A call of a\n"
    "procedure that rolls dice goes through ``ctx.call``, so that its results are\n"
    "computed once per distinct arguments."
)


def package_name(program: ir.Program) -> str:
    return module_name(program.rulebook.name if program.rulebook else "rulebook")


MODULES: dict[str, tuple[bool, Any]] = {
    "types": (False, lambda em, pkg: em.types_module()),
    "data": (False, lambda em, pkg: em.data_module()),
    "procedures": (False, lambda em, pkg: em.procedures_module(traced=False)),
    "traced": (True, lambda em, pkg: em.procedures_module(traced=True)),
    "examples": (True, lambda em, pkg: em.examples_module()),
    "odds": (True, lambda em, pkg: em.odds_module()),
    "__init__": (True, lambda em, pkg: em.init_module(pkg)),
}
"""The package's modules, in the order they are generated, each by its own method of one
emitter, with the emitter's ``traced`` as that order leaves it (the worked examples, the
odds tables and ``__init__`` follow ``traced.py``). What else the emitter holds between
modules is reset by each (:meth:`PythonEmitter.module`), so one module can be generated
without those before it (:class:`ModuleMemo`)."""


def _module(em: PythonEmitter, pkg: str, name: str) -> str:
    traced, make = MODULES[name]
    em.traced = traced
    return make(em, pkg)


def generate(program: ir.Program) -> dict[str, str]:
    """All modules of the generated package, by relative path."""
    em = PythonEmitter(_ProgramByKind(program))  # type: ignore[arg-type]
    pkg = package_name(program)
    return {f"{pkg}/{name}.py": _module(em, pkg, name) for name in MODULES}


class _ProgramByKind:
    """A checked program as one generation reads it: the declarations of each kind are
    listed once (the emitter looks them up for each expression it writes; listing them
    each time made generation quadratic in the number of declarations)."""

    def __init__(self, program: ir.Program) -> None:
        self.program = program
        self._lists: dict[type, list] = {}
        self._dicts: dict[type, dict] = {}

    def of(self, cls: type) -> list:
        found = self._lists.get(cls)
        if found is None:
            found = self._lists[cls] = self.program.of(cls)
        return found

    def by_name(self, cls: type) -> dict:
        found = self._dicts.get(cls)
        if found is None:
            found = self._dicts[cls] = {d.name: d for d in self.of(cls)}
        return found

    enums = property(lambda self: self.by_name(ir.Enum))
    records = property(lambda self: self.by_name(ir.Record))
    catalogs = property(lambda self: self.by_name(ir.Catalog))
    tables = property(lambda self: self.by_name(ir.Table))
    procedures = property(lambda self: self.by_name(ir.Procedure))

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.program, name)


# ---------------------------------------------------------------------------- a memo per module


class _NotedProgram:
    """A checked program whose reads are noted in ``reads`` while one module is generated
    (:class:`ModuleMemo`): each declaration looked up by name, ``("decl", name)``; the
    declarations of a kind, in order, ``("of", kind)`` (``program.decls`` iterated:
    ``("of", object)``); the worked examples, ``("examples",)``; the ``rulebook``
    declaration, ``("rulebook",)``; any other attribute, ``("attr", name)``."""

    def __init__(self, program: ir.Program) -> None:
        self.program = program
        self.kinds = _ProgramByKind(program)
        self.reads: set[tuple] = set()

    def _noting(self, kind: type):
        """What a mapping of the declarations of ``kind`` notes, in the reads of the module
        being generated when it is read: a name looked up, ``("decl", name)``; all of it
        (:data:`rulebook.compiler.support.memo.ALL`), ``("of", kind)``."""

        def note(key) -> None:
            self.reads.add(("of", kind) if key is ALL else ("decl", key))

        return note

    @property
    def decls(self) -> Mapping:
        return NotedMapping(self.program.decls, self._noting(object))

    def _kind(self, cls: type) -> Mapping:
        return NotedMapping(self.kinds.by_name(cls), self._noting(cls))

    enums = property(lambda self: self._kind(ir.Enum))
    records = property(lambda self: self._kind(ir.Record))
    catalogs = property(lambda self: self._kind(ir.Catalog))
    tables = property(lambda self: self._kind(ir.Table))
    procedures = property(lambda self: self._kind(ir.Procedure))

    def of(self, cls: type) -> list:
        self.reads.add(("of", cls))
        return self.kinds.of(cls)

    def get(self, name: str, cls: type = object):
        self.reads.add(("decl", name))
        return self.program.get(name, cls)

    @property
    def examples(self) -> list:
        self.reads.add(("examples",))
        return self.program.examples

    @property
    def rulebook(self):
        self.reads.add(("rulebook",))
        return self.program.rulebook

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        self.reads.add(("attr", name))
        return getattr(self.program, name)


class ModuleMemo:
    """The modules of the last generated package, each with what it read (``rulebook serve``):
    :meth:`generate` generates again only the modules whose reads changed.

    While a module is generated, its emitter reads the program through a :class:`_NotedProgram`,
    so every declaration it looks up, every kind of declaration it iterates, the worked examples,
    the ``rulebook`` declaration and any other part of the program it touches is noted; what the
    analyses shared by all modules read (:meth:`PythonEmitter._once`) is added to each module that
    uses them. A module is kept when the package name, the source files its header names and the
    digest of each of its reads are as they were: a declaration's digest is the caller's (a hash of
    its pickled value, source positions included), so equal digests mean equal values and the same
    code. A module generated again is made of pieces (:meth:`PythonEmitter.piece_value`: a catalog's
    or table's data, a procedure, a worked example), each kept on the same terms, with what it did
    to the emitter (the numbers it cites positions by…) checked and done again. Only the last
    package is kept."""

    def __init__(self) -> None:
        # module name → (common key, {read: its digest}, source)
        self.modules: dict[str, tuple[tuple, dict[tuple, bytes], str]] = {}
        # module name → piece → ({read: its digest}, its journal, its lines or code): PythonEmitter.piece_value
        self.pieces: dict[str, dict[Any, tuple[dict[tuple, bytes], list, Any]]] = {}
        self.generated: list[str] = []  # the modules the last call generated (the others were kept)

    def generate(self, program: ir.Program, decls: dict[str, bytes], examples: list[bytes], rulebook: bytes) -> dict[str, str]:
        """:func:`generate`'s answer for ``program``; ``decls``: the digest of each declaration's
        value, ``examples`` of each worked example's (in order), ``rulebook`` of the ``rulebook``
        declaration's."""
        digests = _ReadDigests(program, decls, examples, rulebook)
        pkg = package_name(program)
        sources = sorted({d.file for d in program.decls.values()})
        common = (pkg, tuple(sources))
        noted = _NotedProgram(program)
        emitter = PythonEmitter(noted, sources=sources)  # type: ignore[arg-type]
        files, kept, pieces, self.generated = {}, {}, {}, []
        for name in MODULES:
            old = self.modules.get(name)
            if old is not None and old[0] == common and all(digests.of(read) == d for read, d in old[1].items()):
                files[f"{pkg}/{name}.py"] = old[2]
                kept[name] = old
                pieces[name] = self.pieces.get(name, {})
                continue
            noted.reads = set()
            emitter.pieces = (self.pieces.get(name, {}) if old is not None and old[0] == common else {}, pieces.setdefault(name, {}), digests)
            text = _module(emitter, pkg, name)
            files[f"{pkg}/{name}.py"] = text
            kept[name] = (common, {read: digests.of(read) for read in noted.reads}, text)
            self.generated.append(name)
        self.modules, self.pieces = kept, pieces
        return files


class _ReadDigests:
    """The digest, in one build, of each thing a module may read (see :class:`_NotedProgram`)."""

    def __init__(self, program: ir.Program, decls: dict[str, bytes], examples: list[bytes], rulebook: bytes) -> None:
        self.program, self.decls, self.examples, self.rulebook = program, decls, examples, rulebook
        self.known: dict[tuple, bytes] = {}

    def of(self, read: tuple) -> bytes:
        if read not in self.known:
            self.known[read] = self._digest(read)
        return self.known[read]

    def _digest(self, read: tuple) -> bytes:
        import hashlib
        import pickle

        what = read[0]
        if what == "random":  # the procedures that roll dice (_Liveness.random)
            return hashlib.sha256(repr(sorted(liveness._random_procedures(self.program.of(ir.Procedure)))).encode()).digest()
        if what == "decl":
            return self.decls.get(read[1], b"-")  # absent: no digest is one byte long
        if what == "of":
            return hashlib.sha256(b"".join(
                name.encode() + b"\0" + self.decls[name] for name, d in self.program.decls.items() if isinstance(d, read[1])
            )).digest()
        if what == "examples":
            return hashlib.sha256(b"".join(self.examples)).digest()
        if what == "rulebook":
            return self.rulebook
        return hashlib.sha256(pickle.dumps(getattr(self.program, read[1]), protocol=pickle.HIGHEST_PROTOCOL)).digest()


def write_package(program: ir.Program, folder: Path, generated: dict[str, str] | None = None) -> list[Path]:
    """Write the package under ``folder`` (created), with what makes it a standalone
    project (:mod:`rulebook.compiler.emit.python.to_project`); returns the files written.
    ``generated``: :func:`generate`'s answer for ``program``, when the caller has it."""
    written = []
    modules = generate(program) if generated is None else generated
    files = {rel: text.encode("utf-8") for rel, text in modules.items()} | project_files(program, package_name(program))
    for rel, data in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    return written
