"""Data-contract checks run after the references: the ``@changelog`` catalog and
variant spellings of one value.

Entry point: :func:`check_contract(state)` (called by the references pass).

* ``@changelog`` on a catalog marks it as the rulebook's version history: its
  record has ``version: text``, ``date: text?`` and ``changes: list[text]``; the
  rulebook's own version must be one of its entries (sets
  :attr:`~rulebook.compiler.ir.Catalog.changelog`).
* Variant spellings: the text values of one field across a catalog, and the
  titles of one enum, that differ only by accents, case or spacing ("Cañon AA
  ligero" and "Cañón AA ligero") are reported as warnings: a category written
  two ways is two categories to every program that reads the data.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from typing import Any

from rulebook.rules_dsl import nodes as n

from rulebook.compiler.check.state import CheckState

CHANGELOG_FIELDS = {"version": ("text",), "date": ("opt",), "changes": ("list",)}


def check_contract(st: CheckState) -> None:
    """``@changelog`` catalogs and variant spellings (warnings)."""
    _changelogs(st)
    _variant_titles(st)
    _variant_texts(st)


def fold(text: str) -> str:
    """``text`` without accents, case or repeated spaces: the key under which variant spellings meet."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return " ".join(plain.casefold().split())


def _changelogs(st: CheckState) -> None:
    found = []
    for name, d in st.ast.items():
        ann = next((a for a in getattr(d, "annotations", ()) if a.name == "changelog"), None)
        if ann is None:
            continue
        if not isinstance(d, n.CatalogDecl):
            st.err("@changelog applies to catalogs only", ann.span, None, "annotation")
            continue
        if ann.value is not None:
            st.err("@changelog takes no value", ann.span, "write @changelog alone, above the catalog", "annotation")
        fields = {f: t for f, t, _ in st.record_fields.get(d.record, [])}
        wrong = [f for f, kinds in CHANGELOG_FIELDS.items() if f in fields and fields[f].kind not in kinds and f != "version"]
        if fields.get("version") is None or fields["version"].kind != "text" or fields.get("changes") is None or wrong:
            st.err(
                f"@changelog: record {d.record} must have the fields version: text and changes: list[text] (and date: text?)",
                ann.span, None, "annotation",
            )
            continue
        found.append(name)
        catalog = st.decls.get(name)
        if catalog is not None:
            catalog.changelog = True
        version = st.rulebook.version if st.rulebook is not None else None
        versions = [entry.get("version") for entry in st.catalogs.get(name, {}).values()]
        if version and version not in versions:
            st.warn(f"@changelog {name} has no entry for the rulebook's version {version!r}", ann.span, "add the entry of this version first", "changelog")
    for extra in found[1:]:
        st.err(f"a rulebook has one @changelog; {found[0]} has it already", st.ast[extra].span, None, "duplicate")


def _variant_titles(st: CheckState) -> None:
    for name, d in st.ast.items():
        if not isinstance(d, n.EnumDecl):
            continue
        seen: dict[str, str] = {}
        for member, title in st.enum_members.get(name, []):
            key = fold(title)
            if key in seen and seen[key] != member:
                st.warn(
                    f"enum {name}: the titles of {seen[key]} and {member} differ only by accents or case ({title!r})",
                    d.span, "one value printed two ways is one value: keep one member", "variant-spelling",
                )
            seen.setdefault(key, member)


def _texts(value: Any, t, st: CheckState, path: str) -> Iterator[tuple[str, str]]:
    """(field path, text) of every text value inside ``value`` of type ``t``."""
    if value is None or t is None:
        return
    kind = t.kind
    if kind == "opt":
        yield from _texts(value, t.args[0], st, path)
    elif kind == "text" and isinstance(value, str):
        yield path, value
    elif kind == "list" and isinstance(value, list):
        for item in value:
            yield from _texts(item, t.args[0], st, path)
    elif kind == "record" and isinstance(value, dict):
        for f, ft, _ in st.record_fields.get(t.name, []):
            yield from _texts(value.get(f), ft, st, f"{path}.{f}")


def _variant_texts(st: CheckState) -> None:
    """Per record field (across every catalog of that record), text values that fold
    to one key but are written differently."""
    spellings: dict[tuple[str, str, str], dict[str, list[tuple[str, str]]]] = {}
    for name, d in st.ast.items():
        if not isinstance(d, n.CatalogDecl):
            continue
        fields = st.record_fields.get(d.record, [])
        for ident, entry in st.catalogs.get(name, {}).items():
            for f, ft, _ in fields:
                for path, text in _texts(entry.get(f), ft, st, f):
                    spellings.setdefault((d.record, path, fold(text)), {}).setdefault(text, []).append((name, ident))
    for (record, path, _), variants in spellings.items():
        if len(variants) < 2:
            continue
        ranked = sorted(variants.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        common = ranked[0][0]
        for text, rows in ranked[1:]:
            st.warn(
                f"{record}.{path}: {text!r} ({len(rows)}×) is written {common!r} elsewhere ({len(variants[common])}×)",
                st.catalog_row_spans[rows[0]],
                f"write one spelling (or make {path.split('.')[-1]} an enum whose title is the printed spelling)", "variant-spelling",
            )
