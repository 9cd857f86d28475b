"""The rules compiler: ``.rules`` files → resolvers, JSON with schemas, a rulebook site.

Reads: a rulebook folder (or file) of literate ``.rules`` text. Produces: a build folder
(``python/``, ``json/``, ``schemas/``, ``docs/``, ``site/``) and the ``rulebook`` command.

The stages, one package each, in the order a build runs them (each package's own
docstring says what it reads and produces; ``tests/test_architecture.py`` holds the
import directions: commands → pipeline → emit → analysis → ir ← check):

==============  ==================================================================
support         utilities with no rulebook knowledge: language catalogs, package
                data, memo keys, a forked worker
check           files → AST (through :mod:`rulebook.rules_dsl`) → the typed IR
ir              the typed IR, its types, built-ins, walkers and source names
analysis        facts derived from the IR and from the generated package
                (liveness, reads, evaluated examples, odds tables)
emit.python     IR → the generated Python package of resolvers
emit.data       IR → JSON documents, JSON Schemas, test vectors, army documents
emit.site       IR + data → Markdown pages, mkdocs.yml, the army builder page
pipeline        the stages run in order, with atomic output and the resolve cache
commands        one module per ``rulebook`` verb (the command line)
lsp             the language server
==============  ==================================================================
"""
