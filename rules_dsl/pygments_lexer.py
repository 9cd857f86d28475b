"""Pygments lexer for the declarations of the rules language (``.rules`` fences).

It highlights the code inside ```` ```rules ```` fences (see ``LANGUAGE.md``),
not the literate prose around them. The keywords come from
``rules_dsl/keywords.py``, the one list shared with the parser and the checker.

Registered for Pygments (and therefore for ``pymdownx.highlight`` / MkDocs) by
the entry point::

    [project.entry-points."pygments.lexers"]
    rules = "rulebook.rules_dsl.pygments_lexer:RulesLexer"

Token choices (CSS class of the Pygments HTML formatter in brackets):

* declaration keywords (``DECLARATION_KEYWORDS``: ``rulebook section enum …``)
  -> ``Keyword.Declaration`` (kd)
* type keywords ``list map ref id`` and the built-in type names ``int decimal text bool``
  (and ``rule`` after ``:``/``[``) -> ``Keyword.Type`` (kt)
* ``true false none`` and the "none" cell value ``-`` / ``—`` -> ``Keyword.Constant`` (kc)
* ``and or not in`` -> ``Operator.Word`` (ow)
* every other keyword (``OTHER_KEYWORDS``) -> ``Keyword`` (k)
* ``@source`` and the other annotations -> ``Name.Decorator`` (nd)
* ``CamelCase`` names (types, enums, dice, bags) -> ``Name.Class`` (nc)
* builtin functions ``min max …`` -> ``Name.Builtin`` (nb); ``result`` -> ``Name.Builtin.Pseudo`` (bp)
* dice ``d6``, ``2d6`` -> ``Number.Dice`` (``m m-Dice``: styled as a number)
* ranges ``>10..<30`` -> ``Operator`` for ``> .. <`` and ``Number.Integer`` for bounds
* the ``|`` cell separator and brackets -> ``Punctuation`` (p)
"""

from __future__ import annotations

import re

from pygments.lexer import RegexLexer, bygroups, default, words
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
)

from rulebook.rules_dsl.keywords import (
    CONSTANT_KEYWORDS,
    DECLARATION_KEYWORDS,
    OTHER_KEYWORDS,
    PRIMITIVE_TYPE_NAMES,
    TYPE_KEYWORDS,
    WORD_OPERATORS,
)

# Only lexer classes here: pygments._load_lexers() walks __all__ expecting lexers.
__all__ = ["RulesLexer"]

#: Types highlighted as ``Keyword.Type``: the type keywords and the built-in type names.
TYPE_WORDS = TYPE_KEYWORDS + PRIMITIVE_TYPE_NAMES

BUILTINS = (
    "min", "max", "clamp", "abs", "floor", "ceil", "round", "trunc",
    "capped_sum", "len", "sum", "ord", "shift", "probability", "any", "all", "outcomes", "has_rule", "rule_param",
)

#: Values of ``@status``.
STATUS_VALUES = ("active", "deferred", "not_playable")

#: Identifier: Unicode letters/underscore, then letters, digits, underscores.
IDENT = r"[^\W\d]\w*"
#: A sign is part of a number only where a value starts, i.e. not right after
#: an identifier, a number or a closing bracket (``a-1`` is a subtraction).
VALUE_START = r"(?<![\w)\]])"
#: Integer with optional sign (only used after VALUE_START).
SIGNED_INT = r"[+-]?\d+"


def _is_camel(text: str) -> bool:
    return text[:1].isupper()


def _name(lexer, match):
    """A plain identifier: CamelCase -> Name.Class, otherwise Name."""
    text = match.group(0)
    yield match.start(), (Name.Class if _is_camel(text) else Name), text


def _call(lexer, match):
    """An identifier followed by ``(``: record construction or procedure/rule call."""
    text = match.group(0)
    yield match.start(), (Name.Class if _is_camel(text) else Name.Function), text


def _declared(token_for_snake, camel_is_class=True):
    """Callback for ``<keyword> <name>`` declaration heads."""

    def callback(lexer, match):
        keyword, space, name = match.group(1), match.group(2), match.group(3)
        yield match.start(1), Keyword.Declaration, keyword
        yield match.start(2), Whitespace, space
        is_class = camel_is_class and _is_camel(name)
        yield match.start(3), (Name.Class if is_class else token_for_snake), name

    return callback


