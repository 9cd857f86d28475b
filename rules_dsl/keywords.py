"""The reserved words of the rules language: the one list.

Reads nothing; produces the keyword groups below and :data:`KEYWORDS`, the set
of them all. It is the one list used by

* the parser (``rules_dsl/syntax_errors.py``: "did you mean" hints on misspelt
  keywords; ``rules_dsl/parser.py`` re-exports :data:`KEYWORDS`),
* the Pygments lexer (``rules_dsl/pygments_lexer.py``: one token type per group),
* the checker (``compiler/``, through ``rulebook.rules_dsl.parser.KEYWORDS``: a keyword
  cannot name a declaration, a parameter, a ``let`` value or a loop variable).

The grammar (``rules_dsl/grammar.lark``) spells the same words as literal
strings; ``tests/test_keywords.py`` checks that the words of the built parser
and :data:`KEYWORDS` are the same set, so adding a keyword to the grammar
without adding it here (or the reverse) fails the tests.

Keywords are reserved for names the checker declares, but the parser's lexer is
contextual: where the grammar expects a name or a value and no keyword, a
keyword is read as a name (``stacking`` in a catalog row of
``03-reglas-especiales.rules`` is an enum value).

Deliberately *not* keywords (no exception to the grammar check above):

* :data:`PRIMITIVE_TYPE_NAMES` (``int decimal text bool``) are names the
  checker resolves (``compiler/ir/types.py``, ``PRIMITIVES``), not grammar words;
  the lexer highlights them as types;
* ``result`` (the outcome of a procedure in ``example``/``odds``) and the
  built-in functions (``min``, ``probability``, ``outcomes`` …) are names too.
"""

from __future__ import annotations

#: Words that start a top-level declaration (``rule`` is also the field type
#: of a special-rule application: ``reglas: list[rule]``).
DECLARATION_KEYWORDS = (
    "rulebook", "section", "enum", "record", "catalog", "table", "die", "bag",
    "rule", "procedure", "example", "show", "term", "odds", "const", "army",
)

#: Words that build a type: ``list[T]``, ``map[E, T]``, ``ref catalogo``, ``id``.
TYPE_KEYWORDS = ("list", "map", "ref", "id")

#: Literal constants.
CONSTANT_KEYWORDS = ("true", "false", "none")

#: Operators spelt as words.
WORD_OPERATORS = ("and", "or", "not", "in")

#: Clause and statement words, grouped by the construct that uses them.
OTHER_KEYWORDS = (
    # rulebook header
    "version", "lang",
    # enum, catalog, die (``columns`` also in odds)
    "ordered", "of", "columns",
    # table
    "by", "across", "range", "header",
    # rule
    "level", "grants", "stacking",
    # procedure
    "step", "let", "return", "require", "if", "then", "else", "repeat", "until",
    # example
    "given", "expect", "error",
    # dice and bags
    "roll", "times", "reroll", "explode", "chain", "keep", "highest", "lowest", "count", "draw", "from", "except", "with",
    # stacked modifiers
    "stack",
    # odds (with ``procedure`` and ``columns``; ``each`` also in dice tests: ``count each d if …``)
    "each", "rows", "cell", "cells",
    # list comprehensions
    "for",
)

#: Every reserved word of the language.
KEYWORDS = frozenset(
    DECLARATION_KEYWORDS + TYPE_KEYWORDS + CONSTANT_KEYWORDS + WORD_OPERATORS + OTHER_KEYWORDS
)

#: Built-in type names: not keywords (see the module docstring), highlighted as types.
PRIMITIVE_TYPE_NAMES = ("int", "decimal", "text", "bool")
