"""Last pass — the JSON Schemas' type names: no two types of a build get one name.

Entry point: :func:`check_type_names(state, program)`. Reads the assembled IR program;
reports, at the later declaration, each type name the schemas would give twice
(:func:`rulebook.compiler.ir.type_names.clashes`: a record ``MeleeResult`` and the result
of a procedure ``melee``; ``foo_bar`` and ``FooBar``; a record named like a fixed type,
``Range``), pointing at the first. ``rulebook build`` would refuse the same rulebook, so
``rulebook check`` reports it.
"""

from __future__ import annotations

import re

from rulebook.rules_dsl.diagnostics import Span

from rulebook.compiler import ir
from rulebook.compiler.ir.type_names import Claim, clashes
from rulebook.compiler.check.state import CheckState

_FIXED_MEANING = {
    "Status": "a declaration's status", "Range": "a range of a table key", "Column": "a column of a table",
    "AsPrinted": "an @as_printed list", "RuleId": "a special rule's id", "RuleApplication": "a special rule applied",
}


def check_type_names(st: CheckState, program: ir.Program) -> None:
    """One error per declaration whose schema type name an earlier one (or a fixed type) has."""
    reported: set[tuple[str, str]] = set()
    for first, later in clashes(program):
        decl = later.decl if later.decl is not None else first.decl
        other = first if decl is later.decl else later
        if decl is None or (decl.name, later.name) in reported:
            continue
        reported.add((decl.name, later.name))
        mine = later if decl is later.decl else first
        st.err(
            f"{mine.what} would be named {later.name} in the JSON Schemas, and so would {_described(other)}",
            _name_span(st, decl), _hint(mine, other), "type-name",
        )


def _described(claim: Claim) -> str:
    if claim.decl is not None:
        return claim.what
    meaning = _FIXED_MEANING.get(claim.name)
    return f"{claim.what}{f' ({meaning})' if meaning else ''}, which every build defines" if claim.what.startswith("the fixed") else claim.what


def _hint(mine: Claim, other: Claim) -> str:
    name = mine.decl.name if mine.decl is not None else mine.name
    if other.decl is not None:
        return f"{other.what} is declared at {other.decl.span}; rename one of them (each type of the schemas needs a name of its own)"
    return f"rename {name}: the schemas keep {other.name} for {'that type' if other.what.startswith('the map') else 'their own type'}"


def _name_span(st: CheckState, decl: ir.Decl) -> Span:
    """The declaration's name on its first line (the whole declaration's start when not found there)."""
    span = decl.span
    lines = st.sources.get(span.file, "").splitlines()
    if 1 <= span.line <= len(lines):
        m = re.search(rf"(?<![\w.]){re.escape(decl.name)}(?!\w)", lines[span.line - 1][span.col - 1:])
        if m:
            col = span.col + m.start()
            return Span(span.file, span.line, col, span.line, col + len(decl.name))
    return span
