"""Parse cases: tests/data/parse/<case>.rules → <case>.ast (a readable dump of the AST).

Every case must parse without diagnostics; the dump is compared with the
golden file (``pytest --update-goldens`` rewrites it).
"""

from __future__ import annotations

import dataclasses

import pytest

from conftest import DATA, compare_golden

CASES = sorted((DATA / "parse").glob("*.rules"))


def dump(node, indent: int = 0) -> str:
    """A stable, indented dump of nodes without spans (positions are tested elsewhere)."""
    pad = "  " * indent
    if dataclasses.is_dataclass(node):
        fields = [f for f in dataclasses.fields(node) if f.name not in ("span", "source_text", "func_span", "die_span", "record_span", "columns_span", "procedure_span", "name_span")]
        lines = [f"{pad}{type(node).__name__}"]
        for f in fields:
            value = getattr(node, f.name)
            if dataclasses.is_dataclass(value) or (isinstance(value, tuple) and value and any(dataclasses.is_dataclass(v) or isinstance(v, tuple) for v in value)):
                lines.append(f"{pad}  {f.name}:")
                lines.append(dump(value, indent + 2))
            else:
                lines.append(f"{pad}  {f.name}: {_no_spans(value)!r}")
        return "\n".join(lines)
    if isinstance(node, tuple):
        return "\n".join(dump(v, indent) for v in node) if node else f"{pad}()"
    return f"{pad}{node!r}"


def _no_spans(value):
    """Plain values with any Span inside tuples left out (positions are tested elsewhere)."""
    from rulebook.rules_dsl.diagnostics import Span

    if isinstance(value, tuple):
        return tuple(_no_spans(v) for v in value if not isinstance(v, Span))
    return value


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_parse(case, update_goldens):
    from rulebook.rules_dsl.parser import parse

    module, diags = parse(case.read_text(encoding="utf-8"), case.name)
    assert not diags, [d.render({case.name: case.read_text(encoding="utf-8")}) for d in diags]
    compare_golden(dump(module.items) + "\n", case.with_suffix(".ast"), update_goldens)


def test_spans_point_at_declarations():
    from rulebook.rules_dsl import nodes as n
    from rulebook.rules_dsl.parser import parse

    text = "Texto.\n\n```rules\nenum A { x, y }\n\nrecord R {\n  f: int\n}\n```\n"
    module, diags = parse(text, "t.rules")
    assert not diags
    decls = [i for i in module.items if isinstance(i, (n.EnumDecl, n.RecordDecl))]
    assert [(d.span.line, d.span.col) for d in decls] == [(4, 1), (6, 1)]
    assert decls[1].fields[0].span.line == 7


def test_each_grammar_rule_has_one_handler_among_the_parts_of_the_ast_builder():
    """The AST builder is composed of parts (declarations, procedures, data, expressions):
    every tree the grammar builds is handled by exactly one of them (one part shadowing
    another's method, or a rule no part handles, would fail here rather than mid-parse)."""
    from rulebook.rules_dsl.ast_builder import AstBuilder
    from rulebook.rules_dsl.parser import ToAst, _lark

    names = set()
    for rule in _lark().rules:
        if not (rule.options.expand1 and not rule.alias):
            names.add(str(rule.alias or rule.origin.name))
    names = {x for x in names if not x.startswith("_")}
    parts = [k for k in ToAst.__mro__ if issubclass(k, AstBuilder) and k not in (ToAst, AstBuilder)]
    assert len(parts) >= 4
    handlers = {name: [k.__name__ for k in parts if name in vars(k)] for name in names}
    assert {name: ks for name, ks in handlers.items() if len(ks) != 1} == {}
