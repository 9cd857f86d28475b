"""Expressions: written expressions → typed IR expressions.

Entry point: :func:`check_expr(state, expr, scope, in_expect=False) -> ir.Expr`
(used by the procedures, examples and odds passes). Names are resolved against
the scope and the declarations, every operand is type-checked, and the result
is an IR node carrying its type (``ANY`` after an error, so one mistake is
reported once). Built-in functions are those of :mod:`rulebook.compiler.ir.builtins`.
``stack proc(…) { "source": value, … }`` becomes a call of ``proc`` whose list
parameter receives an :class:`~rulebook.compiler.ir.Sources` node (the named modifiers).
"""

from __future__ import annotations

import re

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Edit, Span, counted
from rulebook.rules_dsl.parser import KEYWORDS

from rulebook.compiler import ir
from rulebook.compiler.ir.builtins import BUILTINS
from rulebook.compiler.ir.types import (
    ANY,
    BOOL,
    DEC,
    INT,
    NONE,
    RULE,
    TEXT,
    T,
    assignable,
    is_numeric,
    opt,
    unify,
)
from rulebook.compiler.check.data import member_guess
from rulebook.compiler.check.dice_mods import FaceScope, check_mods, face_hint
from rulebook.compiler.check.signatures import member_name
from rulebook.compiler.check.state import CheckState, Scope, hint, referenceable

# Nesting bound for one expression: a chain of one left-associative operator
# (a + b - c, a and b and c) counts as one level, since it reads as one.
MAX_NESTING = 100
MAX_DIE_FACES = 1000  # a standard die dN: its faces are built as a table at import
MAX_DICE = 1000  # dice of one NdS roll
OPTIONAL_HINT = "the value may be none: check it first (require x != none, \"…\" or if x != none { … })"


def _placeholder(span: Span) -> ir.Expr:
    """What an expression that failed to check becomes (its error is already reported)."""
    return ir.Literal(None, ANY, span)


def check_expr(st: CheckState, e: n.Expr, scope: Scope, in_expect: bool = False, chained: bool = False) -> ir.Expr:
    """Check ``e`` in ``scope``; ``in_expect`` allows ``probability(…)``;
    ``chained``: e is the left operand of the same operator chain (same level)."""
    step = 0 if chained else 1
    st.depth += step
    try:
        if st.depth > MAX_NESTING:
            if not st.too_deep:
                st.err(f"this expression is nested more than {MAX_NESTING} levels deep", e.span, "split it with let", "limit")
            st.too_deep = True
            return _placeholder(e.span)
        return _expr(st, e, scope, in_expect)
    finally:
        st.depth -= step


def want_bool(st: CheckState, e: n.Expr, scope: Scope, what: str = "if", in_expect: bool = False) -> ir.Expr:
    x = check_expr(st, e, scope, in_expect)
    if x.type not in (BOOL, ANY):
        st.err(f"the condition of {what} must be true/false, got {x.type}", e.span, None, "type")
    return x


def _expr(st: CheckState, e, scope: Scope, in_expect: bool) -> ir.Expr:
    if isinstance(e, n.Num):
        return ir.Literal(e.value, INT if isinstance(e.value, int) else DEC, e.span)
    if isinstance(e, n.Str):
        return ir.Literal(e.value, TEXT, e.span)
    if isinstance(e, n.Bool):
        return ir.Literal(e.value, BOOL, e.span)
    if isinstance(e, n.NoneLit):
        return ir.Literal(None, NONE, e.span)
    if isinstance(e, n.Name):
        return _name(st, e, scope)
    if isinstance(e, n.Attr):
        return _attr(st, e, scope, in_expect)
    if isinstance(e, n.Index):
        return _index(st, e, scope, in_expect)
    if isinstance(e, n.Call):
        return _call(st, e, scope, in_expect)
    if isinstance(e, n.Unary):
        x = check_expr(st, e.operand, scope, in_expect)
        if e.op == "not":
            if x.type not in (BOOL, ANY):
                st.err(f"'not' needs true/false, got {x.type}", e.operand.span, None, "type")
            return ir.Unary(e.op, x, BOOL, e.span)
        if not is_numeric(x.type):
            st.err(f"'{e.op}' needs a number, got {x.type}", e.operand.span, None, "type")
            return ir.Unary(e.op, x, ANY, e.span)
        return ir.Unary(e.op, x, x.type, e.span)
    if isinstance(e, n.Binary):
        return _binary(st, e, scope, in_expect)
    if isinstance(e, n.IfExpr):
        cond = want_bool(st, e.cond, scope, "if", in_expect)
        a = check_expr(st, e.then, Scope(scope, not_none(e.cond, True)), in_expect)
        b = check_expr(st, e.other, Scope(scope, not_none(e.cond, False)), in_expect)
        u = unify(a.type, b.type)
        if u is None:
            st.err(f"the two branches have different types ({a.type} and {b.type})", e.span, None, "type")
            u = ANY
        return ir.Conditional(cond, a, b, u, e.span)
    if isinstance(e, n.ListExpr):
        acc = None
        items = []
        for x in e.items:
            item = check_expr(st, x, scope, in_expect)
            items.append(item)
            acc = item.type if acc is None else unify(acc, item.type)
            if acc is None:
                st.err("list elements have different types", x.span, None, "type")
                acc = ANY
        return ir.ListOf(tuple(items), T("list", None, (acc or ANY,)), e.span)
    if isinstance(e, n.Comprehension):
        it = check_iterable(st, e.iterable, scope, in_expect)
        inner = Scope(scope)
        if e.name in KEYWORDS:
            st.reserved(e.name, "a loop variable", st.word_span(e.span, "for"))
        elif scope.get(e.name) is not None or e.name in st.ast:
            st.err(f"'{e.name}' is already defined or reserved; choose another name for the loop variable", e.span, None, "shadow")
        inner.vars[e.name] = (it.type.args[0] if it.type.kind == "list" else ANY, e.span)
        st.local_uses.add((inner, e.name))
        cond = want_bool(st, e.cond, inner, "if", in_expect) if e.cond is not None else None
        # the filter narrows: in [w for w in ws if w != none], w is not none
        body = check_expr(st, e.expr, Scope(inner, not_none(e.cond, True)) if e.cond is not None else inner, in_expect)
        return ir.Comprehension(body, e.name, it, cond, T("list", None, (body.type,)), e.span)
    if isinstance(e, n.Roll):
        return _roll(st, e, scope)
    if isinstance(e, n.Draw):
        return _draw(st, e, scope)
    if isinstance(e, n.Stack):
        return _stack(st, e, scope, in_expect)
    if isinstance(e, n.Range):
        st.err("a range lo..hi stands only after `in` of a `for`", e.span, "write [x for x in lo..hi] for the list", "type")
        return check_iterable(st, e, scope, in_expect)
    raise AssertionError(type(e))


