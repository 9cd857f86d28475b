"""Types of the rules language → Python type annotations of the generated package.

Reads: a :class:`rulebook.compiler.ir.types.T` and where the annotation is written. Produces:
the annotation's text (:func:`annotation`) and the names of the aliases ``types.py``
declares for checkers (:func:`enum_alias`, :func:`catalog_alias`). The generated modules
start with ``from __future__ import annotations``: annotations are never evaluated at run
time (they cost the import nothing), only read by type checkers (mypy, pyright). What they
name besides builtins and the package's types is the runtime's (``_rt.Sequence``,
``_rt.Literal``…, re-exported there so that generated code imports nothing else).

==============  =====================================  ==========================================
rules type      a parameter                             a record field, a result
==============  =====================================  ==========================================
int             ``int``                                 ``int``
decimal         ``int | _rt.Fraction``                  ``int | _rt.Fraction``
text, id        ``str``                                 ``str``
bool            ``bool``                                ``bool``
enum E          ``E`` (``Literal['a', …]``)             ``E``
ref c           ``Ref_c`` (``Literal[id, …]``)          ``Ref_c``
record R        ``R`` (the class)                       ``R``
list[T]         ``_rt.Sequence[T]`` (a list, a tuple)   ``tuple[T, ...]``
map[E, T]       ``_rt.Mapping[E, T]``                   ``_rt.Mapping[E, T]``
T?              ``T | None``                            ``T | None``
rule            ``_rt.RuleApp``                         ``_rt.RuleApp``
==============  =====================================  ==========================================

An enum's alias is the enum's own Python name, as a record's class is the record's: the rules
declare each name once, so they never clash with one another; a catalog's is ``Ref_`` and its
Python name. Outside ``types.py`` each is read through the module (``_t.Calidad``).
"""

from __future__ import annotations

from rulebook.compiler.emit.python.layout import Chain, Doc, Group, Seq
from rulebook.compiler.emit.python.names import py_name
from rulebook.compiler.ir.types import T

SIMPLE = {"int": "int", "decimal": "int | _rt.Fraction", "text": "str", "id": "str", "bool": "bool",
          "rule": "_rt.RuleApp", "counts": "_rt.Counts", "none": "None"}


def enum_alias(name: str) -> str:
    """The alias of the enum ``name`` in ``types.py``: ``Calidad = _rt.Literal['green', …]``."""
    return py_name(name)


def catalog_alias(name: str) -> str:
    """The alias of the ids of the catalog ``name`` in ``types.py``: ``Ref_perfiles_armas``."""
    return f"Ref_{py_name(name)}"


def annotation(t: T, types: str = "_t.", param: bool = False, escaped: frozenset[str] = frozenset()) -> Doc:
    """The annotation of a value of type ``t``, a doc that breaks inside its brackets when too
    long; ``types`` prefixes the names ``types.py`` declares (``""`` in ``types.py`` itself);
    ``param``: of a parameter, which takes any sequence for a list; ``escaped``: names written
    ``_type_<name>`` instead (a record field of that name would hide the type in its class)."""

    def declared(name: str) -> str:
        return f"{types}_type_{name}" if name in escaped else f"{types}{name}"

    def of(inner: T) -> Doc:
        return annotation(inner, types, param, escaped)

    k = t.kind
    if k in SIMPLE:
        return SIMPLE[k]
    if k == "opt":
        return Seq((of(t.args[0]), " | None"))
    if k == "enum":
        return declared(enum_alias(t.name))
    if k == "record":
        return declared(py_name(t.name))
    if k in ("ref", "refs"):
        first, *rest = [declared(catalog_alias(c)) for c in t.name.split("|")]
        return Chain(first, tuple(("|", r) for r in rest)) if rest else first  # parenthesised: it may break
    if k == "list":
        return Group("_rt.Sequence", (of(t.args[0]),), "[", "]") if param else Group("tuple", (of(t.args[0]), "..."), "[", "]")
    if k == "map":
        return Group("_rt.Mapping", (declared(enum_alias(t.name)), of(t.args[0])), "[", "]")
    return "_rt.Any"


def names_in(t: T) -> set[str]:
    """The names ``types.py`` declares that the annotation of ``t`` reads."""
    if t.kind in ("enum", "map"):
        return {enum_alias(t.name)} | set().union(*(names_in(a) for a in t.args))
    if t.kind == "record":
        return {py_name(t.name)}
    if t.kind in ("ref", "refs"):
        return {catalog_alias(c) for c in t.name.split("|")}
    return set().union(*(names_in(a) for a in t.args))
