"""Procedures → ``procedures.py`` (the fast resolvers) and ``traced.py`` (their traced twins).

Reads: the procedures of a checked program, their statements (:mod:`rulebook.compiler.ir`)
and the liveness facts of :class:`.generation.Generation`. Produces: the text of either
module (:meth:`ProcedureWriter.module`): one function per procedure, ``fn(ctx, **params)``
(statements dispatched on their class to ``visit_<class>``; expressions through an
:class:`.expressions.ExpressionWriter`), the body of each ``repeat`` as a function of its
own, the ranged tables the fast resolvers look up as functions (``_range_<table>``), and
the module-level names the resolvers call: ``_proc_<procedure>`` and ``_new_<record>``.
"""

from __future__ import annotations

from fractions import Fraction

from rulebook.compiler import ir
from rulebook.compiler.emit.python.annotations import annotation
from rulebook.compiler.emit.python.expressions import ExpressionWriter, run_name
from rulebook.compiler.emit.python.generation import Generation
from rulebook.compiler.emit.python.layout import Chain, Doc, Group, Seq, Text, call, dict_of, tuple_of
from rulebook.compiler.emit.python.literals import python_literal
from rulebook.compiler.emit.python.module_frame import cite, module_text, write_piece
from rulebook.compiler.emit.python.names import py_name
from rulebook.compiler.emit.python.writer import Writer

SHAREABLE = frozenset({"bool", "int", "text", "id", "enum", "ref", "refs"})
"""Kinds of the fields of a record that resolvers may take from the equal record built
already (``_rt.Record._shared``): Python values (bool, int, str, None) hashed and
compared by C code, of one Python type per kind (an ``int`` field never holds a
bool), so that an equal record is the same record. Not ``decimal`` (``Fraction``
hashes in Python code), lists, maps, records or counts."""

FAST_DOC = (
    "The rulebook's procedures: one resolver function per procedure.\n\n"
    "Each function takes a context first (``runtime.SampleContext(seed, trace=False)``\n"
    "for a random resolution), then the procedure's parameters by name. These are\n"
    "the fast resolvers: they only roll dice. Each one's twin in ``traced.py``\n"
    "(``fn.traced``) also reports its steps, bindings and rolls:\n"
    "``runtime.sample(fn, trace=True, …)`` records them, and\n"
    "``runtime.exact(fn, **params)`` enumerates the twin's rolls for the exact\n"
    "distribution of results."
)

TRACED_DOC = (
    "The rulebook's procedures, traced: the twins of ``procedures.py``.\n\n"
    "Each function reports to its context where it is (``ctx.enter``, ``ctx.step``,\n"
    "``ctx.let``, ``ctx.leave``) and rolls dice with the rules text and position of\n"
    "each roll. ``state=lambda _v: (…)`` lists what the rest of the procedure reads\n"
    "once the roll gives ``_v``, and ``reads`` the only counts read: exact\n"
    "enumeration (``runtime.exact``) explores each distinct state once. A call of a\n"
    "procedure that rolls dice goes through ``ctx.call``, so that its results are\n"
    "computed once per distinct arguments."
)


