"""The checker: parsed modules → the typed IR (:class:`rulebook.compiler.ir.Program`).

Reads: parsed modules (:mod:`rulebook.rules_dsl`), found and parsed by :mod:`.loader`.
Produces: the typed IR and diagnostics. Entry point:
:func:`check_program(modules, sources, reporter) -> ir.Program`.

It runs these passes in order, each a module with one entry point, each
reading what the earlier ones added to a shared :class:`~.state.CheckState`
and reporting every problem it finds without stopping:

==================  =======================================================
declarations        names, annotations (@source, @status, @doc), sections
signatures          constants, enum values (and their naming rule), record
                    fields, rule and procedure signatures
data                catalogs, dice, bags, special rules (values converted)
tables              tables: keys, rows, ranges (overlaps, gaps, coverage)
references          ``ref`` values name existing entries; ids defined twice
procedures          procedure bodies → typed IR statements and expressions
examples            worked examples against their procedure
odds                odds tables: axes and the value shown
armies              army lists: sides, budgets, costs, options, limits
links and lints     prose ``[[links]]``, ``show`` targets, unused declarations
layout              site layout annotations (@datasheet, @cost_field, …)
matchups            matchups and engagements (for ``rulebook balance``)
type names          on the assembled program: no two types of the JSON
                    Schemas get one name (:mod:`.type_names`)
==================  =======================================================

The program is meant for the emitters only when the reporter holds no errors.
"""

from __future__ import annotations

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Reporter

from rulebook.compiler import ir
from rulebook.compiler.check.armies import check_armies
from rulebook.compiler.check.data import check_data, check_references
from rulebook.compiler.check.declarations import collect
from rulebook.compiler.check.examples import check_examples
from rulebook.compiler.check.layout import check_layout
from rulebook.compiler.check.lints import check_links_and_unused
from rulebook.compiler.check.matchups import check_matchups
from rulebook.compiler.check.odds import check_odds
from rulebook.compiler.check.procedures import check_procedures
from rulebook.compiler.check.signatures import check_signatures
from rulebook.compiler.check.state import CheckState
from rulebook.compiler.check.tables import check_tables
from rulebook.compiler.check.type_names import check_type_names

PASSES = (
    collect, check_signatures, check_data, check_tables, check_references, check_procedures, check_examples, check_odds,
    check_armies, check_links_and_unused, check_layout, check_matchups,
)


def check_program(modules: list[n.Module], sources: dict[str, str], reporter: Reporter) -> ir.Program:
    """Resolve and check parsed modules.

    Args:
        modules: the rulebook's parsed files, in order.
        sources: file name → text (for diagnostics and source excerpts).
        reporter: receives every error and warning.

    Returns:
        The checked :class:`~rulebook.compiler.ir.Program` (for the emitters only when
        the reporter holds no errors).
    """
    st = CheckState(modules, sources, reporter)
    for run in PASSES:
        run(st)
    program = _assemble(st)
    check_type_names(st, program)
    return program


def _assemble(st: CheckState) -> ir.Program:
    """The IR program: declarations in rulebook order, sections with their items."""
    for name, d in st.ast.items():
        if isinstance(d, n.TermDecl):
            st.decls[name] = ir.Term(**st.common(d), definition=d.definition)
    decls = {name: st.decls[name] for name in st.ast if name in st.decls}
    sections: list[ir.Section] = []
    front: list[ir.Item] = []
    for section, file, slug, items in st.section_items:
        converted = [x for x in (_item(st, decls, it) for it in items) if x is not None]
        if section is None:
            front.extend(converted)
        else:
            status, doc = st.section_notes.get(slug, ("active", None))
            sections.append(ir.Section(name=section.name, title=section.title, file=file, slug=slug, items=converted, status=status, doc=doc))
    rb = st.rulebook
    if rb is not None and rb.lang is not None and not rb.lang.strip():
        st.err('lang "" names no language', rb.span, 'write lang "es" or lang "en", or leave lang out (Spanish)', "lang")
    rulebook = ir.RulebookInfo(name=rb.name, title=rb.title, version=rb.version or "", lang=rb.lang or "", span=rb.span, declared=rb.version or "") if rb else None
    return ir.Program(
        rulebook=rulebook, sources=st.sources, decls=decls, sections=sections, front=front, examples=st.examples,
        uses={k: set(v) for k, v in st.uses.items()}, armies=getattr(st, "armies", {}),
        matchups=getattr(st, "matchups", {}),
    )


def _inlines(runs) -> tuple[ir.Inline, ...]:
    out: list[ir.Inline] = []
    for r in runs:
        if isinstance(r, n.Text):
            out.append(ir.Text(r.text))
        elif isinstance(r, n.Strong):
            out.append(ir.Strong(r.text))
        elif isinstance(r, n.Emph):
            out.append(ir.Emph(r.text))
        elif isinstance(r, n.Code):
            out.append(ir.Code(r.text))
        elif isinstance(r, n.Ref):
            out.append(ir.Link(r.target, r.span))
    return tuple(out)


def _item(st: CheckState, decls: dict, item) -> ir.Item | None:
    """A section item as IR: prose, a ``show``, or the declaration registered under its name."""
    if isinstance(item, n.Heading):
        return ir.Heading(item.level, _inlines(item.inlines), item.number, item.span)
    if isinstance(item, n.Paragraph):
        return ir.Paragraph(_inlines(item.inlines), item.span)
    if isinstance(item, n.ListBlock):
        return ir.ListBlock(item.ordered, tuple(_inlines(i) for i in item.items), item.span, item.start)
    if isinstance(item, n.Note):
        return ir.Note(_inlines(item.inlines), item.span)
    if isinstance(item, n.Separator):
        return ir.Separator(item.span)
    if isinstance(item, n.ShowDecl):
        return ir.Show(item.name, item.span)
    if isinstance(item, n.ArmyDecl):  # an army list is read where the rules declare it
        return getattr(st, "armies", {}).get(item.name)
    name = getattr(item, "name", None)
    if name is not None and st.ast.get(name) is item:
        return decls.get(name)
    return None
