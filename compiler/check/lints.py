"""Pass 8 — links and lints: every ``[[link]]`` of the prose and every ``show``
names a declaration; constants, records, enums, dice and bags that nothing
uses are reported; a special rule may not grant itself (through any chain of
``grants``); last, ``@allow code("reason")`` silences the warnings of one kind
inside its declaration (every pass that warns has run by then).

Entry point: :func:`check_links_and_unused(state)`. Reads the declarations
and the uses recorded by the earlier passes; adds the uses by prose and
``show``.
"""

from __future__ import annotations

import re
from collections import deque

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Edit, Span, counted, did_you_mean

from rulebook.compiler import ir
from rulebook.compiler.check.state import CheckState, hint

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
    _grant_cycles(st)
    lines_of: dict[str, list[str]] = {}  # each file's lines, split once (a file may hold thousands of unused declarations)
    for name, d in st.ast.items():
        if isinstance(d, UNUSED_KINDS) and not st.uses.get(name):
            if d.span.file not in lines_of:
                lines_of[d.span.file] = st.sources.get(d.span.file, "").split("\n")
            st.warn(f"{type(d).__name__.removesuffix('Decl').lower()} '{name}' is never used", d.span, None, "unused",
                    suggest=_removal(lines_of[d.span.file], d))
    _presentation(st)
    _allowances(st)


def _removal(lines: list[str], d) -> tuple[Edit, ...]:
    """The suggestion of removing declaration ``d`` (of the file whose ``lines`` are given): its lines,
    with its annotations above it and one blank line after it (none when it does not start and end a line)."""
    first = min([d.span.line, *(a.span.line for a in getattr(d, "annotations", ()))])
    last = d.span.end_line
    if not (1 <= first <= last <= len(lines)) or lines[last - 1][d.span.end_col - 1 :].strip() or lines[d.span.line - 1][: d.span.col - 1].strip():
        return ()
    if last < len(lines) and not lines[last].strip() and last + 1 < len(lines):
        last += 1  # the blank line that separated it from what follows
    if last >= len(lines):
        return ()
    return (Edit(Span(d.span.file, first, 1, last + 1, 1), ""),)


def _grant_cycles(st: CheckState) -> None:
    """A rule that grants itself, directly or through the rules it grants, is an error
    (``has_rule`` reads granted rules through every link of the chain): one error per
    knot of rules that grant each other, at its first rule, with the shortest chain
    back to it. Linear in rules and grants, so a chain of 10,000 grants checks at once."""
    grants = {name: [a.rule for a in d.grants] for name, d in st.decls.items() if isinstance(d, ir.Rule)}
    for knot in _knots(grants):
        first = knot[0]
        path = _shortest_cycle(grants, first, set(knot))
        shown = path if len(path) <= MAX_CHAIN_SHOWN else [*path[:MAX_CHAIN_SHOWN - 3], "…", *path[-2:]]
        others = [r for r in knot if r not in path]
        more = f"; {counted(len(others), 'other rule')} grant{'s' if len(others) == 1 else ''} each other with it: {', '.join(others[:5])}{', …' if len(others) > 5 else ''}" if others else ""
        st.err(f"rule {first} grants itself: {' → '.join(shown)}" + (f" ({len(path) - 1} rules)" if len(shown) < len(path) else ""),
               st.ast[first].span, "remove one of the grants of the cycle" + more, "grants")


MAX_CHAIN_SHOWN = 12
"""A cycle of grants longer than this is shown by its first and last links."""


def _knots(graph: dict[str, list[str]]) -> list[list[str]]:
    """The strongly connected components of ``graph`` that hold a cycle (several rules,
    or one that grants itself), each in the graph's order, the first first: Tarjan's
    algorithm without recursion, linear in rules and grants."""
    order = {name: i for i, name in enumerate(graph)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(graph[root]))]
        while work:
            node, children = work[-1]
            for child in children:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    knot = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        knot.append(top)
                        if top == node:
                            break
                    if len(knot) > 1 or node in graph[node]:
                        found.append(sorted(knot, key=order.__getitem__))
    return sorted(found, key=lambda knot: order[knot[0]])


def _shortest_cycle(graph: dict[str, list[str]], start: str, within: set[str]) -> list[str]:
    """The shortest chain of grants from ``start`` back to itself (breadth first, inside its knot)."""
    parent: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in graph[node]:
            if child == start:
                chain = []
                while node != start:
                    chain.append(node)
                    node = parent[node]
                return [start, *reversed(chain), start]
            if child in within and child not in parent:
                parent[child] = node
                queue.append(child)
    return [start, start]  # not reached: every rule of a knot is on a cycle through it


