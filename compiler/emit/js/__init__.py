"""IR → a JavaScript package of resolvers: the second backend over the same IR as :mod:`rulebook.compiler.emit.python`.

Reads: a checked :class:`rulebook.compiler.ir.Program`, the liveness facts of
:mod:`rulebook.compiler.analysis.liveness` and the inputs' JSON Schemas of
:mod:`rulebook.compiler.emit.data`. Produces: the files of ``build/<rb>/js/`` by path
(:func:`.to_js.generate`), written by :func:`.to_js.write_package`; every DSL name
reaches JavaScript through :mod:`.names`. ``tests/test_js_language.py`` fails when the IR
grows a node or a field this backend was not taught (and compares its answers with the
Python resolvers' on every example of LANGUAGE.md).

==================  ==================================================================
names               a DSL name → a JavaScript identifier; texts → string literals, comments
writer              lines of a module; the source positions and random variables it cites
expressions         IR expressions → JavaScript expressions
dice_rolls          rolls with modifiers (reroll, explode, per-die tests) → ``$rt.dicePool(…)``
statements          procedures → JavaScript functions (bounded loops as ``for … of``)
declarations        enums, records, data → JavaScript values
typescript          ``index.d.ts``
bundle              the runtime's files (``runtime/*.js``, package data) and ``browser.js``
to_js               the emitter that puts them together; ``generate``, ``write_package``
armies              ``armies.js`` / ``armies.d.ts`` / ``armies.browser.js``: the army documents a
                    build wrote (``json/armies/``) with the generic roster validator
                    ``runtime/roster.js`` (the port of :mod:`rulebook.compiler.commands.roster`)
==================  ==================================================================
"""
