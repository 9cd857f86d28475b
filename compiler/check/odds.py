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
from rulebook.compiler.check.state import CheckState, Scope

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
    if each:
        source = "catalog"
        if not isinstance(st.ast.get(axis.enum), n.CatalogDecl):
            st.unknown("catalog", axis.enum, axis.span, st.names_of(n.CatalogDecl))
            t = ANY
        else:
            st.use(axis.enum)
            t = T("ref", axis.enum)
            values = tuple(st.catalogs.get(axis.enum, {}))
    elif axis.values is not None:
        source = "list"
        if any(not isinstance(v, int) for v in axis.values) or len(axis.values) > MAX_AXIS_VALUES:
            st.err(f"a list of values for an odds table holds at most {MAX_AXIS_VALUES} whole numbers", axis.span, None, "odds")
        t = INT
        values = tuple(axis.values)
    elif axis.enum is not None:
        source = "enum"
        if not isinstance(st.ast.get(axis.enum), n.EnumDecl):
            st.unknown("enum", axis.enum, axis.span, st.names_of(n.EnumDecl))
            t = ANY
        else:
            st.use(axis.enum)
            t = T("enum", axis.enum)
            values = tuple(st.members(axis.enum))
    else:
        source = "range"
        if not (isinstance(axis.lo, int) and isinstance(axis.hi, int)):
            st.err("the range of an odds table goes between whole numbers", axis.span, "write whole numbers, e.g. rows x in 0..3", "odds")
        elif axis.lo > axis.hi or axis.hi - axis.lo > MAX_AXIS_VALUES:
            st.err(f"the range {axis.lo}..{axis.hi} must go upwards and have at most {MAX_AXIS_VALUES + 1} values", axis.span, None, "odds")
        else:
            values = tuple(range(axis.lo, axis.hi + 1))
        t = INT
    of = axis.enum if source in ("catalog", "enum") else None
    return t, ir.OddsAxis(name=axis.name, title=axis.title or axis.name, source=source, of=of, values=values, span=axis.span)


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