def check_iterable(st: CheckState, e, scope: Scope, in_expect: bool = False) -> ir.Expr:
    """What a ``for`` goes through: a list, an enum's name (its values in declared order) or
    a range ``lo..hi`` of whole numbers."""
    if isinstance(e, n.Range):
        lo, hi = check_expr(st, e.lo, scope, in_expect), check_expr(st, e.hi, scope, in_expect)
        for bound, node in ((lo, e.lo), (hi, e.hi)):
            if bound.type.kind not in ("int", "any"):
                st.err(f"a range goes through whole numbers, and this bound is {bound.type}", node.span, None, "type")
        return ir.IntRange(lo, hi, T("list", None, (INT,)), e.span)
    it = check_expr(st, e, scope, in_expect)
    if isinstance(it, ir.Local) and it.type.kind == "enum_type":
        t = T("enum", it.type.name)
        values = tuple(ir.EnumValue(it.type.name, m, t, e.span) for m, _ in st.enum_members.get(it.type.name, ()))
        return ir.ListOf(values, T("list", None, (t,)), e.span)
    if it.type.kind not in ("list", "any"):
        st.err(f"'for' needs a list, an enum or a range lo..hi to go through, got {it.type}", e.span, None, "type")
    return it


def _name(st: CheckState, e: n.Name, scope: Scope) -> ir.Expr:
    local = scope.get(e.name)
    if local is not None:
        owner = scope.owner(e.name)
        st.local_uses.add((owner, e.name))
        if isinstance(owner, FaceScope):
            return ir.DieFace(e.name, local[0], e.span)
        return ir.Local(e.name, local[0], e.span)
    d = st.ast.get(e.name)
    if d is not None:
        st.use(e.name)
        if isinstance(d, n.ConstDecl):
            return ir.ConstRef(e.name, st.consts.get(e.name, ANY), e.span)
        kind = {n.EnumDecl: "enum_type", n.TableDecl: "table", n.CatalogDecl: "catalog"}.get(type(d))
        if kind:
            # a declaration used as the object of `.x` or `[k]`: never emitted on its own
            return ir.Local(e.name, T(kind, e.name), e.span)
        st.err(f"'{e.name}' is a {type(d).__name__.removesuffix('Decl').lower()}, not a value", e.span, None, "type")
        return _placeholder(e.span)
    owners = _enums_with_member(st, e.name)
    if owners and e.name not in st.broken:
        shown = " or ".join(f"{enum}.{member}" for enum, member in owners)
        st.err(f"unknown name '{e.name}'", e.span, f"did you mean {shown}? In code an enum value is written Enum.value", "unknown-name",
               suggest=tuple(Edit(e.span, f"{enum}.{member}") for enum, member in owners))
        return _placeholder(e.span)
    gone = st.loop_lets.get(e.name)
    if gone is not None:
        st.err(f"'{e.name}' belongs to one run of the loop at line {gone.line}, and is gone after it", e.span,
               f"carry it: with ({e.name}: …) in the loop's header, and `set {e.name} = …` in its body", "loop")
        return _placeholder(e.span)
    st.unknown("name", e.name, e.span, scope.names() | set(st.ast))
    return _placeholder(e.span)


