"""Matchups and engagements → ``matchups.py``.

Reads: the matchups of a checked program (``program.matchups``; their expressions through
an :class:`.expressions.ExpressionWriter`). Produces: the text of ``matchups.py``
(``MATCHUPS``: one ``rulebook.runtime.Matchup`` per matchup, in rulebook order); every
input, condition, measure and cost is a lambda over the axes' values, in the order
(attacker, weapon, target, quality, state, option), which ``rulebook.compiler.analysis.matchups``
calls. Matchups are data for ``rulebook balance``: nothing else of the package reads them.
"""

from __future__ import annotations

from rulebook.compiler import ir
from rulebook.compiler.emit.python.expressions import ExpressionWriter
from rulebook.compiler.emit.python.generation import Generation
from rulebook.compiler.emit.python.layout import Doc, Seq, Text, call, dict_of, kwargs_call, tuple_of
from rulebook.compiler.emit.python.module_frame import cite, module_text
from rulebook.compiler.emit.python.names import py_name
from rulebook.compiler.emit.python.writer import Writer


class MatchupWriter:
    """The matchups, as the runtime's protocol objects."""

    def __init__(self, generation: Generation, exprs: ExpressionWriter) -> None:
        self.generation = generation
        self.exprs = exprs

    def module(self) -> str:
        w = Writer()
        w.line()
        matchups = list(self.generation.p.matchups.values())
        w.code(Seq(("MATCHUPS = ", tuple_of([self.matchup(m) for m in matchups], always_break=True))))
        return module_text(
            self.generation,
            "Matchups and engagements: how a pairing of units is resolved and what is measured.\n\n"
            "``MATCHUPS`` lists ``runtime.Matchup`` objects (see ``runtime.protocol``); every\n"
            "callable takes the axes' values in the order (attacker, weapon, target, quality,\n"
            "state, option). ``rulebook balance`` reads them.",
            w, helpers=True,
        )

    def _variables(self, m: ir.Matchup) -> str:
        names = [
            py_name(m.attacker.name),
            py_name(m.weapon.name) if m.weapon is not None else "_weapon",
            py_name(m.target.name),
            py_name(m.quality.name) if m.quality is not None else "_quality",
            "state" if m.start is not None else "_state",
            py_name(m.option.name) if m.option is not None else "_option",
        ]
        return ", ".join(names)

    def _lambda(self, params: str, body: Doc) -> Doc:
        return Seq((f"lambda {params}: ", body))

    def matchup(self, m: ir.Matchup) -> Doc:
        v = self._variables(m)
        def side(s: ir.MatchupSide) -> Doc:
            fields = [Seq(("name=", Text(s.name))), Seq(("title=", Text(s.title))), Seq(("catalogs=", tuple_of([Text(c) for c in s.catalogs])))]
            if s.ids is not None:
                fields.append(Seq(("ids=", tuple_of([Text(i) for i in s.ids]))))
            fields.append(Seq(("data=", tuple_of([f"_d.CATALOG_{py_name(c)}" for c in s.catalogs]))))
            return call("_rt.MatchupSide", *fields)

        fields: list[tuple[str, Doc]] = [
            ("name", Text(m.name)), ("title", Text(m.title)), ("ref", Text(m.ref)), ("src", cite(self.generation, m.span)),
            ("procedure", Text(m.procedure)), ("attacker", side(m.attacker)), ("target", side(m.target)),
            ("inputs", self._lambda(v, dict_of([(Text(py_name(name)), self.exprs.expr(value)) for name, value in m.args]))),
            ("measure_kind", Text(m.measure_kind)),
        ]
        if m.measure is not None:
            fields.append(("measure", self._lambda("result, " + v, self.exprs.expr(m.measure))))
        if m.weapon is not None:
            fields.append(("weapon", call("_rt.OddsAxis", Seq(("name=", Text(m.weapon.name))), Seq(("title=", Text(m.weapon.title))), "values=()")))
            fields.append(("weapons", self._lambda(py_name(m.attacker.name), self.exprs.expr(m.weapon.items))))
            fields.append(("combine", Text(m.combine)))
        if m.quality is not None:
            fields.append(("quality", call("_rt.OddsAxis", Seq(("name=", Text(m.quality.name))), Seq(("title=", Text(m.quality.title))),
                                           Seq(("values=", f"_t.VALUES_{py_name(m.quality.enum)}")))))
        if m.option is not None:
            fields.append(("option", call("_rt.OddsAxis", Seq(("name=", Text(m.option.name))), Seq(("title=", Text(m.option.title))),
                                          Seq(("values=", f"_t.VALUES_{py_name(m.option.enum)}")))))
        for word in ("when", "cost", "category"):
            e = getattr(m, word)
            if e is not None:
                fields.append((word, self._lambda(v, self.exprs.expr(e))))
        if m.weight is not None:
            fields.append(("weight", self._lambda(py_name(m.target.name), self.exprs.expr(m.weight))))
        if m.start is not None:
            fields.append(("start", self._lambda(v, self.exprs.expr(m.start))))
            fields.append(("ends", tuple_of([tuple_of([Text(kind), self._lambda(v, self.exprs.expr(e))]) for kind, e in m.ends])))
            fields.append(("rounds", str(m.rounds)))
        return kwargs_call("_rt.Matchup", fields)
