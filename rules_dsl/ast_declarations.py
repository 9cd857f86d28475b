"""The AST builder's declarations: the top level, and every declaration but procedures,
examples, catalogs and tables.

Reads the Lark trees of the rules ``start``, ``item`` and ``annotation``, of ``rulebook``,
``section``, ``const``, ``term``, ``show``, ``enum``, ``record`` (with its field types),
``die``, ``bag``, ``rule`` (special rules), ``odds`` and ``army`` declarations. Produces
their nodes (:mod:`rulebook.rules_dsl.nodes`); an ``odds`` block whose clauses are missing
or repeated is reported and becomes a :class:`~rulebook.rules_dsl.nodes.BrokenDecl`.
"""

from __future__ import annotations

from lark import v_args

from . import nodes as n
from .ast_builder import AstBuilder, node_fields, optional_text, unquote
from .diagnostics import Diagnostic, Span
from .syntax_errors import ODDS_BLOCK_HINT


class DeclarationsToAst(AstBuilder):
    """Top level, annotations, and the declarations made of names, titles and clauses."""

    # -- top level
    @v_args(meta=True)
    def start(self, meta, children):
        return [c for c in children if c is not None]

    @v_args(meta=True)
    def item(self, meta, children):
        *anns, decl = children
        span = decl.span
        src = self.text_of(Span(span.file, anns[0].span.line if anns else span.line, 1, span.end_line, span.end_col))
        return decl.__class__(**{**node_fields(decl), "annotations": tuple(anns), "source_text": src})

    @v_args(meta=True)
    def annotation(self, meta, c):
        start = self.sp(meta)
        end = c[1].span if c[1] is not None else self.tsp(c[0])
        return n.Annotation(str(c[0]), c[1], Span(start.file, start.line, start.col, end.end_line, end.end_col))

    @v_args(meta=True)
    def rulebook_decl(self, meta, c):
        return n.RulebookDecl(str(c[0]), unquote(c[1]), unquote(c[2]) if c[2] else None, unquote(c[3]) if c[3] else None, self.sp(meta))

    @v_args(meta=True)
    def section_decl(self, meta, c):
        return n.SectionDecl(str(c[0]), unquote(c[1]), self.sp(meta))

    @v_args(meta=True)
    def odds_decl(self, meta, c):
        """The clauses of an odds block, in any order: one procedure, one rows, one
        cell/cells, at most one each and one columns (reported here when not)."""
        name, title, *items = c
        span = self.sp(meta)
        found: dict[str, list] = {}
        for it in items:
            if it is not None:
                found.setdefault(it[0], []).append(it)
        for word, clauses in found.items():
            if len(clauses) > 1:
                shown = "cell/cells" if word == "show" else word
                self.problems.append(Diagnostic(
                    "error", f"odds {name}: '{shown}' is given twice", clauses[1][-1],
                    "an odds block has one procedure, one rows, one cell or cells, and at most one each and one columns", "syntax",
                ))
        required = (("procedure", "procedure p(…)"), ("rows", 'rows x in a..b "…"'), ("show", "cell probability(…) or cells outcomes(…)"))
        missing = [shown for word, shown in required if word not in found]
        if missing:
            self.problems.append(Diagnostic("error", f"odds {name} needs {', '.join(missing)}", span, ODDS_BLOCK_HINT, "syntax"))
            return n.BrokenDecl(str(name), "odds", span)
        _, proc, args, proc_span = found["procedure"][0]
        _, show, cells, _ = found["show"][0]
        columns = found["columns"][0][1] if "columns" in found else None
        each = found["each"][0][1] if "each" in found else None
        return n.OddsDecl(str(name), optional_text(title), proc, args, found["rows"][0][1], columns, show, span, procedure_span=proc_span, each=each, cells=cells)

    @v_args(meta=True)
    def odds_procedure(self, meta, c):
        name, *args = c
        return ("procedure", str(name), tuple(a for a in args if a is not None), self.tsp(name))

    @v_args(meta=True)
    def odds_each(self, meta, c):
        span = self.sp(meta)
        return ("each", n.OddsAxis(str(c[0]), None, None, str(c[1]), optional_text(c[2]), span), span)

    def _axis(self, meta, c):
        name, dom, title = c
        span = self.sp(meta)
        if dom[0] == "range":
            return n.OddsAxis(str(name), dom[1], dom[2], None, optional_text(title), span)
        if dom[0] == "list":
            return n.OddsAxis(str(name), None, None, None, optional_text(title), span, tuple(dom[1]))
        return n.OddsAxis(str(name), None, None, dom[1], optional_text(title), span)

    @v_args(meta=True)
    def odds_rows(self, meta, c):
        return ("rows", self._axis(meta, c), self.sp(meta))

    @v_args(meta=True)
    def odds_columns(self, meta, c):
        return ("columns", self._axis(meta, c), self.sp(meta))

    @v_args(meta=True)
    def odds_cell(self, meta, c):
        return ("show", c[0], False, self.sp(meta))

    @v_args(meta=True)
    def odds_cells(self, meta, c):
        return ("show", c[0], True, self.sp(meta))

    def dom_range(self, c):
        return ("range", c[0], c[1])

    def dom_enum(self, c):
        return ("enum", str(c[0]))

    def dom_list(self, c):
        return ("list", [x for x in c if x is not None])

    @v_args(meta=True)
    def matchup_decl(self, meta, c):
        """A matchup's clauses, in any order; the checker says which words it takes."""
        name, title, *items = c
        span = self.sp(meta)
        procedure = args = proc_span = None
        axes, clauses = [], []
        for it in items:
            if it is None:
                continue
            if it[0] == "procedure":
                if procedure is not None:
                    self.problems.append(Diagnostic("error", f"matchup {name}: 'procedure' is given twice", it[3], "a matchup runs one procedure", "syntax"))
                    continue
                _, procedure, args, proc_span = it
            elif it[0] == "axis":
                axes.append(it[1])
            else:
                clauses.append(it[1])
        if procedure is None:
            self.problems.append(Diagnostic("error", f"matchup {name} needs procedure p(…)", span,
                                            "a matchup names the procedure that resolves one pairing: procedure disparo(arma: w, blanco: t)", "syntax"))
            return n.BrokenDecl(str(name), "matchup", span)
        return n.MatchupDecl(str(name), optional_text(title), procedure, args, tuple(axes), tuple(clauses), span, procedure_span=proc_span)

    @v_args(meta=True)
    def matchup_procedure(self, meta, c):
        name, *args = c
        return ("procedure", str(name), tuple(a for a in args if a is not None), self.tsp(name))

    @v_args(meta=True)
    def matchup_axis(self, meta, c):
        role, name, *rest = c
        title = rest.pop() if rest and (rest[-1] is None or not hasattr(rest[-1], "span")) else None
        return ("axis", n.MatchupAxis(str(role), str(name), tuple(x for x in rest if x is not None), optional_text(title), self.sp(meta)))

    @v_args(meta=True)
    def matchup_axis_names(self, meta, c):
        """``attacker a in (cat1 | cat2 …)``: the names between brackets, which may span lines."""
        role, name, *rest = c
        title = rest.pop() if rest and (rest[-1] is None or str(rest[-1]).startswith('"')) else None
        names = tuple(n.Name(str(x), self.tsp(x)) for x in rest if x is not None)
        return ("axis", n.MatchupAxis(str(role), str(name), names, optional_text(title), self.sp(meta)))

    @v_args(meta=True)
    def matchup_clause(self, meta, c):
        return ("clause", n.MatchupClause(str(c[0]), c[1], self.sp(meta)))

    @v_args(meta=True)
    def army_decl(self, meta, c):
        name, title, *clauses = c
        return n.ArmyDecl(str(name), optional_text(title), tuple(x for x in clauses if x is not None), self.sp(meta))

    @v_args(meta=True)
    def army_clause(self, meta, c):
        word, *args, block = c
        return n.ArmyClause(str(word), tuple(a for a in args if a is not None), tuple(block or ()), self.sp(meta), self.tsp(word))

    def army_block(self, c):
        return [x for x in c if x is not None]

    @v_args(meta=True)
    def const_decl(self, meta, c):
        return n.ConstDecl(str(c[0]), optional_text(c[1]), c[2], self.sp(meta))

    @v_args(meta=True)
    def term_decl(self, meta, c):
        return n.TermDecl(str(c[0]), unquote(c[1]), unquote(c[2]), self.sp(meta))

    @v_args(meta=True)
    def show_decl(self, meta, c):
        return n.ShowDecl(str(c[0]), self.sp(meta))

    @v_args(meta=True)
    def enum_decl(self, meta, c):
        name, title, ordered, *members = c
        return n.EnumDecl(str(name), optional_text(title), ordered is not None, tuple(m for m in members if m is not None), self.sp(meta))

    @v_args(meta=True)
    def enum_member(self, meta, c):
        return n.EnumMember(str(c[0]), optional_text(c[1]), self.sp(meta))

    @v_args(meta=True)
    def record_decl(self, meta, c):
        name, title, *fields = c
        return n.RecordDecl(str(name), optional_text(title), tuple(f for f in fields if f is not None), self.sp(meta))

    @v_args(meta=True)
    def field_decl(self, meta, c):
        return n.FieldDecl(str(c[0]), c[1], optional_text(c[2]), self.sp(meta))

    # -- types
    @v_args(meta=True)
    def type(self, meta, c):
        base, opt = c
        return n.TypeRef(base.kind, base.name, base.args, opt is not None, self.sp(meta))

    @v_args(meta=True)
    def named_type(self, meta, c):
        return n.TypeRef("named", str(c[0]), (), False, self.sp(meta))

    @v_args(meta=True)
    def list_type(self, meta, c):
        return n.TypeRef("list", None, (c[0],), False, self.sp(meta))

    @v_args(meta=True)
    def map_type(self, meta, c):
        return n.TypeRef("map", str(c[0]), (c[1],), False, self.sp(meta))

    @v_args(meta=True)
    def ref_type(self, meta, c):
        return n.TypeRef("ref", "|".join(str(x) for x in c), (), False, self.sp(meta))

    @v_args(meta=True)
    def rule_type(self, meta, c):
        return n.TypeRef("rule", None, (), False, self.sp(meta))

    @v_args(meta=True)
    def id_type(self, meta, c):
        return n.TypeRef("id", None, (), False, self.sp(meta))

    # -- dice and bags
    @v_args(meta=True)
    def die_decl(self, meta, c):
        name, title, of, *faces = c
        return n.DieDecl(str(name), optional_text(title), str(of) if of else None, tuple(f for f in faces if f is not None), self.sp(meta))

    @v_args(meta=True)
    def bag_decl(self, meta, c):
        name, title, *entries = c
        return n.BagDecl(str(name), optional_text(title), tuple(e for e in entries if e is not None), self.sp(meta))

    @v_args(meta=True)
    def bag_entry(self, meta, c):
        return (str(c[0]), self.whole(c[1]), self.sp(meta))

    # -- special rules
    @v_args(meta=True)
    def rule_decl(self, meta, c):
        name, title, params, *items = c
        texts, levels, grants, stacking, combine = [], [], [], None, None
        for kind, payload in (i for i in items if i is not None):
            if kind == "text":
                texts.append(payload)
            elif kind == "level":
                levels.append(payload)
            elif kind == "grants":
                grants.append(payload)
            elif kind == "combine":
                combine = payload
            else:
                stacking = payload
        return n.RuleDecl(str(name), optional_text(title), params or (), tuple(texts), tuple(levels), tuple(grants), stacking, self.sp(meta),
                          combine=combine)

    def rule_text(self, c):
        return ("text", unquote(c[0]))

    def rule_level(self, c):
        return ("level", (self.whole(c[0]), unquote(c[1])))

    @v_args(meta=True)
    def rule_grants(self, meta, c):
        name, *args = c
        return ("grants", n.VApply(str(name), tuple(a for a in args if a is not None), self.sp(meta)))

    def rule_stacking(self, c):
        return ("stacking", unquote(c[0]))

    def rule_stacking_rule(self, c):
        return ("combine", (str(c[0]), self.tsp(c[0])))
