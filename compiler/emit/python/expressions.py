"""IR expressions → Python expressions (as docs of :mod:`.layout`).

Reads: the expressions of a checked program (:mod:`rulebook.compiler.ir`), the built-ins'
call templates (:mod:`rulebook.compiler.ir.builtins`) and the facts of the generation
(:class:`.generation.Generation`: which procedures roll dice, each choice's state). Produces:
the doc of each expression (:meth:`ExpressionWriter.expr`, dispatching on the node's class
to ``visit_<class>``); what the code cites (source positions, random variables and records
built once, ranged tables, record builders) goes to the module's
:class:`.generation.Citations`.

Where the expression is written changes its code: in a procedure of ``procedures.py``
(the fast resolvers) tables and lists are indexed directly where the types guarantee the
key, ranged tables are looked up by a function of their own and records are built by
position; in ``traced.py`` rolls and calls report to the context with their state
(:mod:`rulebook.compiler.analysis.liveness`).
"""

from __future__ import annotations

from typing import Any

from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler import ir
from rulebook.compiler.analysis import liveness
from rulebook.compiler.emit.python.dice_rolls import modded_pool
from rulebook.compiler.emit.python.generation import Generation
from rulebook.compiler.emit.python.layout import Chain, Doc, Group, Noted, Seq, Text, call, dict_of, flat, tuple_of
from rulebook.compiler.emit.python.literals import literal_doc
from rulebook.compiler.emit.python.module_frame import built_once, cite, record_built_once
from rulebook.compiler.emit.python.names import py_name
from rulebook.compiler.ir.builtins import BUILTINS
from rulebook.compiler.ir.types import DEC, T

_SAME_LEVEL = {"+": ("+", "-"), "-": ("+", "-"), "*": ("*",), "and": ("and",), "or": ("or",)}


