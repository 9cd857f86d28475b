"""IR expressions → JavaScript expressions (strings).

Reads: the expressions of a checked program (:mod:`rulebook.compiler.ir`), the liveness
facts of :mod:`rulebook.compiler.analysis.liveness` (each choice's state and counts
read) and the module being written (:class:`.writer.Module`: the source positions and
random variables it cites, numbered). Produces: the text of each expression
(:meth:`ExpressionWriter.expr`, dispatching on the node's class to ``visit_<class>``,
as the Python emitter does); a node it does not know is an :class:`UnknownNode`, an
internal error naming the node and its position.

The code is the traced form of the Python emitter's resolvers (one function per
procedure serves sampling and exact enumeration): whole numbers are JS numbers,
other decimals go through the runtime's exact helpers (``$rt.add`` …), records are
built by ``$R_<record>.make(…)`` with their fields in order, lookups cite their rule.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from rulebook.compiler import ir
from rulebook.compiler.analysis import liveness
from rulebook.compiler.emit.js.dice_rolls import modded_pool
from rulebook.compiler.emit.js.names import js_name, js_string

PRIMITIVE = frozenset({"int", "text", "bool", "enum", "ref", "refs", "id", "none"})
"""Kinds of values compared with ``===`` (one JS representation per value)."""


SPECIAL_BUILTINS = frozenset({"ord", "shift", "has_rule", "rule_param", "probability"})
"""Built-ins written below, not as a call of the runtime's function of their name."""


@functools.lru_cache(maxsize=1)
def runtime_exports() -> frozenset[str]:
    """The names the JavaScript runtime exports (``runtime/index.js``): a built-in of the
    language whose name is among them is that function (``$rt.clamp(…)``)."""
    text = (Path(__file__).resolve().parent / "runtime" / "index.js").read_text(encoding="utf-8")
    return frozenset(re.findall(r"\b([A-Za-z_]\w*)\b", " ".join(re.findall(r"export \{([^}]*)\}", text))))


class UnknownNode(AssertionError):
    """An IR node the JavaScript emitter cannot write yet (a feature added to the language
    after this emitter): an internal error of the compiler, not of the rules."""

    def __init__(self, node: object) -> None:
        span = getattr(node, "span", None)
        where = f" at {span.src}" if span is not None else ""
        super().__init__(f"internal error: the JavaScript emitter has no translation for the IR node "
                         f"{type(node).__name__}{where}; add visit_{type(node).__name__} to "
                         f"rulebook.compiler.emit.js")


