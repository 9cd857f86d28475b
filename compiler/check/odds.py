"""Pass 7 — odds tables: a procedure run over a grid of inputs.

Entry point: :func:`check_odds(state)`. Reads the procedures' signatures and
the catalogs and enums the axes go through; adds an IR
:class:`~rulebook.compiler.ir.Odds` per odds declaration, with each axis's values
enumerated.
"""

from __future__ import annotations

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.parser import KEYWORDS

from rulebook.compiler import ir
from rulebook.compiler.ir.types import ANY, BOOL, INT, T, is_numeric
from rulebook.compiler.check.expressions import bind_args, check_expr
from rulebook.compiler.check.state import CheckState, Scope, describe_value, hint, referenceable

MAX_AXIS_VALUES = 200


def check_odds(st: CheckState) -> None:
    """Every odds declaration → an IR odds table (axes enumerated, shown value typed)."""
    for name, d in st.ast.items():
        if isinstance(d, n.OddsDecl):
            st.current = name
            odds = _odds(st, d)
            if odds is not None:
                st.decls[name] = odds
    st.current = None


def _axis(st: CheckState, axis: n.OddsAxis, each: bool) -> tuple[T, ir.OddsAxis]:
    values: tuple = ()
    of = None
    if each:
        source = "catalog"
        if not isinstance(st.ast.get(axis.enum), n.CatalogDecl):
            st.unknown("catalog", axis.enum, axis.span, st.names_of(n.CatalogDecl))
            t = ANY
        else:
            st.use(axis.enum)
            t, of = T("ref", axis.enum), axis.enum
            values = tuple(st.catalogs.get(axis.enum, {}))
    elif axis.values is not None:
        source = "list"
        t, of, values = _listed(st, axis)
    elif axis.enum is not None:
        source, t, of, values = _named_domain(st, axis)
    else:
        source = "range"
        if not (isinstance(axis.lo, int) and isinstance(axis.hi, int)):
            st.err("the range of an odds table goes between whole numbers", axis.span, "write whole numbers, e.g. rows x in 0..3", "odds")
        elif axis.lo > axis.hi or axis.hi - axis.lo > MAX_AXIS_VALUES:
            st.err(f"the range {axis.lo}..{axis.hi} must go upwards and have at most {MAX_AXIS_VALUES + 1} values", axis.span, None, "odds")
        else:
            values = tuple(range(axis.lo, axis.hi + 1))
        t = INT
    return t, ir.OddsAxis(name=axis.name, title=axis.title or axis.name, source=source, of=of, values=values, span=axis.span)


def _named_domain(st: CheckState, axis: n.OddsAxis) -> tuple[str, T, str | None, tuple]:
    """``in Enum`` (its values in order), ``in bool`` (true, false), ``in catalogo`` (its
    entries, or the rows of a table keyed by id, in order): (source, type, of, values)."""
    name = axis.enum
    d = st.ast.get(name)
    if isinstance(d, n.EnumDecl):
        st.use(name)
        return "enum", T("enum", name), name, tuple(st.members(name))
    if name == "bool" and d is None:
        return "bool", BOOL, None, (True, False)
    if referenceable(d):
        st.use(name)
        ids = tuple(st.ref_ids(name))
        if len(ids) > MAX_AXIS_VALUES:
            st.err(f"an odds table has at most {MAX_AXIS_VALUES} rows or columns; {name} has {len(ids)} entries", axis.span,
                   "list the ones to show: rows x in [catalogo.a, catalogo.b]", "odds")
            ids = ()
        return ("catalog" if isinstance(d, n.CatalogDecl) else "table"), T("ref", name), name, ids
    st.unknown("enum, catalog or bool", name, axis.span, [*st.names_of(n.EnumDecl, n.CatalogDecl), "bool"])
    return "enum", ANY, None, ()


def _listed(st: CheckState, axis: n.OddsAxis) -> tuple[T, str | None, tuple]:
    """``in [2, 3, 5]``, ``[true, false]``, ``[Enum.a, Enum.b]`` or ``[catalogo.a, catalogo.b]``:
    one kind of value, written as in code; (type, enum or catalog, values)."""
    items = axis.values
    if len(items) > MAX_AXIS_VALUES:
        st.err(f"a list of values for an odds table holds at most {MAX_AXIS_VALUES} values", axis.span, None, "odds")
        return ANY, None, ()
    first = items[0]
    if isinstance(first, n.VQualified):
        return _listed_names(st, items)
    kind = {n.VNum: INT, n.VBool: BOOL}.get(type(first))
    for v in items:
        if type(v) is not type(first) or kind is None or (isinstance(v, n.VNum) and not isinstance(v.value, int)):
            st.err(f"the values of an odds axis are whole numbers, true/false, Enum.value or catalogo.id, all of one kind; got {describe_value(v)}",
                   v.span, _bare_hint(st, v), "odds")
            return ANY, None, ()
    return kind, None, tuple(v.value for v in items)


