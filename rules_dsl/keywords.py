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
    "matchup",
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
    # list comprehensions and loops (``repeat at most N times with (…) { … set x = … }``)
    "for", "at", "most", "set",
)

#: Every reserved word of the language.
KEYWORDS = frozenset(
    DECLARATION_KEYWORDS + TYPE_KEYWORDS + CONSTANT_KEYWORDS + WORD_OPERATORS + OTHER_KEYWORDS
)

#: Built-in type names: not keywords (see the module docstring), highlighted as types.
PRIMITIVE_TYPE_NAMES = ("int", "decimal", "text", "bool")


_ROLES = {
    "roll": "it starts a dice roll", "times": "it repeats the dice of a roll", "keep": "it keeps some dice of a roll",
    "highest": "it chooses the dice a roll keeps", "lowest": "it chooses the dice a roll keeps",
    "count": "it counts the dice of a roll that pass", "draw": "it draws tokens from a bag", "from": "it names the bag of a draw",
    "except": "it sets tokens aside in a draw", "with": "it adds tokens to a draw", "stack": "it stacks modifiers",
    "let": "it names a value", "return": "it ends a procedure with its result", "require": "it states a condition of a procedure",
    "if": "it starts a condition", "then": "it follows a condition", "else": "it starts the other branch of a condition",
    "repeat": "it starts a loop", "until": "it ends a loop", "step": "it starts a step of a procedure",
    "for": "it starts a loop over a list", "in": "it tests membership or names what a loop goes over",
    "and": "it joins conditions", "or": "it joins conditions", "not": "it negates a condition",
    "true": "it is the value true", "false": "it is the value false", "none": "it is the empty value",
    "given": "it gives an example's inputs", "expect": "it states what an example expects", "error": "an example expects it",
    "each": "it names an odds table's entries", "rows": "it names an odds table's rows", "columns": "it names columns",
    "cell": "it gives an odds table's cell", "cells": "it gives an odds table's cells",
    "level": "it gives a special rule's level", "grants": "it grants a special rule", "stacking": "it says how a special rule stacks",
    "by": "it starts a table's keys", "across": "it names a table's columns", "range": "it marks a ranged table key",
    "header": "it starts a table's header row", "ordered": "it marks an ordered enum", "of": "it names what a declaration holds",
    "version": "it gives the rulebook's version", "lang": "it gives the rulebook's language",
    "list": "it builds a list type", "map": "it builds a map type", "ref": "it builds a reference type", "id": "it is the type of ids",
}


def role(word: str) -> str:
    """What the reserved ``word`` does in the language (for a diagnostic): ``it starts a dice roll``."""
    if word in _ROLES:
        return _ROLES[word]
    if word in DECLARATION_KEYWORDS:
        return f"it starts a {word} declaration"
    return "it is a word of the language"


def reserved(word: str, what: str) -> tuple[str, str]:
    """The message and hint of a reserved word used as a name: ``'roll' is a reserved word
    (it starts a dice roll) and cannot name a value`` / ``choose another name, e.g. 'roll_'``.
    ``what``: what the name would name (``a value``, ``a parameter``, ``a declaration``…)."""
    return f"'{word}' is a reserved word ({role(word)}) and cannot name {what}", f"choose another name, e.g. '{word}_'"

