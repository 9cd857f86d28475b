"""One generation of the package, module by module: the facts its modules share and the names each cites.

Reads: a checked program (through a :mod:`.program_views` view) and
:mod:`rulebook.compiler.analysis.liveness`. Produces, for the writers of the modules:

* :class:`Generation` — the facts worked out once for all the modules of one generation
  (which procedures roll dice, each procedure's choices, the special rules each rule grants),
  and the pieces of a module remembered across generations (:meth:`Generation.piece_value`,
  for :class:`.module_memo.ModuleMemo`);
* :class:`Citations` — the names one module's code cites, each numbered in the order the
  module first cites it: source positions, random variables and records built once, with
  the ranged tables looked up and the records built.

Nothing here is Python spelling (the writers spell ``_SRC[i]``, ``_RV_i``…): another
backend walking the same IR numbers and memoises the same way.
"""

from __future__ import annotations

from typing import Any, Callable

from rulebook.compiler import ir
from rulebook.compiler.analysis import liveness
from rulebook.compiler.emit.python.program_views import NotedProgram, ReadDigests

NUMBERED = ("src", "rv", "record")
"""The kinds of names a module numbers: source positions (``file:line``), random variables
and records built once."""


class Citations:
    """The names one module's code cites (reset for each module: :meth:`clear`).

    ``numbered[kind]``: value → its number, from 0, in the order the module first cites it
    (:data:`NUMBERED`); ``range_tables``: the ranged tables the fast resolvers look up, by
    name; ``record_builders``: the records the resolvers build. While a piece of a module is
    written (:meth:`Generation.piece_value`), each citation is also noted in ``journal``, so
    that a piece taken from a previous generation can do again what it did."""

    def __init__(self) -> None:
        self.numbered: dict[str, dict[Any, int]] = {kind: {} for kind in NUMBERED}
        self.range_tables: dict[str, ir.Table] = {}
        self.record_builders: set[str] = set()
        self.journal: list | None = None

    def clear(self) -> None:
        for numbered in self.numbered.values():
            numbered.clear()
        self.range_tables.clear()
        self.record_builders.clear()

    def number(self, kind: str, value: Any) -> int:
        """The number of ``value`` among the module's names of ``kind`` (given on first citation)."""
        numbered = self.numbered[kind]
        index = numbered.setdefault(value, len(numbered))
        if self.journal is not None:
            self.journal.append((kind, value, index))
        return index

    def range_table(self, table: ir.Table) -> None:
        """The fast resolvers look ``table`` up by range (a function of its own)."""
        self.range_tables.setdefault(table.name, table)
        if self.journal is not None:
            self.journal.append(("range", table.name, None))

    def record_builder(self, record: str) -> None:
        """The resolvers build the record ``record``."""
        self.record_builders.add(record)
        if self.journal is not None:
            self.journal.append(("builder", record, None))

    def replayable(self, journal: list) -> bool:
        """Whether each citation of ``journal`` would get the number it got then."""
        added: dict[str, dict] = {kind: {} for kind in NUMBERED}  # numbered after those of the module so far
        for kind, value, number in journal:
            if number is None:  # a ranged table or a record builder: no number
                continue
            numbered, mine = self.numbered[kind], added[kind]
            now = numbered[value] if value in numbered else len(numbered) + mine.setdefault(value, len(mine))
            if now != number:
                return False
        return True

    def replay(self, journal: list, table: Callable[[str], ir.Table]) -> None:
        """Cite what the piece that made ``journal`` cited (``table``: a ranged table by name)."""
        for kind, value, _number in journal:
            if kind in NUMBERED:
                numbered = self.numbered[kind]
                numbered.setdefault(value, len(numbered))
            elif kind == "range":
                self.range_tables.setdefault(value, table(value))
            else:
                self.record_builders.add(value)


