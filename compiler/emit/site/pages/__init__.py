"""The site's pages, one module per kind of page, over a context they share.

Reads: a checked :class:`rulebook.compiler.ir.Program`, the generated package (its worked
examples), the odds tables, the build's ``json/`` and ``schemas/``, and in ``rulebook serve``
the previous build's pages. Produces: the Markdown pages under ``docs/``, the search index
and ``mkdocs.yml``, put together by :mod:`rulebook.compiler.emit.site.to_pages`.

================  ==================================================================
context           the page map (which page holds what), links, titles, the page being
                  rendered, the search index: what every page shares
values            the program's values as a page shows them: cells, labels, rule
                  applications, lists of records, odds grids, badges
references        who refers to what (reverse links), what short labels mean
sections          the manual's section pages and the blocks of their items
army_lists        an army list's block on the section page that declares it
datasheets        the card pages of datasheet catalogs, the index of every datasheet
glossary          the abbreviations every page explains, the glossary page
rules_a_to_z      every special rule A–Z
quick_reference   the highlighted formulas and odds tables on one page
data_page         the data for tools: the build's JSON and schemas, how to use them
calculators       a calculator per procedure: its page, its data, the resolvers' script
listings          the rules source of every file, highlighted (ahead, in a worker)
memo              what each page reads, and ``rulebook serve``'s memo of pages
reading           names spelt as the rulebook's prose spells them, noted and remembered
templates         the Jinja2 environment of the site's templates
site_build        mkdocs.yml, the theme's files, the MkDocs run, the bundle index
================  ==================================================================
"""