def _shared_fields(st: CheckState, base: T, name: str, at) -> list[tuple[str, T]] | None:
    """The fields a ``ref a | b`` reads: those with the same name and type in every
    catalog's record (or id-keyed table's columns); None after an error (a field that
    some catalog lacks or types otherwise, a one-column table, an id in two catalogs)."""
    owners = base.name.split("|")
    each: dict[str, dict[str, T]] = {}
    for owner in owners:
        if owner in st.tables:
            columns = st.tables[owner].columns
            if len(columns) == 1:
                st.err(f"{base} has no fields: table {owner} has one column, its rows are values", at,
                       f"read the value with {owner}[…], or give the table a second column", "type")
                return None
            each[owner] = {c.name: c.type for c in columns}
        else:
            each[owner] = {f: t for f, t, _ in st.record_fields.get(st.ast[owner].record, [])}
    if name in each[owners[0]] or any(name in fs for fs in each.values()):
        lacking = [o for o in owners if name not in each[o]]
        if lacking:
            having = next(o for o in owners if name in each[o])
            st.err(f"{base}: '{name}' is a field of {having} but not of {', '.join(lacking)}", at,
                   f"fields every one has: {', '.join(_common(each, owners)) or 'none'}", "unknown-name")
            return None
        types = {o: each[o][name] for o in owners}
        if len(set(types.values())) > 1:
            shown = ", ".join(f"{t} in {o}" for o, t in types.items())
            st.err(f"{base}: field '{name}' has a different type in each catalog ({shown})", at,
                   "a field read through several catalogs has one type in all of them", "type")
            return None
        seen: dict[str, str] = {}
        for owner in owners:
            for ident in st.ref_ids(owner):
                if ident in seen:
                    st.err(f"{base}: '{ident}' is an id of both {seen[ident]} and {owner}, so its '{name}' could be either", at,
                           "ids read through several catalogs must be unique among them: rename one", "type")
                    return None
                seen[ident] = owner
    return [(f, each[owners[0]][f]) for f in _common(each, owners)]


def _common(each: dict[str, dict[str, T]], owners: list[str]) -> list[str]:
    """The fields (in the first catalog's order) every catalog has, with one type."""
    return [f for f, t in each[owners[0]].items() if all(each[o].get(f) == t for o in owners)]


def _enums_with_member(st: CheckState, name: str) -> list[tuple[str, str]]:
    """The (enum, value) pairs a bare name in code stands for: ``green`` or its
    old spelling ``Green`` → ``[("Calidad", "green")]``."""
    wanted = member_name(name)
    found = []
    for enum, members in st.enum_members.items():
        names = [m for m, _ in members]
        if name in names:
            found.append((enum, name))
        elif wanted in names:
            found.append((enum, wanted))
    return found


def _attr(st: CheckState, e: n.Attr, scope: Scope, in_expect: bool) -> ir.Expr:
    obj = check_expr(st, e.obj, scope, in_expect)
    ot = obj.type
    at = e.name_span or e.span  # errors point at the name after the dot
    base = ot.inner
    nullable = ot.kind == "opt"
    if base.kind == "any":
        return _placeholder(e.span)
    if base.kind == "enum_type":
        members = st.members(base.name)
        if e.name not in members:
            guess = member_guess(e.name, members)
            shown = f"did you mean '{guess}'?" if guess else "values: " + ", ".join(members)
            renamed = guess is not None and guess == member_name(e.name)  # its spelling before the naming rule: an exact rewrite
            exact = (Edit(at, guess),) if guess is not None and e.name_span else ()
            st.err(f"'{e.name}' is not a value of {base.name}", at, shown, "unknown-name", exact if renamed else (), () if renamed else exact)
            return _placeholder(e.span)
        return ir.EnumValue(base.name, e.name, T("enum", base.name), e.span)
    if base.kind in ("table", "catalog") and (base.kind == "catalog" or referenceable(st.ast.get(base.name))):
        rows = st.ref_ids(base.name)
        if e.name not in rows:
            what = f"a row of table {base.name}" if base.kind == "table" else f"an entry of catalog {base.name}"
            st.err(f"'{e.name}' is not {what}", at, hint(e.name, list(rows)), "unknown-name")
            return _placeholder(e.span)
        return ir.EntryId(base.name, e.name, T("ref", base.name), e.span)
    fields: list[tuple[str, T]] = []
    via, owner = "value", base.name
    if base.kind == "record":
        fields = [(f, t) for f, t, _ in st.record_fields.get(base.name, [])]
    elif base.kind == "ref" and base.name in st.tables:
        fields = [(c.name, c.type) for c in st.tables[base.name].columns]
        via = "table"
    elif base.kind == "ref":
        fields = [(f, t) for f, t, _ in st.record_fields.get(st.ast[base.name].record, [])]
        via = "catalog"
    elif base.kind == "refs":
        fields = _shared_fields(st, base, e.name, at)
        if fields is None:
            return _placeholder(e.span)
        via = "catalogs"
    elif base.kind == "row":
        fields = [(c.name, c.type) for c in st.tables[base.name].columns]
    elif base.kind == "counts":
        keys = [k.name for k in base.args]
        if e.name not in keys:
            st.err(f"'{e.name}' is not a kind of {base.name}", at, hint(e.name, keys) or "kinds: " + ", ".join(keys), "unknown-name")
            return _placeholder(e.span)
        return ir.CountOf(obj, e.name, INT, e.span)
    else:
        st.err(f"{ot} has no fields", at, face_hint(obj), "type")
        return _placeholder(e.span)
    for f, t in fields:
        if f == e.name:
            result = opt(t) if nullable else t
            path = _path(e)
            if path is not None and result.kind == "opt" and scope.is_narrowed(path):
                result = result.inner
            return ir.FieldAccess(obj, f, via, owner if via != "value" else None, nullable, result, e.span)
    shown = hint(e.name, [f for f, _ in fields]) or "fields: " + ", ".join(f for f, _ in fields)
    st.err(f"{base} has no field '{e.name}'", at, shown, "unknown-name")
    return _placeholder(e.span)


