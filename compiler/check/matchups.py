"""Pass 12 — matchups and engagements: how a pairing of units is resolved and measured.

Entry point: :func:`check_matchups(state)`. Reads the ``matchup`` declarations, the
procedures' signatures, the catalogs (and their ``@cost_field``, checked by the layout
pass before this one) and enums their axes go through. Produces an IR
:class:`~rulebook.compiler.ir.Matchup` per declaration, kept in ``st.matchups`` (the
program's ``matchups``: data for ``rulebook balance``, not a page, not a procedure).

The clause words are names this module knows (like an ``army``'s): the axes
``attacker``, ``target``, ``weapon``, ``quality``, ``option``; the clauses ``when``, ``measure``,
``cost``, ``category``, ``combine``, ``weight``, and for an engagement ``start``, ``win``, ``loss``,
``draw``, ``rounds``.
"""

from __future__ import annotations

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.parser import KEYWORDS

from rulebook.compiler import ir
from rulebook.compiler.ir.types import BOOL, T, assignable, is_numeric
from rulebook.compiler.check.expressions import bind_args, check_expr, not_none
from rulebook.compiler.check.state import CheckState, Scope, hint

AXES = ("attacker", "target", "weapon", "quality", "option")
CLAUSES = ("when", "measure", "cost", "category", "combine", "weight", "start", "win", "loss", "draw", "rounds")
ENDS = ("win", "loss", "draw")
MAX_ROUNDS = 1000


def check_matchups(st: CheckState) -> None:
    """Every matchup declaration → an IR matchup in ``st.matchups``."""
    st.matchups = {}
    for name, d in st.ast.items():
        if isinstance(d, n.MatchupDecl):
            st.current = name
            m = _matchup(st, d)
            if m is not None:
                st.matchups[name] = m
    st.current = None


def _side(st: CheckState, axis: n.MatchupAxis, scope: Scope) -> ir.MatchupSide | None:
    catalogs: list[str] = []
    if len(axis.sources) == 1 and not isinstance(axis.sources[0], n.Name):  # a list of entries: [tropas.tercio, tropas.coraceros]
        listed = check_expr(st, axis.sources[0], Scope())
        ids = []
        for item in getattr(listed, "items", None) or ():
            if not isinstance(item, ir.EntryId) or not isinstance(st.ast.get(item.catalog), n.CatalogDecl):
                break
            if item.catalog not in catalogs:
                catalogs.append(item.catalog)
            ids.append(item.ident)
        else:
            if ids:
                t = T("ref", catalogs[0]) if len(catalogs) == 1 else T("refs", "|".join(catalogs))
                _declare(st, scope, axis.name, t, axis.span)
                return ir.MatchupSide(name=axis.name, title=axis.title or axis.name, catalogs=tuple(catalogs), span=axis.span, ids=tuple(ids))
        st.err(f"the {axis.role} of a matchup goes through catalogs, or a list of their entries", axis.sources[0].span,
               f"write {axis.role} {axis.name} in catalogo, or in [catalogo.a, catalogo.b]", "matchup")
        return None
    for src in axis.sources:
        if not isinstance(src, n.Name) or not isinstance(st.ast.get(src.name), n.CatalogDecl):
            what = src.name if isinstance(src, n.Name) else "this expression"
            st.err(f"the {axis.role} of a matchup goes through catalogs: '{what}' is not one", src.span,
                   hint(what, st.names_of(n.CatalogDecl)) or f"write {axis.role} {axis.name} in catalogo | otro_catalogo", "matchup")
            return None
        st.use(src.name)
        catalogs.append(src.name)
    t = T("ref", catalogs[0]) if len(catalogs) == 1 else T("refs", "|".join(catalogs))
    _declare(st, scope, axis.name, t, axis.span)
    return ir.MatchupSide(name=axis.name, title=axis.title or axis.name, catalogs=tuple(catalogs), span=axis.span)


def _computed_from_data(st: CheckState, e: ir.Expr, span) -> None:
    """A matchup's clauses read the data: a roll or a procedure call belongs in the procedure."""
    from rulebook.compiler.ir.walk import children

    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, (ir.Roll, ir.Draw, ir.ProcedureCall)):
            st.err("a matchup's inputs and conditions are read from the data: they cannot roll dice or call a procedure", x.span,
                   "roll and call in the procedure the matchup runs", "matchup")
            return
        stack.extend(children(x))


def _declare(st: CheckState, scope: Scope, name: str, t: T, span) -> None:
    if name in KEYWORDS:
        st.reserved(name, "an axis of a matchup", span)
    elif scope.get(name) is not None or name in st.ast or name in ("result", "state"):
        st.err(f"'{name}' is already defined; choose another name", span, None, "shadow")
    scope.vars[name] = (t, span)
    st.local_uses.add((scope, name))


