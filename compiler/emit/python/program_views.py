"""A checked program as one generation of the package reads it: by kind, and with its reads noted.

Reads: a checked :class:`rulebook.compiler.ir.Program`. Produces: views of it for the
emitter — :class:`ProgramByKind` (the declarations of each kind listed once per generation),
:class:`NotedProgram` (the same, noting each part of the program read, for
:class:`.module_memo.ModuleMemo`) — and :class:`ReadDigests`, the digest in one build of
each thing a module may read. Nothing here is Python spelling: another backend walking the
same IR reads the program through the same views.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Mapping

from rulebook.compiler import ir
from rulebook.compiler.analysis import liveness
from rulebook.compiler.support.memo import ALL, NotedMapping


class ProgramByKind:
    """A checked program as one generation reads it: the declarations of each kind are
    listed once (the emitter looks them up for each expression it writes; listing them
    each time made generation quadratic in the number of declarations)."""

    def __init__(self, program: ir.Program) -> None:
        self.program = program
        self._lists: dict[type, list] = {}
        self._dicts: dict[type, dict] = {}

    def of(self, cls: type) -> list:
        found = self._lists.get(cls)
        if found is None:
            found = self._lists[cls] = self.program.of(cls)
        return found

    def by_name(self, cls: type) -> dict:
        found = self._dicts.get(cls)
        if found is None:
            found = self._dicts[cls] = {d.name: d for d in self.of(cls)}
        return found

    enums = property(lambda self: self.by_name(ir.Enum))
    records = property(lambda self: self.by_name(ir.Record))
    catalogs = property(lambda self: self.by_name(ir.Catalog))
    tables = property(lambda self: self.by_name(ir.Table))
    procedures = property(lambda self: self.by_name(ir.Procedure))

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.program, name)



class NotedProgram:
    """A checked program whose reads are noted in ``reads`` while one module is generated
    (:class:`.module_memo.ModuleMemo`): each declaration looked up by name, ``("decl", name)``; the
    declarations of a kind, in order, ``("of", kind)`` (``program.decls`` iterated:
    ``("of", object)``); the worked examples, ``("examples",)``; the ``rulebook``
    declaration, ``("rulebook",)``; any other attribute, ``("attr", name)``."""

    def __init__(self, program: ir.Program) -> None:
        self.program = program
        self.kinds = ProgramByKind(program)
        self.reads: set[tuple] = set()

    def _noting(self, kind: type):
        """What a mapping of the declarations of ``kind`` notes, in the reads of the module
        being generated when it is read: a name looked up, ``("decl", name)``; all of it
        (:data:`rulebook.compiler.support.memo.ALL`), ``("of", kind)``."""

        def note(key) -> None:
            self.reads.add(("of", kind) if key is ALL else ("decl", key))

        return note

    @property
    def decls(self) -> Mapping:
        return NotedMapping(self.program.decls, self._noting(object))

    def _kind(self, cls: type) -> Mapping:
        return NotedMapping(self.kinds.by_name(cls), self._noting(cls))

    enums = property(lambda self: self._kind(ir.Enum))
    records = property(lambda self: self._kind(ir.Record))
    catalogs = property(lambda self: self._kind(ir.Catalog))
    tables = property(lambda self: self._kind(ir.Table))
    procedures = property(lambda self: self._kind(ir.Procedure))

    def of(self, cls: type) -> list:
        self.reads.add(("of", cls))
        return self.kinds.of(cls)

    def get(self, name: str, cls: type = object):
        self.reads.add(("decl", name))
        return self.program.get(name, cls)

    @property
    def examples(self) -> list:
        self.reads.add(("examples",))
        return self.program.examples

    @property
    def rulebook(self):
        self.reads.add(("rulebook",))
        return self.program.rulebook

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        self.reads.add(("attr", name))
        return getattr(self.program, name)


class ReadDigests:
    """The digest, in one build, of each thing a module may read (see :class:`NotedProgram`)."""

    def __init__(self, program: ir.Program, decls: dict[str, bytes], examples: list[bytes], rulebook: bytes) -> None:
        self.program, self.decls, self.examples, self.rulebook = program, decls, examples, rulebook
        self.known: dict[tuple, bytes] = {}

    def of(self, read: tuple) -> bytes:
        if read not in self.known:
            self.known[read] = self._digest(read)
        return self.known[read]

    def _digest(self, read: tuple) -> bytes:
        what = read[0]
        if what == "random":  # the procedures that roll dice (Generation.random_procedures)
            return hashlib.sha256(repr(sorted(liveness._random_procedures(self.program.of(ir.Procedure)))).encode()).digest()
        if what == "decl":
            return self.decls.get(read[1], b"-")  # absent: no digest is one byte long
        if what == "of":
            return hashlib.sha256(b"".join(
                name.encode() + b"\0" + self.decls[name] for name, d in self.program.decls.items() if isinstance(d, read[1])
            )).digest()
        if what == "examples":
            return hashlib.sha256(b"".join(self.examples)).digest()
        if what == "rulebook":
            return self.rulebook
        return hashlib.sha256(pickle.dumps(getattr(self.program, read[1]), protocol=pickle.HIGHEST_PROTOCOL)).digest()

