"""What the rest of a procedure still reads at each roll: the states exact enumeration merges.

Reads a checked :class:`rulebook.compiler.ir.Program`. Produces a :class:`Liveness`:
which procedures roll dice (directly or through the procedures they call), and
for each *choice* — a roll, a draw, or a call of a procedure that rolls dice —
a :class:`Choice` saying what the rest of its procedure depends on once the
choice is made (a ``repeat … until`` is one choice too, among the values its
body binds). Entry point: :func:`analyse(program) -> Liveness`. The Python
emitter writes it into the traced resolvers as ``state=lambda _v: (…)``; the
runtime explores each distinct state once (see :mod:`rulebook.runtime.context`).

The state after a choice holds, in this order:

* the values that later code reads (classic liveness over the statements,
  plus everything the choice's own statement reads): a value whose every
  later use is one field ``x.f`` (or one count ``x.kind``) is reduced to
  those fields;
* values used only as terms of one sum (``t1 + t2 - t3``, int) are reduced to
  their partial sum, the chosen value included when it is one of the terms:
  rolls that are only added up then merge by their total, as a convolution;
* the chosen value itself, unless nothing reads it (for a ``repeat``, the
  values it binds that later code reads: :class:`Item`).

A choice gets no state (every path explored) when the compiler cannot name
all it depends on: inside a comprehension (its loop has state of its own), or
when another random value of the same statement is still pending.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rulebook.compiler import ir
from rulebook.compiler.ir.walk import children, expressions, walk

VALUE = ""
"""The chosen value, in a :class:`Choice`'s state (no local has an empty name)."""


@dataclass(frozen=True, slots=True)
class Part:
    """One element of a state: the local ``name`` (``VALUE``: the chosen value),
    whole or reduced to ``fields`` (record fields, or with ``counts`` the counts
    of kinds)."""

    name: str
    fields: tuple[str, ...] = ()
    counts: bool = False


@dataclass(frozen=True, slots=True)
class Sum:
    """One element of a state: ``Σ sign × value`` over ``terms`` (``(sign, name)``,
    name ``VALUE`` for the chosen value)."""

    terms: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class Item:
    """One element of a state: element ``index`` of the chosen value (the values a
    ``repeat`` binds, as a tuple)."""

    index: int


@dataclass(frozen=True, slots=True)
class Choice:
    """What exact enumeration may remember after one choice.

    ``state`` is None when the compiler cannot name everything the rest of the
    procedure depends on. ``reads``: for a roll or draw counting kinds, the only
    kinds read (None: the whole count is used)."""

    state: tuple[Part | Sum | Item, ...] | None
    reads: tuple[str, ...] | None = None


@dataclass
class Liveness:
    """The analysis of a program: procedures that roll dice, and each choice by its IR node
    (nodes carry their span: equal nodes are the same occurrence)."""

    random: set[str] = field(default_factory=set)
    choices: dict[ir.Expr | ir.Repeat, Choice] = field(default_factory=dict)

    def choice(self, node: ir.Expr | ir.Repeat) -> Choice:
        return self.choices.get(node, Choice(None))


def analyse(program: ir.Program) -> Liveness:
    """Which procedures roll dice, and what each choice's future depends on."""
    procedures = program.of(ir.Procedure)
    result = Liveness(random=_random_procedures(procedures))
    for procedure in procedures:
        if procedure.name in result.random:
            _Procedure(program, procedure, result).analyse()
    return result


def _random_procedures(procedures: list[ir.Procedure]) -> set[str]:
    """The procedures that roll or draw, directly or through the procedures they call."""
    calls: dict[str, set[str]] = {}
    rolls: set[str] = set()
    for p in procedures:
        calls[p.name] = set()
        for e in expressions(p.body):
            for node in walk(e):
                if isinstance(node, (ir.Roll, ir.Draw)):
                    rolls.add(p.name)
                elif isinstance(node, ir.ProcedureCall):
                    calls[p.name].add(node.procedure)
    random = set(rolls)
    changed = True
    while changed:
        changed = False
        for name, callees in calls.items():
            if name not in random and callees & random:
                random.add(name)
                changed = True
    return random


