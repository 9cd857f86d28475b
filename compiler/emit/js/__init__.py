"""The JavaScript package of a build (``js/``).

Reads: documents a build already wrote (the army documents of ``json/armies/`` and
``schemas/roster.schema.json``), never the AST. Produces: :mod:`.armies` — ``armies.js``
(an ES module: the army documents as frozen data and ``validateRoster``), ``armies.d.ts``
and ``armies.browser.js`` (the classic-script twin the site's army builder loads), over the
generic roster validator ``runtime/roster.js`` (the port of
:mod:`rulebook.compiler.commands.roster`).
"""
