"""The ``rulebook`` command line: one module per verb.

Reads: the command's arguments, rulebook folders, build folders (as data only), rosters,
JSON on stdin. Produces: diagnostics, exit status, and what each verb writes —
:mod:`.cli` (argument parsing, ``check``, ``build``, ``lsp``), :mod:`.resolve`,
:mod:`.test_command`, :mod:`.roster`, :mod:`.diff`, :mod:`.serve`. Nothing imports this
package.
"""