class RulesLexer(RegexLexer):
    """Lexer for the declarations of the wargame rules DSL (``.rules`` fences)."""

    name = "Rules"
    aliases = ["rules"]
    filenames = ["*.rules"]
    mimetypes = ["text/x-rules"]

    flags = re.MULTILINE | re.UNICODE

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"#.*?$", Comment.Single),
            # annotations
            (r"(@status)([ \t]+)(" + "|".join(STATUS_VALUES) + r")\b",
             bygroups(Name.Decorator, Whitespace, Keyword.Constant)),
            (r"@" + IDENT, Name.Decorator),
            # strings
            (r'"', String.Double, "string"),
            # declaration heads: keyword + declared name on the same line
            (r"\b(rulebook|section)([ \t]+)(" + IDENT + r")", _declared(Name.Namespace, camel_is_class=False)),
            (r"\b(procedure|rule|example)([ \t]+)(" + IDENT + r")\b(?![ \t]*[:,)\]])",
             _declared(Name.Function)),
            (r"\b(enum|record|catalog|table|die|bag|const|odds)([ \t]+)(" + IDENT + r")\b(?![ \t]*[:,)\]])",
             _declared(Name.Variable)),
            # `rule` used as a field type (`x: rule`, `list[rule]`)
            (r"(:|\[)([ \t]*)(rule)\b", bygroups(Punctuation, Whitespace, Keyword.Type)),
            # dice: d6, 2d6, d10 (before numbers and names)
            (r"\b\d*d\d+\b", Number.Dice),
            # ranges: 0..10, >10..20, >20..<30, 30.., ..5, ..<5
            (VALUE_START + r"(>?)(" + SIGNED_INT + r")(\.\.)(<?)(" + SIGNED_INT + r")?",
             bygroups(Operator, Number.Integer, Operator, Operator, Number.Integer)),
            (VALUE_START + r"(\.\.)(<?)(" + SIGNED_INT + r")",
             bygroups(Operator, Operator, Number.Integer)),
            # the "none" value `-` (a table/catalog cell or list element), or `—`
            (VALUE_START + r"-(?=[ \t]*(?:[,\])|#]|$))", Keyword.Constant),
            ("\u2014", Keyword.Constant),
            # numbers (signed where a value starts)
            (VALUE_START + r"[+-]?\d+\.\d+", Number.Float),
            (r"\d+\.\d+", Number.Float),
            (VALUE_START + r"[+-]\d+", Number.Integer),
            (r"\d+", Number.Integer),
            # keywords
            (words(DECLARATION_KEYWORDS, prefix=r"\b", suffix=r"\b"), Keyword.Declaration),
            (words(TYPE_WORDS, prefix=r"\b", suffix=r"\b"), Keyword.Type),
            (words(CONSTANT_KEYWORDS, prefix=r"\b", suffix=r"\b"), Keyword.Constant),
            (words(WORD_OPERATORS, prefix=r"\b", suffix=r"\b"), Operator.Word),
            (words(OTHER_KEYWORDS, prefix=r"\b", suffix=r"\b"), Keyword),
            (words(BUILTINS, prefix=r"\b", suffix=r"\b"), Name.Builtin),
            (r"\bresult\b", Name.Builtin.Pseudo),
            # field access: r.f, Calidad.verde
            (r"(\.)(" + IDENT + r")", bygroups(Punctuation, Name.Attribute)),
            # labels: `campo: valor`, `param: Tipo`
            (IDENT + r"(?=[ \t]*:)", Name.Attribute),
            # calls: p(...), R(...), lmg(2)
            (IDENT + r"(?=\()", _call),
            (IDENT, _name),
            # operators and punctuation
            (r"->|==|!=|<=|>=|\.\.|[-+*/<>=?]", Operator),
            (r"\|", Punctuation),
            (r"[()\[\]{},:.]", Punctuation),
        ],
        "string": [
            (r'[^"\\\n]+', String.Double),
            (r"\\.", String.Escape),
            (r'"', String.Double, "#pop"),
            # strings do not span lines: an unterminated one ends at the newline
            (r"\n", Error, "#pop"),
            default("#pop"),
        ],
    }

    def analyse_text(text):  # noqa: N805 (pygments calls it as a static method)
        score = 0.0
        if re.search(r"^\s*(rulebook|procedure|catalog|table)\s+\w+", text, re.M):
            score += 0.3
        if re.search(r"^\s*@source\b", text, re.M):
            score += 0.2
        return score

