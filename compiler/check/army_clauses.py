"""The words of ``army`` clauses and the arguments a clause is given, read and checked.

Reads one :class:`~rulebook.rules_dsl.nodes.ArmyClause` (its positional values and its
``name: value`` pairs). Produces the clause's arguments checked against what its word
accepts (:class:`ClauseArgs`: a ``name:`` it does not take, given twice or missing; too
many values before the pairs), and the values read from them: a whole number
(:func:`whole_number`), a list of names (:func:`names_in`); and the words of clauses
(:data:`TOP_CLAUSES`, :data:`UNIT_CLAUSES`, :data:`UNIT_ARGS`) the editors and the language
server offer. Every problem is reported at its position, in the category ``army``.
"""

from __future__ import annotations

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler.check.state import CheckState, hint

TOP_CLAUSES = ("side", "sides", "roles", "sizes", "size", "agreed", "bonus", "quality", "units", "limit", "limits")
"""The clauses of an ``army`` block."""
UNIT_CLAUSES = ("options", "option")
"""The clauses of a ``units`` block."""
UNIT_ARGS = ("side", "cost", "category", "weight", "name", "per_model", "models", "max_models", "composition", "amount", "alternatives")
"""The ``name:`` arguments of a ``units`` clause."""


class ClauseArgs:
    """A clause's arguments, checked against what its word accepts."""

    def __init__(self, st: CheckState, clause: n.ArmyClause, positional: int, named: tuple[str, ...], required: tuple[str, ...] = ()):
        self.st, self.clause = st, clause
        self.pos: list[n.Value] = [v for k, v in clause.args if k is None]
        self.named: dict[str, n.Value] = {}
        self.named_ok = named
        for k, v in clause.args:
            if k is None:
                continue
            if k in self.named:
                st.err(f"'{k}:' is given twice in '{clause.word}'", v.span, None, "army")
            elif k not in named and named != ("*",):
                st.err(f"'{clause.word}' has no '{k}:'", v.span, hint(k, named) or ("it takes: " + ", ".join(f"{x}:" for x in named) if named else "it takes no 'name: value'"), "army")
            self.named[k] = v
        if len(self.pos) > positional:
            st.err(f"'{clause.word}' takes {positional or 'no'} value{'s' if positional != 1 else ''} before its 'name: value' pairs", self.pos[positional].span, None, "army")
        for k in required:
            if k not in self.named:
                st.err(f"'{clause.word}' needs '{k}:'", clause.span, None, "army")

    def name(self, i: int, what: str) -> str | None:
        """The i-th positional value as a name (reported when missing or not a name)."""
        if i >= len(self.pos):
            self.st.err(f"'{self.clause.word}' needs {what}", self.clause.span, None, "army")
            return None
        v = self.pos[i]
        if isinstance(v, n.VName):
            return v.name
        self.st.err(f"expected {what} here (a name)", v.span, None, "army")
        return None

    def title(self, i: int) -> str | None:
        if i < len(self.pos) and isinstance(self.pos[i], n.VStr):
            return self.pos[i].value
        if i < len(self.pos):
            self.st.err('expected a display title here ("…")', self.pos[i].span, None, "army")
        return None

    def span(self, i_or_key) -> Span:
        if isinstance(i_or_key, int):
            return self.pos[i_or_key].span if i_or_key < len(self.pos) else self.clause.span
        v = self.named.get(i_or_key)
        return v.span if v is not None else self.clause.span


def whole_number(st: CheckState, v: n.Value, what: str, low: int | None = 0) -> int | None:
    """A whole number literal (at least ``low``), reported otherwise."""
    value = v.value if isinstance(v, n.VNum) else None
    if not isinstance(value, int) or isinstance(value, bool):
        example = max(low or 0, 1)
        st.err(f"{what} must be a whole number", v.span, f"write digits, without quotes or decimals (e.g. {example})", "army")
        return None
    if low is not None and value < low:
        st.err(f"{what} must be at least {low}, got {value}", v.span, f"write {low} or more", "army")
        return None
    return value


def names_in(st: CheckState, v: n.Value, what: str) -> list[tuple[str, Span]]:
    """``[a, b]`` (or one name) as names with their spans."""
    items = v.items if isinstance(v, n.VList) else (v,)
    out = []
    for x in items:
        if isinstance(x, n.VName):
            out.append((x.name, x.span))
        elif isinstance(x, n.VQualified):
            out.append((x.name, x.span))
        else:
            st.err(f"expected {what} (a name)", x.span, None, "army")
    return out


def report_unknown(st: CheckState, what: str, name: str, span: Span, candidates) -> None:
    """``unknown <what> 'name'``: a did-you-mean when one is close, else the names
    it could be (the first few)."""
    names = [c for c in candidates if isinstance(c, str)]
    if hint(name, names) or not names:
        st.unknown(what, name, span, names)
        return
    shown = ", ".join(names[:8]) + (f", … ({len(names)} in all)" if len(names) > 8 else "")
    st.err(f"unknown {what} '{name}'", span, f"known: {shown}", "unknown-name")


def fields_of(fields: dict, kinds: tuple[str, ...]) -> list[str]:
    """The names of the record fields of one of these kinds."""
    return [f for f, t in fields.items() if t.inner.kind in kinds]
