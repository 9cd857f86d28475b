"""IR (and the data documents) → the rulebook site: Markdown pages, a search index, mkdocs.yml.

Reads: a checked :class:`rulebook.compiler.ir.Program`, the generated package's evaluated
examples and odds tables, the army documents of :mod:`rulebook.compiler.emit.data`.
Produces: the pages under ``docs/`` (:mod:`.to_pages`, one module per kind of page),
the army builder (:mod:`.to_army_page`) and changelog (:mod:`.to_changelog_page`) pages;
everything from a rules file reaches HTML through :mod:`.markdown`, players' formulas
through :mod:`.readable`; :mod:`.mkdocs_raw` is the MkDocs plugin of the built site.
"""