def _index(st: CheckState, e: n.Index, scope: Scope, in_expect: bool) -> ir.Expr:
    obj = check_expr(st, e.obj, scope, in_expect)
    keys = [check_expr(st, k, scope, in_expect) for k in e.keys]
    ot = obj.type
    if ot.kind == "any":
        return _placeholder(e.span)
    if ot.kind == "table":
        table = st.tables[ot.name]
        want = [k.type for k in table.keys] + ([table.across.type] if table.across else [])
        if len(keys) != len(want):
            st.err(f"table {ot.name} is looked up with {counted(len(want), 'key')}, got {len(keys)}", e.span, None, "arity")
            return _placeholder(e.span)
        for i, (k, key, wt) in enumerate(zip(e.keys, keys, want)):
            kt = key.type
            if isinstance(k, n.Str) and i == 0 and len(table.keys) == 1 and wt.kind in ("id", "text", "ref", "refs"):
                rows = st.ref_ids(ot.name)
                if k.value not in rows:
                    st.err(f"'{k.value}' is not a row of table {ot.name}", k.span, hint(k.value, [r for r in rows if isinstance(r, str)]), "unknown-name")
            ok = assignable(kt, wt) or (wt.kind in ("id", "text", "ref", "refs") and kt.kind in ("text", "id", "ref", "refs"))
            if not ok and not (is_numeric(kt) and is_numeric(wt)):
                st.err(f"key of table {ot.name} must be {wt}, got {kt}", k.span, None, "type")
        if table.single_column or table.across:
            t = table.columns[0].type if table.columns else ANY
        else:
            t = T("row", ot.name)
        return ir.TableLookup(ot.name, tuple(keys), t, e.span)
    if ot.kind == "catalog":
        kts = [k.type for k in keys]
        if len(kts) != 1 or not (kts[0].kind in ("text", "id", "any") or (kts[0].kind == "ref" and kts[0].name == ot.name)):
            st.err(f"catalog {ot.name} is looked up by one id", e.span, None, "type")
        return ir.CatalogLookup(ot.name, keys[0] if keys else _placeholder(e.span), T("record", st.ast[ot.name].record), e.span)
    base = ot.inner
    if base.kind == "map":
        if len(keys) != 1 or not assignable(keys[0].type, T("enum", base.name)):
            st.err(f"a map[{base.name}, …] is indexed by a {base.name}", e.span, None, "type")
        return ir.MapIndex(obj, keys[0] if keys else _placeholder(e.span), base.args[0], e.span)
    if base.kind == "list":
        if len(keys) != 1 or keys[0].type not in (INT, ANY):
            st.err("a list is indexed by a whole number (0 is the first element)", e.span, None, "type")
        return ir.ListIndex(obj, keys[0] if keys else _placeholder(e.span), base.args[0], e.span)
    st.err(f"{ot} cannot be indexed", e.span, None, "type")
    return _placeholder(e.span)


def _call(st: CheckState, e: n.Call, scope: Scope, in_expect: bool) -> ir.Expr:
    fn = e.func
    if fn in BUILTINS:
        return _builtin(st, e, scope, in_expect)
    d = st.ast.get(fn)
    if isinstance(d, n.ProcedureDecl):
        st.use(fn)
        optional = {p.name for p in d.params if p.default is not None}
        args = bind_args(st, e.args, st.param_types[fn], optional, f"procedure {fn}", e.span, scope, in_expect)
        return ir.ProcedureCall(fn, args, st.result_types[fn], e.span)
    if isinstance(d, n.RecordDecl):
        st.use(fn)
        fields = st.record_fields.get(fn, [])
        optional = {f for f, t, _ in fields if t.kind in ("opt", "list")}
        args = bind_args(st, e.args, [(f, t) for f, t, _ in fields], optional, f"record {fn}", e.span, scope, in_expect)
        return ir.RecordNew(fn, args, T("record", fn), e.span)
    candidates = [*BUILTINS, *st.names_of(n.ProcedureDecl, n.RecordDecl)]
    st.unknown("procedure, record or function", fn, e.func_span or e.span, candidates)
    for a in e.args:
        check_expr(st, a.value, scope, in_expect)
    return _placeholder(e.span)


