"""Pass 3 — data: catalog entries, dice faces, bags and special rules, checked
against their types and converted to plain values.

Entry points: :func:`convert_value` (one written value against a type →
``int``/``Fraction``/``str``/``bool``/``None``/list/dict, used by the tables
pass too), :func:`check_data(state)` (catalogs, dice, bags, rules → IR
:class:`~rulebook.compiler.ir.Catalog`, :class:`~rulebook.compiler.ir.Die`,
:class:`~rulebook.compiler.ir.Bag`, :class:`~rulebook.compiler.ir.Rule`) and
:func:`check_references(state)` (every ``ref`` value names an existing entry, an
error unless the declaration lists the id in ``@as_printed``; an id defined twice
with different values; then the contract lints of :mod:`.contract`).
"""

from __future__ import annotations

from typing import Any

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Edit, Reporter, counted, did_you_mean

from rulebook.compiler import ir
from rulebook.compiler.ir.types import ANY, RULE, T
from rulebook.compiler.check.signatures import member_name, param_title
from rulebook.compiler.check.contract import check_contract
from rulebook.compiler.check.state import CheckState, describe_value, hint


def convert_value(st: CheckState, v: n.Value, t: T, ctx: str) -> Any:
    """Check a data value against ``t`` and convert it to plain data."""
    if t.kind == "any":
        return None
    if isinstance(v, n.VNone):
        if t.kind == "opt":
            return None
        shown = ir.span_text(st.sources, v.span) or "-"
        st.err(f"{ctx}: a value of type {t} is required here, not '{shown}'", v.span, "only optional fields (T?) may be empty (- or none)", "type")
        return None
    if t.kind == "opt":
        return convert_value(st, v, t.args[0], ctx)
    k = t.kind
    if k in ("int", "decimal"):
        if isinstance(v, n.VNum) and (k == "decimal" or isinstance(v.value, int)):
            return v.value
        return _bad(st, v, t, ctx)
    if k == "text":
        if isinstance(v, n.VStr):
            return v.value
        return _bad(st, v, t, ctx, 'write text in double quotes: "…"' if isinstance(v, n.VName) else None)
    if k == "bool":
        if isinstance(v, n.VBool):
            return v.value
        return _bad(st, v, t, ctx)
    if k == "id":
        if isinstance(v, (n.VName, n.VStr)):
            return v.name if isinstance(v, n.VName) else v.value
        return _bad(st, v, t, ctx)
    if k == "enum":
        return _enum_value(st, v, t, ctx)
    if k in ("ref", "refs"):
        if isinstance(v, n.VQualified):
            catalogs = t.name.split("|")
            if v.qualifier not in catalogs:
                st.err(
                    f"{ctx}: '{v.qualifier}.{v.name}' is an id of {v.qualifier}, but this value is a {t}", v.span,
                    f"write {catalogs[0]}.{v.name}, or the id alone: {v.name}" if len(catalogs) == 1 else f"write the id alone: {v.name}", "type",
                )
                return None
            st.pending_refs.append((v.qualifier, v.name, v.span, ctx))
            return v.name
        if isinstance(v, (n.VName, n.VStr)):
            ident = v.name if isinstance(v, n.VName) else v.value
            st.pending_refs.append((t.name, ident, v.span, ctx))
            return ident
        return _bad(st, v, t, ctx)
    if k == "rule":
        return rule_application(st, v, ctx)
    if k == "list":
        if isinstance(v, n.VList):
            return [convert_value(st, x, t.args[0], ctx) for x in v.items]
        return _bad(st, v, t, ctx)
    if k == "map":
        return _map_value(st, v, t, ctx)
    if k == "record":
        if isinstance(v, n.VRecord):
            return _record_value(st, v, t.name, st.record_fields.get(t.name, []), ctx)
        if isinstance(v, n.VApply) and v.name == t.name:
            # `Danio(3, 1)` / `Danio(normal: 3, reducido: 1)`: the record as code writes it
            return _record_value(st, n.VRecord(v.args, v.span), t.name, st.record_fields.get(t.name, []), ctx)
        if isinstance(v, n.VApply) and isinstance(st.ast.get(v.name), n.RecordDecl):
            st.err(f"{ctx}: expected a {t.name}, got a {v.name}", v.span, f"write {t.name}(…) or (…)", "type")
            return None
        return _bad(st, v, t, ctx)
    return _bad(st, v, t, ctx)


