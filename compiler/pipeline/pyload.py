"""Import a generated resolver package from a folder, under a private name.

Each call loads a fresh copy (a unique module name), so two builds in one
process never see each other's modules; each copy carries the hash of its
sources (``__rulebook_source_hash__``, see :func:`source_hash`). A module
whose bytes the previous call loaded too is not compiled again: its code
object is reused (``rulebook serve`` loads the package after every edit, and
an edit changes one or two of its files); nothing is written beside the files.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import itertools
import sys
from pathlib import Path
from types import CodeType, ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # not imported at run time: a warm ``rulebook resolve`` loads no compiler stage
    from rulebook.compiler.ir import Program

_counter = itertools.count(1)


def load_package(python_dir: Path) -> ModuleType:
    """Import the single package under ``python_dir`` (e.g. build/python/manual_1936)."""
    from rulebook import runtime

    from rulebook.compiler.emit.python.to_project import VENDORED

    packages = sorted(p for p in python_dir.iterdir() if (p / "__init__.py").exists())
    if len(packages) != 1:
        raise RuntimeError(f"expected one generated package in {python_dir}, found {len(packages)}")
    pkg_dir = packages[0]
    name = f"_rulebook_generated_{next(_counter)}_{pkg_dir.name}"
    init = str(pkg_dir / "__init__.py")
    spec = importlib.util.spec_from_file_location(name, init, loader=_Loader(name, init), submodule_search_locations=[str(pkg_dir)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    # The package runs on the tool's own runtime, not on the copy it carries for standalone use
    # (_runtime/, the same code): its values and errors (rulebook.runtime.RuleError…) are those the tool knows.
    sys.modules[f"{name}.{VENDORED}"] = runtime
    setattr(module, VENDORED, runtime)
    finder = _Finder(name, pkg_dir)
    spec.loader.compiled = finder.compiled
    sys.meta_path.insert(0, finder)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.meta_path.remove(finder)
        _COMPILED.clear()
        _COMPILED.update(finder.compiled)
    module.__rulebook_source_hash__ = source_hash(pkg_dir)
    return module


_COMPILED: dict[bytes, CodeType] = {}
"""The code of the last package's modules, by the SHA-256 of their file name and bytes."""


class _Loader(importlib.machinery.SourceFileLoader):
    """A generated module's code: compiled from the same bytes by the previous load (with
    this file's name), else its valid bytecode beside it (a ``rulebook resolve`` cache
    entry's, written checked against the source), else its source compiled. No bytecode is
    written: a build's output stays the files it generated."""

    compiled: dict[bytes, CodeType] | None = None

    def get_code(self, fullname: str) -> CodeType:
        path = self.get_filename(fullname)
        data = self.get_data(path)
        key = hashlib.sha256(Path(path).name.encode() + b"\0" + data).digest()
        code = _COMPILED.get(key)
        if code is None:
            code = super().get_code(fullname)
        elif code.co_filename != path:
            code = _renamed(code, path)
        if self.compiled is not None:
            self.compiled[key] = code
        return code


    def set_data(self, path: str, data: bytes, *, _mode: int = 0o666) -> None:
        """Bytecode is not written (see the class)."""


def _renamed(code: CodeType, path: str) -> CodeType:
    """``code`` as compiling the same source under file name ``path`` gives it."""
    consts = tuple(_renamed(c, path) if isinstance(c, CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=path, co_consts=consts)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the modules of the package being loaded (``name.x`` → ``x.py`` of its folder),
    for :class:`_Loader`; anything else is left to the other finders."""

    def __init__(self, name: str, folder: Path) -> None:
        self.name, self.folder = name, folder
        self.compiled: dict[bytes, CodeType] = {}

    def find_spec(self, fullname: str, path=None, target=None):
        package, _, module = fullname.rpartition(".")
        file = self.folder / f"{module}.py"
        if package != self.name or not file.is_file():
            return None
        loader = _Loader(fullname, str(file))
        loader.compiled = self.compiled
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


def source_hash(pkg_dir: Path) -> str:
    """SHA-256 of a generated package's files (names and bytes): two packages with the
    same hash behave the same, so results computed with one (the worked examples') hold for the other."""
    digest = hashlib.sha256()
    for path in sorted(pkg_dir.glob("*.py")):
        data = path.read_bytes()
        digest.update(path.name.encode() + b"\0" + len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def compile_and_load(program: Program) -> ModuleType:
    """Generate a program's package into a temporary folder and import it."""
    import tempfile

    from rulebook.compiler.emit.python import to_python

    with tempfile.TemporaryDirectory(prefix="rulebook-py-") as tmp:
        to_python.write_package(program, Path(tmp))
        return load_package(Path(tmp))
