"""Generated package → a standalone project that pip installs with nothing else.

Reads a checked :class:`rulebook.compiler.ir.Program` and the tool's own runtime
(the package ``rulebook.runtime``, through :mod:`importlib.resources`).
Produces, beside the modules :mod:`rulebook.compiler.emit.python.to_python` writes into
``python/<package>/``:

* ``pyproject.toml`` — the distribution ``<package>``, version = the rulebook's
  declared version (:func:`distribution_version`), no dependencies; never a name
  that installing it would replace (pip, a module of the standard library, one of the
  tool's dependencies…: :mod:`rulebook.compiler.support.distributions`, ValueError);
* ``_runtime/`` — a copy of the runtime the package was generated against,
  which the generated modules import relatively (``from . import _runtime as
  _rt``); the package re-exports it as ``<package>.runtime``;
* ``py.typed`` — the marker (PEP 561) that makes type checkers read the package's
  annotations (its resolvers' parameters and results, its records' fields).

So ``pip install build/python/<package>`` works in a clean virtual environment
and ``import <package>`` runs anywhere. (The tool itself runs the generated
code on its own runtime: see :mod:`rulebook.compiler.pipeline.pyload`.)

Entry point: :func:`project_files(program, pkg) -> dict[str, bytes]` (path relative
to the ``python/`` folder → contents). Deterministic: the same rulebook and the
same tool give the same bytes.
"""

from __future__ import annotations

import re
import unicodedata
from importlib import metadata, resources
from importlib.abc import Traversable
from typing import TYPE_CHECKING

from rulebook.compiler.emit.python.layout import WIDTH
from rulebook.compiler.support import distributions

if TYPE_CHECKING:  # annotations only: the loader (pyload) imports this module at run time
    from rulebook.compiler import ir

VENDORED = "_runtime"
TYPED_MARKER = "py.typed"
"""The file that tells type checkers the package is typed (PEP 561): they read its annotations."""
"""The folder of the generated package holding its copy of the runtime."""

_PEP440 = re.compile(r"(?:[1-9]\d*!)?(?:0|[1-9]\d*)(?:\.(?:0|[1-9]\d*))*(?:(?:a|b|rc)(?:0|[1-9]\d*))?(?:\.post(?:0|[1-9]\d*))?(?:\.dev(?:0|[1-9]\d*))?")


def distribution_version(program: ir.Program) -> str:
    """The rulebook's declared version when it is a PEP 440 version (``1.0``,
    ``2015``); otherwise ``0+`` and its letters and digits as a local label
    (``"2ª edición"`` → ``0+2a.edicion``), which pip accepts.

    >>> from types import SimpleNamespace as N
    >>> distribution_version(N(rulebook=N(version="1.0")))
    '1.0'
    >>> distribution_version(N(rulebook=N(version="2ª edición")))
    '0+2a.edicion'
    """
    declared = program.rulebook.version if program.rulebook else ""
    if _PEP440.fullmatch(declared):
        return declared
    ascii_text = unicodedata.normalize("NFKD", declared).encode("ascii", "ignore").decode().lower()
    label = ".".join(re.findall(r"[a-z0-9]+", ascii_text))
    return f"0+{label}" if label else "0"


def tool_version() -> str:
    """The installed rulebook tool's version (that of the runtime copied)."""
    try:
        return metadata.version("rulebook")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from sources that were never installed
        return "unknown"


def runtime_files() -> dict[str, bytes]:
    """The tool's runtime package, file by file (relative path → bytes), without
    caches or hidden files."""
    out: dict[str, bytes] = {}

    def walk(folder: Traversable, prefix: str) -> None:
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.name.startswith((".", "__pycache__")) or entry.name.endswith((".pyc", ".pyo")):
                continue
            if entry.is_dir():
                walk(entry, f"{prefix}{entry.name}/")
            else:
                out[f"{prefix}{entry.name}"] = entry.read_bytes()

    walk(resources.files("rulebook.runtime"), "")
    return out


def _toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    return '"' + re.sub(r'["\\\x00-\x1f\x7f]', lambda m: f"\\u{ord(m.group()):04x}", text) + '"'


_TOML_WORD = re.compile(r"\S+\s*|\s+")
_TOML_CHARACTER = re.compile(r"\\u[0-9a-f]{4}|.", re.DOTALL)  # of _toml_string's text: an escape is one