def _enum_value(st: CheckState, v: n.Value, t: T, ctx: str):
    """``green`` (the short form of data) or ``Calidad.green`` (as in code), for enum ``t``."""
    members = st.members(t.name)
    if isinstance(v, n.VQualified):
        if v.qualifier != t.name:
            other = st.ast.get(v.qualifier)
            what = f"a value of {v.qualifier}" if isinstance(other, n.EnumDecl) else f"'{v.qualifier}.{v.name}'"
            guess = member_guess(v.name, members)
            st.err(
                f"{ctx}: expected a value of {t.name}, got {what}", v.span,
                f"write {t.name}.{guess} (or {guess})" if guess else f"write {t.name}.<value>; values: " + ", ".join(members), "type",
            )
            return None
        name = v.name
    elif isinstance(v, n.VName):
        name = v.name
    else:
        return _bad(st, v, t, ctx)
    if name in members:
        return name
    guess = member_guess(name, members)
    hint_text = f"did you mean '{guess}'?" if guess else "expected one of: " + ", ".join(members)
    fix: tuple[Edit, ...] = ()
    rewritten = (Edit(v.span, f"{t.name}.{guess}" if isinstance(v, n.VQualified) else guess),) if guess is not None else ()
    if guess is not None and guess == member_name(name):  # its spelling before the naming rule: an exact rewrite
        fix, rewritten = rewritten, ()
    st.err(f"{ctx}: '{name}' is not a value of {t.name}", v.span, hint_text, "unknown-name", fix, rewritten)
    return None


def member_guess(name: str, members) -> str | None:
    """The value meant by a misspelt (or old-style: ``Green``, ``Órgano``) enum value."""
    wanted = member_name(name)
    if wanted in members:
        return wanted
    return did_you_mean(name, members)


def _map_value(st: CheckState, v: n.Value, t: T, ctx: str):
    members = st.members(t.name)
    if isinstance(v, n.VList):
        if len(v.items) != len(members):
            st.err(f"{ctx}: a map[{t.name}, …] needs {len(members)} values ({', '.join(members)}), got {len(v.items)}", v.span, None, "arity")
            return None
        return {m: convert_value(st, x, t.args[0], ctx) for m, x in zip(members, v.items)}
    if isinstance(v, n.VRecord) and all(name for name, _ in v.fields):
        out = {}
        for name, x in v.fields:
            if name not in members:
                st.err(f"{ctx}: '{name}' is not a value of {t.name}", x.span, hint(name, members), "unknown-name")
                continue
            out[name] = convert_value(st, x, t.args[0], ctx)
        for m in members:
            if m not in out:
                if t.args[0].kind == "opt":
                    out[m] = None
                else:
                    st.err(f"{ctx}: missing value for '{m}'", v.span, None, "missing")
        return {m: out.get(m) for m in members}
    return _bad(st, v, t, ctx)


