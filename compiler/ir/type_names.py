"""The type names of the JSON Schemas: which declaration gives which name.

Reads a :class:`rulebook.compiler.ir.Program`. Produces :func:`type_name` (a DSL name as
the ASCII PascalCase identifier of its schema type), :func:`id_def` and :func:`map_def`
(the names of a catalog's ids and of a map type), :func:`used_types` (every type the
data and signatures write), :data:`FIXED_TYPE_NAMES` (the names every build defines)
and :func:`clashes` (two types that would get one name).

One place for both sides: the checker (:mod:`rulebook.compiler.check.type_names`) reports
a clash at the declaration, and the data emitter (:mod:`rulebook.compiler.emit.data.schemas`)
names the types with the same functions, so that ``rulebook check`` refuses every name
``rulebook build`` would.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from rulebook.compiler import ir
from rulebook.compiler.ir.types import T

SHARED_TYPE_NAMES = ("Status", "Range", "Column", "AsPrinted")
"""The shared ``$defs`` of ``types.schema.json`` (a declaration's status, a table key's
range, a table column, an ``@as_printed`` list)."""

DOCUMENT_TYPE_NAMES = (
    "RulesDocument", "RuleEntry", "RuleParam", "RuleLevel", "EnumsDocument", "EnumEntry", "EnumMember",
    "ConstantsDocument", "ConstantEntry", "IntConstant", "DecimalConstant", "TextConstant", "BoolConstant",
    "ProceduresDocument", "ProcedureEntry", "ProcedureParam", "OddsDocument", "OddsEntry", "OddsAxis", "OddsCell",
    "RandomnessDocument", "DieEntry", "DieFace", "BagEntry", "BagToken", "RollEntry", "RollKeep", "RollKeepWhich", "RollTest", "DieId", "BagId",
    "GlossaryDocument", "GlossaryTerm", "TestVectors", "TestVector",
    "TestVectorProcedure", "ResultProbability", "Rulebook", "RulebookCatalogs", "RulebookTables", "Manifest", "Types",
    "ManifestChangeLevel", "LogicDocument", "LogicDocumentDeclarationsValue", "LogicDocumentProceduresValue",
    "LogicDocumentProceduresValueParamsItem", "LogicDocumentProceduresValueStatementsItem", "LogicDocumentProceduresValueStepsItem",
    "LogicDocumentProseValue", "LogicDocumentProseValueBlocksItem", "LogicDocumentRecordsValue", "LogicDocumentRecordsValueFieldsItem",
    "Changelog", "PublishedVersion", "PublishedVersionChangesItem", "PublishedVersionChangesItemKind", "PublishedVersionChangesItemLevel",
    "PublishedVersionLevel", "RulebookDiff", "RulebookDiffLevel", "DataChange", "DataChangeKind", "DataChangeLevel",
    "ProbabilityChange", "ProbabilityChangeKind", "ProbabilityChangeLevel", "ExampleChange", "ExampleChangeKind", "ExampleChangeLevel",
    "BalanceShift", "RulebookBalance", "BalanceMatchup", "BalanceMatchupKind", "BalanceMatchupTargetsItem", "BalanceUnit",
    "BalanceUnitOutlier", "BalanceEngagement", "BalanceCategory", "BalanceCategoryRule",
)
"""The type names of the fixed documents' schemas (rules, enums, constants, procedures, odds, randomness, glossary, examples, the bundle, the manifest, the types, the logic, the changelog, the diff, the balance)."""

FIXED_TYPE_NAMES = (*SHARED_TYPE_NAMES, "RuleId", "RuleApplication", *DOCUMENT_TYPE_NAMES)
"""The type names every build defines (a declaration may not take one)."""

ARMY_TYPE_NAMES = ("ArmyDocument", "Roster")
"""The type names of the army and roster schemas (written when the rulebook has armies)."""


def type_name(name: str) -> str:
    """An ASCII PascalCase identifier for a DSL name: accents dropped, ``_`` and
    other separators removed, each part capitalised.

    >>> type_name("weapon_kits"), type_name("FireMode"), type_name("tamaño_base")
    ('WeaponKits', 'FireMode', 'TamanoBase')
    """
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    out = "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", plain) if part)
    return out if out[:1].isalpha() else "N" + out


