"""The AST builder's data: catalogs, tables, and the values written in their rows.

Reads the Lark trees of ``catalog`` declarations (columns, rows), of ``table`` declarations
(keys, ``across``, result columns, header, rows, range keys, signed numbers) and of data
values (numbers, strings, booleans, ``none``, names, ``Enum.value``, rule applications,
lists, records). Produces their nodes (:mod:`rulebook.rules_dsl.nodes`); a number keeps
the text it was written with.
"""

from __future__ import annotations

from lark import Token, v_args

from . import nodes as n
from .ast_builder import AstBuilder, number, optional_text, unquote


class DataToAst(AstBuilder):
    """Catalogs, tables, and data values."""

    # -- catalogs
    @v_args(meta=True)
    def catalog_decl(self, meta, c):
        name, title, record, *items = c
        columns = None
        columns_span = None
        rows = []
        for it in items:
            if it is None:
                continue
            if isinstance(it, tuple):
                columns, columns_span = it
            else:
                rows.append(it)
        return n.CatalogDecl(str(name), optional_text(title), str(record), columns, tuple(rows), self.sp(meta), record_span=self.tsp(record), columns_span=columns_span)

    @v_args(meta=True)
    def columns(self, meta, c):
        return (tuple(str(x) for x in c), self.sp(meta))

    @v_args(meta=True)
    def catalog_row(self, meta, c):
        ident = unquote(c[0]) if c[0].type == "STRING" else str(c[0])
        return n.CatalogRow(ident, tuple(c[1:]), self.sp(meta))

    # -- tables
    @v_args(meta=True)
    def table_decl(self, meta, c):
        name, title, *rest = c
        keys, cols, rows = [], [], []
        across = None
        header = None
        for it in rest:
            if isinstance(it, n.KeySpec):
                keys.append(it)
            elif isinstance(it, tuple) and it and it[0] == "across":
                across = it[1]
            elif isinstance(it, n.ResultCol):
                cols.append(it)
            elif isinstance(it, tuple) and it and it[0] == "header":
                header = it[1]
            elif isinstance(it, n.TableRow):
                rows.append(it)
        return n.TableDecl(str(name), optional_text(title), tuple(keys), across, tuple(cols), header, tuple(rows), self.sp(meta))

    @v_args(meta=True)
    def key_spec(self, meta, c):
        return n.KeySpec(str(c[0]), c[1], c[2] is not None, optional_text(c[3]), self.sp(meta))

    @v_args(meta=True)
    def across_spec(self, meta, c):
        return ("across", n.KeySpec(str(c[0]), c[1], False, optional_text(c[2]), self.sp(meta)))

    @v_args(meta=True)
    def result_col(self, meta, c):
        return n.ResultCol(str(c[0]), c[1], optional_text(c[2]), self.sp(meta))

    @v_args(meta=True)
    def header_row(self, meta, c):
        return ("header", tuple(c))

    @v_args(meta=True)
    def table_row(self, meta, c):
        keys = []
        title = None
        values = []
        seen_title = False
        for x in c:
            if isinstance(x, Token) and x.type == "STRING":
                title = unquote(x)
                seen_title = True
            elif x is None and not seen_title:
                seen_title = True
            elif not seen_title:
                keys.append(x)
            else:
                values.append(x)
        return n.TableRow(tuple(keys), title, tuple(values), self.sp(meta))

    @v_args(meta=True)
    def range(self, meta, c):
        lo, hi = c
        lo_incl, lo_v = lo
        hi_incl, hi_v = hi if hi is not None else (True, None)
        return n.RangeKey(lo_v, lo_incl, hi_v, hi_incl, self.sp(meta))

    @v_args(meta=True)
    def range_open_lo(self, meta, c):
        hi_incl, hi_v = c[0]
        return n.RangeKey(None, True, hi_v, hi_incl, self.sp(meta))

    def range_lo(self, c):
        return (c[0] is None, c[1])

    def range_hi(self, c):
        return (c[0] is None, c[1])

    def snum(self, c):
        return number(c[0])

    def neg_num(self, c):
        return -number(c[0])

    # -- data values
    @v_args(meta=True)
    def v_num(self, meta, c):
        return n.VNum(number(c[0]), self.sp(meta), str(c[0]))

    @v_args(meta=True)
    def v_neg(self, meta, c):
        return n.VNum(-number(c[0]), self.sp(meta), "-" + str(c[0]))

    @v_args(meta=True)
    def v_str(self, meta, c):
        return n.VStr(unquote(c[0]), self.sp(meta))

    @v_args(meta=True)
    def v_true(self, meta, c):
        return n.VBool(True, self.sp(meta))

    @v_args(meta=True)
    def v_false(self, meta, c):
        return n.VBool(False, self.sp(meta))

    @v_args(meta=True)
    def v_none(self, meta, c):
        return n.VNone(self.sp(meta))

    @v_args(meta=True)
    def v_name(self, meta, c):
        return n.VName(str(c[0]), self.sp(meta))

    @v_args(meta=True)
    def v_qualified(self, meta, c):
        return n.VQualified(str(c[0]), str(c[1]), self.sp(meta))

    @v_args(meta=True)
    def v_apply(self, meta, c):
        return n.VApply(str(c[0]), tuple(x for x in c[1:] if x is not None), self.sp(meta))

    @v_args(meta=True)
    def v_list(self, meta, c):
        return n.VList(tuple(x for x in c if x is not None), self.sp(meta))

    @v_args(meta=True)
    def v_record(self, meta, c):
        return n.VRecord(tuple(x for x in c if x is not None), self.sp(meta))

    # a value of a record, a rule application or an army clause, by position or "name: value"
    def positional(self, c):
        return (None, c[0])

    def named(self, c):
        return (str(c[0]), c[1])