def _record_value(st: CheckState, v: n.VRecord, rname: str, fields, ctx: str) -> dict | None:
    out: dict[str, Any] = {}
    positional = [x for name, x in v.fields if name is None]
    named = [(name, x) for name, x in v.fields if name is not None]
    if positional and named:
        st.err(f"{ctx}: write all fields of {rname} by name or all by position, not both", v.span, None, "syntax")
        return None
    if positional:
        if len(positional) > len(fields):
            st.err(f"{ctx}: {rname} has {len(fields)} fields, got {len(positional)} values", v.span, "fields: " + ", ".join(f for f, _, _ in fields), "arity")
            return None
        for (fname, ftype, _), x in zip(fields, positional):
            out[fname] = convert_value(st, x, ftype, f"{ctx}.{fname}")
    else:
        by_name = {f: ft for f, ft, _ in fields}
        for name, x in named:
            if name not in by_name:
                st.err(f"{ctx}: record {rname} has no field '{name}'", x.span, hint(name, list(by_name)), "unknown-name")
                continue
            out[name] = convert_value(st, x, by_name[name], f"{ctx}.{name}")
    for fname, ftype, _ in fields:
        if fname not in out:
            if ftype.kind in ("opt", "any"):
                out[fname] = None
            elif ftype.kind == "list":
                out[fname] = []
            else:
                st.err(f"{ctx}: missing field '{fname}' of {rname}", v.span, None, "missing")
    return {f: out.get(f) for f, _, _ in fields}


def rule_application(st: CheckState, v: n.Value, ctx: str) -> dict | None:
    """``rule`` or ``rule(args)`` → ``{"rule": name, "args": {param: value}}``."""
    if isinstance(v, n.VName):
        name, args, span = v.name, (), v.span
    elif isinstance(v, n.VApply):
        name, args, span = v.name, v.args, v.span
    else:
        return _bad(st, v, RULE, ctx, "write a special rule as id or id(args)")
    d = st.ast.get(name)
    if not isinstance(d, n.RuleDecl):
        st.unknown("special rule", name, span, st.names_of(n.RuleDecl))
        return {"rule": name, "args": {}}
    st.use(name)
    params = st.rule_params.get(name, [])
    if any(a for a, _ in args):
        return _named_rule_args(st, d, name, args, params, span, ctx)
    required = sum(1 for p in d.params if p.default is None)
    if required <= len(args) <= len(params):
        params = params[: len(args)]
    if len(args) != len(params):
        st.err(
            f"{ctx}: special rule '{name}' takes {counted(len(params), 'parameter')} ({', '.join(p for p, _ in params) or 'none'}), got {len(args)}",
            span, f"write {name}({', '.join(p for p, _ in params)})" if params else f"write {name}", "arity",
        )
        return {"rule": name, "args": {}}
    return {"rule": name, "args": {p: convert_value(st, a, pt, f"{ctx} {name}({p})") for (p, pt), (_, a) in zip(params, args)}}


def _named_rule_args(st: CheckState, d: n.RuleDecl, name: str, args, params, span, ctx: str) -> dict:
    """``lmg(X: 2)``: a rule applied with its parameters by name (all by name)."""
    types = dict(params)
    out: dict[str, Any] = {}
    if not all(a for a, _ in args):
        st.err(f"{ctx}: write all parameters of '{name}' by name or all by position, not both", span, None, "syntax")
        return {"rule": name, "args": {}}
    for pname, value in args:
        if pname not in types:
            st.err(f"{ctx}: special rule '{name}' has no parameter '{pname}'", value.span, hint(pname, list(types)) or "parameters: " + (", ".join(types) or "none"), "unknown-name")
            continue
        out[pname] = convert_value(st, value, types[pname], f"{ctx} {name}({pname})")
    missing = [p.name for p in d.params if p.default is None and p.name not in out]
    if missing:
        st.err(f"{ctx}: special rule '{name}' needs {', '.join(missing)}", span, None, "arity")
    return {"rule": name, "args": {p: out[p] for p, _ in params if p in out}}


def _bad(st: CheckState, v: n.Value, t: T, ctx: str, hint_text: str | None = None):
    st.err(f"{ctx}: expected a value of type {t}, got {describe_value(v)}", v.span, hint_text, "type")
    return None