def bind_args(st: CheckState, args, params, optional: set[str], what: str, span: Span, scope: Scope, in_expect: bool) -> tuple[tuple[str, ir.Expr], ...]:
    """Match arguments (positional, then named) to parameters and check their types;
    returns (parameter, value) pairs in the order written."""
    given: dict[str, n.Arg] = {}
    bound: list[tuple[str, ir.Expr]] = []
    names = [p for p, _ in params]
    types = dict(params)
    for i, a in enumerate(args):
        if a.name is None:
            if any(x.name for x in args[:i]):
                st.err("positional arguments must come before named ones", a.span, None, "syntax")
                continue
            if i >= len(params):
                st.err(f"{what} takes {counted(len(params), 'argument')}, got {len(args)}", a.span, None, "arity")
                continue
            pname = names[i]
        else:
            pname = a.name
            if pname not in names:
                noun = "field" if what.startswith("record ") else "parameter"
                st.err(f"{what} has no {noun} '{pname}'", a.span, hint(pname, names) or f"{noun}s: " + ", ".join(names), "unknown-name")
                check_expr(st, a.value, scope, in_expect)
                continue
        if pname in given:
            st.err(f"argument '{pname}' is given twice", a.span, None, "duplicate")
        given[pname] = a
        value = check_expr(st, a.value, scope, in_expect)
        _check_arg(st, a.value, value.type, types[pname], pname, what)
        bound.append((pname, value))
    missing = [p for p in names if p not in given and p not in optional]
    if missing:
        noun = "field" if what.startswith("record ") else "argument"
        st.err(f"{what}: missing {noun if len(missing) == 1 else noun + 's'} {', '.join(missing)}", span, None, "arity")
    return tuple(bound)


def _check_arg(st: CheckState, expr: n.Expr, at: T, pt: T, pname: str, what: str) -> None:
    what_arg = "field" if what.startswith("record ") else "argument"
    if pt.inner.kind == "ref" and isinstance(expr, n.Str):
        rows = st.ref_ids(pt.inner.name)
        if expr.value not in rows:
            st.err(f"'{expr.value}' is not an entry of catalog {pt.inner.name}", expr.span, hint(expr.value, [r for r in rows if isinstance(r, str)]), "unknown-name")
        return
    if pt.inner.kind == "ref" and at.kind == "ref" and at.name != pt.inner.name:
        st.err(f"argument '{pname}' of {what} must be an entry of {pt.inner.name}, got one of {at.name}", expr.span, None, "type")
        return
    if not assignable(at, pt) and not (pt.inner.kind == "ref" and at.kind in ("text", "id")):
        hint_text = OPTIONAL_HINT if at.kind == "opt" and assignable(at.inner, pt) else None
        st.err(f"{what_arg} '{pname}' of {what} must be {pt}, got {at}", expr.span, hint_text, "type")


def _rule_query(st: CheckState, e: n.Call, scope: Scope, in_expect: bool) -> ir.Expr:
    """``has_rule(rules, lmg)`` and ``rule_param(rules, lmg, X)`` on a list of special rules."""
    fn = e.func
    want = BUILTINS[fn].arity[0]
    result = BOOL if fn == "has_rule" else ANY
    if len(e.args) != want or any(a.name for a in e.args):
        what = "the list of rules, a rule" + (" and one of its parameters" if want == 3 else "")
        st.err(f"{fn}() takes {want} positional arguments: {what}", e.span, None, "arity")
        return _placeholder(e.span)
    rules = check_expr(st, e.args[0].value, scope, in_expect)
    if rules.type.inner != T("list", None, (RULE,)) and rules.type.kind != "any":
        st.err(f"{fn}() needs a list of special rules (list[rule]), got {rules.type}", e.args[0].value.span, None, "type")
    rule_arg = e.args[1].value
    if not isinstance(rule_arg, n.Name) or not isinstance(st.ast.get(rule_arg.name), n.RuleDecl):
        name = rule_arg.name if isinstance(rule_arg, n.Name) else "?"
        st.unknown("special rule", name, rule_arg.span, st.names_of(n.RuleDecl))
        return _placeholder(e.span)
    st.use(rule_arg.name)
    param = None
    if fn == "rule_param":
        p_arg = e.args[2].value
        params = dict(st.rule_params.get(rule_arg.name, []))
        if not isinstance(p_arg, n.Name) or p_arg.name not in params:
            shown = p_arg.name if isinstance(p_arg, n.Name) else "?"
            st.err(f"special rule {rule_arg.name} has no parameter '{shown}'", p_arg.span, "parameters: " + (", ".join(params) or "none"), "unknown-name")
            return _placeholder(e.span)
        param = p_arg.name
        result = opt(params[param])
    return ir.BuiltinCall(fn, (rules,), result, e.span, rule=rule_arg.name, param=param)


def _builtin(st: CheckState, e: n.Call, scope: Scope, in_expect: bool) -> ir.Expr:
    fn = e.func
    if fn in ("has_rule", "rule_param"):
        return _rule_query(st, e, scope, in_expect)
    if any(a.name for a in e.args):
        st.err(f"{fn}() takes positional arguments only", e.span, None, "syntax")
    args = tuple(check_expr(st, a.value, scope, in_expect) for a in e.args)
    ts = [a.type for a in args]
    if fn == "probability" and not in_expect:
        st.err("probability() is only available in an example's expect", e.span, None, "context")
    lo, hi = BUILTINS[fn].arity
    if not lo <= len(ts) <= hi and not (fn in ("min", "max") and len(ts) == 1):
        st.err(f"{fn}() takes {counted(lo, 'argument') if lo == hi else f'{lo} or more arguments'}, got {len(ts)}", e.span, None, "arity")
        return ir.BuiltinCall(fn, args, INT if fn in ("floor", "ceil", "round", "trunc", "ord") else BOOL if fn in ("any", "all") else DEC if fn == "probability" else ANY, e.span)
    return ir.BuiltinCall(fn, args, _builtin_type(st, e, fn, ts, in_expect), e.span)