def _matchup(st: CheckState, d: n.MatchupDecl) -> ir.Matchup | None:
    proc = st.ast.get(d.procedure)
    if not isinstance(proc, n.ProcedureDecl):
        st.unknown("procedure", d.procedure, d.procedure_span or d.span, st.names_of(n.ProcedureDecl))
        return None
    st.use(d.procedure)
    scope = Scope()
    axes: dict[str, n.MatchupAxis] = {}
    for axis in d.axes:
        if axis.role not in AXES:
            st.err(f"a matchup has no axis '{axis.role}'", axis.span, hint(axis.role, AXES) or "axes: " + ", ".join(AXES), "matchup")
            return None
        if axis.role in axes:
            st.err(f"matchup {d.name}: '{axis.role}' is given twice", axis.span, None, "matchup")
            return None
        axes[axis.role] = axis
    clauses: dict[str, n.MatchupClause] = {}
    for c in d.clauses:
        if c.word not in CLAUSES:
            st.err(f"a matchup has no clause '{c.word}'", c.span, hint(c.word, CLAUSES) or "clauses: " + ", ".join(CLAUSES), "matchup")
            return None
        if c.word in clauses:
            st.err(f"matchup {d.name}: '{c.word}' is given twice", c.span, None, "matchup")
            return None
        clauses[c.word] = c
    for role in ("attacker", "target"):
        if role not in axes:
            st.err(f"matchup {d.name} needs {role} x in catalogo", d.span,
                   "a matchup pairs an attacker with a target: attacker a in catalogo, target t in catalogo", "matchup")
            return None
    attacker = _side(st, axes["attacker"], scope)
    if attacker is None:
        return None
    weapon = quality = None
    if "weapon" in axes:
        w = axes["weapon"]
        items = check_expr(st, w.sources[0], scope) if len(w.sources) == 1 else None
        if items is None or items.type.kind != "list":
            st.err("the weapon of a matchup goes through a list the attacker holds", w.span, f"write weapon {w.name} in {attacker.name}.armas", "matchup")
            return None
        _declare(st, scope, w.name, items.type.args[0], w.span)
        weapon = ir.MatchupEach(name=w.name, title=w.title or w.name, items=items, enum=None, span=w.span)
    target = _side(st, axes["target"], scope)
    if target is None:
        return None
    if "quality" in axes:
        q = axes["quality"]
        src = q.sources[0] if len(q.sources) == 1 else None
        if not isinstance(src, n.Name) or not isinstance(st.ast.get(src.name), n.EnumDecl):
            st.err("the quality of a matchup goes through an enum", q.span, f"write quality {q.name} in Calidad", "matchup")
            return None
        st.use(src.name)
        _declare(st, scope, q.name, T("enum", src.name), q.span)
        quality = ir.MatchupEach(name=q.name, title=q.title or q.name, items=None, enum=src.name, span=q.span)
    option = None
    if "option" in axes:
        o = axes["option"]
        src = o.sources[0] if len(o.sources) == 1 else None
        if not isinstance(src, n.Name) or not isinstance(st.ast.get(src.name), n.EnumDecl):
            st.err("the option of a matchup goes through an enum: each value is tried, and the best is taken", o.span, f"write option {o.name} in ModoFuego", "matchup")
            return None
        st.use(src.name)
        _declare(st, scope, o.name, T("enum", src.name), o.span)
        option = ir.MatchupEach(name=o.name, title=o.title or o.name, items=None, enum=src.name, span=o.span)
    result_type = st.result_types[d.procedure]
    start = None
    if "start" in clauses:
        start = check_expr(st, clauses["start"].value, scope)
        if not assignable(start.type, result_type):
            st.err(f"an engagement's start is a state the procedure returns ({result_type}), got {start.type}", clauses["start"].span, None, "type")
        scope.vars["state"] = (result_type, clauses["start"].span)
        st.local_uses.add((scope, "state"))
    elif any(w in clauses for w in (*ENDS, "rounds")):
        word = next(w for w in (*ENDS, "rounds") if w in clauses)
        st.err(f"'{word}' belongs to an engagement, which has start: (the first state)", clauses[word].span, "write start: Estado(…), the state before the first round", "matchup")
        return None
    when = None
    narrowed: set[str] = set()
    if "when" in clauses:
        when = check_expr(st, clauses["when"].value, scope)
        if when.type.kind not in ("bool", "any"):
            st.err(f"when: is a true/false condition, got {when.type}", clauses["when"].span, None, "type")
        narrowed = not_none(clauses["when"].value, True)
    inner = Scope(scope, narrowed)
    optional = {p.name for p in proc.params if p.default is not None}
    args = bind_args(st, d.args, st.param_types[d.procedure], optional, f"procedure {d.procedure}", d.procedure_span or d.span, inner, False)
    common = dict(**st.common(d), procedure=d.procedure, args=args, attacker=attacker, target=target, weapon=weapon, quality=quality, when=when, option=option)
    if "weight" in clauses:  # the field: each target's weight, read from the target alone
        field_scope = Scope()
        field_scope.vars[target.name] = scope.vars[target.name]
        st.local_uses.add((field_scope, target.name))
        weight = check_expr(st, clauses["weight"].value, field_scope)
        if not is_numeric(weight.type):
            st.err(f"weight: is a number (how much the target counts in the field), got {weight.type}", clauses["weight"].span, None, "type")
        common["weight"] = weight
    if "combine" in clauses:
        value = clauses["combine"].value
        if not isinstance(value, n.Name) or value.name not in ("best", "sum"):
            st.err("combine: is best (the attacker uses its best weapon) or sum (all its weapons)", clauses["combine"].span, "write combine: best or combine: sum", "matchup")
            return None
        common["combine"] = value.name
    for word in ("cost", "category"):
        if word in clauses:
            e = check_expr(st, clauses[word].value, inner)
            if word == "cost" and not is_numeric(e.type):
                st.err(f"cost: is a number (the attacker's points), got {e.type}", clauses[word].span, None, "type")
            common[word] = e
    if start is not None:
        ends = []
        state_scope = Scope(inner)
        for word in ENDS:
            if word in clauses:
                e = check_expr(st, clauses[word].value, state_scope)
                if e.type.kind not in ("bool", "any"):
                    st.err(f"{word}: is a true/false condition on state, got {e.type}", clauses[word].span, None, "type")
                ends.append((word, e))
        if not ends:
            st.err(f"engagement {d.name} needs an end: win:, loss: or draw: (conditions on state)", d.span, "write win: state.enemigo_roto", "matchup")
            return None
        rounds = 10
        if "rounds" in clauses:
            v = clauses["rounds"].value
            if not isinstance(v, n.Num) or not isinstance(v.value, int) or not 1 <= v.value <= MAX_ROUNDS:
                st.err(f"rounds: is a whole number from 1 to {MAX_ROUNDS}", clauses["rounds"].span, None, "matchup")
                return None
            rounds = v.value
        if "measure" in clauses:
            st.err("an engagement measures the odds of winning: it has no measure:", clauses["measure"].span, None, "matchup")
            return None
        if option is not None or weapon is not None:
            st.err("an engagement pairs two units: its rounds choose their own weapons and options (no weapon or option axis)",
                   (axes.get("option") or axes["weapon"]).span, None, "matchup")
            return None
        result = ir.Matchup(**common, start=start, ends=tuple(ends), rounds=rounds, measure_kind="win")
        _no_rolls(st, result)
        return result
    if "measure" not in clauses:
        st.err(f"matchup {d.name} needs measure: mean(result.x) or measure: probability(c)", d.span, None, "matchup")
        return None
    m = clauses["measure"].value
    if not (isinstance(m, n.Call) and m.func in ("mean", "probability") and len(m.args) == 1 and m.args[0].name is None):
        st.err("measure: is mean(e) (the expected value of e) or probability(c) (the chance that c holds), over result", clauses["measure"].span,
               "write measure: mean(result.bajas)", "matchup")
        return None
    result_scope = Scope(inner)
    result_scope.vars["result"] = (result_type, d.span)
    st.local_uses.add((result_scope, "result"))
    e = check_expr(st, m.args[0].value, result_scope)
    if m.func == "mean" and not is_numeric(e.type):
        st.err(f"mean() takes a number, got {e.type}", m.span, None, "type")
    if m.func == "probability" and e.type != BOOL and e.type.kind != "any":
        st.err(f"probability() takes a true/false condition, got {e.type}", m.span, None, "type")
    result = ir.Matchup(**common, measure_kind=m.func, measure=e)
    _no_rolls(st, result)
    return result


def _no_rolls(st: CheckState, m: ir.Matchup) -> None:
    exprs = [v for _n, v in m.args] + [x for x in (m.when, m.measure, m.cost, m.category, m.weight, m.start) if x is not None]
    exprs += [e for _k, e in m.ends] + ([m.weapon.items] if m.weapon is not None and m.weapon.items is not None else [])
    for e in exprs:
        _computed_from_data(st, e, m.span)
