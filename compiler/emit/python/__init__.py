"""IR → a generated, importable Python package of resolvers, and a standalone project.

Reads: a checked :class:`rulebook.compiler.ir.Program` and the liveness facts of
:mod:`rulebook.compiler.analysis.liveness`. Produces: the package's modules by file name
(:func:`.to_python.generate`), the ``pyproject.toml`` and vendored runtime that make it
pip-installable alone (:mod:`.to_project`); every DSL name reaches Python through
:mod:`.names`.
"""
