"""Procedures → JavaScript functions (one per procedure, and one per ``repeat`` body).

Reads: the procedures of a checked program and their statements (:mod:`rulebook.compiler.ir`),
the liveness facts (through :class:`.expressions.ExpressionWriter`). Produces: the text of
each function, ``$P_<procedure>(ctx, {param, …})`` — the arguments by their JavaScript
names, defaults written in the destructuring — which reports to its context as the
Python emitter's traced resolvers do (``ctx.enter``, ``ctx.step``, ``ctx.let``,
``ctx.leave``); statements dispatched on their class to ``visit_<class>``. Every local
is declared at the top of its function, so that it is one variable for the whole body,
as in the Python resolvers. A statement the emitter does not know is an
:class:`.expressions.UnknownNode`.
"""

from __future__ import annotations

from rulebook.compiler import ir
from rulebook.compiler.emit.js.expressions import ExpressionWriter, UnknownNode, run_name
from rulebook.compiler.emit.js.names import comment, js_name, js_string
from rulebook.compiler.emit.js.writer import Writer


def _lets(stmts: tuple, into: list[str]) -> list[str]:
    """The names a block binds (lets, the values its repeats bind, the values its loops
    carry and their run numbers ``#n``, their bodies' lets), in order, once each. A loop's
    ``for`` variable is not among them: it is the ``const`` of the loop's ``for … of``."""
    for st in stmts:
        names: list[str] = []
        if isinstance(st, ir.Let):
            names = [st.name]
        elif isinstance(st, ir.Repeat):
            names = list(st.binds)
        elif isinstance(st, ir.Loop):
            names = [*(name for name, _ in st.carried), ir.counter(st.number)]
            _lets(st.body, into)
        elif isinstance(st, ir.Step):
            _lets(st.body, into)
        elif isinstance(st, ir.If):
            for _, body in st.branches:
                _lets(body, into)
            if st.orelse is not None:
                _lets(st.orelse, into)
        for name in names:
            if name not in into:
                into.append(name)
    return into


def _local_name(name: str) -> str:
    """A local of a resolver: a rules name, or a loop's run number (``#n`` → ``$run<n>``)."""
    return run_name(name) if name.startswith("#") else js_name(name)