def check_data(st: CheckState) -> None:
    """Catalogs, dice, bags and special rules (tables have their own pass)."""
    for name, d in st.ast.items():
        st.current = name
        if isinstance(d, n.CatalogDecl):
            _catalog(st, d)
        elif isinstance(d, n.DieDecl):
            _die(st, d)
        elif isinstance(d, n.BagDecl):
            seen = set()
            for kind, count, span in d.tokens:
                if kind in seen:
                    st.err(f"token kind '{kind}' appears twice in bag {name}", span, None, "duplicate")
                seen.add(kind)
                if not isinstance(count, int) or count < 0:
                    st.err(f"a bag holds a whole number of tokens, got {count}", span, None, "type")
            if not d.tokens:
                st.err(f"bag {name} is empty", d.span, None, "empty")
            st.decls[name] = ir.Bag(**st.common(d), tokens=tuple((k, c) for k, c, _ in d.tokens))
        elif isinstance(d, n.RuleDecl):
            grants = []
            for g in d.grants:
                app = rule_application(st, g, f"rule {name} grants")
                if app is not None:
                    grants.append(ir.RuleApp(app["rule"], tuple(app["args"].items())))
            for lvl, _ in d.levels:
                if lvl < 0:
                    st.err("levels are whole numbers from 0", d.span, None, "type")
            params = tuple(
                ir.Param(name=p.name, type=t, default=None, span=p.span, default_text=None, title=param_title(st, p))
                for p, (_, t) in zip(d.params, st.rule_params.get(name, []))
            )
            st.decls[name] = ir.Rule(
                **st.common(d), params=params, texts=tuple(d.texts), levels=tuple(d.levels), grants=tuple(grants), stacking=d.stacking,
                combine=_combine(st, d, params),
            )
    st.current = None


def _catalog(st: CheckState, d: n.CatalogDecl) -> None:
    rec = st.ast.get(d.record)
    rows: dict[str, dict] = {}
    st.catalogs[d.name] = rows
    fields = st.record_fields.get(d.record, [])
    cols = list(d.columns) if d.columns is not None else [f for f, _, _ in fields]
    st.decls[d.name] = ir.Catalog(**st.common(d), record=d.record, columns=tuple(cols), entries=rows, entry_spans={})
    if not isinstance(rec, n.RecordDecl):
        st.unknown("record", d.record, d.record_span or d.span, st.names_of(n.RecordDecl))
        return
    st.use(d.record)
    by_name = {f: t for f, t, _ in fields}
    for c in cols:
        if c not in by_name:
            st.err(f"record {d.record} has no field '{c}'", d.columns_span or d.span, hint(c, list(by_name)), "unknown-name")
    missing = [f for f, t, _ in fields if f not in cols and t.kind not in ("opt", "list")]
    named_rows = any(named_cells(row.values, cols, by_name) is not None for row in d.rows)
    if missing and not named_rows:  # with named cells, each row says what it gives (checked below)
        st.err(f"columns of catalog {d.name} leave out required field{'s' if len(missing) > 1 else ''} {', '.join(missing)} of {d.record}", d.columns_span or d.span, None, "missing")
    spans = st.decls[d.name].entry_spans
    broken = st.broken_entries.setdefault(d.name, set())
    for row in d.rows:
        if row.id in rows or row.id in broken:
            st.err(f"id '{row.id}' appears twice in catalog {d.name}", row.span, f"first at {st.catalog_row_spans[(d.name, row.id)]}", "duplicate")
            continue
        st.catalog_row_spans[(d.name, row.id)] = row.span
        named = named_cells(row.values, cols, by_name)
        positional = row.values[:-1] if named is not None else row.values
        if named is None and len(row.values) != len(cols):
            hint_text = cells_hint(st, cols, [by_name.get(c, ANY) for c in cols], row.values)
            if len(row.values) < len(cols):
                hint_text += f"; or name the cells after the first ones: {row.id} | … | ({cols[len(row.values)]}: …, …)"
            st.err(
                f"row '{row.id}' has {counted(len(row.values), 'value')} but catalog {d.name} has {counted(len(cols), 'column')}: {' | '.join(cols)}",
                row.span, hint_text, "arity",
            )
            broken.add(row.id)  # declared: its uses are no further errors; its data is left out
            continue
        entry: dict[str, Any] = {}
        seen = len(st.rep.diagnostics)
        for c, v in zip(cols, positional):
            if c in by_name:
                entry[c] = convert_value(st, v, by_name[c], f"{d.name}.{row.id}.{c}")
        if named is not None and not _named_row(st, d, row, entry, named, by_name, cols[:len(positional)]):
            broken.add(row.id)
            continue
        if any(x.severity == "error" for x in st.rep.diagnostics[seen:]):
            broken.add(row.id)  # a bad cell: one error, at the cell; the entry is left out as above
            continue
        missing = [f for f, t in by_name.items() if f not in entry and t.kind not in ("opt", "list")] if named_rows else []
        if missing:
            st.err(f"row '{row.id}' gives no value for field{'s' if len(missing) > 1 else ''} {', '.join(missing)} of {d.record}", row.span,
                   "name them in the row's last cell: (" + ", ".join(f"{f}: …" for f in missing) + ")", "missing")
            broken.add(row.id)
            continue
        for f, t, _ in fields:
            entry.setdefault(f, [] if t.kind == "list" else None)
        rows[row.id] = {f: entry[f] for f, _, _ in fields}
        spans[row.id] = row.span