def _listed_names(st: CheckState, items: tuple) -> tuple[T, str | None, tuple]:
    qualifier = items[0].qualifier
    d = st.ast.get(qualifier)
    if not isinstance(d, n.EnumDecl) and not referenceable(d):
        st.unknown("enum or catalog", qualifier, items[0].span, st.names_of(n.EnumDecl, n.CatalogDecl))
        return ANY, None, ()
    st.use(qualifier)
    known = st.members(qualifier) if isinstance(d, n.EnumDecl) else list(st.ref_ids(qualifier))
    for v in items:
        if not isinstance(v, n.VQualified) or v.qualifier != qualifier:
            st.err(f"the values of an odds axis are of one kind: {qualifier}.…, got {describe_value(v)}", v.span, f"write {qualifier}.<value>", "odds")
            return ANY, None, ()
        if v.name not in known:
            what = "a value of" if isinstance(d, n.EnumDecl) else "an entry of"
            st.err(f"'{v.name}' is not {what} {qualifier}", v.span, hint(v.name, known), "unknown-name")
            return ANY, None, ()
    t = T("enum", qualifier) if isinstance(d, n.EnumDecl) else T("ref", qualifier)
    return t, qualifier, tuple(v.name for v in items)


def _bare_hint(st: CheckState, v) -> str | None:
    """For a bare name in an axis list: how code writes it (``Enum.value`` or ``catalogo.id``)."""
    if not isinstance(v, (n.VName, n.VStr)):
        return None
    ident = v.name if isinstance(v, n.VName) else v.value
    owners = [e for e in st.names_of(n.EnumDecl) if ident in st.members(e)]
    owners += [c for c, d in st.ast.items() if referenceable(d) and ident in st.ref_ids(c)]
    return f"write {owners[0]}.{ident}" if owners else "write Enum.value or catalogo.id"


def _odds(st: CheckState, d: n.OddsDecl) -> ir.Odds | None:
    proc = st.ast.get(d.procedure)
    if not isinstance(proc, n.ProcedureDecl):
        st.unknown("procedure", d.procedure, d.procedure_span or d.span, st.names_of(n.ProcedureDecl))
        return None
    st.use(d.procedure)
    scope = Scope()
    axes: dict[str, ir.OddsAxis | None] = {"each": None, "rows": None, "columns": None}
    for role, axis in (("each", d.each), ("rows", d.rows), ("columns", d.columns)):
        if axis is None:
            continue
        t, axes[role] = _axis(st, axis, role == "each")
        if axis.name in KEYWORDS:
            st.reserved(axis.name, "an axis of an odds table", axis.span)
        elif scope.get(axis.name) is not None or axis.name in st.ast or axis.name == "result":
            st.err(f"'{axis.name}' is already defined; choose another name", axis.span, None, "shadow")
        scope.vars[axis.name] = (t, axis.span)
        st.local_uses.add((scope, axis.name))
    optional = {p.name for p in proc.params if p.default is not None}
    args = bind_args(st, d.args, st.param_types[d.procedure], optional, f"procedure {d.procedure}", d.span, scope, False)
    inner = Scope(scope)
    inner.vars["result"] = (st.result_types[d.procedure], d.span)
    st.local_uses.add((inner, "result"))
    show = d.show
    common = dict(**st.common(d), procedure=d.procedure, args=args, each=axes["each"], rows=axes["rows"], columns=axes["columns"])
    is_outcomes = isinstance(show, n.Call) and show.func == "outcomes"
    if is_outcomes and not d.cells:
        st.err("outcomes() makes one column per value: it goes after 'cells', not 'cell'", show.span, f"write cells {ir.span_text(st.sources, show.span)}", "odds")
    elif d.cells and not is_outcomes:
        st.err(
            "'cells' lays the outcomes of an expression out as columns: write cells outcomes(…)", show.span,
            f"write cell {ir.span_text(st.sources, show.span)} for one value per cell, or cells outcomes(e) for one column per value of e", "odds",
        )
    if is_outcomes:
        if len(show.args) != 1 or show.args[0].name is not None:
            st.err("outcomes() takes one expression over result", show.span, None, "arity")
            return None
        if d.columns is not None:
            st.err("cells outcomes(…) lays the results out as columns: an odds table with 'cells' has no 'columns'", d.columns.span, None, "odds")
        return ir.Odds(**common, show_kind="outcomes", show=check_expr(st, show.args[0].value, inner))
    cell = check_expr(st, show, inner, in_expect=True)
    if not (is_numeric(cell.type) or cell.type == BOOL):
        st.err(
            f"an odds table shows numbers (e.g. probability(…)), got {cell.type}", show.span,
            "write cell probability(result.x) or cells outcomes(result.x)", "type",
        )
    return ir.Odds(**common, show_kind="value", show=cell)
