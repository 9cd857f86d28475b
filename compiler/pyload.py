"""Import a generated resolver package from a folder, under a private name.

Each call loads a fresh copy (a unique module name), so two builds in one
process never see each other's modules; each copy carries the hash of its
sources (``__rulebook_source_hash__``, see :func:`source_hash`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # not imported at run time: a warm ``rulebook resolve`` loads no compiler stage
    from .ir import Program

_counter = itertools.count(1)


def load_package(python_dir: Path) -> ModuleType:
    """Import the single package under ``python_dir`` (e.g. build/python/manual_1936)."""
    from rulebook import runtime

    from .to_project import VENDORED

    packages = sorted(p for p in python_dir.iterdir() if (p / "__init__.py").exists())
    if len(packages) != 1:
        raise RuntimeError(f"expected one generated package in {python_dir}, found {len(packages)}")
    pkg_dir = packages[0]
    name = f"_rulebook_generated_{next(_counter)}_{pkg_dir.name}"
    spec = importlib.util.spec_from_file_location(name, pkg_dir / "__init__.py", submodule_search_locations=[str(pkg_dir)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    # The package runs on the tool's own runtime, not on the copy it carries for standalone use
    # (_runtime/, the same code): its values and errors (rulebook.runtime.RuleError…) are those the tool knows.
    sys.modules[f"{name}.{VENDORED}"] = runtime
    setattr(module, VENDORED, runtime)
    spec.loader.exec_module(module)
    module.__rulebook_source_hash__ = source_hash(pkg_dir)
    return module


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

    from . import to_python

    with tempfile.TemporaryDirectory(prefix="rulebook-py-") as tmp:
        to_python.write_package(program, Path(tmp))
        return load_package(Path(tmp))