def named_cells(values: tuple, cols: list[str], types: dict[str, T]) -> tuple | None:
    """The ``(field: value, …)`` that ends a catalog row with named cells, or None.

    A row gives its first cells by position (the ``columns``, or the record's fields in
    order) and may end with the other fields by name: ``id | "Name" | (shoot: 4, …)``,
    or name them all: ``id | (name: "Name", …)``. A last ``(f: v, …)`` is a record value
    when a column of record or map type stands at its position, and named cells otherwise."""
    last = values[-1] if values else None
    if not isinstance(last, n.VRecord) or not last.fields or any(k is None for k, _ in last.fields):
        return None
    at = len(values) - 1
    if at > len(cols):
        return None
    if at < len(cols):
        t = types.get(cols[at])
        if len(values) == len(cols) and t is not None and t.inner.kind in ("record", "map"):
            return None  # the last column's record value, written by name
    return last.fields


def _named_row(st: CheckState, d: n.CatalogDecl, row: n.CatalogRow, entry: dict, named: tuple, by_name: dict[str, T], given: list[str]) -> bool:
    """The named cells of a row into ``entry``: each a field of the record, named once, not
    also given by position; the required fields all given. False after an error."""
    ok = True
    seen: dict[str, Any] = {}
    for name, v in named:
        if name not in by_name:
            st.err(f"row '{row.id}': record {d.record} has no field '{name}'", v.span, hint(name, list(by_name)) or "fields: " + ", ".join(by_name), "unknown-name")
            ok = False
        elif name in given:
            st.err(f"row '{row.id}': field '{name}' is given twice, by position and by name", v.span,
                   f"cell {given.index(name) + 1} of the row, by position, is its '{name}': leave '{name}:' out of the named cells", "duplicate")
            ok = False
        elif name in seen:
            st.err(f"row '{row.id}': field '{name}' is named twice", v.span, None, "duplicate")
            ok = False
        else:
            seen[name] = v
            entry[name] = convert_value(st, v, by_name[name], f"{d.name}.{row.id}.{name}")
    return ok


def _fits(st: CheckState, v: n.Value, t: T) -> bool:
    """Would ``v`` be a value of ``t``? (converted without a word to the reporter)"""
    reporter, refs = st.rep, len(st.pending_refs)
    st.rep = Reporter()
    try:
        convert_value(st, v, t, "")
        return not st.rep.has_errors()
    finally:
        st.rep = reporter
        del st.pending_refs[refs:]


