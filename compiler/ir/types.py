"""Types of the rules language, as the checker and the emitters see them.

A :class:`T` is a small immutable value: ``T("int")``, ``T("enum", "Calidad")``,
``T("list", args=(T("int"),))``, ``T("opt", args=(inner,))``…
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class T:
    """A type: ``kind`` plus the declaration it names and type arguments.

    Kinds of values: ``int``, ``decimal``, ``text``, ``bool``, ``id``, ``rule``,
    ``none``, ``any`` (after an error), ``enum`` (a member of enum ``name``),
    ``record``, ``ref``/``refs`` (an entry id of catalog(s) ``name``, ``|``-separated),
    ``list``/``opt``/``map`` (with ``args``), ``row`` (a row of table ``name``),
    ``counts`` (how many of each kind, ``args`` are ``key`` types). Kinds of
    declarations used as the object of ``.`` or ``[…]``: ``enum_type``,
    ``table``, ``catalog``.
    """

    kind: str
    name: str | None = None
    args: tuple["T", ...] = ()

    def __str__(self) -> str:
        k = self.kind
        if k == "row":
            return f"row of table {self.name}"
        if k == "table":
            return f"table {self.name}"
        if k == "catalog":
            return f"catalog {self.name}"
        if k == "enum_type":
            return f"enum {self.name}"
        if k in ("enum", "record", "procedure"):
            return self.name or k
        if k == "list":
            return f"list[{self.args[0]}]"
        if k == "map":
            return f"map[{self.name}, {self.args[0]}]"
        if k == "opt":
            return f"{self.args[0]}?"
        if k in ("ref", "refs"):
            return "ref " + " | ".join(self.name.split("|"))
        if k == "counts":
            return f"recuento de {self.name}"
        return k

    @property
    def inner(self) -> "T":
        """The type without its optional marker."""
        return self.args[0] if self.kind == "opt" else self


INT = T("int")
DEC = T("decimal")
TEXT = T("text")
BOOL = T("bool")
NONE = T("none")
ANY = T("any")
ID = T("id")
RULE = T("rule")
PRIMITIVES = {"int": INT, "decimal": DEC, "text": TEXT, "bool": BOOL}


def opt(t: T) -> T:
    """``t?`` (idempotent)."""
    if t.kind in ("opt", "any", "none"):
        return t
    return T("opt", None, (t,))


def is_numeric(t: T) -> bool:
    return t.kind in ("int", "decimal", "any")


def assignable(src: T, dst: T) -> bool:
    """Can a value of type ``src`` be used where ``dst`` is expected?"""
    if src == dst or src.kind == "any" or dst.kind == "any":
        return True
    if dst.kind == "opt":
        return src.kind == "none" or assignable(src.inner, dst.args[0])
    if src.kind == "int" and dst.kind == "decimal":
        return True
    if src.kind == "list" and dst.kind == "list":
        return assignable(src.args[0], dst.args[0])
    if src.kind == "text" and dst.kind == "id":
        return True
    if src.kind in ("ref", "refs") and dst.kind in ("text", "id"):
        return True
    if src.kind == "ref" and dst.kind == "refs":
        return src.name in dst.name.split("|")
    return False


def unify(a: T, b: T) -> T | None:
    """The smallest type holding both, or None."""
    if assignable(a, b):
        return b
    if assignable(b, a):
        return a
    if a.kind == "none":
        return opt(b)
    if b.kind == "none":
        return opt(a)
    if a.kind == "opt" or b.kind == "opt":
        u = unify(a.inner, b.inner)
        return opt(u) if u else None
    if {a.kind, b.kind} == {"int", "decimal"}:
        return DEC
    return None
