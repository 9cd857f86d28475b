"""Pass 8 — links and lints: every ``[[link]]`` of the prose and every ``show``
names a declaration; constants, records, enums, dice and bags that nothing
uses are reported.

Entry point: :func:`check_links_and_unused(state)`. Reads the declarations
and the uses recorded by the earlier passes; adds the uses by prose and
``show``.
"""

from __future__ import annotations

from rules_dsl import nodes as n

from .state import CheckState

UNUSED_KINDS = (n.ConstDecl, n.RecordDecl, n.EnumDecl, n.DieDecl, n.BagDecl)


def prose_inlines(item) -> list:
    """The inline runs of a prose item (none for anything else)."""
    if isinstance(item, (n.Paragraph, n.Note, n.Heading)):
        return list(item.inlines)
    if isinstance(item, n.ListBlock):
        return [i for it in item.items for i in it]
    return []


def check_links_and_unused(st: CheckState) -> None:
    """Prose links and ``show`` targets exist; unused constants, records, enums, dice and bags."""
    for mod in st.modules:
        for item in mod.items:
            for inline in prose_inlines(item):
                if isinstance(inline, n.Ref):
                    target = inline.target.split("#", 1)[0]
                    if target not in st.ast:
                        st.unknown("link target", target, inline.span, st.ast)
                    else:
                        st.uses[target].add("prose")
            if isinstance(item, n.ShowDecl):
                if item.name not in st.ast:
                    st.unknown("declaration", item.name, item.span, st.ast)
                else:
                    st.uses[item.name].add("show")
    for name, d in st.ast.items():
        if isinstance(d, UNUSED_KINDS) and not st.uses.get(name):
            st.warn(f"{type(d).__name__.removesuffix('Decl').lower()} '{name}' is never used", d.span, None, "unused")
