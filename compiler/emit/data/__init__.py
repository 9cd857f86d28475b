"""IR → JSON documents and their JSON Schemas (Draft 2020-12), validated before written.

Reads: a checked :class:`rulebook.compiler.ir.Program`, the odds tables and evaluated
examples of :mod:`rulebook.compiler.analysis`. Produces: one document per catalog and
table, the bundle, the manifest (:mod:`.to_json`), every schema (:mod:`.schemas`), test
vectors (:mod:`.vectors`) and army documents (:mod:`.to_armies`), checked by compiled
validators (:mod:`.fast_validation`).
"""