class ExpressionWriter:
    """The JavaScript text of IR expressions, for one module (``module``) of one program (``p``)."""

    def __init__(self, program: ir.Program, module, facts: liveness.Liveness, granted_rules: set[str]) -> None:
        self.p = program
        self.records = program.records
        self.tables = program.tables
        self.m = module
        self.facts = facts
        self.granted_rules = granted_rules

    def src(self, span) -> str:
        return self.m.src(span)

    def expr(self, e: ir.Expr) -> str:
        visit = getattr(self, "visit_" + type(e).__name__, None)
        if visit is None:
            raise UnknownNode(e)
        return visit(e)

    # ------------------------------------------------------------------ one method per node
    def visit_Literal(self, e: ir.Literal) -> str:
        return literal(e.value)

    def visit_Local(self, e: ir.Local) -> str:
        return js_name(e.name)

    def visit_ConstRef(self, e: ir.ConstRef) -> str:
        return f"$C_{js_name(e.name)}"

    def visit_EnumValue(self, e: ir.EnumValue) -> str:
        return js_string(e.member)

    def visit_DieFace(self, e: ir.DieFace) -> str:
        """The face of one die in a per-die condition (``each d if …``): the argument of its function."""
        return js_name(e.name)

    def visit_EntryId(self, e: ir.EntryId) -> str:
        return js_string(e.ident)

    def visit_CountOf(self, e: ir.CountOf) -> str:
        return f"{self.expr(e.obj)}.get({js_string(e.kind)})"

    def visit_CatalogLookup(self, e: ir.CatalogLookup) -> str:
        return f"$rt.lookup($CAT_{js_name(e.catalog)}, {self.expr(e.key)}, {js_string(e.catalog)}, {self.src(e.span)})"

    def visit_MapIndex(self, e: ir.MapIndex) -> str:
        return f"$rt.lookup({self.expr(e.obj)}, {self.expr(e.key)}, \"map\", {self.src(e.span)})"

    def visit_ListIndex(self, e: ir.ListIndex) -> str:
        return f"$rt.index({self.expr(e.obj)}, {self.expr(e.index)}, {self.src(e.span)})"

    def visit_FieldAccess(self, e: ir.FieldAccess) -> str:
        obj = self.expr(e.obj)
        if e.via == "catalogs":  # a ref of several catalogs (or id-keyed tables), whose ids are unique among them
            owners = e.owner.split("|")
            mappings = ", ".join(f"${'T' if o in self.tables else 'CAT'}_{js_name(o)}" for o in owners)
            obj = f"$rt.lookupAmong([{mappings}], {obj}, {js_string(' | '.join(owners))}, {self.src(e.span)})"
        elif e.via in ("catalog", "table"):
            mapping = f"${'CAT' if e.via == 'catalog' else 'T'}_{js_name(e.owner)}"
            obj = f"$rt.lookup({mapping}, {obj}, {js_string(e.owner)}, {self.src(e.span)})"
            if e.via == "table" and len(self.tables[e.owner].columns) == 1:
                return obj
        if e.nullable:
            return f"$rt.field({obj}, {js_string(js_name(e.field))}, {js_string(e.field)}, {self.src(e.span)})"
        return f"{obj}.{js_name(e.field)}"

    def visit_TableLookup(self, e: ir.TableLookup) -> str:
        t = self.tables[e.table]
        table, name, src = f"$T_{js_name(e.table)}", js_string(e.table), self.src(e.span)
        keys = [self.expr(k) for k in e.keys]
        if t.ranged and len(t.keys) == 1:
            found = f"$rt.lookupRange({table}, {keys[0]}, {name}, {src})"
        elif t.ranged:
            pos = next(i for i, k in enumerate(t.keys) if k.ranged)
            others = [k for i, k in enumerate(keys[: len(t.keys)]) if i != pos]
            other = others[0] if len(others) == 1 else "[" + ", ".join(others) + "]"
            found = f"$rt.lookupRange($rt.lookup({table}, {other}, {name}, {src}), {keys[pos]}, {name}, {src})"
        else:
            key = keys[0] if len(t.keys) == 1 else "[" + ", ".join(keys[: len(t.keys)]) + "]"
            found = f"$rt.lookup({table}, {key}, {name}, {src})"
        if t.across is not None:
            found = f"$rt.lookup({found}, {keys[-1]}, {name}, {src})"
        return found

    def visit_ProcedureCall(self, e: ir.ProcedureCall) -> str:
        args = "{" + ", ".join(f"{js_name(name)}: {self.expr(value)}" for name, value in e.args) + "}"
        if e.procedure in self.facts.random:
            items = [f"$P_{js_name(e.procedure)}", args, self.src(e.span)]
            found = self.facts.choice(e)
            if found.state is not None:
                items.append(self.state(found.state))
            return f"ctx.call({', '.join(items)})"
        return f"$P_{js_name(e.procedure)}(ctx, {args})"

    def visit_RecordNew(self, e: ir.RecordNew) -> str:
        given = dict(e.args)
        values = []
        for f in self.records[e.record].fields:
            if f.name in given:
                values.append(self.expr(given[f.name]))
            else:
                values.append("$rt.EMPTY" if f.type.kind == "list" else "null")
        return f"$R_{js_name(e.record)}.make({', '.join(values)})"

    def visit_Unary(self, e: ir.Unary) -> str:
        x = self.expr(e.operand)
        if e.op == "not":
            return f"!{x}"
        return f"(-{x})" if e.type.kind == "int" else f"$rt.neg({x})"

    def visit_Conditional(self, e: ir.Conditional) -> str:
        return f"({self.expr(e.cond)} ? {self.expr(e.then)} : {self.expr(e.other)})"

    def visit_ListOf(self, e: ir.ListOf) -> str:
        return "$rt.list(" + ", ".join(self.expr(x) for x in e.items) + ")"

    def visit_Comprehension(self, e: ir.Comprehension) -> str:
        var = js_name(e.var)
        cond = f"({var}) => {self.expr(e.cond)}" if e.cond is not None else "null"
        return f"$rt.comprehend(ctx.loop({self.expr(e.iterable)}), {cond}, ({var}) => {self.expr(e.body)})"

    def visit_IntRange(self, e: ir.IntRange) -> str:
        """``$rt.range(lo, hi)``: the whole numbers from ``lo`` to ``hi`` (only gone through by
        a loop or a comprehension, which count them as work before making one)."""
        return f"$rt.range({self.expr(e.lo)}, {self.expr(e.hi)})"

    def visit_Sources(self, e: ir.Sources) -> str:
        pairs = ", ".join(f"[{js_string(label)}, {self.expr(v)}]" for label, v in e.items)
        return f"ctx.sources([{pairs}], {self.src(e.span)})"

    def visit_BuiltinCall(self, e: ir.BuiltinCall) -> str:
        args = [self.expr(a) for a in e.args]
        name = e.name
        if name in ("has_rule", "rule_param") and e.rule in self.granted_rules:
            args[0] = f"$rt.granted({args[0]}, $GRANTS)"
        if name in ("min", "max"):
            if len(e.args) == 1 and e.args[0].type.kind == "list":
                return f"$rt.{'smallest' if name == 'min' else 'largest'}({args[0]}, {self.src(e.span)})"
            return f"$rt.{name}({', '.join(args)})"
        if name in runtime_exports() and name not in SPECIAL_BUILTINS:
            return f"$rt.{name}({', '.join(args)})"  # the runtime function of the built-in's name
        if name == "ord":
            return f"$E_{js_name(e.args[0].type.inner.name)}.ord[{args[0]}]"
        if name == "shift":
            return f"$rt.shift($E_{js_name(e.args[0].type.inner.name)}.values, {args[0]}, {args[1]}, {self.src(e.span)})"
        if name == "has_rule":
            return f"$rt.hasRule({args[0]}, {js_string(e.rule)})"
        if name == "rule_param":
            rule = self.p.decls.get(e.rule)
            if isinstance(rule, ir.Rule) and rule.combine not in (None, "first"):
                return f"$rt.stackedParam({args[0]}, {js_string(e.rule)}, {js_string(e.param)}, {js_string(rule.combine)})"
            return f"$rt.ruleParam({args[0]}, {js_string(e.rule)}, {js_string(e.param)})"
        raise UnknownNode(e)

    def visit_Binary(self, e: ir.Binary) -> str:
        op = e.op
        if e.type.kind == "list":  # xs + ys: one list of the items of each (a chain of + is one list)
            parts: list[ir.Expr] = []
            node: ir.Expr = e
            while isinstance(node, ir.Binary) and node.op == "+" and node.type.kind == "list":
                parts.append(node.right)
                node = node.left
            parts.append(node)
            return "$rt.concat(" + ", ".join(self.expr(x) for x in reversed(parts)) + ")"
        a, b = self.expr(e.left), self.expr(e.right)
        if op in ("and", "or"):
            return f"({a} {'&&' if op == 'and' else '||'} {b})"
        if op in ("+", "-", "*"):
            if e.type.kind == "int":
                return f"({a} {op} {b})"
            return f"$rt.{ {'+': 'add', '-': 'sub', '*': 'mul'}[op]}({a}, {b})"
        if op == "/":
            return f"$rt.div({a}, {b}, {self.src(e.span)})"
        if op == "in":
            return f"$rt.contains({b}, {a})"
        if op in ("==", "!="):
            if is_none(e.left) or is_none(e.right):
                return f"({a} {'===' if op == '==' else '!=='} {b})"
            if e.left.type.inner.kind in PRIMITIVE and e.right.type.inner.kind in PRIMITIVE:
                return f"({a} {'===' if op == '==' else '!=='} {b})"
            return f"{'' if op == '==' else '!'}$rt.eq({a}, {b})"
        if e.enum is not None:
            order = f"$E_{js_name(e.enum)}.ord"
            return f"({order}[{a}] {op} {order}[{b}])"
        if e.left.type.kind == "int" and e.right.type.kind == "int":
            return f"({a} {op} {b})"
        return f"($rt.compare({a}, {b}) {op} 0)"

    def visit_Roll(self, e: ir.Roll) -> str:
        """``ctx.roll(rv, text, src, state, reads)``; a random variable of fixed shape is built
        once (``$RV_i``), one whose number of dice varies once per number (``$RV_i.get(n)``)."""
        src = self.src(e.span)
        die = f"$rt.stdDie({e.sides})" if e.die is None else f"$D_{js_name(e.die)}"
        count = self.expr(e.times) if e.times is not None else str(e.count)
        constant = e.times is None or isinstance(e.times, ir.Literal)
        fixed = True
        if e.mods is not None:  # reroll, explode, per-die tests, several counts (compiler/emit/js/dice_rolls.py)
            fixed, of = modded_pool(self, e, die, src)
        elif e.test is not None:
            op, threshold = e.test
            fixed = isinstance(threshold, (ir.Literal, ir.EnumValue))
            threshold_text = self.expr(threshold)

            def of(n: str) -> str:
                return f"$rt.poolCount({die}, {n}, {js_string(op)}, {threshold_text}, {src})"
        elif e.named_faces and e.times is not None:
            def of(n: str) -> str:
                return f"$rt.poolFaces({die}, {n}, {src})"
        elif e.keep is not None:
            def of(n: str) -> str:
                return f"$rt.poolSum({die}, {n}, {js_string(e.keep[0])}, {e.keep[1]}, {src})"
        elif e.times is None and e.count == 1:
            def of(n: str) -> str:
                return f"$rt.rollOne({die})"
        else:
            def of(n: str) -> str:
                return f"$rt.poolSum({die}, {n}, null, null, {src})"
        if not fixed:
            rv = of(count)
        elif constant:
            rv = self.m.hoist(of(count))
        else:
            pools = "new $rt.Pools(($n) => " + of("$n") + ")"
            rv = f"{self.m.hoist(pools)}.get({count})"
        return self.choice(e, rv)

    def visit_Draw(self, e: ir.Draw) -> str:
        src = self.src(e.span)
        bag = f"$B_{js_name(e.bag)}"
        if e.removed:
            removed = "[" + ", ".join(f"[{js_string(kind)}, {self.expr(n)}]" for kind, n in e.removed) + "]"
            bag = f"$rt.{'bagWithout' if e.mode == 'except' else 'bagWith'}({bag}, {removed}, {src})"
        return self.choice(e, f"$rt.bagDraw({bag}, {self.expr(e.count)}, {src})")

    def choice(self, e, rv: str) -> str:
        items = [rv, js_string(e.text), self.src(e.span)]
        found = self.facts.choice(e)
        items.append(self.state(found.state) if found.state is not None else "null")
        if found.reads is not None:
            items.append("[" + ", ".join(js_string(kind) for kind in found.reads) + "]")
        return f"ctx.roll({', '.join(items)})"

    def state(self, parts: tuple) -> str:
        """``($v) => […]``: what the rest of the procedure reads after a choice of ``$v``."""
        docs: list[str] = []
        for part in parts:
            if isinstance(part, liveness.Item):
                docs.append(f"$v[{part.index}]")
            elif isinstance(part, liveness.Sum):
                (sign, first), rest = part.terms[0], part.terms[1:]
                text = _state_name(first) if sign > 0 else f"-{_state_name(first)}"
                for s, n in rest:
                    text += f" {'+' if s > 0 else '-'} {_state_name(n)}"
                docs.append(f"({text})" if rest else text)
            elif part.counts:
                docs.extend(f"{_state_name(part.name)}.get({js_string(kind)})" for kind in part.fields)
            elif part.fields:
                docs.extend(f"{_state_name(part.name)}.{js_name(f)}" for f in part.fields)
            else:
                docs.append(_state_name(part.name))
        return "($v) => [" + ", ".join(docs) + "]"


def _state_name(name: str) -> str:
    """A local in a state function: the chosen value is its argument ``$v``, the run number
    of a loop (``#n``: :func:`rulebook.compiler.ir.counter`) ``$run<n>``."""
    if name == liveness.VALUE:
        return "$v"
    return run_name(name) if name.startswith("#") else js_name(name)


def run_name(counter: str) -> str:
    """The JavaScript name of a loop's run number ``#n``: ``$run<n>`` (a ``$``: no rules name)."""
    return "$run" + counter[1:]


def is_none(e: ir.Expr) -> bool:
    return isinstance(e, ir.Literal) and e.value is None


def literal(v) -> str:
    """A scalar of the rules (int, Fraction, str, bool, None) as JavaScript."""
    from fractions import Fraction

    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return f"({v})" if v < 0 else str(v)
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"$rt.F({v.numerator}n, {v.denominator}n)"
    if isinstance(v, str):
        return js_string(v)
    raise TypeError(f"not a scalar of the rules: {type(v).__name__}")
