"""Checked program → who refers to what, and what the rulebook's short labels mean.

Reads the catalogs' entries (with the fields of each record and the catalog a ``ref`` names, as
the site's context answers them) and the glossary and prose of a checked
:class:`rulebook.compiler.ir.Program`. Produces the reverse links the pages show
(:func:`reverse_links`: which entries apply each special rule, which entries reference each
entry, which declarations share an entry's id) and the abbreviations whose meaning a label
shows as a tooltip (:func:`abbreviations`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rulebook.compiler import ir
from rulebook.compiler.emit.site.markdown import plain
from rulebook.compiler.ir.types import T

Fields = Callable[[str], "tuple[ir.RecordField, ...]"]  # a record's name → its fields
RefCatalog = Callable[[T, str], "str | None"]  # a ref type and an id → the catalog (of those it names) with that entry

ABBREVIATION = re.compile(r"^[A-ZÁÉÍÓÚÑ]{1,4}$")


def reverse_links(ordered: list[ir.Declaration], fields: Fields, ref_catalog: RefCatalog) -> tuple[dict, dict, dict]:
    """Which catalog entries (of the declarations ``ordered``) apply each rule (rule → [(catalog,
    entry, application)]), reference each entry ((catalog, entry) → [(catalog, entry)]), and have
    each id (id → [(catalog, id)])."""
    rule_users: dict[str, list[tuple[str, str, dict]]] = {}
    entry_users: dict[tuple[str, str], list[tuple[str, str]]] = {}
    same_id: dict[str, list[tuple[str, str]]] = {}
    for d in ordered:
        if not isinstance(d, ir.Catalog):
            continue
        record = fields(d.record)
        for ident, rec in d.entries.items():
            same_id.setdefault(ident, []).append((d.name, ident))
            rules: list[dict] = []
            refs: list[tuple[str, str]] = []
            for f in record:
                _walk(fields, ref_catalog, rec.get(f.name), f.type, rules, refs)
            for r in rules:
                users = rule_users.setdefault(r["rule"], [])
                if not any(c == d.name and i == ident and u == r for c, i, u in users):
                    users.append((d.name, ident, r))
            for ref in refs:
                users = entry_users.setdefault(ref, [])
                if (d.name, ident) not in users:
                    users.append((d.name, ident))
    return rule_users, entry_users, same_id


def _walk(fields: Fields, ref_catalog: RefCatalog, v, t: T, rules: list, refs: list) -> None:
    """Collect the rule applications and catalog references inside value ``v`` of type ``t``."""
    if v is None:
        return
    k = t.kind
    if k == "opt":
        _walk(fields, ref_catalog, v, t.args[0], rules, refs)
    elif k == "list":
        for x in v:
            _walk(fields, ref_catalog, x, t.args[0], rules, refs)
    elif k == "map":
        for x in v.values():
            _walk(fields, ref_catalog, x, t.args[0], rules, refs)
    elif k == "record":
        for f in fields(t.name):
            _walk(fields, ref_catalog, v.get(f.name), f.type, rules, refs)
    elif k in ("ref", "refs"):
        cat = ref_catalog(t, v)
        if cat is not None:
            refs.append((cat, v))
    elif k == "rule":
        rules.append(v)


def abbreviations(terms: list[ir.Term], program: ir.Program) -> dict[str, str]:
    """What each short capitalised label means (``FC``, ``P``), in the rulebook's words.

    Taken from the glossary (a term titled like the label, or a definition
    that starts ``P: …``) and from prose lists that define labels
    (``- **FC**: Front cover;``, with the paragraph above as context)."""
    found: dict[str, str] = {}
    for t in terms:
        head, sep, rest = t.definition.partition(":")
        if ABBREVIATION.match(t.title):
            found.setdefault(t.title, t.definition)
        elif sep and ABBREVIATION.match(head.strip()):
            found.setdefault(head.strip(), f"{t.title}: {rest.strip()}")
    items = list(program.front) + [i for s in program.sections for i in s.items]
    for before, item in zip([None] + items, items):
        if not isinstance(item, ir.ListBlock):
            continue
        lead = plain(before.inlines).rstrip(":. ") if isinstance(before, ir.Paragraph) else ""
        context = lead.rsplit(", ", 1)[-1] if len(lead) > 60 else lead
        for runs in item.items:
            if runs and isinstance(runs[0], ir.Strong) and ABBREVIATION.match(runs[0].text.strip()):
                meaning = plain(runs[1:]).strip(" :;.,")
                if meaning:
                    text = meaning[:1].upper() + meaning[1:]
                    found.setdefault(runs[0].text.strip(), f"{text} ({context[:80]})" if context else text)
    return found
