"""IR (and the data documents) → the rulebook site: Markdown pages, a search index, mkdocs.yml.

Reads: a checked :class:`rulebook.compiler.ir.Program`, the generated package's evaluated
examples and odds tables, the army documents of :mod:`rulebook.compiler.emit.data`.
Produces: the pages under ``docs/``, ``mkdocs.yml`` and the HTML site.

==================  ==============================================================
to_pages            the entry points: the pages put together in order
                    (:func:`~.to_pages.write_docs`), the MkDocs run, the bundle index
pages               one module per kind of page over the context they share (see
                    :mod:`.pages`: context, values, references, sections,
                    army_lists, datasheets, glossary, rules_a_to_z,
                    quick_reference, data_page, calculators, listings, memo, reading,
                    templates, site_build)
to_army_page        the army builder page of each army list
to_changelog_page   the version history (``@changelog``)
markdown            everything from a rules file reaches HTML through it (escaping)
readable            players' formulas and names in the rulebook's words
mkdocs_raw          the MkDocs plugin of the built site (finished HTML blocks)
==================  ==============================================================
"""
