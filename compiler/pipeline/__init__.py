"""The stages run in order: load → check → emit, with atomic output and a resolve cache.

Reads: a rulebook folder (or file). Produces: a build folder swapped in whole
(:mod:`.driver`: :func:`~.driver.check`, :func:`~.driver.build`), generated packages
imported under private names (:mod:`.pyload`) and compiled packages kept by content
hash (:mod:`.cache`).
"""
