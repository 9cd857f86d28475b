"""The typed intermediate representation: what the checker produces and the emitters read.

Reads: nothing (built by :func:`rulebook.compiler.check.check_program`). Produces: the
IR classes; :mod:`.types` (types of the language), :mod:`.builtins` (built-in
functions), :mod:`.walk` (expressions as trees), :mod:`.sources` (source names, content
hash).

:func:`rulebook.compiler.check.check_program` builds a :class:`Program` from parsed
modules. Everything in it is resolved and typed:

* one class per declaration kind (:class:`Enum`, :class:`Record`, :class:`Catalog`,
  :class:`Table`, :class:`Die`, :class:`Bag`, :class:`Rule`, :class:`Procedure`,
  :class:`Term`, :class:`Odds`), each with its display title, manual reference,
  status, documentation and span;
* data (catalog entries, table rows, dice faces, rule applications) as plain
  Python values: ``int``, ``Fraction``, ``str``, ``bool``, ``None``, lists and
  dicts, of the declared type;
* procedure bodies as statements over resolved expressions, each expression
  carrying its :class:`~rulebook.compiler.ir.types.T` and its span;
* the prose of each section as small inline/block classes.

No AST node is reachable from here (``tests/test_architecture.py`` checks that
no emitter imports ``rulebook.rules_dsl.nodes``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Union

from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler.ir.dice import DiceMods, DieFace, DieTest  # noqa: F401 - re-exported
from rulebook.compiler.ir.types import T
from rulebook.compiler.ir.loops import IntRange, Loop, Set, counter  # noqa: F401 - re-exported
from rulebook.compiler.ir.matchups import Matchup, MatchupEach, MatchupSide  # noqa: F401 - re-exported

Scalar = Union[int, Fraction, str, bool, None]

# ---------------------------------------------------------------------------- prose


@dataclass(frozen=True, slots=True)
class Text:
    """Plain text of a prose run."""

    text: str


@dataclass(frozen=True, slots=True)
class Strong:
    """``**bold**`` text."""

    text: str


@dataclass(frozen=True, slots=True)
class Emph:
    """``*emphasised*`` text."""

    text: str


@dataclass(frozen=True, slots=True)
class Code:
    """```code``` text."""

    text: str


@dataclass(frozen=True, slots=True)
class Link:
    """``[[name]]`` or ``[[catalog#id]]``: a link to a declaration (checked to exist)."""

    target: str
    span: Span


Inline = Union[Text, Strong, Emph, Code, Link]


@dataclass(frozen=True, slots=True)
class Heading:
    """A prose heading; ``number`` is its manual numbering (``"4.2"``) if any."""

    level: int
    inlines: tuple[Inline, ...]
    number: str | None
    span: Span


@dataclass(frozen=True, slots=True)
class Paragraph:
    """A prose paragraph."""

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
    """A ``> note`` aside."""

    inlines: tuple[Inline, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Separator:
    """A horizontal rule."""

    span: Span


@dataclass(frozen=True, slots=True)
class Show:
    """``show name``: the declaration ``name`` (declared elsewhere) shown again here."""

    name: str
    span: Span


Prose = Union[Heading, Paragraph, ListBlock, Note, Separator]

# ---------------------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True)
class Literal:
    """A number, text, true/false or ``none``."""

    value: Scalar
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class Local:
    """A parameter, ``let`` value, loop variable, odds axis or ``result``."""

    name: str
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class ConstRef:
    """A named constant (``const``) used in an expression."""

    name: str
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class EnumValue:
    """``Enum.member``."""

    enum: str
    member: str
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class EntryId:
    """``catalog.id`` (or ``id_table.id``): the id of an entry, a ``ref`` value."""

    catalog: str
    ident: str
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class FieldAccess:
    """``obj.field``.

    ``via`` says how the field is reached: ``"value"`` (obj is a record or a table
    row), ``"catalog"`` (obj is a ``ref`` to an entry of catalog ``owner``: look
    it up first), ``"table"`` (obj is a ``ref`` to a row of the id-keyed table
    ``owner``) or ``"catalogs"`` (obj is a ``ref a | b``, ``owner`` ``"a|b"``: look
    it up in the one that has it). ``nullable``: obj may be ``none`` (the access then fails at run
    time with the rule's position).
    """

    obj: "Expr"
    field: str
    via: str
    owner: str | None
    nullable: bool
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class CountOf:
    """``counts.kind``: how many of one kind in a draw or a roll of named faces."""

    obj: "Expr"
    kind: str
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class TableLookup:
    """``table[k1, k2…]`` (the last key picks the column of an ``across`` table)."""

    table: str
    keys: tuple["Expr", ...]
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class CatalogLookup:
    """``catalog[id]``: the entry, a record."""

    catalog: str
    key: "Expr"
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class MapIndex:
    """``map_value[Enum.member]``."""

    obj: "Expr"
    key: "Expr"
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class ListIndex:
    """``list_value[i]`` (0 is the first)."""

    obj: "Expr"
    index: "Expr"
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class ProcedureCall:
    """``proc(args)``; ``args`` are (parameter, value) in the order written."""

    procedure: str
    args: tuple[tuple[str, "Expr"], ...]
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class RecordNew:
    """``Record(fields)``; ``args`` are (field, value) for the fields given."""

    record: str
    args: tuple[tuple[str, "Expr"], ...]
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class BuiltinCall:
    """A call of a built-in function (see :mod:`rulebook.compiler.ir.builtins`).

    ``rule`` and ``param`` are set for ``has_rule``/``rule_param`` (whose rule and
    parameter arguments are names, not values: only the list is in ``args``).
    """

    name: str
    args: tuple["Expr", ...]
    type: T
    span: Span
    rule: str | None = None
    param: str | None = None


@dataclass(frozen=True, slots=True)
class Unary:
    """``not x`` or ``-x``."""

    op: str
    operand: "Expr"
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class Binary:
    """``left op right``; for ordered comparisons of enum values ``enum`` names the enum."""

    op: str
    left: "Expr"
    right: "Expr"
    type: T
    span: Span
    enum: str | None = None


@dataclass(frozen=True, slots=True)
class Conditional:
    """``if cond then a else b``."""

    cond: "Expr"
    then: "Expr"
    other: "Expr"
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class ListOf:
    """``[a, b, c]``."""

    items: tuple["Expr", ...]
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class Comprehension:
    """``[body for var in iterable if cond]``."""

    body: "Expr"
    var: str
    iterable: "Expr"
    cond: "Expr | None"
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class Roll:
    """A roll of dice.

    ``die`` is a declared die, or None for standard dice of ``sides`` faces.
    ``times`` is the number of dice (an expression) or None for ``count`` dice
    (a constant). ``keep`` = ("highest"|"lowest", n); ``test`` = (op, threshold)
    counts the dice that pass. ``named_faces``: the die's faces are enum members
    (rolled several times, the result counts each face). ``text`` is the rules
    text of the roll, shown in traces. ``mods``: re-rolls, explosions and per-die
    tests (:class:`~rulebook.compiler.ir.dice.DiceMods`), None without them.
    """

    die: str | None
    sides: int | None
    count: int
    times: "Expr | None"
    keep: tuple[str, int] | None
    test: tuple[str, "Expr"] | None
    named_faces: bool
    text: str
    type: T
    span: Span
    mods: DiceMods | None = None  # reroll, explode, per-die tests (compiler/ir/dice.py)


@dataclass(frozen=True, slots=True)
class Draw:
    """``draw n from bag [except|with (kind: n, …)]``: counts of each kind drawn."""

    bag: str
    count: "Expr"
    removed: tuple[tuple[str, "Expr"], ...]
    mode: str  # "except": tokens already out; "with": the bag's make-up
    text: str
    type: T
    span: Span


@dataclass(frozen=True, slots=True)
class Sources:
    """The modifiers of named sources handed to the procedure of a ``stack``
    (``stack proc(…) { "source": value, … }``): a list of the values that apply
    (not 0), in the order written; the traced resolver lists each one applied by
    its source."""

    items: tuple[tuple[str, "Expr"], ...]
    type: T
    span: Span


Expr = Union[
    Literal, Local, ConstRef, EnumValue, EntryId, FieldAccess, CountOf, TableLookup, CatalogLookup, MapIndex, ListIndex,
    ProcedureCall, RecordNew, BuiltinCall, Unary, Binary, Conditional, ListOf, Comprehension, Roll, Draw, Sources, IntRange,
]

# ---------------------------------------------------------------------------- statements


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
    """``require cond, "message"``: the procedure stops with a rule error when false."""

    cond: Expr
    message: str
    span: Span


@dataclass(frozen=True, slots=True)
class If:
    """``if c { … } else if c2 { … } else { … }``."""

    branches: tuple[tuple[Expr, tuple["Stmt", ...]], ...]
    orelse: tuple["Stmt", ...] | None
    span: Span


@dataclass(frozen=True, slots=True)
class Step:
    """``step "label" { … }``: a numbered step of a procedure (``number`` from 1)."""

    number: int
    label: str
    body: tuple["Stmt", ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Repeat:
    """``repeat { … } until cond``: the body runs again until ``cond`` holds; the
    ``binds`` (the body's own lets, in order) keep the values of the last run.
    ``number`` counts the repeats of a procedure from 1; ``reads`` are the locals
    from before the repeat that the body and condition read; ``text`` is the
    condition as written."""

    number: int
    body: tuple["Stmt", ...]
    cond: Expr
    binds: tuple[str, ...]
    reads: tuple[str, ...]
    text: str
    span: Span


Stmt = Union[Let, Return, Require, If, Step, Repeat, Loop, Set]

# ---------------------------------------------------------------------------- declarations


@dataclass(slots=True, kw_only=True)
class Decl:
    """What every declaration has: its name, display title, manual reference
    (``"VI.13"``), status (active, deferred, not_playable), documentation, the
    file and span it comes from, and its rules source text (for the site)."""

    name: str
    title: str
    ref: str
    status: str
    doc: str | None
    file: str
    span: Span
    source_text: str
    has_title: bool = True  # False when the title is the name (no display name written)
    doc_is_prose: bool = False  # the doc is the paragraph right above (bare @doc): pages do not repeat it
    as_printed: tuple[str, ...] = ()  # @as_printed: ids this declaration references that no entry defines, kept as the manual prints them
    as_printed_reason: str | None = None
    quick_reference: bool = False  # @quick_reference (a const or a table): also on the quick-reference page

    @property
    def kind(self) -> str:
        """``enum``, ``record``, ``catalog``… (the declaration keyword)."""
        return type(self).__name__.lower()


@dataclass(slots=True, kw_only=True)
class Const(Decl):
    """``const name "Título" = value``: a named number (or text, true/false)
    written once and used by several procedures."""

    value: Any
    type: T


@dataclass(slots=True, kw_only=True)
class EnumMember:
    name: str
    title: str
    span: Span


@dataclass(slots=True, kw_only=True)
class Enum(Decl):
    """``enum``: named values, ``ordered`` when they can be compared and shifted;
    ``internal`` (``@internal``) when it only types values and stays off the player pages."""

    ordered: bool
    members: tuple[EnumMember, ...]
    internal: bool = False

    @property
    def values(self) -> list[str]:
        return [m.name for m in self.members]


@dataclass(slots=True, kw_only=True)
class RecordField:
    name: str
    type: T
    title: str | None
    span: Span


@dataclass(slots=True, kw_only=True)
class Record(Decl):
    """``record``: a named tuple of typed fields. ``display`` (``@display "{a} × {b}"``)
    is how the pages show one of its values; ``internal`` (``@internal``) keeps its
    declaration off the player pages."""

    fields: tuple[RecordField, ...]
    display: str | None = None
    internal: bool = False

    def field(self, name: str) -> RecordField | None:
        return next((f for f in self.fields if f.name == name), None)


@dataclass(slots=True, kw_only=True)
class CostDisplay:
    """``@cost_field`` (+ ``@cost_modifier``) on a datasheet catalog: the int field
    holding the base cost, and the table (keyed by ``enum``) of percentages
    added at each of its values, already read: (member, title, percentage);
    without ``@cost_modifier``, ``table`` and ``enum`` are None: the cost is the field."""

    field: str
    field_title: str
    table: str | None
    enum: str | None
    levels: tuple[tuple[str, str, Any], ...]


@dataclass(slots=True, kw_only=True)
class Catalog(Decl):
    """``catalog``: entries of a record type, by id. ``entries`` maps id → field
    → value (every field of the record, in its order)."""

    record: str
    columns: tuple[str, ...]
    entries: dict[str, dict[str, Any]]
    entry_spans: dict[str, Span]
    datasheet: str | None = None  # @datasheet "page title": one card per entry
    cost: CostDisplay | None = None
    changelog: bool = False  # @changelog: the rulebook's version history (one entry per version, newest first)


@dataclass(slots=True, kw_only=True)
class TableKey:
    name: str
    type: T
    ranged: bool
    title: str | None
    span: Span


@dataclass(slots=True, kw_only=True)
class TableColumn:
    name: str
    type: T
    title: str | None
    span: Span


@dataclass(frozen=True, slots=True)
class Range:
    """A range key ``lo..hi`` (either bound may be open: None)."""

    lo: int | Fraction | None
    lo_inclusive: bool
    hi: int | Fraction | None
    hi_inclusive: bool
    span: Span


@dataclass(slots=True, kw_only=True)
class TableRow:
    """One row: its keys (a :class:`Range` for ranged keys), display title and
    values (column → value; for an ``across`` table, ``across`` holds the values
    in header order and ``values`` is empty)."""

    keys: tuple[Any, ...]
    title: str | None
    values: dict[str, Any]
    span: Span
    across: tuple[Any, ...] = ()


@dataclass(slots=True, kw_only=True)
class Table(Decl):
    """``table``: rows by one or two keys (values, ids, enums or ranges), with
    one or more result columns, or one column spread ``across`` a header."""

    keys: tuple[TableKey, ...]
    across: TableKey | None
    across_values: tuple[Any, ...]
    columns: tuple[TableColumn, ...]
    rows: tuple[TableRow, ...]

    @property
    def ranged(self) -> bool:
        return any(k.ranged for k in self.keys)

    @property
    def single_column(self) -> bool:
        return len(self.columns) == 1

    @property
    def keyed_by_id(self) -> bool:
        """Keyed by one id and not ``across``: its rows can be the target of ``ref``."""
        return len(self.keys) == 1 and self.keys[0].type.kind == "id" and self.across is None

    @property
    def row_ids(self) -> list:
        return [r.keys[0] for r in self.rows]


@dataclass(slots=True, kw_only=True)
class Die(Decl):
    """``die``: faces (whole numbers, or members of ``face_enum``)."""

    face_enum: str | None
    faces: tuple[Any, ...]


@dataclass(slots=True, kw_only=True)
class Bag(Decl):
    """``bag``: tokens of each kind, drawn without replacement."""

    tokens: tuple[tuple[str, int], ...]


@dataclass(slots=True, kw_only=True)
class Param:
    name: str
    type: T
    default: Expr | None
    span: Span
    default_text: str | None = None  # the default as written in the rules
    title: str | None = None  # ``name: type "Title"``: what players read instead of the name


@dataclass(frozen=True, slots=True)
class RuleApp:
    """A special rule applied with arguments: ``lmg(X=2)`` → ("lmg", (("X", 2),))."""

    rule: str
    args: tuple[tuple[str, Any], ...]


@dataclass(slots=True, kw_only=True)
class Rule(Decl):
    """``rule``: a special rule with parameters, text, levels and rules it grants."""

    params: tuple[Param, ...]
    texts: tuple[str, ...]
    levels: tuple[tuple[int, str], ...]
    grants: tuple[RuleApp, ...]
    stacking: str | None
    combine: str | None = None  # ``stacking sum|max|min|first``: rule_param over several applications


@dataclass(slots=True, kw_only=True)
class Procedure(Decl):
    """``procedure``: typed parameters, a result type and a body of statements."""

    params: tuple[Param, ...]
    result: T
    body: tuple[Stmt, ...]

    @property
    def steps(self) -> list[Step]:
        return [s for s in self.body if isinstance(s, Step)]


@dataclass(slots=True, kw_only=True)
class Term(Decl):
    """``term``: a glossary entry."""

    definition: str


@dataclass(slots=True, kw_only=True)
class OddsAxis:
    """One axis of an odds table: ``name`` takes each of ``values``; ``source``
    says where they come from ("range", "list", "enum" or "catalog", with
    ``of`` naming the enum or catalog)."""

    name: str
    title: str
    source: str
    of: str | None
    values: tuple[Any, ...]
    span: Span


@dataclass(slots=True, kw_only=True)
class Odds(Decl):
    """``odds``: a grid of exact probabilities computed by a procedure's resolver.

    ``show_kind`` is "value" (``show`` is a number or true/false per result, e.g.
    ``probability(…)``) or "outcomes" (``show`` is grouped by value into columns).
    ``each`` makes one grid per catalog entry.
    """

    procedure: str
    args: tuple[tuple[str, Expr], ...]
    each: OddsAxis | None
    rows: OddsAxis
    columns: OddsAxis | None
    show_kind: str
    show: Expr


@dataclass(slots=True, kw_only=True)
class Expect:
    """``expect cond`` (``per_outcome``: it reads ``result`` outside probability(),
    so it must hold for every outcome) or ``expect error "…"`` (``expr`` None)."""

    text: str
    span: Span
    expr: Expr | None
    error: str | None
    per_outcome: bool


@dataclass(slots=True, kw_only=True)
class Example:
    """``example``: inputs for a procedure and what must hold of its results."""

    procedure: str
    title: str
    span: Span
    given: tuple[tuple[str, Expr, str], ...]  # (parameter, value, rules text of the value)
    expects: tuple[Expect, ...]

    @property
    def expected_error(self) -> str | None:
        errs = [x for x in self.expects if x.expr is None]
        return (errs[0].error or "") if errs else None


# ---------------------------------------------------------------------------- army lists


@dataclass(frozen=True, slots=True)
class ArmySource:
    """Where a list-building rule comes from: a declaration (its id and title)
    and its manual reference (``"VIII"``), shown with every roster error."""

    id: str
    title: str
    source: str


@dataclass(frozen=True, slots=True)
class ArmyChoice:
    """A side, role or category a roster names: its id and display title."""

    id: str
    title: str


@dataclass(frozen=True, slots=True)
class ArmySize:
    """A game size: its points, one number or one per role (role id → points)."""

    id: str
    title: str
    points: Any


@dataclass(frozen=True, slots=True)
class ArmyQuality:
    """A value of the quality enum with its cost percentage (added to 100)."""

    id: str
    title: str
    percent: int


@dataclass(frozen=True, slots=True)
class ArmyOption:
    """Something a unit may take: an upgrade from a catalog (``key`` is
    ``catalog.id``) or an option of the army (``key`` is its id). ``id`` is what
    a roster writes; ``remove``/``add`` change the unit's composition."""

    key: str
    id: str
    title: str
    cost: int
    max: int
    remove: tuple[str, ...]
    add: tuple[str, ...]
    rule: ArmySource


@dataclass(frozen=True, slots=True)
class ArmySlot:
    """A line of a unit's composition: ``count`` troops, one of ``alternatives``
    (a choice the roster makes when there are several)."""

    count: int
    alternatives: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ArmyEntry:
    """A catalog entry a roster may field, with its cost inputs and what it may take."""

    id: str
    catalog: str
    name: str
    side: str | None
    cost: int
    per_model: int
    models_min: int | None
    models_max: int | None
    category: str | None
    weight: int
    composition: tuple[ArmySlot, ...]
    options: tuple[str, ...]  # keys of Army.options, in declaration order
    rule: ArmySource


@dataclass(frozen=True, slots=True)
class ArmyLimit:
    """How many units (``kind`` ``units``), units of a category (weighted) or of
    one entry a roster may field: ``min``/``max``, either None when open."""

    kind: str
    target: str | None
    min: int | None
    max: int | None
    rule: ArmySource


@dataclass(slots=True, kw_only=True)
class Army(Decl):
    """``army``: one way of building a force, checked data for a roster validator
    (:mod:`rulebook.compiler.commands.roster`) and the army builder. Costs: see :mod:`rulebook.compiler.emit.data.to_armies`."""

    sides: tuple[ArmyChoice, ...]
    roles: tuple[ArmyChoice, ...]
    sizes: tuple[ArmySize, ...]
    sizes_rule: ArmySource | None
    agreed: bool
    agreed_min: int
    bonus: tuple[tuple[str, int], ...]
    quality_title: str | None
    quality: tuple[ArmyQuality, ...]
    quality_rule: ArmySource | None
    categories: tuple[ArmyChoice, ...]
    entries: tuple[ArmyEntry, ...]
    options: dict[str, ArmyOption]
    limits: tuple[ArmyLimit, ...]
    troop_catalog: str | None  # the catalog the compositions name


Declaration = Union[Const, Enum, Record, Catalog, Table, Die, Bag, Rule, Procedure, Term, Odds]

# ---------------------------------------------------------------------------- program


@dataclass(slots=True, kw_only=True)
class RulebookInfo:
    """``rulebook id "Título" version "…" lang "…"``.

    ``version`` is the version every output is stamped with (the manifest, each schema
    ``$id``, the Python package's ``__version__`` and pyproject, the site, the JS
    package): the checker sets it to ``declared``, the version written in the rules; a
    build replaces it with the semantic version it computes against the previous build
    (:mod:`rulebook.compiler.pipeline.versioning`: ``1.0`` → ``1.0.0``, ``1.0.1``, ``1.1.0``…)."""

    name: str
    title: str
    version: str
    lang: str
    span: Span
    declared: str = ""
    releases: tuple[dict, ...] = ()  # the published versions, newest first, each with its classified changes (json/changelog.json)


Item = Union[Prose, Show, Declaration]


@dataclass(slots=True, kw_only=True)
class Section:
    """One page of the site: a section and what follows it, in order."""

    name: str  # the numeral, e.g. "VI"
    title: str
    file: str
    slug: str
    items: list[Item] = field(default_factory=list)
    status: str = "active"  # @status on the section: the whole page is deferred or not playable
    doc: str | None = None  # @doc on the section: shown under its heading


@dataclass(slots=True, kw_only=True)
class Program:
    """A checked rulebook: everything the emitters need, resolved and typed."""

    rulebook: RulebookInfo | None
    sources: dict[str, str]
    decls: dict[str, Declaration]  # in rulebook order
    sections: list[Section]
    front: list[Item]  # items before the first section (title page)
    examples: list[Example]
    uses: dict[str, set[str]]  # declaration -> names of the declarations (or "prose", "show", "example:…") using it
    armies: dict[str, Army] = field(default_factory=dict)  # army lists (not pages: they are data for tools)
    matchups: dict[str, Matchup] = field(default_factory=dict)  # matchups and engagements (for `rulebook balance`, not pages)

    @property
    def files(self) -> list[str]:
        return sorted(self.sources)

    def of(self, cls: type) -> list:
        """Declarations of one kind, in rulebook order."""
        return [d for d in self.decls.values() if isinstance(d, cls)]

    def get(self, name: str, cls: type = object):
        """The declaration ``name`` if it is of kind ``cls``, else None."""
        d = self.decls.get(name)
        return d if isinstance(d, cls) else None

    @property
    def enums(self) -> dict[str, Enum]:
        return {d.name: d for d in self.of(Enum)}

    @property
    def records(self) -> dict[str, Record]:
        return {d.name: d for d in self.of(Record)}

    @property
    def catalogs(self) -> dict[str, Catalog]:
        return {d.name: d for d in self.of(Catalog)}

    @property
    def tables(self) -> dict[str, Table]:
        return {d.name: d for d in self.of(Table)}

    @property
    def procedures(self) -> dict[str, Procedure]:
        return {d.name: d for d in self.of(Procedure)}

    def ids_of(self, name: str) -> list:
        """The ids a ``ref name`` may hold: a catalog's entries or an id table's row keys."""
        d = self.decls.get(name)
        if isinstance(d, Catalog):
            return list(d.entries)
        if isinstance(d, Table) and d.keyed_by_id:
            return d.row_ids
        return []

    def source_text(self, span: Span, keep_lines: bool = False) -> str:
        """The rules text a span covers (see :func:`span_text`)."""
        return span_text(self.sources, span, keep_lines)


@functools.lru_cache(maxsize=64)
def _lines(text: str) -> tuple[str, ...]:
    """The lines of a source text, split once (the checker asks for thousands of spans)."""
    return tuple(text.splitlines())


def span_text(sources: dict[str, str], span: Span, keep_lines: bool = False) -> str:
    """The rules text a span covers. Multi-line text is joined into one line,
    or with ``keep_lines`` kept as lines re-indented relative to the first."""
    lines = _lines(sources.get(span.file, ""))
    if span.line < 1 or span.line > len(lines):
        return ""
    if span.line == span.end_line:
        return lines[span.line - 1][span.col - 1 : span.end_col - 1]
    chunk = list(lines[span.line - 1 : span.end_line])
    chunk[-1] = chunk[-1][: span.end_col - 1]
    indent = span.col - 1
    chunk[0] = chunk[0][indent:]
    if keep_lines:
        return "\n".join([chunk[0]] + [c[indent:] if not c[:indent].strip() else c.lstrip() for c in chunk[1:]])
    return " ".join(c.strip() for c in chunk)
