"""Utilities every stage may use; they know nothing of rulebooks.

Reads: the tool's own package data (message catalogs, the site's templates, the
bundled content), values to compare across builds. Produces: gettext translations and
number notation (:mod:`.i18n`), folders of package data (:mod:`.package_data`), pickled
memo keys and noted mappings (:mod:`.memo`), and a forked worker that computes one value
on the second core (:mod:`.ahead`). Imports nothing else of the compiler.
"""