def _builtin_type(st: CheckState, e: n.Call, fn: str, ts: list[T], in_expect: bool) -> T:
    """The result type of a built-in call with the right number of arguments (reporting bad argument types)."""

    def numeric_all() -> T:
        acc = INT
        for a, t in zip(e.args, ts):
            if not is_numeric(t):
                st.err(f"{fn}() needs numbers, got {t}", a.value.span, None, "type")
                return ANY
            if t == DEC:
                acc = DEC
        return acc

    if fn in ("min", "max"):
        if len(ts) == 1 and ts[0].kind == "list":
            if isinstance(e.args[0].value, n.ListExpr) and not e.args[0].value.items:
                st.err(f"{fn}() of an empty list has no value", e.args[0].value.span, f"give {fn}() at least one value", "type")
                return ANY
            return ts[0].args[0]
        if len(ts) == 1 and ts[0].kind != "any":
            st.err(f"{fn}() of one value needs a list, got {ts[0]}", e.args[0].value.span, f"write {fn}(a, b, …) or {fn}(list)", "type")
            return ANY
        return numeric_all()
    if fn in ("clamp", "abs", "capped_sum"):
        return numeric_all()
    if fn in ("floor", "ceil", "round", "trunc"):
        numeric_all()
        return INT
    if fn in ("any", "all"):
        if ts[0] != T("list", None, (BOOL,)) and ts[0].kind != "any":
            st.err(f"{fn}() needs a list of true/false values, got {ts[0]}", e.args[0].value.span, None, "type")
        return BOOL
    if fn in ("len", "sum"):
        if ts[0].kind not in ("list", "any"):
            st.err(f"{fn}() needs a list, got {ts[0]}", e.args[0].value.span, None, "type")
            return ANY
        if fn == "len":
            return INT
        return ts[0].args[0] if ts[0].kind == "list" and is_numeric(ts[0].args[0]) else ANY
    if fn == "ord":
        if ts[0].kind not in ("enum", "any"):
            st.err(f"ord() needs an enum value, got {ts[0]}", e.args[0].value.span, None, "type")
        elif ts[0].kind == "enum" and not st.is_ordered(ts[0].name):
            st.err(f"ord() needs an ordered enum; declare {ts[0].name} as `ordered`", e.span, None, "type")
        return INT
    if fn == "shift":
        if ts[0].kind != "enum":
            if ts[0].kind != "any":
                st.err(f"shift() needs an enum value, got {ts[0]}", e.args[0].value.span, None, "type")
            return ANY
        if not st.is_ordered(ts[0].name):
            st.err(f"shift() needs an ordered enum; declare {ts[0].name} as `ordered`", e.span, None, "type")
        if ts[1] not in (INT, ANY):
            st.err(f"shift() moves by a whole number, got {ts[1]}", e.args[1].value.span, None, "type")
        return ts[0]
    if fn == "probability":
        if ts[0] not in (BOOL, ANY):
            st.err(f"probability() needs a true/false condition, got {ts[0]}", e.args[0].value.span, None, "type")
        return DEC
    raise AssertionError(fn)


CHAINS = {"+": ("+", "-"), "-": ("+", "-"), "*": ("*",), "and": ("and",), "or": ("or",)}


def _binary(st: CheckState, e: n.Binary, scope: Scope, in_expect: bool) -> ir.Expr:
    op = e.op
    chained = isinstance(e.left, n.Binary) and e.left.op in CHAINS.get(op, ())
    left = check_expr(st, e.left, scope, in_expect, chained=chained)
    a = left.type
    if op in ("and", "or"):
        right = check_expr(st, e.right, Scope(scope, not_none(e.left, op == "and")), in_expect)
        for side, t in ((e.left, a), (e.right, right.type)):
            if t not in (BOOL, ANY):
                st.err(f"'{op}' needs true/false, got {t}", side.span, None, "type")
        return ir.Binary(op, left, right, BOOL, e.span)
    right = check_expr(st, e.right, scope, in_expect)
    b = right.type
    if op == "+" and "list" in (a.kind, b.kind):
        return _concatenation(st, e, left, right)
    if op in ("+", "-", "*", "/"):
        if not is_numeric(a) or not is_numeric(b):
            bad, bt = (e.left, a) if not is_numeric(a) else (e.right, b)
            st.err(f"'{op}' needs numbers, got {bt}", bad.span, OPTIONAL_HINT if bt.kind == "opt" else None, "type")
            return ir.Binary(op, left, right, ANY, e.span)
        if op == "/":
            t = DEC
        else:
            t = DEC if DEC in (a, b) else (ANY if ANY in (a, b) else INT)
        return ir.Binary(op, left, right, t, e.span)
    if op == "in":
        if b.kind != "list" and b.kind != "any":
            st.err(f"'in' needs a list on its right, got {b}", e.right.span, None, "type")
        elif b.kind == "list" and unify(a, b.args[0]) is None:
            st.err(f"cannot look for {a} in {b}", e.span, None, "type")
        return ir.Binary(op, left, right, BOOL, e.span)
    # comparisons
    if a.kind == "any" or b.kind == "any" or (is_numeric(a) and is_numeric(b)):
        return ir.Binary(op, left, right, BOOL, e.span)
    ia, ib = a.inner, b.inner
    if op in ("==", "!="):
        comparable = (
            a.kind == "none" or b.kind == "none" or unify(a, b) is not None
            or (ia.kind == "ref" and ib.kind in ("text", "id", "ref")) or (ib.kind == "ref" and ia.kind in ("text", "id"))
        )
        if not comparable:
            st.err(f"cannot compare {a} with {b}", e.span, None, "type")
        return ir.Binary(op, left, right, BOOL, e.span)
    if a.kind == "enum" and a == b:
        if not st.is_ordered(a.name):
            st.err(f"enum {a.name} is not ordered; declare it `ordered` to compare with '{op}'", e.span, None, "type")
        return ir.Binary(op, left, right, BOOL, e.span, enum=a.name)
    st.err(f"cannot compare {a} with {b} using '{op}'", e.span, None, "type")
    return ir.Binary(op, left, right, BOOL, e.span)