def _allowances(st: CheckState) -> None:
    """``@allow code("reason")`` on a declaration: the warnings of kind ``code``
    inside it are not reported. A missing reason is an error; an ``@allow`` that
    silences nothing is itself a warning. Runs after every pass that warns."""
    allows: list[tuple[str, n.Annotation, object]] = []
    for mod in st.modules:
        for item in mod.items:
            for ann in getattr(item, "annotations", ()):
                if ann.name != "allow":
                    continue
                v = ann.value
                args = v.args if isinstance(v, n.VApply) else ()
                if isinstance(v, n.VApply) and len(args) == 1 and isinstance(args[0][1], n.VStr) and args[0][1].value.strip():
                    allows.append((v.name, ann, item.span))
                elif isinstance(v, n.VApply) and len(args) > 1:
                    st.err(f"@allow {v.name} takes one reason, not {len(args)}", ann.span, f'write @allow {v.name}("why this warning is right here")', "annotation")
                elif isinstance(v, (n.VName, n.VApply)):
                    st.err(f"@allow {v.name} needs a reason", ann.span, f'write @allow {v.name}("why this warning is right here")', "annotation")
                else:
                    st.err("@allow names the kind of warning and why it is silenced", ann.span,
                           'write @allow unused("why this warning is right here")', "annotation")
    if not allows:
        return
    used: set[int] = set()
    kept = []
    for d in st.rep.diagnostics:
        hit = next((i for i, (code, _, span) in enumerate(allows) if d.severity == "warning" and d.code == code and _inside(d.span, span)), None)
        if hit is None:
            kept.append(d)
        else:
            used.add(hit)
    st.rep.diagnostics[:] = kept
    for i, (code, ann, span) in enumerate(allows):
        if i not in used:
            here = sorted({d.code for d in kept if d.severity == "warning" and d.code and _inside(d.span, span)})
            hint_text = ("the warnings here are of kind: " + ", ".join(here)) if here else "remove it: this declaration has no warning to silence"
            guess = did_you_mean(code, here) if code not in here else None
            if guess:
                hint_text = f"did you mean '{guess}'? " + hint_text
            st.warn(f"@allow {code} silences no warning here", ann.span, hint_text, "allow")


def _inside(span, outer) -> bool:
    """Does ``span`` start within ``outer`` (same file)?"""
    return span.file == outer.file and (outer.line, outer.col) <= (span.line, span.col) <= (outer.end_line, outer.end_col)


DISPLAY_FIELD = re.compile(r"\{([^{}]*)\}")
"""A placeholder of a ``@display`` template: ``{field}``."""


def _presentation(st: CheckState) -> None:
    """``@display "{a} × {b}"`` on a record (every placeholder a field of it),
    ``@internal`` on a record or an enum and ``@quick_reference`` on a constant or a
    table, recorded on their IR declarations."""
    for name, d in st.ast.items():
        for ann in getattr(d, "annotations", ()):
            target = st.decls.get(name)
            if ann.name == "internal":
                if not isinstance(target, (ir.Record, ir.Enum)):
                    st.err("@internal applies to records and enums only", ann.span, None, "annotation")
                elif ann.value is not None:
                    st.err("@internal takes no value", ann.span, "write @internal alone", "annotation")
                else:
                    target.internal = True
            elif ann.name == "quick_reference":
                if not isinstance(target, (ir.Const, ir.Table)):
                    st.err("@quick_reference applies to constants and tables only", ann.span, None, "annotation")
                elif ann.value is not None:
                    st.err("@quick_reference takes no value", ann.span, "write @quick_reference alone", "annotation")
                else:
                    target.quick_reference = True
            elif ann.name == "display":
                if not isinstance(target, ir.Record):
                    st.err("@display applies to records only", ann.span, None, "annotation")
                elif not isinstance(ann.value, n.VStr) or not ann.value.value.strip():
                    st.err('@display expects a template, e.g. @display "{cantidad} × {tropas}"', ann.span, None, "annotation")
                else:
                    fields = [f.name for f in target.fields]
                    wrong = [p for p in DISPLAY_FIELD.findall(ann.value.value) if p not in fields]
                    for p in wrong:
                        st.err(f"@display: '{p}' is not a field of record {name}", ann.value.span, hint(p, fields) or "fields: " + ", ".join(fields), "annotation")
                    if not DISPLAY_FIELD.search(ann.value.value):
                        st.err("@display shows no field: write each field as {field}", ann.value.span, "fields: " + ", ".join(fields), "annotation")
                    elif not wrong:
                        target.display = ann.value.value