def cells_hint(st: CheckState, cols: list[str], types: list[T], values) -> str:
    """How a row with a wrong number of cells reads: the one column whose value seems
    missing (or the one value too many) when only one fits the types, else each column
    with the value it would get."""
    def shown(v) -> str:
        return ir.span_text(st.sources, v.span) or "?"

    gap = len(cols) - len(values)
    if abs(gap) == 1 and len(cols) <= MAX_CELLS_TRIED:
        fitting = []
        for k in range(max(len(cols), len(values))):
            cs, ts, vs = (cols[:k] + cols[k + 1:], types[:k] + types[k + 1:], values) if gap == 1 else (cols, types, values[:k] + values[k + 1:])
            if all(_fits(st, v, t) for v, t in zip(vs, ts)):
                fitting.append(k)
        if 1 <= len(fitting) <= 3:
            k = fitting[0]
            after = f" (after {cols[k - 1]} = {shown(values[k - 1])})" if k else ""
            if gap == 1:
                return f"the value of {' or '.join(repr(cols[i]) for i in fitting)} seems to be missing{after}"
            return f"the value {' or '.join(shown(values[i]) for i in fitting)} seems to be one too many{after}"
    pairs = [f"{c} = {shown(v)}" for c, v in zip(cols, values)]
    rest = f"; nothing for {', '.join(cols[len(values):])}" if len(values) < len(cols) else f"; left over: {', '.join(shown(v) for v in values[len(cols):])}"
    return "the row reads as " + ", ".join(pairs) + rest


MAX_CELLS_TRIED = 64
"""The widest row whose missing (or extra) cell :func:`cells_hint` looks for (a conversion per cell per place)."""


def _die(st: CheckState, d: n.DieDecl) -> None:
    faces: list = []
    if d.face_enum:
        if not isinstance(st.ast.get(d.face_enum), n.EnumDecl):
            st.unknown("enum", d.face_enum, d.span, st.names_of(n.EnumDecl))
        else:
            st.use(d.face_enum)
            faces = [convert_value(st, f, T("enum", d.face_enum), f"die {d.name}") for f in d.faces]
    else:
        for f in d.faces:
            if not (isinstance(f, n.VNum) and isinstance(f.value, int)):
                st.err(
                    f"faces of die {d.name} must be whole numbers (or declare `of <Enum>` for named faces), got {describe_value(f)}",
                    f.span, None, "type",
                )
            else:
                faces.append(f.value)
    if not d.faces:
        st.err(f"die {d.name} has no faces", d.span, None, "empty")
    st.decls[d.name] = ir.Die(**st.common(d), face_enum=d.face_enum, faces=tuple(faces))


