"""Pass 2 — types and signatures: the value and type of each constant, the
values of each enum, the fields of each record, the parameters of each special
rule and procedure and their types.

Entry point: :func:`check_signatures(state)`. Reads the declarations of pass 1;
adds ``consts``, ``enum_members``, ``record_fields``, ``rule_params``,
``param_types`` and ``result_types`` to the state, and the IR
:class:`~rulebook.compiler.ir.Const`, :class:`~rulebook.compiler.ir.Enum` and
:class:`~rulebook.compiler.ir.Record` declarations. Enum values that break the naming
rule (lower_snake_case ASCII) are warned about (code ``naming``). :func:`resolve_type` turns a written
type into a :class:`~rulebook.compiler.ir.types.T` for the later passes.
"""

from __future__ import annotations

import re
import unicodedata

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler import ir
from rulebook.compiler.ir.types import ANY, BOOL, DEC, ID, INT, PRIMITIVES, RULE, TEXT, T, opt
from rulebook.compiler.check.state import CheckState, describe_value, referenceable


def resolve_type(st: CheckState, tr: n.TypeRef) -> T:
    """The type a written type names (``ANY`` after reporting an unknown name)."""
    t = _resolve_base(st, tr)
    return opt(t) if tr.optional else t


def _resolve_base(st: CheckState, tr: n.TypeRef) -> T:
    if tr.kind == "named":
        if tr.name in PRIMITIVES:
            return PRIMITIVES[tr.name]
        d = st.ast.get(tr.name)
        if isinstance(d, n.EnumDecl):
            st.use(tr.name)
            return T("enum", tr.name)
        if isinstance(d, n.RecordDecl):
            st.use(tr.name)
            return T("record", tr.name)
        st.unknown("type", tr.name, tr.span, [*PRIMITIVES, *st.names_of(n.EnumDecl, n.RecordDecl)])
        return ANY
    if tr.kind == "list":
        return T("list", None, (resolve_type(st, tr.args[0]),))
    if tr.kind == "map":
        d = st.ast.get(tr.name)
        if not isinstance(d, n.EnumDecl):
            st.unknown("enum", tr.name, tr.span, st.names_of(n.EnumDecl))
            return ANY
        st.use(tr.name)
        return T("map", tr.name, (resolve_type(st, tr.args[0]),))
    if tr.kind == "ref":
        names = tr.name.split("|")
        for name in names:
            if not referenceable(st.ast.get(name)):
                candidates = [*st.names_of(n.CatalogDecl), *(k for k, d in st.ast.items() if referenceable(d))]
                st.unknown("catalog (or table keyed by id)", name, tr.span, candidates)
                return ANY
            st.use(name)
        return T("ref", tr.name) if len(names) == 1 else T("refs", tr.name)
    if tr.kind == "rule":
        return RULE
    return ID


#: The naming rule of enum values: lower_snake_case ASCII (the title carries the printed form).
MEMBER_NAME = re.compile(r"[a-z][a-z0-9_]*")


def member_name(name: str) -> str:
    """The enum value name that follows the rule for ``name``: ``Green`` → ``green``,
    ``Órgano`` → ``organo``, ``EnCampo`` → ``en_campo``, ``AB`` → ``ab``."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    plain = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", plain).lower()
    plain = re.sub(r"[^a-z0-9]+", "_", plain).strip("_")
    if not plain or not plain[0].isalpha():
        plain = "v_" + plain
    return plain


def _check_member_name(st: CheckState, enum: str, m: n.EnumMember) -> None:
    """Warn (code ``naming``) on a value that is not lower_snake_case ASCII."""
    if MEMBER_NAME.fullmatch(m.name):
        return
    good = member_name(m.name)
    title = m.title if m.title is not None else m.name
    st.warn(
        f"enum value '{m.name}' of {enum} is not lower_snake_case ASCII", m.span,
        f'write {good} "{title}" (the title carries the printed form) and use it as {enum}.{good}', "naming",
    )


def _const(st: CheckState, d: n.ConstDecl) -> None:
    """``const name "Título" = value``: a number, text or true/false literal; its type is the literal's."""
    v = d.value
    if isinstance(v, n.VNum):
        value, t = v.value, INT if isinstance(v.value, int) else DEC
    elif isinstance(v, n.VStr):
        value, t = v.value, TEXT
    elif isinstance(v, n.VBool):
        value, t = v.value, BOOL
    else:
        st.err(
            f"const {d.name} must be a number, a text or true/false, got {describe_value(v)}", v.span,
            "a const names one literal value: const tope \"Título\" = 4", "type",
        )
        value, t = None, ANY
    st.consts[d.name] = t
    st.decls[d.name] = ir.Const(**st.common(d), value=value, type=t)


def check_signatures(st: CheckState) -> None:
    """Constants, enum values, record fields, rule and procedure parameters."""
    for name, d in st.ast.items():
        st.current = name
        if isinstance(d, n.ConstDecl):
            _const(st, d)
        elif isinstance(d, n.EnumDecl):
            seen: dict[str, Span] = {}
            for m in d.members:
                if m.name in seen:
                    st.err(f"value '{m.name}' appears twice in enum {name}", m.span, f"first at {seen[m.name]}", "duplicate")
                seen[m.name] = m.span
                _check_member_name(st, name, m)
            members = [m for m in d.members if seen.get(m.name) is m.span]
            st.enum_members[name] = [(m.name, m.title or m.name) for m in members]
            if not d.members:
                st.err(f"enum {name} has no values", d.span, None, "empty")
            st.decls[name] = ir.Enum(
                **st.common(d), ordered=d.ordered,
                members=tuple(ir.EnumMember(name=m.name, title=m.title or m.name, span=m.span) for m in members),
            )
    for name, d in st.ast.items():
        st.current = name
        if isinstance(d, n.RecordDecl):
            fields = []
            seen = {}
            for f in d.fields:
                if f.name in seen:
                    st.err(f"field '{f.name}' appears twice in record {name}", f.span, f"first at {seen[f.name]}", "duplicate")
                    continue
                seen[f.name] = f.span
                fields.append(ir.RecordField(name=f.name, type=resolve_type(st, f.type), title=f.title, span=f.span))
            st.record_fields[name] = [(f.name, f.type, f.title) for f in fields]
            st.decls[name] = ir.Record(**st.common(d), fields=tuple(fields))
        elif isinstance(d, n.RuleDecl):
            st.rule_params[name] = [(p.name, resolve_type(st, p.type)) for p in d.params]
        elif isinstance(d, n.ProcedureDecl):
            st.param_types[name] = [(p.name, resolve_type(st, p.type)) for p in d.params]
            st.result_types[name] = resolve_type(st, d.result)
    st.current = None


def param_title(st: CheckState, p: n.Param) -> str | None:
    """The title of a parameter (``name: type "Title"``), refused when it is empty."""
    if p.title is not None and not p.title.strip():
        st.err(f"the title of parameter '{p.name}' is empty", p.span, "write the words players read, or leave the title out", "empty")
        return None
    return p.title