def _concatenation(st: CheckState, e: n.Binary, left: ir.Expr, right: ir.Expr) -> ir.Expr:
    """``xs + ys``: the items of both lists, in order; the lists hold one type."""
    a, b = left.type, right.type
    if a.kind not in ("list", "any") or b.kind not in ("list", "any"):
        bad, bt = (e.left, a) if a.kind not in ("list", "any") else (e.right, b)
        st.err(f"'+' joins two lists, got {bt}", bad.span,
               "a list of one item is written [x]: [x] + ys" if bt.kind != "opt" else OPTIONAL_HINT, "type")
        return ir.Binary("+", left, right, ANY, e.span)
    t = unify(a, b)
    if t is None:
        st.err(f"'+' joins lists of one type, got {a} and {b}", e.span, None, "type")
        return ir.Binary("+", left, right, ANY, e.span)
    return ir.Binary("+", left, right, t, e.span)


def _roll(st: CheckState, e: n.Roll, scope: Scope) -> ir.Expr:
    times = None
    if e.times is not None:
        times = check_expr(st, e.times, scope)
        if times.type not in (INT, ANY):
            st.err(f"the number of dice must be a whole number, got {times.type}", e.times.span, None, "type")
    test = None
    declared = st.ast.get(e.die)
    face_enum = declared.face_enum if isinstance(declared, n.DieDecl) else None
    if e.count is not None:
        threshold = check_expr(st, e.count[1], scope)
        ct = threshold.type
        if face_enum is not None:
            if e.count[0] not in ("==", "!=") or not assignable(ct, T("enum", face_enum)):
                st.err(f"dice with named faces are counted with == or != against a {face_enum}, got {e.count[0]} {ct}", e.count[1].span, None, "type")
        elif not is_numeric(ct):
            st.err(f"dice are counted against a number, got {ct}", e.count[1].span, None, "type")
        test = (e.count[0], threshold)
    mods = check_mods(st, e, scope, face_enum, check_expr) if e.mods is not None else None
    counted = e.count is not None or (mods is not None and mods.counts is not None)
    if e.keep is not None and counted:
        st.err("use either keep or count, not both", e.span, None, "syntax")
    text = ir.span_text(st.sources, e.span)
    standard = re.fullmatch(r"d([0-9]+)", e.die)

    def roll(t: T, die: str | None, sides: int | None, named: bool = False) -> ir.Roll:
        if mods is not None and mods.named_counts:
            t = T("counts", die or e.die, tuple(T("key", name) for name, _ in mods.counts or ()))
        return ir.Roll(die, sides, e.std_count or 1, times, e.keep, test, named, text, t, e.span, mods)

    if standard:
        sides = int(standard.group(1))
        if sides < 1:
            st.err("a die needs at least one face", e.die_span or e.span, None, "type")
        elif sides > MAX_DIE_FACES:
            st.err(f"a die has at most {MAX_DIE_FACES} faces, got {sides}", e.die_span or e.span, "for a percentage, roll d100", "limit")
        if e.std_count is not None and e.std_count > MAX_DICE:
            st.err(f"a roll has at most {MAX_DICE} dice, got {e.std_count}", e.span, None, "limit")
        if e.std_count is not None and e.std_count != 1 and e.times is not None:
            st.err(f"write either {e.std_count}{e.die} or {e.die} times n, not both", e.span, None, "syntax")
        return roll(INT, None, sides)
    if isinstance(declared, n.BagDecl):
        st.err(f"{e.die} is a bag, not a die: draw from it (draw 2 from {e.die})", e.die_span or e.span,
               "roll, reroll, explode and keep are for dice; a draw gives the count of each kind of token", "type")
        return _placeholder(e.span)
    if not isinstance(declared, n.DieDecl):
        st.unknown("die", e.die, e.die_span or e.span, [*st.names_of(n.DieDecl), "d6", "d10", "d20"])
        return _placeholder(e.span)
    st.use(e.die)
    if face_enum and not isinstance(st.ast.get(face_enum), n.EnumDecl):
        return _placeholder(e.span)  # reported where the die is declared
    if face_enum:
        if e.keep is not None:
            st.err(f"die {declared.name} has named faces: keep needs numeric faces", e.span, None, "type")
        if counted:
            return roll(INT, e.die, None, True)
        if mods is not None and mods.explode is not None and e.times is None:
            st.err(f"one die of {declared.name} shows one face: an exploding die adds dice, so write how many to roll",
                   e.span, f"roll {declared.name} times 1 explode … (the count of each face), or add count …", "type")
        if e.times is not None:
            kinds = tuple(T("key", m) for m in st.members(face_enum))
            return roll(T("counts", face_enum, kinds), e.die, None, True)
        return roll(T("enum", face_enum), e.die, None, True)
    return roll(INT, e.die, None)


