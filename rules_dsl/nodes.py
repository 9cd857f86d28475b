"""AST of a `.rules` file: prose blocks and declarations, each with a span.

Nodes are small frozen dataclasses named after the grammar rules. The parser
(:mod:`rulebook.rules_dsl.parser`) produces them; the compiler never sees Lark trees.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Union

from .diagnostics import Span

# ----------------------------------------------------------------------------- prose


@dataclass(frozen=True, slots=True)
class Text:
    """Plain inline text."""

    text: str


@dataclass(frozen=True, slots=True)
class Strong:
    """``**bold**`` inline text."""

    text: str


@dataclass(frozen=True, slots=True)
class Emph:
    """``*italic*`` inline text."""

    text: str


@dataclass(frozen=True, slots=True)
class Code:
    """```code``` inline text."""

    text: str


@dataclass(frozen=True, slots=True)
class Ref:
    """``[[id]]``: a link to a declaration."""

    target: str
    span: Span


Inline = Union[Text, Strong, Emph, Code, Ref]


@dataclass(frozen=True, slots=True)
class Heading:
    """A prose heading; ``number`` is its leading numbering (``"8.1"``) if any."""

    level: int
    inlines: tuple[Inline, ...]
    number: str | None
    span: Span


@dataclass(frozen=True, slots=True)
class Paragraph:
    """A paragraph of prose."""

    inlines: tuple[Inline, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class ListBlock:
    """A bulleted or numbered list; each item is a run of inlines."""

    ordered: bool
    items: tuple[tuple[Inline, ...], ...]
    span: Span
    start: int = 1


@dataclass(frozen=True, slots=True)
class Note:
    """A ``>`` note or highlighted formula."""

    inlines: tuple[Inline, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Separator:
    """A ``---`` separator."""

    span: Span


Prose = Union[Heading, Paragraph, ListBlock, Note, Separator]

# ----------------------------------------------------------------------------- data values


@dataclass(frozen=True, slots=True)
class VNum:
    """A number literal in data (int or exact decimal)."""

    value: int | Fraction
    span: Span
    text: str = ""


@dataclass(frozen=True, slots=True)
class VStr:
    """A string literal in data."""

    value: str
    span: Span


@dataclass(frozen=True, slots=True)
class VBool:
    """``true`` / ``false`` in data."""

    value: bool
    span: Span


@dataclass(frozen=True, slots=True)
class VNone:
    """``-`` / ``—`` / ``none``: no value."""

    span: Span


@dataclass(frozen=True, slots=True)
class VName:
    """A bare name in data: an enum value or an id."""

    name: str
    span: Span


@dataclass(frozen=True, slots=True)
class VQualified:
    """``Calidad.green`` (an enum value) or ``perfiles_armas.pistola`` (an id) in
    data: the spelling of code, accepted where the short form ``green`` is."""

    qualifier: str
    name: str
    span: Span


@dataclass(frozen=True, slots=True)
class VApply:
    """``lmg(2)``: a special rule applied with arguments, or ``Danio(3, 1)``,
    ``Danio(normal: 3, reducido: 1)``: a record written as in code. Each
    argument is ``(name, value)``, the name None when positional."""

    name: str
    args: tuple[tuple[str | None, "Value"], ...]
    span: Span


@dataclass(frozen=True, slots=True)
class VList:
    """``[a, b]`` in data."""

    items: tuple["Value", ...]
    span: Span


@dataclass(frozen=True, slots=True)
class VRecord:
    """``(f: v, …)`` or positional ``(v, w)`` in data; names are None when positional."""

    fields: tuple[tuple[str | None, "Value"], ...]
    span: Span


Value = Union[VNum, VStr, VBool, VNone, VName, VQualified, VApply, VList, VRecord]

# ----------------------------------------------------------------------------- types


@dataclass(frozen=True, slots=True)
class TypeRef:
    """A type as written: ``kind`` is named|list|map|ref|rule|id."""

    kind: str
    name: str | None
    args: tuple["TypeRef", ...]
    optional: bool
    span: Span

    def __str__(self) -> str:
        base = {
            "named": lambda: self.name,
            "list": lambda: f"list[{self.args[0]}]",
            "map": lambda: f"map[{self.name}, {self.args[0]}]",
            "ref": lambda: f"ref {self.name}",
            "rule": lambda: "rule",
            "id": lambda: "id",
        }[self.kind]()
        return base + ("?" if self.optional else "")


# ----------------------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True)
class Num:
    """A number literal."""

    value: int | Fraction
    span: Span


@dataclass(frozen=True, slots=True)
class Str:
    """A string literal."""

    value: str
    span: Span


@dataclass(frozen=True, slots=True)
class Bool:
    """``true`` / ``false``."""

    value: bool
    span: Span


@dataclass(frozen=True, slots=True)
class NoneLit:
    """``none``."""

    span: Span


@dataclass(frozen=True, slots=True)
class Name:
    """A name: a local, a parameter, a table, an enum, a catalog…"""

    name: str
    span: Span


@dataclass(frozen=True, slots=True)
class Attr:
    """``obj.name``: a field, a table column, or ``Enum.value``."""

    obj: "Expr"
    name: str
    span: Span
    name_span: Span | None = None


@dataclass(frozen=True, slots=True)
class Index:
    """``obj[k, …]``: a table lookup, a map or list index."""

    obj: "Expr"
    keys: tuple["Expr", ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Arg:
    """A call argument, named or positional."""

    name: str | None
    value: "Expr"
    span: Span


@dataclass(frozen=True, slots=True)
class Call:
    """``f(args)``: a builtin, a procedure, or a record constructor."""

    func: str
    args: tuple[Arg, ...]
    span: Span
    func_span: Span | None = None


@dataclass(frozen=True, slots=True)
class Unary:
    """``-x`` / ``+x`` / ``not x``."""

    op: str
    operand: "Expr"
    span: Span


@dataclass(frozen=True, slots=True)
class Binary:
    """Arithmetic, comparison, ``in``, ``and``/``or``."""

    op: str
    left: "Expr"
    right: "Expr"
    span: Span


@dataclass(frozen=True, slots=True)
class IfExpr:
    """``if c then a else b``."""

    cond: "Expr"
    then: "Expr"
    other: "Expr"
    span: Span


@dataclass(frozen=True, slots=True)
class ListExpr:
    """``[a, b]``."""

    items: tuple["Expr", ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Comprehension:
    """``[expr for name in iterable if cond]``."""

    expr: "Expr"
    name: str
    iterable: "Expr"
    cond: "Expr | None"
    span: Span


@dataclass(frozen=True, slots=True)
class DieTest:
    """A test of one die's face in a roll: ``>= 4`` (``op``, ``value``), a bare ``6``
    (``op`` ``==``), or ``each d if cond`` (``name`` is the face, ``value`` the condition,
    ``op`` None)."""

    op: str | None
    value: "Expr"
    name: str | None
    span: Span


@dataclass(frozen=True, slots=True)
class DiceMods:
    """What a roll does to each die beyond ``keep`` and ``count op x``: ``reroll TEST``,
    ``explode TEST [chain K]``, ``count each d if …`` or ``count (name: TEST, …)``."""

    reroll: DieTest | None = None
    explode: DieTest | None = None
    chain: "Expr | None" = None
    counts: tuple[tuple[str | None, DieTest, Span], ...] | None = None  # name None: one ``count TEST``


@dataclass(frozen=True, slots=True)
class Roll:
    """``roll DICE [times n] [reroll T] [explode T [chain K]] [keep highest|lowest k] [count T]``."""

    die: str  # a declared die name, or "d6"-style standard die
    std_count: int | None  # N of "NdS" when written as a standard dice token
    times: "Expr | None"
    keep: tuple[str, int] | None
    count: tuple[str, "Expr"] | None
    span: Span
    die_span: Span | None = None
    mods: DiceMods | None = None  # None when the roll has none of them


@dataclass(frozen=True, slots=True)
class Draw:
    """``draw n from Bag`` (without replacement)."""

    count: "Expr"
    bag: str
    span: Span
    removed: tuple["Arg", ...] = ()  # ``except (kind: n, …)``: tokens already out of the bag
    mode: str = "except"  # or "with": ``with (kind: n, …)`` sets how many tokens of each kind the bag holds


@dataclass(frozen=True, slots=True)
class Stack:
    """``stack proc(args) { "source": value, … }``: modifiers from named sources,
    combined by the procedure ``proc``."""

    procedure: str
    args: tuple[Arg, ...]
    sources: tuple[tuple[str, "Expr", Span], ...]
    span: Span
    procedure_span: Span | None = None


@dataclass(frozen=True, slots=True)
class Range:
    """``lo..hi``: the whole numbers from ``lo`` to ``hi``, both included (only where a
    ``for`` goes through values)."""

    lo: "Expr"
    hi: "Expr"
    span: Span


Expr = Union[Num, Str, Bool, NoneLit, Name, Attr, Index, Call, Unary, Binary, IfExpr, ListExpr, Comprehension, Roll, Draw, Stack,
             Range]

# ----------------------------------------------------------------------------- statements


@dataclass(frozen=True, slots=True)
class Let:
    """``let name = value``."""

    name: str
    value: Expr
    span: Span


@dataclass(frozen=True, slots=True)
class Return:
    """``return value``."""

    value: Expr
    span: Span


@dataclass(frozen=True, slots=True)
class Require:
    """``require cond, "message"``: a runtime error citing this line if false."""

    cond: Expr
    message: str
    span: Span


@dataclass(frozen=True, slots=True)
class If:
    """``if c { … } else if c { … } else { … }``."""

    branches: tuple[tuple[Expr, tuple["Stmt", ...]], ...]
    orelse: tuple["Stmt", ...] | None
    span: Span


@dataclass(frozen=True, slots=True)
class Repeat:
    """``repeat { … } until cond``: the body again until ``cond`` holds."""

    body: tuple["Stmt", ...]
    cond: Expr
    span: Span


@dataclass(frozen=True, slots=True)
class Carried:
    """``name: init`` in ``with (…)``: a value a loop carries from run to run."""

    name: str
    init: Expr
    span: Span


@dataclass(frozen=True, slots=True)
class Loop:
    """``repeat [at most] N times [with (…)] { … } [until c]``, or ``for var in items
    [with (…)] { … } [until c]``: a bounded loop whose runs hand on the ``carried`` values
    (given their next value by ``set``). ``times`` is N (``at_most``: written ``at most``),
    None for a ``for``; ``var``/``iterable`` are None for a ``repeat``."""

    times: Expr | None
    at_most: bool
    var: str | None
    iterable: Expr | None
    carried: tuple[Carried, ...]
    body: tuple["Stmt", ...]
    cond: Expr | None
    span: Span
    word: str = "with"  # the word before the carried values (the parser also reads `except` there)


@dataclass(frozen=True, slots=True)
class Set:
    """``set name = value``: the value of a loop's carried ``name`` from the next run on."""

    name: str
    value: Expr
    span: Span