def _sum_terms(e: ir.Binary) -> list[tuple[int, ir.Expr]]:
    """The terms of an int sum ``a + b - c`` written as one chain (left-nested), with signs."""
    terms: list[tuple[int, ir.Expr]] = []
    node: ir.Expr = e
    while _is_int_sum(node):
        terms.append((1 if node.op == "+" else -1, node.right))
        node = node.left
    terms.append((1, node))
    return list(reversed(terms))


def _is_int_sum(e: ir.Expr) -> bool:
    return isinstance(e, ir.Binary) and e.op in ("+", "-") and e.type.kind == "int"


# ---------------------------------------------------------------------------- one procedure


class _Procedure:
    """The analysis of one procedure that rolls dice."""

    def __init__(self, program: ir.Program, procedure: ir.Procedure, result: Liveness) -> None:
        self.program = program
        self.procedure = procedure
        self.result = result
        self.declared: dict[str, str] = {p.name: p.type.kind for p in procedure.params}
        self.reduced: dict[str, tuple[str, ...]] = {}  # local -> the only fields (or counts) read
        self.summed: dict[str, tuple[ir.Binary, int]] = {}  # local -> (its sum, sign)
        self.sum_of: dict[ir.Expr, ir.Binary] = {}  # a sum's term -> the sum
        self.sign_in_sum: dict[ir.Expr, int] = {}
        self.seen: set[ir.Expr] = set()

    def analyse(self) -> None:
        self._uses()
        self._block(self.procedure.body, frozenset())

    # How each local is used ------------------------------------------------
    def _uses(self) -> None:
        """Find the locals read only through fields or counts, and those read only as
        terms of one sum; remember which expressions are terms of which sum."""
        uses: dict[str, list[tuple[str, object]]] = {}
        self._declare(self.procedure.body)
        for top in expressions(self.procedure.body):
            self._collect(top, None, frozenset(), uses)
        for name in _repeat_binds(self.procedure.body):
            # the body of a repeat hands back its values whole (see _statement)
            uses.setdefault(name, []).append(("whole", None))
        for name in _read_again(self.procedure.body):
            # read anew by each run of a loop: never consumed by one sum
            uses.setdefault(name, []).append(("whole", None))
        for name, found in uses.items():
            if all(kind == "field" for kind, _ in found):
                self.reduced[name] = tuple(sorted({f for _, f in found}))  # type: ignore[misc]
            elif len(found) == 1 and found[0][0] == "term":
                self.summed[name] = found[0][1]  # type: ignore[assignment]

    def _collect(self, e: ir.Expr, parent: ir.Expr | None, bound: frozenset, uses: dict) -> None:
        if _is_int_sum(e) and not (parent is not None and _is_int_sum(parent) and parent.left is e):
            for sign, term in _sum_terms(e):
                self.sum_of[term] = e
                self.sign_in_sum[term] = sign
        if isinstance(e, ir.Local):
            if e.name not in bound:
                uses.setdefault(e.name, []).append(self._use(e, parent))
            return
        inner = bound | {e.var} if isinstance(e, ir.Comprehension) else bound
        for child in children(e):
            self._collect(child, e, inner if isinstance(e, ir.Comprehension) and child is not e.iterable else bound, uses)

    def _declare(self, stmts: tuple[ir.Stmt, ...]) -> None:
        """The declared kind of type of every ``let`` (a use may see it narrowed from ``T?``)."""
        for st in stmts:
            if isinstance(st, ir.Let):
                self.declared[st.name] = st.value.type.kind
            elif isinstance(st, (ir.Step, ir.Repeat)):
                self._declare(st.body)
            elif isinstance(st, ir.Loop):
                for name, init in st.carried:
                    self.declared[name] = init.type.kind
                if st.var is not None and st.iterable is not None and st.iterable.type.kind == "list":
                    self.declared[st.var] = st.iterable.type.args[0].kind
                self._declare(st.body)
            elif isinstance(st, ir.If):
                for _, body in st.branches:
                    self._declare(body)
                if st.orelse is not None:
                    self._declare(st.orelse)

    def _use(self, local: ir.Local, parent: ir.Expr | None) -> tuple[str, object]:
        declared = self.declared.get(local.name)
        if declared in ("record", "row") and isinstance(parent, ir.FieldAccess):
            if parent.via == "value" and not parent.nullable:
                return ("field", parent.field)
        if declared == "counts" and isinstance(parent, ir.CountOf):
            return ("field", parent.kind)
        if declared == "int" and local in self.sum_of:
            return ("term", (self.sum_of[local], self.sign_in_sum[local]))
        return ("whole", None)

    # Statements: liveness, right to left ----------------------------------
    def _block(self, stmts: tuple[ir.Stmt, ...], live_out: frozenset) -> frozenset:
        live = live_out
        for st in reversed(stmts):
            live = self._statement(st, live)
        return live

    def _statement(self, st: ir.Stmt, live_out: frozenset) -> frozenset:
        if isinstance(st, ir.Step):
            return self._block(st.body, live_out)
        if isinstance(st, ir.If):
            after = live_out if st.orelse is None else self._block(st.orelse, live_out)
            for _, body in st.branches:
                after = after | self._block(body, live_out)
            conds = [cond for cond, _ in st.branches]
            for i, cond in enumerate(conds):
                others = frozenset().union(*(_reads(c) for j, c in enumerate(conds) if j != i))
                self._choices(cond, lambda node, cond=cond: after | others | _reads(cond, skip=node), None, live_out)
            return after.union(*(_reads(c) for c in conds))
        if isinstance(st, ir.Repeat):
            return self._repeat(st, live_out)
        if isinstance(st, ir.Loop):
            return self._loop(st, live_out)
        if isinstance(st, (ir.Let, ir.Set)):
            return self._bind(st.name, st.value, live_out)
        expr = st.value if isinstance(st, ir.Return) else st.cond
        rest = live_out if isinstance(st, ir.Require) else frozenset()
        self._choices(expr, lambda node: rest | _reads(expr, skip=node), None, live_out)
        return rest | _reads(expr)

    def _repeat(self, st: ir.Repeat, live_out: frozenset) -> frozenset:
        """A repeat is one choice among the values its body binds (a tuple, in the
        order of ``binds``). Its body runs as a function of its own, which hands
        back the condition and every bound value: the body's choices are analysed
        with those as what is read at its end."""
        binds = frozenset(st.binds)
        self._block(st.body, binds | _reads(st.cond))
        rest = live_out - binds
        parts, sums = self._live_parts(rest)
        parts += [Item(i) for i, name in enumerate(st.binds) if name in live_out]
        state = tuple(parts) + tuple(Sum(tuple(terms)) for _, terms in sorted(sums.items(), key=lambda kv: kv[1]))
        self.result.choices[st] = Choice(state)
        return rest | frozenset(st.reads)

    def _bind(self, name: str, value: ir.Expr, live_out: frozenset) -> frozenset:
        """``let name = value`` (or ``set``, or a loop's initial value): the choices of
        ``value``; what is live before."""
        rest = live_out - {name}
        self._choices(value, lambda node: rest | _reads(value, skip=node), name, live_out)
        return rest | _reads(value)

    def _loop(self, st: ir.Loop, live_out: frozenset) -> frozenset:
        """A bounded loop runs in the procedure itself: a choice in its body has in its
        state what the rest of the run reads, and what later runs read — the loop's run
        number (:func:`rulebook.compiler.ir.counter`), the values carried, the locals the
        list gone through is made of — and what is read after the loop (found again until
        nothing new is live at the head of a run). A list gone through that holds a choice
        is not named by its locals: the choices of the loop get no state."""
        fixed = frozenset({ir.counter(st.number)})
        if st.iterable is not None:
            fixed |= _reads(st.iterable)
        head = live_out | fixed
        seen = set(self.seen)
        while True:
            self.seen = set(seen)  # the body is analysed again: its choices are still one occurrence each
            end = head | (_reads(st.cond) if st.cond is not None else frozenset())
            if st.cond is not None:
                self._choices(st.cond, lambda node: head | _reads(st.cond, skip=node), None, end)
            start = self._block(st.body, end) - {st.var}
            if start <= head:
                break
            head = head | start
        if st.iterable is not None and self._has_choice(st.iterable):
            for top in [*expressions(st.body), *([st.cond] if st.cond is not None else [])]:
                for node in walk(top):
                    if node in self.result.choices:
                        self.result.choices[node] = Choice(None, self.result.choices[node].reads)
        live = head - fixed - {st.var}
        if st.iterable is not None:
            self._choices(st.iterable, lambda node: live | _reads(st.iterable, skip=node), None, live)
            live = live | _reads(st.iterable)
        for name, init in reversed(st.carried):
            live = self._bind(name, init, live)
        return live

    # Choices of one statement ----------------------------------------------
    def _choices(self, top: ir.Expr, live: Callable[[ir.Expr], frozenset], bound: str | None, live_out: frozenset) -> None:
        """Record a :class:`Choice` for every roll, draw and random call in ``top``, the
        expression of a statement. ``live(node)``: the locals read once the choice
        ``node`` is made (the statement's own reads, but for those of the choice's
        arguments, which it consumes); ``bound``: the local a ``let`` binds;
        ``live_out``: what is live after the statement."""
        found: list[tuple[ir.Expr, ir.Expr | None, bool]] = []
        self._in_order(top, None, False, False, found)
        for node, parent, blocked in found:
            if node in self.seen:
                blocked = True  # one IR node in two places: its sites cannot share a state
            self.seen.add(node)
            reads = self._reads_of(node, parent, top, bound)
            state = None if blocked else self._state(node, parent, top, live(node), bound, live_out)
            self.result.choices[node] = Choice(state, reads)

    def _is_choice(self, e: ir.Expr) -> bool:
        return isinstance(e, (ir.Roll, ir.Draw)) or (isinstance(e, ir.ProcedureCall) and e.procedure in self.result.random)

    def _in_order(self, e: ir.Expr, parent: ir.Expr | None, pending: bool, in_loop: bool, found: list) -> bool:
        """Visit ``e`` in evaluation order, recording each choice with whether it cannot
        have a state (in a loop, or another random value pending). Returns whether
        ``e`` leaves a random value behind."""
        if isinstance(e, ir.Conditional):
            self._in_order(e.cond, e, pending, in_loop, found)  # decided before either branch runs
            then = self._in_order(e.then, e, pending, in_loop, found)
            other = self._in_order(e.other, e, pending, in_loop, found)
            return then or other
        if isinstance(e, ir.Binary) and e.op in ("and", "or"):
            self._in_order(e.left, e, pending, in_loop, found)  # decided before the right side runs
            return self._in_order(e.right, e, pending, in_loop, found)
        if isinstance(e, ir.Comprehension):
            left = self._in_order(e.iterable, e, pending, in_loop, found)
            for part in [e.body] + ([e.cond] if e.cond is not None else []):
                self._in_order(part, e, True, True, found)
            return left or self._has_choice(e.body) or (e.cond is not None and self._has_choice(e.cond))
        later = pending
        random = False
        for child in self._ordered(e):
            if self._in_order(child, e, later, in_loop, found):
                later = random = True
        if self._is_choice(e):
            found.append((e, parent, pending or in_loop))
            return True
        return random

    def _ordered(self, e: ir.Expr) -> list[ir.Expr]:
        """Sub-expressions in evaluation order: a record's fields are written in its declared order."""
        if isinstance(e, ir.RecordNew):
            given = dict(e.args)
            return [given[f.name] for f in self.program.records[e.record].fields if f.name in given]
        return children(e)

    def _has_choice(self, e: ir.Expr) -> bool:
        return any(self._is_choice(node) for node in walk(e))

    def _reads_of(self, node: ir.Expr, parent: ir.Expr | None, top: ir.Expr, bound: str | None) -> tuple[str, ...] | None:
        """The only kinds read from a roll or draw counting kinds."""
        if not (isinstance(node, (ir.Roll, ir.Draw)) and node.type.kind == "counts"):
            return None
        if isinstance(parent, ir.CountOf):
            return (parent.kind,)
        if node is top and bound is not None and bound in self.reduced:
            return self.reduced[bound]
        return None

    def _part(self, name: str, local: str) -> Part:
        """``name`` in a state: the value of ``local``, reduced to the fields or counts read."""
        return Part(name, self.reduced.get(local, ()), self.declared.get(local) == "counts")

    def _live_parts(self, live: frozenset) -> tuple[list[Part | Sum | Item], dict[ir.Binary, list[tuple[int, str]]]]:
        """The live locals as state parts (whole or reduced), and those read only as
        terms of a sum grouped by their sum (``{sum: [(sign, name), …]}``)."""
        parts: list[Part | Sum | Item] = []
        sums: dict[ir.Binary, list[tuple[int, str]]] = {}
        for name in sorted(live):
            if name in self.summed:
                total, sign = self.summed[name]
                sums.setdefault(total, []).append((sign, name))
            else:
                parts.append(self._part(name, name))
        return parts, sums

    def _state(self, node: ir.Expr, parent: ir.Expr | None, top: ir.Expr, live: frozenset,
               bound: str | None, live_out: frozenset) -> tuple[Part | Sum | Item, ...]:
        parts, sums = self._live_parts(live)
        if node is top and bound is not None:
            if bound in live_out:
                if bound in self.summed:
                    total, sign = self.summed[bound]
                    sums.setdefault(total, []).append((sign, VALUE))
                else:
                    parts.append(self._part(VALUE, bound))
        elif node in self.sum_of and node.type.kind == "int":
            sums.setdefault(self.sum_of[node], []).append((self.sign_in_sum[node], VALUE))
        else:
            parts.append(Part(VALUE))
        return tuple(parts) + tuple(Sum(tuple(terms)) for _, terms in sorted(sums.items(), key=lambda kv: kv[1]))