class Generation:
    """What the writers of one package's modules share: the program (``p``, a view of
    :mod:`.program_views`), the source files the headers name, the facts worked out once
    (:meth:`once`), the citations of the module being written and, under
    :class:`.module_memo.ModuleMemo`, the pieces of the previous generation (``pieces``)."""

    def __init__(self, program: Any, sources: list[str] | None = None) -> None:
        self.p = program
        self.sources = sorted({d.file for d in program.decls.values()}) if sources is None else sources
        self.shared: dict = {}  # what the modules read, worked out once: see once()
        self.citations = Citations()
        self.pieces: tuple[dict, dict, ReadDigests] | None = None  # see piece_value()

    def once(self, name: Any, compute: Callable[[Any], Any], derived: bool = False) -> Any:
        """``compute(program)``, worked out once for all the modules of one generation (``self.shared``).
        When the program notes reads (:class:`.program_views.NotedProgram`, for
        :class:`.module_memo.ModuleMemo`), what the computation read is noted apart, and added to
        the reads of every module that uses it; ``derived``: the value itself is noted instead,
        as the read ``(name,)`` (see :class:`.program_views.ReadDigests`)."""
        p = self.p
        if name not in self.shared:
            if isinstance(p, NotedProgram):
                reads, p.reads = p.reads, set()
                try:
                    value = compute(p)
                finally:
                    reads, p.reads = p.reads, reads
                self.shared[name] = (value, frozenset({(name,)} if derived else reads))
            else:
                self.shared[name] = (compute(p), frozenset())
        value, reads = self.shared[name]
        if isinstance(p, NotedProgram):
            p.reads |= reads
        return value

    # ------------------------------------------------------------------ shared facts
    @property
    def grants(self) -> dict[str, tuple[ir.RuleApp, ...]]:
        """The special rules each rule grants directly (:func:`granted`)."""
        return self.once("grants", granted)

    @property
    def granted_rules(self) -> set[str]:
        """The special rules some rule grants."""
        return self.once("granted_rules", lambda p: {a.rule for apps in granted(p).values() for a in apps})

    @property
    def random_procedures(self) -> set[str]:
        """The procedures that roll dice, worked out once per generation (noted as that set
        itself, the read ``("random",)``: :class:`.program_views.ReadDigests`)."""
        return self.once("random", lambda p: liveness._random_procedures(p.of(ir.Procedure)), derived=True)

    def choice(self, node: ir.Expr | ir.Repeat, procedure: str | None) -> liveness.Choice:
        """What :func:`rulebook.compiler.analysis.liveness.analyse` finds for a choice (a roll, a
        draw, a call of a procedure that rolls dice, a repeat) of ``procedure``: the analysis of
        that procedure alone (it reads only the procedure, the records it builds and
        :attr:`random_procedures`; noted in the procedure's piece); not in a procedure, the
        whole analysis."""
        if procedure is None:
            return self.once("liveness", liveness.analyse).choice(node)
        random = self.random_procedures
        return self.once(("choices", procedure), lambda p: _choices(p, procedure, random)).choice(node)

    # ------------------------------------------------------------------ pieces
    def piece_value(self, key: Any, reads: set[tuple], compute: Callable[[], Any]) -> Any:
        """``compute()``, remembered under ``key`` across generations of one module
        (:class:`.module_memo.ModuleMemo` gives ``self.pieces``: the previous generation's pieces,
        this one's and the digests of this build's reads). ``reads``: what ``compute`` reads
        beside what it reads of the program (noted).

        A piece is what one declaration or worked example makes of a module, and what it does to
        the module's citations (:class:`Citations`): the positions, random variables and constant
        records it cites (each numbered in the order a module first cites it), the ranged tables
        it looks up and the record builders it calls, all noted in a journal while it is computed.
        It is taken again when its reads have the same digests and each citation of its journal
        would get the same number now (so its text is the same); its journal is then replayed."""
        if self.pieces is None:
            return compute()
        old, new, digests = self.pieces
        noted = self.p
        citations = self.citations
        assert isinstance(noted, NotedProgram) and citations.journal is None
        before = noted.reads
        found = old.get(key)
        if found is not None and all(digests.of(read) == d for read, d in found[0].items()) and citations.replayable(found[1]):
            citations.replay(found[1], lambda name: noted.program.decls[name])
            before |= found[0].keys()
            new[key] = found
            return found[2]
        journal: list = []
        noted.reads = set(reads)
        citations.journal = journal
        try:
            value = compute()
        finally:
            citations.journal = None
            reads, noted.reads = noted.reads, before | noted.reads
        new[key] = ({read: digests.of(read) for read in reads}, journal, value)
        return value


def granted(program: ir.Program) -> dict[str, tuple[ir.RuleApp, ...]]:
    """Each rule that grants others → the applications it grants directly. The rules
    those grant in turn are found at run time by ``rulebook.runtime.granted`` (a chain of n
    grants stays n entries here, not the n²/2 of its closure)."""
    return {r.name: tuple(r.grants) for r in sorted(program.of(ir.Rule), key=lambda r: r.name) if r.grants}


def _choices(program: ir.Program, name: str, random: set[str]) -> liveness.Liveness:
    """The analysis of the procedure ``name`` alone (what :func:`rulebook.compiler.analysis.liveness.analyse` finds for it)."""
    result = liveness.Liveness(random=random)
    if name in random:
        liveness._Procedure(program, program.decls[name], result).analyse()
    return result