def check_references(st: CheckState) -> None:
    """Ids defined twice across catalogs of one record, and ``ref`` values that name no entry."""
    first: dict[tuple[str, str], str] = {}
    for name, d in st.ast.items():
        if not isinstance(d, n.CatalogDecl):
            continue
        for ident in st.catalogs.get(name, {}):
            key = (d.record, ident)
            if key not in first:
                first[key] = name
                continue
            other = first[key]
            a, b = st.catalogs[other][ident], st.catalogs[name][ident]
            differing = [f for f in a if a.get(f) != b.get(f)]
            if differing:
                st.warn(
                    f"id '{ident}' is defined in catalogs {other} and {name} with different values ({', '.join(differing)})",
                    st.catalog_row_spans[(name, ident)],
                    f"the other definition is at {st.catalog_row_spans[(other, ident)]}",
                    "duplicate-id",
                )
    printed = _as_printed(st)
    dangling: dict[str, set[str]] = {}
    for cats, ident, span, ctx in st.pending_refs:
        names = cats.split("|")
        if any(ident in st.ref_ids(c) for c in names):
            continue
        owner = _owner(st, span)
        if owner in printed and ident in printed[owner][0]:
            dangling.setdefault(owner, set()).add(ident)
            continue
        pool = [i for c in names for i in st.ref_ids(c) if isinstance(i, str)]
        guess = did_you_mean(ident, pool)
        if len(names) == 1:
            where = f"catalog {cats}"
        elif len(names) <= 3:
            where = "any of the catalogs " + ", ".join(names)
        else:
            where = f"any of the {len(names)} catalogs {', '.join(names[:2])}, …"
        keep = f" If the manual prints it so, list it in @as_printed(ids: [{ident}], reason: \"…\") above {owner}." if owner else ""
        st.err(
            f"{ctx}: '{ident}' is not an entry of {where}", span,
            (f"did you mean '{guess}'?" if guess else f"catalog {names[0]} is declared at {st.ast[names[0]].span}.") + keep, "unknown-ref",
            suggest=st.replace_word(span, ident, guess) if guess else (),
        )
    for owner, (ids, reason, ann) in printed.items():
        stale = [i for i in ids if i not in dangling.get(owner, set())]
        if stale:
            st.err(
                f"@as_printed on {owner} lists {', '.join(repr(i) for i in stale)}, which {owner} does not reference or which exist",
                ann.span, "list only the ids that name no entry", "annotation",
            )
        decl = st.decls.get(owner)
        if decl is not None:
            decl.as_printed = tuple(ids)
            decl.as_printed_reason = reason
    check_contract(st)


def _owner(st: CheckState, span) -> str | None:
    """The declaration whose text holds ``span``: the last one of its file that starts before it."""
    best, where = None, (0, 0)
    for name, d in st.ast.items():
        ds = getattr(d, "span", None)
        if ds is not None and ds.file == span.file and where < (ds.line, ds.col) <= (span.line, span.col):
            best, where = name, (ds.line, ds.col)
    return best


def _as_printed(st: CheckState) -> dict[str, tuple[list[str], str, n.Annotation]]:
    """``@as_printed(ids: [a, b], reason: "…")`` of each declaration: ids it may reference
    though no entry defines them, because the manual prints them so."""
    out = {}
    for name, d in st.ast.items():
        for ann in getattr(d, "annotations", ()):
            if ann.name != "as_printed":
                continue
            fields = dict(ann.value.fields) if isinstance(ann.value, n.VRecord) and all(k for k, _ in ann.value.fields) else None
            ids = fields.get("ids") if fields else None
            reason = fields.get("reason") if fields else None
            if (fields is None or set(fields) != {"ids", "reason"} or not isinstance(ids, n.VList) or not ids.items
                    or not all(isinstance(i, (n.VName, n.VStr)) for i in ids.items)
                    or not isinstance(reason, n.VStr) or not reason.value.strip()):
                st.err(
                    "@as_printed expects the ids and a reason", ann.span,
                    '@as_printed(ids: [id_a, id_b], reason: "El manual lista estas filas, pero …")', "annotation",
                )
                continue
            out[name] = ([i.name if isinstance(i, n.VName) else i.value for i in ids.items], reason.value.strip(), ann)
    return out


COMBINATIONS = ("first", "sum", "max", "min")
"""How ``rule_param`` combines several applications of one rule (``stacking max``)."""


def _combine(st: CheckState, d: n.RuleDecl, params) -> str | None:
    """The ``stacking NAME`` of a rule: one of :data:`COMBINATIONS`; all but ``first``
    need numeric parameters."""
    if d.combine is None:
        return None
    how, span = d.combine
    if how not in COMBINATIONS:
        st.err(f"unknown way of stacking '{how}'", span, hint(how, COMBINATIONS) or "expected one of: " + ", ".join(COMBINATIONS), "type")
        return None
    if how != "first":
        for p in params:
            if p.type.inner.kind not in ("int", "decimal"):
                st.err(f"stacking {how} adds up or compares parameters: {p.name} is {p.type}", span, "stack rules with numeric parameters, or write stacking first", "type")
                return None
    return how