def _repeat_binds(stmts: tuple[ir.Stmt, ...]) -> set[str]:
    """The locals bound by the repeats among statements (nested blocks included)."""
    out: set[str] = set()
    for st in stmts:
        if isinstance(st, ir.Repeat):
            out |= set(st.binds) | _repeat_binds(st.body)
        elif isinstance(st, ir.Step):
            out |= _repeat_binds(st.body)
        elif isinstance(st, ir.If):
            for _, body in st.branches:
                out |= _repeat_binds(body)
            out |= _repeat_binds(st.orelse or ())
    return out


def _read_again(stmts: tuple[ir.Stmt, ...]) -> set[str]:
    """The locals that the bounded loops among statements read in each run (their body
    and condition), though declared before the run: the loop's carried values, the
    locals from before the loop."""
    out: set[str] = set()
    for st in stmts:
        if isinstance(st, ir.Loop):
            own = _lets(st.body) | ({st.var} if st.var is not None else set())
            tops = [*expressions(st.body), *([st.cond] if st.cond is not None else [])]
            out |= frozenset().union(*(_reads(e) for e in tops)) - own
            out |= _read_again(st.body)
        elif isinstance(st, (ir.Step, ir.Repeat)):
            out |= _read_again(st.body)
        elif isinstance(st, ir.If):
            for _, body in st.branches:
                out |= _read_again(body)
            out |= _read_again(st.orelse or ())
    return out


def _lets(stmts: tuple[ir.Stmt, ...]) -> set[str]:
    """The names ``let`` binds among statements, nested blocks included."""
    out: set[str] = set()
    for st in stmts:
        if isinstance(st, ir.Let):
            out.add(st.name)
        elif isinstance(st, (ir.Step, ir.Repeat, ir.Loop)):
            out |= _lets(st.body)
        elif isinstance(st, ir.If):
            for _, body in st.branches:
                out |= _lets(body)
            out |= _lets(st.orelse or ())
    return out


def _reads(e: ir.Expr, bound: frozenset = frozenset(), skip: ir.Expr | None = None) -> frozenset:
    """The locals an expression reads (those bound by its comprehensions excluded),
    leaving out the sub-expression ``skip``."""
    if e is skip:
        return frozenset()
    if isinstance(e, ir.Local):
        return frozenset() if e.name in bound else frozenset({e.name})
    if isinstance(e, ir.Comprehension):
        inner = bound | {e.var}
        out = _reads(e.iterable, bound, skip) | _reads(e.body, inner, skip)
        return out | _reads(e.cond, inner, skip) if e.cond is not None else out
    out: frozenset = frozenset()
    for child in children(e):
        out |= _reads(child, bound, skip)
    return out