Stmt = Union[Let, Return, Require, If, Repeat, Loop, Set]


@dataclass(frozen=True, slots=True)
class Step:
    """A labelled step of a procedure."""

    label: str
    body: tuple[Stmt, ...]
    span: Span


# ----------------------------------------------------------------------------- declarations


@dataclass(frozen=True, slots=True)
class Annotation:
    """``@name value``."""

    name: str
    value: Value | None
    span: Span


@dataclass(frozen=True, slots=True)
class RulebookDecl:
    """``rulebook id "Title" version "x" lang "es"``."""

    name: str
    title: str
    version: str | None
    lang: str | None
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""


@dataclass(frozen=True, slots=True)
class SectionDecl:
    """``section VI "Title"``: starts a page; its numeral prefixes source refs."""

    name: str
    title: str
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""


@dataclass(frozen=True, slots=True)
class ShowDecl:
    """``show id``: render a declaration made elsewhere again (one source of truth)."""

    name: str
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""


@dataclass(frozen=True, slots=True)
class TermDecl:
    """``term id "Término" "definición"``: a glossary entry (tooltips on the site)."""

    name: str
    title: str
    definition: str
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""


@dataclass(frozen=True, slots=True)
class ConstDecl:
    """``const name "Title" = value``: a named number (text, true/false) used by
    several procedures; ``value`` is a data value (checked to be a literal)."""

    name: str
    title: str | None
    value: Value
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""