def _draw(st: CheckState, e: n.Draw, scope: Scope) -> ir.Expr:
    count = check_expr(st, e.count, scope)
    if count.type not in (INT, ANY):
        st.err(f"the number of tokens drawn must be a whole number, got {count.type}", e.count.span, None, "type")
    bag = st.ast.get(e.bag)
    if not isinstance(bag, n.BagDecl):
        st.unknown("bag", e.bag, e.span, st.names_of(n.BagDecl))
        return _placeholder(e.span)
    st.use(e.bag)
    kinds = [k for k, _, _ in bag.tokens]
    removed = []
    for a in e.removed:
        if a.name not in kinds:
            st.err(f"'{a.name}' is not a kind of token of bag {e.bag}", a.span, hint(a.name, kinds) or "kinds: " + ", ".join(kinds), "unknown-name")
        value = check_expr(st, a.value, scope)
        if value.type not in (INT, ANY):
            st.err(f"the number of '{a.name}' tokens must be a whole number, got {value.type}", a.value.span, None, "type")
        removed.append((a.name, value))
    t = T("counts", e.bag, tuple(T("key", k) for k in kinds))
    return ir.Draw(e.bag, count, tuple(removed), e.mode, ir.span_text(st.sources, e.span), t, e.span)


def _stack(st: CheckState, e: n.Stack, scope: Scope, in_expect: bool) -> ir.Expr:
    """``stack proc(args) { "source": value, … }``: a call of ``proc`` whose one
    parameter of type list[int] (or list[decimal]) left out of ``args`` receives
    the values of the sources that apply (those that are not 0)."""
    d = st.ast.get(e.procedure)
    if not isinstance(d, n.ProcedureDecl):
        st.unknown("procedure", e.procedure, e.procedure_span or e.span, st.names_of(n.ProcedureDecl))
        for a in e.args:
            check_expr(st, a.value, scope, in_expect)
        for _label, value, _span in e.sources:
            check_expr(st, value, scope, in_expect)
        return _placeholder(e.span)
    st.use(e.procedure)
    if not st.in_body:
        st.err("`stack` stands only in a procedure body", e.span, "compute the value in a procedure and call it", "context")
    params = st.param_types[e.procedure]
    named = {a.name for a in e.args if a.name is not None}
    positional = sum(1 for a in e.args if a.name is None)
    left = [(p, t) for i, (p, t) in enumerate(params) if p not in named and i >= positional and t.kind == "list" and is_numeric(t.args[0])]
    if len(left) != 1:
        shown = ", ".join(p for p, _ in left) or "none"
        st.err(
            f"stack needs procedure {e.procedure} to have exactly one list[int] (or list[decimal]) parameter left for the sources, found: {shown}",
            e.procedure_span or e.span, "declare the parameter that receives the modifiers as list[int] and leave it out of the arguments", "type",
        )
        return _placeholder(e.span)
    pname, ptype = left[0]
    optional = {p.name for p in d.params if p.default is not None} | {pname}
    args = bind_args(st, e.args, params, optional, f"procedure {e.procedure}", e.span, scope, in_expect)
    items = []
    seen: set[str] = set()
    for label, value, span in e.sources:
        if label in seen:
            st.err(f"source \"{label}\" appears twice", span, "give each source its own name", "duplicate")
        seen.add(label)
        x = check_expr(st, value, scope, in_expect)
        if not assignable(x.type, ptype.args[0]) and x.type.kind != "any":
            st.err(f"the modifier of source \"{label}\" must be {ptype.args[0]}, got {x.type}", value.span,
                   OPTIONAL_HINT if x.type.kind == "opt" else None, "type")
        items.append((label, x))
    if not items:
        st.err("a stack needs at least one source", e.span, 'write { "source": value, … }', "arity")
    sources = ir.Sources(tuple(items), ptype, e.span)
    return ir.ProcedureCall(e.procedure, args + ((pname, sources),), st.result_types[e.procedure], e.span)


def _path(e) -> str | None:
    """``x`` or ``x.f.g`` for names and field chains; None for anything else."""
    if isinstance(e, n.Name):
        return e.name
    if isinstance(e, n.Attr):
        base = _path(e.obj)
        return f"{base}.{e.name}" if base is not None else None
    return None


def not_none(cond, truth: bool) -> set[str]:
    """Local paths that cannot be none when ``cond`` evaluates to ``truth``."""
    if isinstance(cond, n.Binary):
        if cond.op == "and" and truth:
            return not_none(cond.left, True) | not_none(cond.right, True)
        if cond.op == "or" and not truth:
            return not_none(cond.left, False) | not_none(cond.right, False)
        if cond.op in ("!=", "=="):
            proves = (cond.op == "!=") == truth
            sides = (cond.left, cond.right)
            if proves and any(isinstance(x, n.NoneLit) for x in sides):
                return {p for x in sides if (p := _path(x)) is not None}
    if isinstance(cond, n.Unary) and cond.op == "not":
        return not_none(cond.operand, not truth)
    return set()
