"""Pass 9 — site layout annotations on catalogs.

Entry point: :func:`check_layout(state)`. ``@datasheet "Page"`` puts one card
per entry on a page of that title; ``@cost_field "field"`` names the int field
of the cost, and with ``@cost_modifier "table"`` each card shows it at each
value of the enum keying a percentage table. Reads the catalogs and tables; fills
:attr:`~rulebook.compiler.ir.Catalog.datasheet` and :attr:`~rulebook.compiler.ir.Catalog.cost`.
"""

from __future__ import annotations

from rulebook.rules_dsl import nodes as n

from rulebook.compiler import ir
from rulebook.compiler.ir.types import ANY
from rulebook.compiler.check.state import CheckState, hint


def check_layout(st: CheckState) -> None:
    """@datasheet, @cost_field and @cost_modifier of each catalog → its IR layout fields."""
    for name, d in st.ast.items():
        if not isinstance(d, n.CatalogDecl):
            continue
        catalog = st.decls.get(name)
        anns = {a.name: a for a in d.annotations if isinstance(a.value, n.VStr)}
        if "datasheet" in anns and anns["datasheet"].value.value.strip():
            catalog.datasheet = anns["datasheet"].value.value.strip()
        field, table_ann = anns.get("cost_field"), anns.get("cost_modifier")
        if field is None:
            if table_ann is not None:
                st.err("@cost_modifier needs @cost_field (the int field of the base cost)", table_ann.span, '@cost_field "field"', "annotation")
            continue
        if "datasheet" not in anns:
            st.err("@cost_field / @cost_modifier need @datasheet on the same catalog", field.span, None, "annotation")
        fields = {f: (t, ti) for f, t, ti in st.record_fields.get(d.record, [])}
        field_name = field.value.value
        field_ok = fields.get(field_name, (ANY, None))[0].inner.kind == "int"
        if not field_ok:
            st.err(f"@cost_field: '{field_name}' is not an int field of record {d.record}", field.value.span, hint(field_name, list(fields)), "annotation")
        if table_ann is None:  # the cost is the field's value (plus the options taken)
            if field_ok:
                catalog.cost = ir.CostDisplay(field=field_name, field_title=fields[field_name][1] or field_name, table=None, enum=None, levels=())
            continue
        table = st.tables.get(table_ann.value.value)
        if table is None:
            st.unknown("table", table_ann.value.value, table_ann.value.span, st.tables)
            continue
        if (len(table.keys) != 1 or table.keys[0].type.kind != "enum" or table.across is not None
                or len(table.columns) != 1 or table.columns[0].type.inner.kind not in ("int", "decimal")):
            st.err(f"@cost_modifier: table {table.name} must be keyed by an enum with one numeric column (a percentage)", table_ann.value.span, None, "annotation")
            continue
        st.uses[table.name].add(name)
        if not field_ok:
            continue
        enum = table.keys[0].type.name
        column = table.columns[0].name
        percent = {row.keys[0]: row.values.get(column) for row in table.rows}
        levels = tuple((m, title, percent[m]) for m, title in st.enum_members.get(enum, []) if percent.get(m) is not None)
        catalog.cost = ir.CostDisplay(
            field=field_name, field_title=fields[field_name][1] or field_name, table=table.name, enum=enum, levels=levels,
        )
