"""Checked program (:class:`rulebook.compiler.ir.Program`) → a generated, importable Python package of resolvers.

Reads only the typed IR. Entry point: :func:`generate(program) -> dict[str, str]`
(file name → source); :func:`write_package(program, folder)` writes it. A long-running
caller (``rulebook serve``) keeps a :class:`ModuleMemo`, whose ``generate`` gives the same
modules but writes again only what reads a declaration or worked example that changed.
:class:`PythonEmitter` puts together the writers of the modules (each module of this
package is listed in its ``__init__``).

The package (named after the rulebook id) holds:

* ``types.py`` — enum values and orders, one class per record
  (``rulebook.runtime.Record``: an immutable value with slots; resolvers build one with
  ``R._new(value, …)``, faster than a class call);
* ``data.py`` — constants, catalogs, tables, dice and bags as Python literals,
  and ``GRANTS``: the special rules each rule grants (read by ``has_rule`` and
  ``rule_param`` through ``rulebook.runtime.granted``);
* ``procedures.py`` — one function per procedure, ``fn(ctx, **params)``: the fast
  resolvers, which only roll dice (steps are comments; a table is indexed
  directly where the types guarantee the row). The body of a ``repeat … until``
  is a function of its own, ``_repeat_<procedure>_<n>(ctx, <values it reads>)``,
  run by ``ctx.repeat``. Calls between procedures and record builders
  (``_new_<record>``, a module-level name for ``_t.<record>._new``; for a record
  of bools, whole numbers and strings, one that gives back the equal record built
  already) pass their arguments by position where that keeps the order written,
  each noted with the parameter it fills: the cheapest calls for Python;
* ``traced.py`` — the same functions, traced (``fn.traced``): they report steps,
  bindings and rolls to the context, look every table up with the rule's
  position, and give each roll the state exact enumeration may merge on (from
  :mod:`rulebook.compiler.analysis.liveness`);
* ``examples.py`` — the worked examples, as :class:`rulebook.runtime.Example` objects;
* ``odds.py`` — the odds tables, as :class:`rulebook.runtime.Odds` objects;
* ``__init__.py`` — the public API: a :class:`rulebook.runtime.Procedure` per procedure.

Every DSL name goes through :func:`rulebook.compiler.emit.python.names.py_name`; every literal,
docstring and comment text through ``repr()``. The code imports nothing but
the runtime, the package's own copy (``from . import _runtime``: see
:mod:`rulebook.compiler.emit.python.to_project`). Source positions cited by code go through one table per module
(``_SRC[i]``). Code is laid out by a small pretty-printer (:mod:`.layout`) that breaks long
calls, collections and operator chains over several lines and splits long string literals,
and comments and docstrings are wrapped (:mod:`.writer`), so no line is over
:data:`.layout.WIDTH` characters (120; counted in characters, not UTF-8 bytes): the data
literals of ``data.py`` are one entry per line, an entry too long broken like code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from rulebook.compiler import ir
from rulebook.compiler.emit.python import module_memo
from rulebook.compiler.emit.python.declarations import DeclarationWriter
from rulebook.compiler.emit.python.examples_and_odds import ExampleWriter
from rulebook.compiler.emit.python.matchups import MatchupWriter
from rulebook.compiler.emit.python.expressions import ExpressionWriter
from rulebook.compiler.emit.python.generation import Generation
from rulebook.compiler.emit.python.names import module_name
from rulebook.compiler.emit.python.program_views import ProgramByKind
from rulebook.compiler.emit.python.public_api import PublicApiWriter
from rulebook.compiler.emit.python.statements import ProcedureWriter
from rulebook.compiler.emit.python.to_project import project_files


class PythonEmitter:
    """Generates the package's modules from a checked program (or a view of one:
    :mod:`.program_views`), one writer per kind of module, all sharing one
    :class:`.generation.Generation` and one :class:`.expressions.ExpressionWriter`."""

    def __init__(self, program: ir.Program, sources: list[str] | None = None):
        self.generation = Generation(program, sources)
        self.exprs = ExpressionWriter(self.generation)
        self.declarations = DeclarationWriter(self.generation)
        self.procedures = ProcedureWriter(self.generation, self.exprs)
        self.examples = ExampleWriter(self.generation, self.exprs)
        self.matchups = MatchupWriter(self.generation, self.exprs)
        self.public_api = PublicApiWriter(self.generation)

    def module(self, name: str, package: str) -> str:
        """The text of the module ``name`` (of :data:`MODULES`) of the package ``package``."""
        traced, write = MODULES[name]
        self.exprs.traced = traced
        return write(self, package)


MODULES: dict[str, tuple[bool, Callable[[PythonEmitter, str], str]]] = {
    "types": (False, lambda em, pkg: em.declarations.types_module()),
    "data": (False, lambda em, pkg: em.declarations.data_module()),
    "procedures": (False, lambda em, pkg: em.procedures.module()),
    "traced": (True, lambda em, pkg: em.procedures.module()),
    "examples": (True, lambda em, pkg: em.examples.examples_module()),
    "odds": (True, lambda em, pkg: em.examples.odds_module()),
    "matchups": (False, lambda em, pkg: em.matchups.module()),
    "__init__": (True, lambda em, pkg: em.public_api.init_module(pkg)),
}
"""The package's modules, in the order they are generated, each with whether its expressions
are written traced (the worked examples and odds tables call the traced twins) and its
writer. What the emitter holds between modules (the citations of :mod:`.generation`) is
cleared by each, so one module can be generated without those before it
(:class:`ModuleMemo`)."""


def package_name(program: ir.Program) -> str:
    return module_name(program.rulebook.name if program.rulebook else "rulebook")


def module_path(package: str, name: str) -> str:
    return f"{package}/{name}.py"


def generate(program: ir.Program) -> dict[str, str]:
    """All modules of the generated package, by relative path."""
    em = PythonEmitter(ProgramByKind(program))  # type: ignore[arg-type]
    pkg = package_name(program)
    return {module_path(pkg, name): em.module(name, pkg) for name in MODULES}


PYTHON = module_memo.Backend(
    modules=tuple(MODULES),
    package_name=package_name,
    emitter=lambda program, sources: PythonEmitter(program, sources=sources),
    path=module_path,
)
"""The generated Python package, as :class:`.module_memo.ModuleMemo` generates it."""


class ModuleMemo(module_memo.ModuleMemo):
    """:class:`.module_memo.ModuleMemo` of the Python package: :meth:`generate` gives
    :func:`generate`'s answer, generating again only what reads a changed declaration."""

    def __init__(self) -> None:
        super().__init__(PYTHON)


def write_package(program: ir.Program, folder: Path, generated: dict[str, str] | None = None) -> list[Path]:
    """Write the package under ``folder`` (created), with what makes it a standalone
    project (:mod:`rulebook.compiler.emit.python.to_project`); returns the files written.
    ``generated``: :func:`generate`'s answer for ``program``, when the caller has it."""
    written = []
    modules = generate(program) if generated is None else generated
    files = {rel: text.encode("utf-8") for rel, text in modules.items()} | project_files(program, package_name(program))
    for rel, data in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    return written
