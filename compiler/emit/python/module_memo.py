"""The modules of the last generated package, each kept with what it read (``rulebook serve``).

Reads: a checked program, the digest of each of its declarations, worked examples and
``rulebook`` declaration (the caller's: :mod:`rulebook.compiler.support.memo`), and a
:class:`Backend` (the modules a package has and how one is written). Produces: the
package's files, as :func:`.to_python.generate` gives them, generating again only the
modules, and within them the pieces, whose reads changed. Nothing here is Python spelling:
the Python package is one backend (:data:`.to_python.PYTHON`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol

from rulebook.compiler import ir
from rulebook.compiler.emit.python.generation import Generation
from rulebook.compiler.emit.python.program_views import NotedProgram, ReadDigests


class Emitter(Protocol):
    """What writes the modules of one generation."""

    generation: Generation

    def module(self, name: str, package: str) -> str: ...


@dataclass(frozen=True)
class Backend:
    """A kind of generated package: its modules in the order they are written, the package's
    name for a program, an emitter for a view of the program and the source files its headers
    name, and the path of a module in the package."""

    modules: tuple[str, ...]
    package_name: Callable[[ir.Program], str]
    emitter: Callable[[Any, list[str]], Emitter]
    path: Callable[[str, str], str]


class ModuleMemo:
    """The modules of the last generated package, each with what it read (``rulebook serve``):
    :meth:`generate` generates again only the modules whose reads changed.

    While a module is generated, its emitter reads the program through a
    :class:`.program_views.NotedProgram`, so every declaration it looks up, every kind of
    declaration it iterates, the worked examples, the ``rulebook`` declaration and any other
    part of the program it touches is noted; what the analyses shared by all modules read
    (:meth:`.generation.Generation.once`) is added to each module that uses them. A module is
    kept when the package name, the source files its header names and the digest of each of its
    reads are as they were: a declaration's digest is the caller's (a hash of its pickled value,
    source positions included), so equal digests mean equal values and the same code. A module
    generated again is made of pieces (:meth:`.generation.Generation.piece_value`: a catalog's
    or table's data, a procedure, a worked example), each kept on the same terms, with what it
    did to the module's citations (the numbers it cites positions by…) checked and done again.
    Only the last package is kept."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        # module name → (common key, {read: its digest}, source)
        self.modules: dict[str, tuple[tuple, dict[tuple, bytes], str]] = {}
        # module name → piece → ({read: its digest}, its journal, its lines or code): Generation.piece_value
        self.pieces: dict[str, dict[Any, tuple[dict[tuple, bytes], list, Any]]] = {}
        self.generated: list[str] = []  # the modules the last call generated (the others were kept)

    def generate(self, program: ir.Program, decls: dict[str, bytes], examples: list[bytes], rulebook: bytes) -> dict[str, str]:
        """The backend's generation for ``program``; ``decls``: the digest of each declaration's
        value, ``examples`` of each worked example's (in order), ``rulebook`` of the ``rulebook``
        declaration's."""
        backend = self.backend
        digests = ReadDigests(program, decls, examples, rulebook)
        pkg = backend.package_name(program)
        sources = sorted({d.file for d in program.decls.values()})
        common = (pkg, tuple(sources))
        noted = NotedProgram(program)
        emitter = backend.emitter(noted, sources)
        files, kept, pieces, self.generated = {}, {}, {}, []
        for name in backend.modules:
            old = self.modules.get(name)
            if old is not None and old[0] == common and all(digests.of(read) == d for read, d in old[1].items()):
                files[backend.path(pkg, name)] = old[2]
                kept[name] = old
                pieces[name] = self.pieces.get(name, {})
                continue
            noted.reads = set()
            previous = self.pieces.get(name, {}) if old is not None and old[0] == common else {}
            emitter.generation.pieces = (previous, pieces.setdefault(name, {}), digests)
            text = emitter.module(name, pkg)
            files[backend.path(pkg, name)] = text
            kept[name] = (common, {read: digests.of(read) for read in noted.reads}, text)
            self.generated.append(name)
        self.modules, self.pieces = kept, pieces
        return files
