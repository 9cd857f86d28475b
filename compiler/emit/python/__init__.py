"""IR → a generated, importable Python package of resolvers, and a standalone project.

Reads: a checked :class:`rulebook.compiler.ir.Program` and the liveness facts of
:mod:`rulebook.compiler.analysis.liveness`. Produces: the package's modules by file name
(:func:`.to_python.generate`), the ``pyproject.toml`` and vendored runtime that make it
pip-installable alone (:mod:`.to_project`); every DSL name reaches Python through
:mod:`.names`.

The modules, language-neutral first (another backend walking the same IR would take them
as they are), then the Python spelling:

==================  ==================================================================
program_views       the program as one generation reads it: by kind, reads noted, digests
plan                which declarations each module holds, in the order written
generation          the facts all modules share; the names each module cites, numbered;
                    pieces of a module kept across generations
module_memo         the modules of the last package kept while their reads are unchanged
layout              Python code as a tree of docs, laid out in lines of at most 120
writer              the lines of a module: indentation, statements, comments, docstrings
literals            plain values as Python literals
names               a DSL name → a Python identifier
module_frame        a module's header, imports and tables of what its body cites
expressions         IR expressions → Python expressions
statements          procedures → ``procedures.py`` and ``traced.py``
declarations        enums, records, data → ``types.py`` and ``data.py``
examples_and_odds   worked examples → ``examples.py``; odds tables → ``odds.py``
public_api          the package's ``__init__.py``
to_python           the emitter that puts the writers together; ``generate``,
                    ``write_package``, the Python ``ModuleMemo``
to_project          ``pyproject.toml`` and the vendored runtime
==================  ==================================================================
"""