@dataclass(frozen=True, slots=True)
class EnumMember:
    """One value of an enum."""

    name: str
    title: str | None
    span: Span


@dataclass(frozen=True, slots=True)
class EnumDecl:
    """``enum Name "Title" [ordered] { … }``."""

    name: str
    title: str | None
    ordered: bool
    members: tuple[EnumMember, ...]
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""


@dataclass(frozen=True, slots=True)
class FieldDecl:
    """``name: type "Title"`` in a record."""

    name: str
    type: TypeRef
    title: str | None
    span: Span


@dataclass(frozen=True, slots=True)
class RecordDecl:
    """``record Name "Title" { fields }``."""

    name: str
    title: str | None
    fields: tuple[FieldDecl, ...]
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""


@dataclass(frozen=True, slots=True)
class CatalogRow:
    """``id | v | …`` in a catalog."""

    id: str
    values: tuple[Value, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class CatalogDecl:
    """``catalog name "Title" of Record { columns …; rows }``."""

    name: str
    title: str | None
    record: str
    columns: tuple[str, ...] | None
    rows: tuple[CatalogRow, ...]
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""
    record_span: Span | None = None
    columns_span: Span | None = None


@dataclass(frozen=True, slots=True)
class KeySpec:
    """A table key: ``name: type [range] "Title"``."""

    name: str
    type: TypeRef
    ranged: bool
    title: str | None
    span: Span


@dataclass(frozen=True, slots=True)
class ResultCol:
    """A table result column."""

    name: str
    type: TypeRef
    title: str | None
    span: Span


@dataclass(frozen=True, slots=True)
class RangeKey:
    """A numeric range key; None bounds are unbounded."""

    lo: int | Fraction | None
    lo_inclusive: bool
    hi: int | Fraction | None
    hi_inclusive: bool
    span: Span

    def contains(self, x: int | Fraction) -> bool:
        if self.lo is not None and (x < self.lo or (x == self.lo and not self.lo_inclusive)):
            return False
        if self.hi is not None and (x > self.hi or (x == self.hi and not self.hi_inclusive)):
            return False
        return True


@dataclass(frozen=True, slots=True)
class TableRow:
    """``key[, key] ["Title"] | v | …``."""

    keys: tuple[Value | RangeKey, ...]
    title: str | None
    values: tuple[Value, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class TableDecl:
    """``table name "Title" by … [across …] -> cols { rows }``."""

    name: str
    title: str | None
    keys: tuple[KeySpec, ...]
    across: KeySpec | None
    columns: tuple[ResultCol, ...]
    header: tuple[Value, ...] | None
    rows: tuple[TableRow, ...]
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""


@dataclass(frozen=True, slots=True)
class DieDecl:
    """``die Name "Title" [of Enum] = [faces]``."""

    name: str
    title: str | None
    face_enum: str | None
    faces: tuple[Value, ...]
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""


@dataclass(frozen=True, slots=True)
class BagDecl:
    """``bag Name "Title" { kind: count, … }``."""

    name: str
    title: str | None
    tokens: tuple[tuple[str, int, Span], ...]
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""


@dataclass(frozen=True, slots=True)
class Param:
    """A parameter: ``name: type ["Title"] [= default]``."""

    name: str
    type: TypeRef
    default: Expr | None
    span: Span
    title: str | None = None  # what players read instead of the name


@dataclass(frozen=True, slots=True)
class RuleDecl:
    """``rule id "Name" (params) { texts, levels, grants, stacking }``."""

    name: str
    title: str | None
    params: tuple[Param, ...]
    texts: tuple[str, ...]
    levels: tuple[tuple[int, str], ...]
    grants: tuple[VApply, ...]
    stacking: str | None
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""
    combine: tuple[str, Span] | None = None  # ``stacking max``: how rule_param combines several applications


@dataclass(frozen=True, slots=True)
class ProcedureDecl:
    """``procedure name "Title" (params) -> type { steps }``."""

    name: str
    title: str | None
    params: tuple[Param, ...]
    result: TypeRef
    body: tuple[Step | Stmt, ...]
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""


@dataclass(frozen=True, slots=True)
class Expect:
    """``expect expr`` in an example, or ``expect error ["texto"]`` (expr is None):
    the resolution must stop with a rule error whose message contains the text."""

    expr: Expr | None
    span: Span
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ExampleDecl:
    """``example procedure "Title" { given (…) expect … }``."""

    procedure: str
    title: str | None
    given: tuple[Arg, ...]
    expects: tuple[Expect, ...]
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""
    procedure_span: Span | None = None


@dataclass(frozen=True, slots=True)
class BrokenDecl:
    """A declaration that failed to parse: its name is known, so uses of it
    do not cascade into 'unknown name' errors."""

    name: str
    keyword: str
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""


@dataclass(frozen=True, slots=True)
class OddsAxis:
    """``rows name in lo..hi "Título"`` (or ``columns …``), ``rows name in Enum``,
    ``rows name in [a, b]``, or ``each name in catalog``: ``enum`` names the enum
    or catalog."""

    name: str
    lo: int | None
    hi: int | None
    enum: str | None
    title: str | None
    span: Span
    values: tuple | None = None


@dataclass(frozen=True, slots=True)
class OddsDecl:
    """``odds id "Título" { procedure proc(args), [each …], rows …, [columns …],
    cell expr | cells outcomes(expr) }``: a table of exact probabilities computed
    by the resolvers at build time. ``show`` is the expression after ``cell`` /
    ``cells``; ``cells`` says which word introduced it."""

    name: str
    title: str | None
    procedure: str
    args: tuple[Arg, ...]
    rows: OddsAxis
    columns: OddsAxis | None
    show: Expr
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""
    procedure_span: Span | None = None
    each: OddsAxis | None = None  # one table per entry of a catalog (shown in its card)
    cells: bool = False  # written `cells outcomes(…)` (one column per outcome) rather than `cell …`


@dataclass(frozen=True, slots=True)
class MatchupAxis:
    """``attacker a in cat1 | cat2 "Título"`` (``role`` is the first word): the
    sources after ``in`` are expressions (catalog names, an enum, or a list over an
    earlier axis, ``a.armas``); the checker says which."""

    role: str
    name: str
    sources: tuple[Expr, ...]
    title: str | None
    span: Span


@dataclass(frozen=True, slots=True)
class MatchupClause:
    """``word: expr`` inside a matchup (``measure: mean(result.bajas)``)."""

    word: str
    value: Expr
    span: Span


@dataclass(frozen=True, slots=True)
class MatchupDecl:
    """``matchup id "Título" { procedure p(args), attacker …, target …, word: expr … }``:
    how a pairing of units is resolved and what is measured (an engagement when it
    has ``start:``). The checker (``compiler/check/matchups.py``) knows the words."""

    name: str
    title: str | None
    procedure: str | None
    args: tuple[Arg, ...]
    axes: tuple[MatchupAxis, ...]
    clauses: tuple[MatchupClause, ...]
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""
    procedure_span: Span | None = None


@dataclass(frozen=True, slots=True)
class ArmyClause:
    """One clause of an ``army`` block: ``word value… name: value… [{ clauses }]``.
    ``args`` are ``(name, value)``, the name None when positional; the checker
    (``compiler/check/armies.py``) knows the words."""

    word: str
    args: tuple[tuple[str | None, Value], ...]
    clauses: tuple["ArmyClause", ...]
    span: Span
    word_span: Span


@dataclass(frozen=True, slots=True)
class ArmyDecl:
    """``army id "Title" { clauses }``: one way of building a force (list building)."""

    name: str
    title: str | None
    clauses: tuple[ArmyClause, ...]
    span: Span
    annotations: tuple[Annotation, ...] = ()
    source_text: str = ""


Decl = Union[
    RulebookDecl, SectionDecl, ShowDecl, TermDecl, ConstDecl, EnumDecl, RecordDecl, CatalogDecl, TableDecl, DieDecl, BagDecl,
    RuleDecl, ProcedureDecl, ExampleDecl, OddsDecl, MatchupDecl, ArmyDecl, BrokenDecl,
]


@dataclass(frozen=True, slots=True)
class Module:
    """A parsed `.rules` file: prose and declarations in source order."""

    filename: str
    items: tuple[Prose | Decl, ...]
    text: str = field(repr=False, default="")