def _toml_text(key: str, text: str) -> list[str]:
    """``key = "text"``; when that is over :data:`.layout.WIDTH` characters, a multi-line basic
    string whose lines end with a backslash, which TOML drops with the line break and the
    indentation after it (the value is the same one line). Lines are cut after spaces, or
    inside a word too long for a line, never inside an escape and never before a space."""
    line = f"{key} = {_toml_string(text)}"
    if len(line) <= WIDTH:
        return [line]
    room = WIDTH - len("    ") - len('\\"""')
    pieces, current = [], ""
    for word in _TOML_WORD.findall(_toml_string(text)[1:-1]):
        if current and len(current + word) > room:
            pieces.append(current)
            current = ""
        core = word.rstrip()
        while len(core) > room:
            head = ""
            for character in _TOML_CHARACTER.findall(core):
                if len(head + character) > room:
                    break
                head += character
            pieces.append(head)
            core = core[len(head):]
        current += core + word[len(word.rstrip()):]
    pieces.append(current)
    return [f'{key} = """\\'] + [f"    {piece}\\" for piece in pieces[:-1]] + [f'    {pieces[-1]}"""']


def _toml_array(key: str, items: list[str]) -> list[str]:
    """``key = [item, …]`` (items already TOML), one item per line when the line would be
    over :data:`.layout.WIDTH` characters."""
    line = f"{key} = [{', '.join(items)}]"
    if len(line) <= WIDTH:
        return [line]
    return [f"{key} = ["] + [f"    {item}," for item in items] + ["]"]


def _refuse_taken(pkg: str) -> None:
    taken = distributions.taken_by(pkg)
    if taken is not None:
        raise ValueError(f"no project is written for a package named {pkg!r}: it is the name of {taken}")


def pyproject(program: ir.Program, pkg: str, data_files: list[str]) -> str:
    """The project file of the generated package ``pkg`` (its import and distribution
    name); ``data_files`` are the runtime's files other than modules (relative to
    ``_runtime/``), installed with it. ``pkg`` is never a name that installing would
    replace (:func:`_refuse_taken`, ValueError)."""
    _refuse_taken(pkg)
    title = " ".join((program.rulebook.title if program.rulebook else pkg).split())  # a summary is one line
    lines = [
        f"# Generated by rulebook {tool_version()}: the package {pkg}, with the runtime it was",
        f"# generated against ({pkg}/{VENDORED}/); it depends on nothing else.",
        "# Do not edit: change the .rules files and rebuild. Install with: pip install <this folder>",
        "",
        "[build-system]",
        'requires = ["setuptools>=61"]',
        'build-backend = "setuptools.build_meta"',
        "",
        "[project]",
        f"name = {_toml_string(pkg)}",
        f"version = {_toml_string(distribution_version(program))}",
        *_toml_text("description", f"Resolvers of «{title}», generated by rulebook."),
        'requires-python = ">=3.11"',
        "dependencies = []",
        "",
        "[tool.setuptools]",
        *_toml_array("packages", [_toml_string(pkg), _toml_string(f"{pkg}.{VENDORED}")]),
        f"package-dir = {{ {_toml_string(pkg)} = \".\" }}",
        "include-package-data = false",
    ]
    lines += ["", "[tool.setuptools.package-data]", f"{_toml_string(pkg)} = [{_toml_string(TYPED_MARKER)}]"]
    if data_files:
        lines += _toml_array(_toml_string(f"{pkg}.{VENDORED}"), [_toml_string(f) for f in data_files])
    return "\n".join(lines) + "\n"


def project_files(program: ir.Program, pkg: str) -> dict[str, bytes]:
    """``<pkg>/pyproject.toml`` and ``<pkg>/_runtime/…``, by path relative to the
    ``python/`` folder (``pkg``: the package's name, see ``to_python.package_name``).

    Raises:
        ValueError: ``pkg`` is a name :func:`rulebook.compiler.support.distributions.taken_by`
            refuses (the check refuses such a rulebook id first; this holds for any caller).
    """
    _refuse_taken(pkg)
    runtime = runtime_files()
    files = {f"{pkg}/{VENDORED}/{rel}": data for rel, data in runtime.items()}
    data_files = [rel for rel in runtime if not rel.endswith(".py")]
    files[f"{pkg}/{TYPED_MARKER}"] = b""
    files[f"{pkg}/pyproject.toml"] = pyproject(program, pkg, data_files).encode("utf-8")
    return files