class ExpressionWriter:
    """The docs of IR expressions, for the module being written.

    ``traced``: writing ``traced.py`` (or a module that reads its twins: the worked
    examples, the odds tables) rather than the fast resolvers; ``procedure``: the name of
    the procedure whose body is being written (its choices are its own: see
    :meth:`.generation.Generation.choice`), None outside a procedure."""

    def __init__(self, generation: Generation) -> None:
        self.generation = generation
        self.p = generation.p
        self.traced = False
        self.procedure: str | None = None

    @property
    def in_procedure(self) -> bool:
        """Writing a procedure body, where ``ctx`` counts loops and builds records by position."""
        return self.procedure is not None

    def cite(self, span: Span) -> str:
        return cite(self.generation, span)

    def expr(self, e: ir.Expr) -> Doc:
        visit = getattr(self, "visit_" + type(e).__name__, None)
        if visit is None:
            raise AssertionError(type(e))
        return visit(e)

    # ------------------------------------------------------------------ one method per node
    def visit_Literal(self, e: ir.Literal) -> Doc:
        return literal_doc(e.value)

    def visit_Local(self, e: ir.Local) -> Doc:
        return py_name(e.name)

    def visit_ConstRef(self, e: ir.ConstRef) -> Doc:
        return f"_d.CONST_{py_name(e.name)}"

    def visit_EnumValue(self, e: ir.EnumValue) -> Doc:
        return Text(e.member)

    def visit_DieFace(self, e: ir.DieFace) -> Doc:
        return py_name(e.name)

    def visit_EntryId(self, e: ir.EntryId) -> Doc:
        return Text(e.ident)

    def visit_CountOf(self, e: ir.CountOf) -> Doc:
        return Seq((self.expr(e.obj), Group("", (Text(e.kind),), "[", "]")))

    def visit_CatalogLookup(self, e: ir.CatalogLookup) -> Doc:
        present = e.key.type == T("ref", e.catalog)
        return self.lookup(f"_d.CATALOG_{py_name(e.catalog)}", self.expr(e.key), e.catalog, e.span, present)

    def visit_MapIndex(self, e: ir.MapIndex) -> Doc:
        present = e.obj.type.kind == "map" and e.key.type.kind == "enum"  # maps have every key
        return self.lookup(self.expr(e.obj), self.expr(e.key), "map", e.span, present)

    def visit_ListIndex(self, e: ir.ListIndex) -> Doc:
        return self.list_index(e, inline=False)

    def visit_ProcedureCall(self, e: ir.ProcedureCall) -> Doc:
        if self.traced and e.procedure in self.generation.random_procedures:
            return self.random_call(e)
        return call(f"_proc_{py_name(e.procedure)}", "ctx", *self.arguments(e))

    def visit_Unary(self, e: ir.Unary) -> Doc:
        return Chain(Seq(("not " if e.op == "not" else e.op, self.expr(e.operand))), ())

    def visit_Conditional(self, e: ir.Conditional) -> Doc:
        return Chain(self.expr(e.then), (("if", self.expr(e.cond)), ("else", self.expr(e.other))))

    def visit_ListOf(self, e: ir.ListOf) -> Doc:
        return tuple_of([self.expr(x) for x in e.items])

    def visit_Comprehension(self, e: ir.Comprehension) -> Doc:
        iterable = self.expr(e.iterable)
        clauses = [(f"for {py_name(e.var)} in", call("ctx.loop", iterable) if self.in_procedure else iterable)]
        if e.cond is not None:
            clauses.append(("if", self.expr(e.cond)))
        return call("tuple", Chain(self.expr(e.body), tuple(clauses)))

    def visit_IntRange(self, e: ir.IntRange) -> Doc:
        """``range(lo, hi + 1)``: the whole numbers from ``lo`` to ``hi``."""
        hi = e.hi
        if isinstance(hi, ir.Literal) and isinstance(hi.value, int) and not isinstance(hi.value, bool):
            return call("range", self.expr(e.lo), str(hi.value + 1))
        return call("range", self.expr(e.lo), Chain(self.expr(hi), (("+", "1"),)))

    def visit_Sources(self, e: ir.Sources) -> Doc:
        values = tuple_of([self.expr(v) for _, v in e.items])
        if self.traced:  # the trace lists each source that applies
            pairs = tuple_of([tuple_of([Text(label), self.expr(v)]) for label, v in e.items])
            return call("ctx.sources", pairs, self.cite(e.span))
        return call("tuple", Chain("_m", (("for _m in", values), ("if", "_m != 0"))))

    def visit_RecordNew(self, e: ir.RecordNew) -> Doc:
        """In a resolver, ``_new_R(value, …)``: ``_t.R._new`` under a module-level name (see
        :class:`.statements.ProcedureWriter`), the fields by position in the record's order (each value
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
            return record_built_once(self.generation, call(f"_t.{py_name(e.record)}", *by_name))
        if not self.in_procedure:
            return call(f"_t.{py_name(e.record)}._new", *by_name)
        self.generation.citations.record_builder(e.record)
        return call(f"_new_{py_name(e.record)}", *[_positional(name, value) for name, value in values])

    def list_index(self, e: ir.ListIndex, inline: bool) -> Doc:
        """``_rt.index(xs, i, src)`` (0-based; out of range: a rule error). The value of a
        ``let`` (``inline``), when ``xs`` and ``i`` are locals or literals (read twice at
        no cost), has its bounds checked inline in the fast resolver:
        ``x = xs[i] if 0 <= i < _len(xs) else _rt.index(xs, i, src)``."""
        seq, i = self.expr(e.obj), self.expr(e.index)
        checked = call("_rt.index", seq, i, self.cite(e.span))
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
        return call("_rt.lookup", mapping, key, Text(name), self.cite(span))

    def visit_FieldAccess(self, e: ir.FieldAccess) -> Doc:
        obj = self.expr(e.obj)
        if e.via == "catalogs":  # a ref of several catalogs (or id-keyed tables), whose ids are unique among them
            owners = e.owner.split("|")
            mappings = tuple_of([f"_d.{'TABLE' if o in self.p.tables else 'CATALOG'}_{py_name(o)}" for o in owners])
            obj = call("_rt.lookup_among", mappings, obj, Text(" | ".join(owners)), self.cite(e.span))
        elif e.via in ("catalog", "table"):
            mapping = f"_d.{'CATALOG' if e.via == 'catalog' else 'TABLE'}_{py_name(e.owner)}"
            obj = self.lookup(mapping, obj, e.owner, e.span, e.obj.type == T("ref", e.owner))
            if e.via == "table" and len(self.p.tables[e.owner].columns) == 1:
                return obj
        if e.nullable:
            return call("_rt.field", obj, Text(py_name(e.field)), self.cite(e.span))
        return Seq((obj, "." + py_name(e.field)))

    def visit_TableLookup(self, e: ir.TableLookup) -> Doc:
        t = self.p.tables[e.table]
        table = f"_d.TABLE_{py_name(e.table)}"
        keys = [self.expr(k) for k in e.keys]
        fast = self.in_procedure and not self.traced
        if t.ranged and len(t.keys) == 1 and fast and e.keys[0].type.kind in ("int", "decimal"):
            self.generation.citations.range_table(t)
            found = call(f"_range_{py_name(t.name)}", keys[0], self.cite(e.span))
        elif t.ranged and len(t.keys) == 1:
            found = call("_rt.lookup_range", table, keys[0], Text(e.table), self.cite(e.span))
        elif t.ranged:
            pos = next(i for i, k in enumerate(t.keys) if k.ranged)
            others = [k for i, k in enumerate(keys[: len(t.keys)]) if i != pos]
            rows = self.lookup(table, others[0] if len(others) == 1 else tuple_of(others), e.table, e.span, False)
            found = call("_rt.lookup_range", rows, keys[pos], Text(e.table), self.cite(e.span))
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

    def visit_BuiltinCall(self, e: ir.BuiltinCall) -> Doc:
        """A built-in call written from its template in :mod:`rulebook.compiler.ir.builtins`."""
        template = BUILTINS[e.name].python
        if e.name in ("min", "max") and len(e.args) == 1 and e.args[0].type.kind == "list":
            # of a list, which may be empty: a rule error naming the line, not a crash
            template = "_rt.smallest({0}, {src})" if e.name == "min" else "_rt.largest({0}, {src})"
        args = [self.expr(a) for a in e.args]
        if e.name in ("has_rule", "rule_param") and e.rule in self.generation.granted_rules:
            args[0] = call("_rt.granted", args[0], "_d.GRANTS")  # the rules the list grants count too
        rule = self.p.decls.get(e.rule) if e.rule else None
        if e.name == "rule_param" and isinstance(rule, ir.Rule) and rule.combine not in (None, "first"):
            # several applications of the rule: combined as it declares (stacking sum|max|min)
            return call("_rt.stacked_param", args[0], repr(e.rule), repr(e.param), repr(rule.combine))
        fills: dict[str, Doc | list[Doc]] = {"args": args, **{str(i): a for i, a in enumerate(args)}}
        if "{src}" in template:
            fills["src"] = self.cite(e.span)
        if e.rule is not None:
            fills["rule"] = repr(e.rule)
        if e.param is not None:
            fills["param"] = repr(e.param)
        if e.args and e.args[0].type.inner.kind == "enum":
            fills["enum"] = py_name(e.args[0].type.inner.name)
        return _template(template, fills)

    def visit_Binary(self, e: ir.Binary) -> Doc:
        op = e.op
        if e.type.kind == "list":  # xs + ys: a tuple of the items of each (a chain of + is one tuple)
            parts: list[ir.Expr] = []
            node: ir.Expr = e
            while isinstance(node, ir.Binary) and node.op == "+" and node.type.kind == "list":
                parts.append(node.right)
                node = node.left
            parts.append(node)
            return tuple_of([Seq(("*", self.expr(x))) for x in reversed(parts)])
        if (op in ("+", "-", "*") and e.type != DEC) or (op in ("and", "or") and isinstance(e.left, ir.Binary) and e.left.op == op):
            return self.chain(e)
        a, b = self.expr(e.left), self.expr(e.right)
        if op == "/":
            return call("_rt.div", a, b, self.cite(e.span))
        if op in ("+", "-", "*"):
            return call("_rt.normalize", Chain(a, ((op, b),)))
        if op in ("==", "!=") and (is_none(e.left) or is_none(e.right)):
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

    def visit_Roll(self, e: ir.Roll) -> Doc:
        """``ctx.roll(rv)``. A random variable of fixed shape is built once, at import
        (``_RV_i``); one whose number of dice varies, once per number
        (``_RV_i[count]``, a :class:`rulebook.runtime.Pools`); else on every roll."""
        src = Seq(("src=", self.cite(e.span)))
        die = call("_rt.std_die", str(e.sides)) if e.die is None else f"_d.DIE_{py_name(e.die)}"
        count = self.expr(e.times) if e.times is not None else str(e.count)
        constant = e.times is None or isinstance(e.times, ir.Literal)
        fixed = True  # the shape, but for the number of dice
        if e.mods is not None:
            fixed, of = modded_pool(self, e, die, src)
        elif e.test is not None:
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
            return self.choice(e, built_once(self.generation, of(count)))
        pools = built_once(self.generation, call("_rt.Pools", Seq(("lambda _n: ", of("_n")))))
        return self.choice(e, Seq((pools, Group("", (count,), "[", "]"))))

    def visit_Draw(self, e: ir.Draw) -> Doc:
        src = self.cite(e.span)
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
        items: list[Doc] = [rv, Text(e.text), self.cite(e.span)]
        found = self.generation.choice(e, self.procedure)
        if found.state is not None:
            items.append(Seq(("state=", self.state(found.state))))
        if found.reads is not None:
            items.append(Seq(("reads=", tuple_of([Text(kind) for kind in found.reads]))))
        return call("ctx.roll", *items)

    def random_call(self, e: ir.ProcedureCall) -> Doc:
        """A call of a procedure that rolls dice, in a traced resolver: ``ctx.call(…)``,
        so that exact enumeration takes the callee's results as one choice."""
        args = dict_of([(Text(py_name(name)), self.expr(value)) for name, value in e.args])
        items: list[Doc] = [f"_proc_{py_name(e.procedure)}", args, self.cite(e.span)]
        found = self.generation.choice(e, self.procedure)
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


def _state_name(name: str) -> str:
    """A local in a state lambda: the chosen value is its argument ``_v``, the run number
    of a loop (``#n``: :func:`rulebook.compiler.ir.counter`) ``_run<n>``."""
    if name == liveness.VALUE:
        return "_v"
    return run_name(name) if name.startswith("#") else py_name(name)


def run_name(counter: str) -> str:
    """The Python name of a loop's run number ``#n``: ``_run<n>``."""
    return "_run" + counter[1:]


def _positional(name: str, value: Doc) -> Doc:
    """``value`` given by position to the parameter ``name``: noted with the name, unless
    it is the name (a local passed on to the parameter of the same name)."""
    return value if flat(value) == name else Noted(value, name)


def is_none(e: ir.Expr) -> bool:
    return isinstance(e, ir.Literal) and e.value is None


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