def id_def(name: str) -> str:
    """The ``$defs`` name of the ids of catalog (or id-keyed table) ``name``."""
    return type_name(name) + "Id"


def _label(t: T) -> str:
    """A PascalCase label for a type, used to name map types (``CalidadToInt``)."""
    kind = t.kind
    if kind in ("enum", "record"):
        return type_name(t.name)
    if kind in ("ref", "refs"):
        return "".join(id_def(n) for n in t.name.split("|"))
    if kind in ("list", "opt"):
        return ("ListOf" if kind == "list" else "Optional") + _label(t.args[0])
    if kind == "map":
        return map_def(t)
    return {"int": "Int", "decimal": "Number", "text": "Text", "bool": "Bool", "id": "Text", "rule": "RuleApplication"}.get(kind, "Any")


def map_def(t: T) -> str:
    """The ``$defs`` name of a ``map[Enum, V]`` type."""
    return f"{type_name(t.name)}To{_label(t.args[0])}"


def _walk(t: T) -> Iterator[T]:
    yield t
    for arg in t.args:
        yield from _walk(arg)


def used_types(program: ir.Program) -> Iterator[T]:
    """Every type written anywhere in the rulebook's data and signatures."""
    for record in program.of(ir.Record):
        for f in record.fields:
            yield from _walk(f.type)
    for table in program.of(ir.Table):
        for col in (*table.keys, *table.columns, *([table.across] if table.across else [])):
            yield from _walk(col.type)
    for decl in (*program.of(ir.Rule), *program.of(ir.Procedure)):
        for p in decl.params:
            yield from _walk(p.type)
    for proc in program.of(ir.Procedure):
        yield from _walk(proc.result)


@dataclass(frozen=True, slots=True)
class Claim:
    """One type name and what would take it: a declaration (``decl``) or, without one,
    a fixed type or a map type."""

    name: str
    what: str  # "the result of procedure melee", "record MeleeResult", "the fixed type Range"
    decl: ir.Decl | None = None


def _claims_of(decl: ir.Decl) -> list[Claim]:
    """The type names ``decl`` gives the schemas."""
    base = type_name(decl.name)
    if isinstance(decl, (ir.Enum, ir.Record)):
        return [Claim(base, f"{decl.kind} {decl.name}", decl)]
    if isinstance(decl, ir.Catalog):
        return [Claim(id_def(decl.name), f"the ids of catalog {decl.name}", decl), Claim(base + "Catalog", f"catalog {decl.name}", decl)]
    if isinstance(decl, ir.Table):
        out = [Claim(id_def(decl.name), f"the ids of table {decl.name}", decl)] if decl.keyed_by_id else []
        suffixes = ("Table", "Key", "Values", "Row", *(["AsPrintedId"] if decl.as_printed else []))
        return out + [Claim(base + suffix, f"table {decl.name}", decl) for suffix in suffixes]
    if isinstance(decl, ir.Rule):
        out = [Claim(base + "Application", f"rule {decl.name}", decl)]
        return out + ([Claim(base + "Args", f"the parameters of rule {decl.name}", decl)] if decl.params else [])
    if isinstance(decl, ir.Procedure):
        return [Claim(base + "Input", f"the input of procedure {decl.name}", decl), Claim(base + "Result", f"the result of procedure {decl.name}", decl)]
    return []


def clashes(program: ir.Program, fixed: tuple[str, ...] = FIXED_TYPE_NAMES) -> list[tuple[Claim, Claim]]:
    """Each type name the schemas would give twice, as (the first claim, a later one): the
    fixed names first, then the declarations in rulebook order, then the map types; [] when
    all differ. ``fixed``: the names taken before any declaration (the army schemas' too
    when the rulebook has armies)."""
    if program.armies:
        fixed = (*fixed, *ARMY_TYPE_NAMES)
    first: dict[str, Claim] = {name: Claim(name, f"the fixed type {name}") for name in fixed}
    out: list[tuple[Claim, Claim]] = []
    claims = [c for decl in program.decls.values() for c in _claims_of(decl)]
    maps = sorted({map_def(t): t for t in used_types(program) if t.kind == "map"}.items())
    claims += [Claim(name, f"the map type map[{t.name}, {t.args[0]}]") for name, t in maps]
    for claim in claims:
        held = first.setdefault(claim.name, claim)
        if held is not claim:
            out.append((held, claim))
    return out