class ProcedureWriter:
    """The procedures of the program as JavaScript functions."""

    def __init__(self, program: ir.Program, exprs: ExpressionWriter) -> None:
        self.p = program
        self.exprs = exprs
        self.repeats: list[ir.Repeat] = []
        self.step_number: int | None = None

    def src(self, span) -> str:
        return self.exprs.src(span)

    def procedure(self, w: Writer, d: ir.Procedure) -> None:
        params = []
        for prm in d.params:
            name = js_name(prm.name)
            if prm.default is not None:
                params.append(f"{name} = {self.exprs.expr(prm.default)}")
            elif prm.type.kind == "opt":
                params.append(f"{name} = null")
            else:
                params.append(name)
        w.line()
        w.line("/**")
        w.line(f" * {comment(d.title)}{f' ({comment(d.ref)})' if d.ref else ''}.")
        w.line(" *")
        for prm in d.params:
            w.line(f" * {comment(prm.name)}: {comment(str(prm.type))}")
        w.line(f" * Result: {comment(str(d.result))}")
        w.line(" *")
        w.line(f" * Generated from {comment(d.span.src)}.")
        w.line(" */")
        w.line(f"function $P_{js_name(d.name)}(ctx, {{ {', '.join(params)} }}) {{")
        w.indent()
        arguments = ", ".join(f"{js_string(prm.name)}: {js_name(prm.name)}" for prm in d.params)
        w.line(f"ctx.enter({js_string(d.name)}, {js_string(d.title)}, {js_string(d.ref)}, {self.src(d.span)}, {{ {arguments} }});")
        own = {prm.name for prm in d.params}
        locals_ = [name for name in _lets(d.body, []) if name not in own]
        if locals_:
            w.line("let " + ", ".join(_local_name(n) for n in locals_) + ";")
        self.step_number = None
        self.block(w, d.body, d)
        w.outdent()
        w.line("}")
        w.line(f"$P_{js_name(d.name)}.procName = {js_string(d.name)};")
        while self.repeats:
            self.repeat_body(w, d, self.repeats.pop(0))

    def repeat_name(self, proc: ir.Procedure, rep: ir.Repeat) -> str:
        return f"$REP_{js_name(proc.name)}_{rep.number}"

    def repeat_body(self, w: Writer, d: ir.Procedure, rep: ir.Repeat) -> None:
        """One run of a ``repeat`` body: returns ``[condition, [values it binds]]``."""
        name = self.repeat_name(d, rep)
        w.line()
        w.line(f"/** One run of the repeat of {comment(d.name)} until {comment(rep.text)} ({comment(rep.span.src)}). */")
        w.line(f"function {name}(ctx, {{ {', '.join(js_name(r) for r in rep.reads)} }}) {{")
        w.indent()
        locals_ = [n for n in _lets(rep.body, []) if n not in rep.reads]
        if locals_:
            w.line("let " + ", ".join(_local_name(n) for n in locals_) + ";")
        self.block(w, rep.body, d)
        w.line(f"return [{self.exprs.expr(rep.cond)}, [{', '.join(js_name(n) for n in rep.binds)}]];")
        w.outdent()
        w.line("}")
        w.line(f"{name}.procName = {js_string(f'_repeat_{d.name}_{rep.number}')};")

    # ------------------------------------------------------------------ statements
    def block(self, w: Writer, stmts: tuple, proc: ir.Procedure) -> None:
        for st in stmts:
            visit = getattr(self, "visit_" + type(st).__name__, None)
            if visit is None:
                raise UnknownNode(st)
            visit(w, st, proc)

    def visit_Step(self, w: Writer, st: ir.Step, proc: ir.Procedure) -> None:
        self.step_number = st.number
        w.line()
        w.comment(f"{st.number}. {st.label} ({st.span.src})")
        w.line(f"ctx.step({st.number}, {js_string(st.label)}, {js_string(proc.ref)}, {self.src(st.span)});")
        self.block(w, st.body, proc)

    def visit_Let(self, w: Writer, st: ir.Let, proc: ir.Procedure) -> None:
        value = self.exprs.expr(st.value)
        w.line(f"{js_name(st.name)} = ctx.let({js_string(st.name)}, {value}, {self.src(st.span)});")

    def visit_Return(self, w: Writer, st: ir.Return, proc: ir.Procedure) -> None:
        w.line(f"return ctx.leave({self.exprs.expr(st.value)});")

    def visit_Require(self, w: Writer, st: ir.Require, proc: ir.Procedure) -> None:
        w.line(f"if (!({self.exprs.expr(st.cond)})) throw new $rt.RuleError({js_string(st.message)}, {self.src(st.span)});")

    def visit_If(self, w: Writer, st: ir.If, proc: ir.Procedure) -> None:
        for i, (cond, body) in enumerate(st.branches):
            w.line(f"{'if' if i == 0 else '} else if'} ({self.exprs.expr(cond)}) {{")
            w.indent()
            self.block(w, body, proc)
            w.outdent()
        if st.orelse is not None:
            w.line("} else {")
            w.indent()
            self.block(w, st.orelse, proc)
            w.outdent()
        w.line("}")

    def visit_Repeat(self, w: Writer, st: ir.Repeat, proc: ir.Procedure) -> None:
        self.repeats.append(st)
        reads = "{" + ", ".join(js_name(n) for n in st.reads) + "}"
        found = self.exprs.facts.choice(st)
        state = self.exprs.state(found.state) if found.state is not None else "null"
        step = str(self.step_number) if self.step_number is not None else "null"
        call = (f"ctx.repeat({self.repeat_name(proc, st)}, {reads}, {self.src(st.span)}, {js_string(st.text)}, "
                f"{js_string(proc.name)}, {step}, {state})")
        if st.binds:
            w.line(f"[{', '.join(js_name(n) for n in st.binds)}] = {call};")
        else:
            w.line(f"{call};")

    def visit_Loop(self, w: Writer, st: ir.Loop, proc: ir.Procedure) -> None:
        """A bounded loop as a JavaScript ``for … of``, as the Python resolvers write it: the
        carried values first, then one run per number of ``ctx.runs(N)`` (each run counted as
        work; a traced sample shows it) or per element of ``ctx.loop(items)`` (numbered from
        1 in ``$run<n>``, which the states of the choices inside may read); ``until`` ends it
        with ``break``. The run number and the carried values are locals of the function (the
        states of its choices are taken when each roll is made)."""
        exprs = self.exprs
        src = self.src(st.span)
        for name, init in st.carried:
            w.line(f"{js_name(name)} = ctx.let({js_string(name)}, {exprs.expr(init)}, {src});")
        run = run_name(ir.counter(st.number))
        if st.iterable is None:
            w.line(f"for ({run} of ctx.runs({exprs.expr(st.times)}, {src})) {{")
            w.indent()
        else:
            var = js_name(st.var)
            w.line(f"{run} = 0;")
            w.line(f"for (const {var} of ctx.loop({exprs.expr(st.iterable)})) {{")
            w.indent()
            w.line(f"{run} += 1;")
            w.line(f"ctx.let({js_string(st.var)}, {var}, {src});")
        self.block(w, st.body, proc)
        if st.cond is not None:
            cond = exprs.expr(st.cond)
            w.line(f"if (ctx.let({js_string('until ' + st.text)}, {cond}, {self.src(st.cond.span)})) break;")
        w.outdent()
        w.line("}")

    def visit_Set(self, w: Writer, st: ir.Set, proc: ir.Procedure) -> None:
        """``set x = e``: ``x = e`` (nothing reads ``x`` later in the run: the checker sees to it)."""
        w.line(f"{js_name(st.name)} = ctx.let({js_string(st.name)}, {self.exprs.expr(st.value)}, {self.src(st.span)});")