class ProcedureWriter:
    """The procedures of the program as Python functions, fast or traced (``exprs.traced``)."""

    def __init__(self, generation: Generation, exprs: ExpressionWriter) -> None:
        self.generation = generation
        self.p = generation.p
        self.exprs = exprs
        self.repeats: list[ir.Repeat] = []  # repeats met in the procedure being written: their bodies follow it
        self.step_number: int | None = None  # the step being written

    @property
    def traced(self) -> bool:
        return self.exprs.traced

    def cite(self, span) -> str:
        return cite(self.generation, span)

    def module(self) -> str:
        """``procedures.py`` (the fast resolvers) or, traced, ``traced.py`` (their twins)."""
        w = Writer()
        procedures = self.p.of(ir.Procedure)
        for d in procedures:
            write_piece(self.generation, w, d.name, self.procedure)
        citations = self.generation.citations
        for t in citations.range_tables.values():
            self.range_function(w, t)
        w.line()
        w.line()
        if self.traced:
            w.line("# internal aliases: calls between procedures never see a local of the same name")
            for d in procedures:
                w.line(f"_proc_{py_name(d.name)} = {py_name(d.name)}")
        else:
            w.line("# internal aliases, the unchecked resolvers: calls between procedures never see a local of the same")
            w.line("# name, and their arguments are not checked again (the public name checks those of a direct call)")
            for d in procedures:
                w.line(f"_proc_{py_name(d.name)} = {py_name(d.name)}.__wrapped__")
        if citations.record_builders:
            w.line()
            w.comment("the records the resolvers build, each by a name of its own (the cheapest call); a record "
                      "whose fields are bools, whole numbers or strings is built once for equal fields "
                      "(_rt.Record._shared: records are immutable)")
            for name in sorted(citations.record_builders):
                builder = f"_t.{py_name(name)}._new"
                if all(f.type.inner.kind in SHAREABLE for f in self.p.records[name].fields):
                    builder = f"_rt.Record._shared({builder})"
                w.line(f"_new_{py_name(name)} = {builder}")
        if self.traced:
            return module_text(self.generation, TRACED_DOC, w, helpers=True, typing=True)
        return module_text(self.generation, FAST_DOC, w, imports=("data", "types", "traced"), helpers=True, typing=True)

    def procedure(self, w: Writer, d: ir.Procedure) -> None:
        params: list[Doc] = ["ctx: _rt.Context"]
        for prm in d.params:
            typed = Seq((py_name(prm.name) + ": ", annotation(prm.type, param=True)))
            params.append(Seq((typed, " = ", self.exprs.expr(prm.default))) if prm.default is not None else typed)
        w.line()
        w.line()
        if not self.traced:  # the public name checks the arguments of a direct call (runtime.resolver)
            w.line(f"@_rt.resolver(_traced.{py_name(d.name)})")
        w.code(Seq(("def ", Group(py_name(d.name), tuple(params)), " -> ", annotation(d.result), ":")))
        w.indent()
        w.docstring([
            d.title + (f" ({d.ref})" if d.ref else "") + ".",
            "",
            *[f"{prm.name}: {prm.type}" + (f" ({prm.title})" if prm.title else "") for prm in d.params],
            f"Result: {d.result}",
            "",
            f"Generated from {d.span.src}.",
        ])
        if self.traced:
            arguments = dict_of([(Text(prm.name), py_name(prm.name)) for prm in d.params])
            w.code(call("ctx.enter", Text(d.name), Text(d.title), Text(d.ref), self.cite(d.span), arguments))
        self.exprs.procedure = d.name
        self.step_number = None
        self.block(w, d.body, d, top=True)
        w.outdent()
        while self.repeats:
            self.repeat_body(w, d, self.repeats.pop(0))
        self.exprs.procedure = None

    def range_function(self, w: Writer, t: ir.Table) -> None:
        """``_range_<table>(key, src)``: a table keyed by one range, as tests of its rows
        in order (the fast resolvers' lookup); past the last row, ``_rt.lookup_range``
        gives the rule error."""
        table = f"TABLE_{py_name(t.name)}"
        w.line()
        w.line()
        w.comment(f"table {t.name} ({t.span.src}), looked up by range")
        w.line(f"def _range_{py_name(t.name)}(key, src):")
        w.indent()
        w.docstring([f"The value of the first row of {t.name} whose range holds key."])
        scalar = len(t.columns) == 1 and t.across is None
        for i, row in enumerate(t.rows):
            r = row.keys[0]
            value = row.values[t.columns[0].name] if scalar else None
            shown = python_literal(value) if scalar and isinstance(value, (str, int, bool, Fraction, type(None))) else f"_d.{table}[{i}][4]"
            bounds: list[tuple[str, Doc]] = []
            first: Doc = "key"
            if r.lo is not None:
                first = python_literal(r.lo)
                bounds.append(("<=" if r.lo_inclusive else "<", "key"))
            if r.hi is not None:
                bounds.append(("<=" if r.hi_inclusive else "<", python_literal(r.hi)))
            if not bounds:
                w.line(f"return {shown}")
                break
            w.condition("if", Chain(first, tuple(bounds)))
            w.indent()
            w.line(f"return {shown}")
            w.outdent()
        else:
            w.statement("return ", call("_rt.lookup_range", f"_d.{table}", "key", Text(t.name), "src"))
        w.outdent()

    def repeat_name(self, proc: ir.Procedure, rep: ir.Repeat) -> str:
        return f"_repeat_{py_name(proc.name)}_{rep.number}"

    def repeat_body(self, w: Writer, d: ir.Procedure, rep: ir.Repeat) -> None:
        """The body of a ``repeat``, as a function of the values it reads from before
        the repeat: one run, returning ``(condition, (bound values…))``."""
        w.line()
        w.line()
        w.code(Seq(("def ", Group(self.repeat_name(d, rep), ("ctx", *[py_name(name) for name in rep.reads])), ":")))
        w.indent()
        w.docstring([f"One run of the repeat of {d.name} until {rep.text} ({rep.span.src}).", "",
                     "Returns whether the condition holds and the values the repeat binds."])
        self.block(w, rep.body, d)
        w.statement("return ", tuple_of([self.exprs.expr(rep.cond), tuple_of([py_name(name) for name in rep.binds])]))
        w.outdent()

    # ------------------------------------------------------------------ statements
    def block(self, w: Writer, stmts: tuple[ir.Stmt, ...], proc: ir.Procedure, top: bool = False) -> None:
        """Statements; a step starts after a blank line unless it opens a nested block."""
        if not stmts:
            w.line("pass")
        for k, st in enumerate(stmts):
            if isinstance(st, ir.Step) and (top or k > 0):
                w.line()
            getattr(self, "visit_" + type(st).__name__)(w, st, proc)

    def visit_Step(self, w: Writer, st: ir.Step, proc: ir.Procedure) -> None:
        """Traced: ``ctx.step(…)``; fast: a comment with the step's number and label."""
        self.step_number = st.number
        if self.traced:
            w.code(call("ctx.step", str(st.number), Text(st.label), Text(proc.ref), self.cite(st.span)))
        else:
            w.comment(f"{st.number}. {st.label}")
        if st.body:
            self.block(w, st.body, proc)
        elif not self.traced:
            w.line("pass")

    def visit_Let(self, w: Writer, st: ir.Let, proc: ir.Procedure) -> None:
        exprs = self.exprs
        value = exprs.list_index(st.value, inline=True) if isinstance(st.value, ir.ListIndex) else exprs.expr(st.value)
        if self.traced:
            value = call("ctx.let", Text(st.name), value, self.cite(st.span))
        w.statement(py_name(st.name) + " = ", value)

    def visit_Return(self, w: Writer, st: ir.Return, proc: ir.Procedure) -> None:
        value = self.exprs.expr(st.value)
        w.statement("return ", call("ctx.leave", value) if self.traced else value)

    def visit_Repeat(self, w: Writer, st: ir.Repeat, proc: ir.Procedure) -> None:
        """``ctx.repeat(…)`` of the function of the repeat's body (written after the procedure)."""
        self.repeats.append(st)
        fields: list[Doc] = [
            self.repeat_name(proc, st),
            dict_of([(Text(py_name(name)), py_name(name)) for name in st.reads]),
            self.cite(st.span),
            Seq(("until=", Text(st.text))),
            Seq(("procedure=", Text(proc.name))),
        ]
        if self.step_number is not None:
            fields.append(Seq(("step=", str(self.step_number))))
        found = self.generation.choice(st, self.exprs.procedure)
        if self.traced and found.state is not None:
            fields.append(Seq(("state=", self.exprs.state(found.state))))
        target = ", ".join(py_name(name) for name in st.binds) + ("," if len(st.binds) == 1 else "")
        w.statement(target + " = ", call("ctx.repeat", *fields))

    def visit_Loop(self, w: Writer, st: ir.Loop, proc: ir.Procedure) -> None:
        """A bounded loop as a Python ``for``: the carried values first, then one run per
        number of ``ctx.runs(N)`` (which counts each run as work; traced, it shows it) or
        per element of ``ctx.loop(items)`` (traced, numbered from 1: the run number is in
        the states of the choices inside); ``until`` ends it with ``break``."""
        exprs = self.exprs
        for name, init in st.carried:
            value = exprs.expr(init)
            w.statement(py_name(name) + " = ", call("ctx.let", Text(name), value, self.cite(st.span)) if self.traced else value)
        run = run_name(ir.counter(st.number))
        if st.iterable is None:
            w.statement(f"for {run} in ", call("ctx.runs", exprs.expr(st.times), self.cite(st.span)), ":")
        elif self.traced:
            items = call("enumerate", call("ctx.loop", exprs.expr(st.iterable)), "1")
            w.statement(f"for {run}, {py_name(st.var)} in ", items, ":")
        else:
            w.statement(f"for {py_name(st.var)} in ", call("ctx.loop", exprs.expr(st.iterable)), ":")
        w.indent()
        if self.traced and st.var is not None:
            w.code(call("ctx.let", Text(st.var), py_name(st.var), self.cite(st.span)))
        self.block(w, st.body, proc)
        if st.cond is not None:
            cond = exprs.expr(st.cond)
            w.condition("if", call("ctx.let", Text(f"until {st.text}"), cond, self.cite(st.cond.span)) if self.traced else cond)
            w.indent()
            w.line("break")
            w.outdent()
        w.outdent()

    def visit_Set(self, w: Writer, st: ir.Set, proc: ir.Procedure) -> None:
        """``set x = e``: ``x = e`` (nothing reads ``x`` later in the run: the checker sees to it)."""
        value = self.exprs.expr(st.value)
        if self.traced:
            value = call("ctx.let", Text(st.name), value, self.cite(st.span))
        w.statement(py_name(st.name) + " = ", value)

    def visit_Require(self, w: Writer, st: ir.Require, proc: ir.Procedure) -> None:
        w.code(Seq(("if not ", self.exprs.expr(st.cond), ":")))
        w.indent()
        w.code(Seq(("raise ", call("_rt.RuleError", Text(st.message), self.cite(st.span)))))
        w.outdent()

    def visit_If(self, w: Writer, st: ir.If, proc: ir.Procedure) -> None:
        for i, (cond, body) in enumerate(st.branches):
            w.condition("if" if i == 0 else "elif", self.exprs.expr(cond))
            w.indent()
            self.block(w, body, proc)
            w.outdent()
        if st.orelse is not None:
            w.line("else:")
            w.indent()
            self.block(w, st.orelse, proc)
            w.outdent()
