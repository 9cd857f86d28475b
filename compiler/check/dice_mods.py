"""The modifiers of a roll: ``reroll``, ``explode … chain K``, per-die tests, several counts.

Entry point: :func:`check_mods(st, roll, scope, face_enum, check) -> ir.DiceMods`, called
by the expressions pass (:mod:`.expressions`) for a roll whose AST carries
:class:`~rulebook.rules_dsl.nodes.DiceMods`. Reads the roll's tests (``>= 4``, a bare
``6``, ``each d if cond``), its ``chain`` and its ``count (name: TEST, …)``; produces
their IR (:mod:`rulebook.compiler.ir.dice`), every test typed against the die's faces
(numbers, or the members of the die's enum), and a diagnostic for each misuse.

A per-die condition is checked in a :class:`FaceScope`: its one name is the face of
one die, which the expressions pass turns into :class:`~rulebook.compiler.ir.DieFace`;
the condition is worked out once per face, so it may read parameters and ``let``
values but not roll, draw or call a procedure.
"""

from __future__ import annotations

from collections.abc import Callable

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.parser import KEYWORDS

from rulebook.compiler import ir
from rulebook.compiler.ir.types import ANY, BOOL, INT, T, assignable, is_numeric
from rulebook.compiler.ir.walk import walk
from rulebook.compiler.check.state import CheckState, Scope

MAX_CHAIN = 100  # dice one die may add by exploding; the runtime's limit too (runtime/dice_mods.py)

Check = Callable[..., ir.Expr]  # expressions.check_expr, handed in (this module is below it)


class FaceScope(Scope):
    """The scope of a per-die condition ``each d if …``: ``d`` is one die's face."""


def face_hint(obj: ir.Expr) -> str | None:
    """A hint for ``d.x`` where ``d`` is the face of a die with numeric faces."""
    if isinstance(obj, ir.DieFace) and obj.type == INT:
        return f"'{obj.name}' is the face of one die, a number: compare it directly (each {obj.name} if {obj.name} >= 4)"
    return None


def check_mods(st: CheckState, e: n.Roll, scope: Scope, face_enum: str | None, check: Check) -> ir.DiceMods:
    """The IR of ``e.mods``; ``face_enum``: the enum of the die's named faces (None: numeric faces)."""
    mods = e.mods
    assert mods is not None
    face = T("enum", face_enum) if face_enum else INT
    reroll = _test(st, mods.reroll, scope, face, "reroll", check) if mods.reroll is not None else None
    explode = _test(st, mods.explode, scope, face, "explode", check) if mods.explode is not None else None
    chain = _chain(st, mods.chain) if mods.chain is not None else 1
    counts = None
    if mods.counts is not None:
        seen: set[str] = set()
        items = []
        for name, test, span in mods.counts:
            if name is not None and name in seen:
                st.err(f"'{name}' is counted twice in this roll", span, "give each count its own name", "duplicate")
            seen.add(name or "")
            items.append((name or "", _test(st, test, scope, face, "count", check)))
        counts = tuple(items)
    return ir.DiceMods(reroll, explode, chain, counts)


def _test(st: CheckState, t: n.DieTest, scope: Scope, face: T, what: str, check: Check) -> ir.DieTest:
    """One test of a die's face, typed: ``op value`` or ``each name if cond``."""
    if t.op is not None:
        value = check(st, t.value, scope)
        vt = value.type
        if face.kind == "enum":
            if t.op not in ("==", "!=") or not assignable(vt, face):
                st.err(f"dice with named faces are tested with == or != against a {face.name}, got {t.op} {vt}", t.span,
                       f"e.g. {what} == {face.name}.<face>", "type")
        elif vt != ANY and not is_numeric(vt):
            st.err(f"the faces of this die are numbers: {what} tests them against a number, got {vt}", t.value.span, None, "type")
        return ir.DieTest(t.op, value, None, t.span)
    name = t.name or ""
    if scope.get(name) is not None or name in st.ast or name in KEYWORDS:
        st.err(f"'{name}' is already defined or reserved; choose another name for the die's face", t.span, None, "shadow")
    inner = FaceScope(scope)
    inner.vars[name] = (face, t.span)
    cond = check(st, t.value, inner)
    if cond.type not in (BOOL, ANY):
        st.err(f"the condition of {what} each {name} if … must be true/false, got {cond.type}", t.value.span, None, "type")
    for node in walk(cond):
        if isinstance(node, (ir.Roll, ir.Draw, ir.ProcedureCall)):
            st.err(f"the condition of {what} each {name} is worked out for each face: it cannot roll, draw or call a procedure",
                   node.span, "roll first, with let, and test the value here", "type")
            break
    return ir.DieTest(None, cond, name, t.span)


def _chain(st: CheckState, k: n.Expr) -> int:
    """``chain K``: a whole number from 1 to :data:`MAX_CHAIN`, written as a number."""
    if not (isinstance(k, n.Num) and isinstance(k.value, int) and k.value >= 1):
        st.err("chain needs a whole number of at least 1, written as a number: the most dice one die may add",
               k.span, "e.g. explode 6 chain 3", "type")
        return 1
    if k.value > MAX_CHAIN:
        st.err(f"one die adds at most {MAX_CHAIN} dice by exploding, got chain {k.value}", k.span, None, "limit")
        return MAX_CHAIN
    return k.value
