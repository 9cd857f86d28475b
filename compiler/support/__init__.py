"""Utilities every stage may use; they know nothing of rulebooks.

Reads: the tool's own package data (message catalogs, the site's templates, the
bundled content), values to compare across builds, text on its way to a terminal,
untrusted JSON files. Produces: gettext translations and
number notation (:mod:`.i18n`), folders of package data (:mod:`.package_data`), pickled
memo keys and noted mappings (:mod:`.memo`), a forked worker that computes one value
on the second core (:mod:`.ahead`), the one filter between a command's output and the
terminal (:mod:`.terminal`), JSON files from someone else read as data within bounds
(:mod:`.untrusted_json`), and the Python distribution names a generated package must not
take (:mod:`.distributions`). Imports nothing else of the compiler.
"""
