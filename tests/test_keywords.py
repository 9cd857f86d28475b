"""The one keyword list (rules_dsl/keywords.py) against its three users.

Reads the built Lark parser of ``rules_dsl/grammar.lark`` and lexes snippets
with the Pygments lexer; checks that

* the grammar's keyword terminals and ``KEYWORDS`` are the same set of words,
* the lexer highlights every keyword with the token type of its group,
* the parser (and through it the checker) uses the very same ``KEYWORDS`` object.
"""

from __future__ import annotations

import re

import pytest
from lark.lexer import PatternRE, PatternStr
from pygments.token import Keyword, Operator

from rulebook.rules_dsl import keywords, parser
from rulebook.rules_dsl.keywords import (
    CONSTANT_KEYWORDS,
    DECLARATION_KEYWORDS,
    KEYWORDS,
    OTHER_KEYWORDS,
    PRIMITIVE_TYPE_NAMES,
    TYPE_KEYWORDS,
    WORD_OPERATORS,
)
from rulebook.rules_dsl.pygments_lexer import RulesLexer

WORD = re.compile(r"[a-z_]+")
#: A regex terminal that is only a choice of plain words, as Lark builds it for
#: ``KEEP_WHICH: "highest" | "lowest"``: ``(?:highest|lowest)``.
WORD_CHOICE = re.compile(r"\(\?:([a-z_]+(?:\|[a-z_]+)*)\)")

KEYWORD_GROUPS = {
    "declaration": DECLARATION_KEYWORDS,
    "type": TYPE_KEYWORDS,
    "constant": CONSTANT_KEYWORDS,
    "word operator": WORD_OPERATORS,
    "other": OTHER_KEYWORDS,
}


def grammar_keywords() -> set[str]:
    """The words the built parser matches as keywords (not as NAME)."""
    found: set[str] = set()
    for terminal in parser._lark().terminals:
        pattern = terminal.pattern
        if isinstance(pattern, PatternStr) and WORD.fullmatch(pattern.value):
            found.add(pattern.value)
        elif isinstance(pattern, PatternRE):
            choice = WORD_CHOICE.fullmatch(pattern.value)
            if choice:
                found.update(choice.group(1).split("|"))
    return found


# ----------------------------------------------------------------------------- the list itself


def test_groups_do_not_overlap():
    seen: dict[str, str] = {}
    for group, words in KEYWORD_GROUPS.items():
        for word in words:
            assert word not in seen, f"{word!r} is in both the {seen[word]} and the {group} keywords"
            seen[word] = group
    assert set(seen) == KEYWORDS


def test_primitive_type_names_are_not_keywords():
    assert not KEYWORDS & set(PRIMITIVE_TYPE_NAMES)


# ----------------------------------------------------------------------------- grammar


def test_grammar_has_keywords():
    # guards the extraction below: a change in Lark's terminal patterns must not
    # make the comparison vacuous
    assert {"rulebook", "procedure", "highest", "except", "error"} <= grammar_keywords()


def test_every_grammar_keyword_is_in_keywords():
    missing = grammar_keywords() - KEYWORDS
    assert not missing, f"keywords of grammar.lark missing from rules_dsl/keywords.py: {sorted(missing)}"


def test_every_keyword_is_in_the_grammar():
    unused = KEYWORDS - grammar_keywords()
    assert not unused, f"words of rules_dsl/keywords.py that grammar.lark does not use: {sorted(unused)}"


def test_grammar_text_keywords_are_in_keywords():
    """Also from the grammar's text: every quoted lower-case word."""
    text = parser.GRAMMAR_PATH.read_text(encoding="utf-8")
    quoted = set(re.findall(r'"([a-z_]+)"', text))
    assert quoted == KEYWORDS


# ----------------------------------------------------------------------------- Pygments lexer

EXPECTED_TOKEN = {
    **{word: Keyword.Declaration for word in DECLARATION_KEYWORDS},
    **{word: Keyword.Type for word in TYPE_KEYWORDS + PRIMITIVE_TYPE_NAMES},
    **{word: Keyword.Constant for word in CONSTANT_KEYWORDS},
    **{word: Operator.Word for word in WORD_OPERATORS},
    **{word: Keyword for word in OTHER_KEYWORDS},
}
#: Each keyword is lexed at the start of a line and between two names.
SNIPPETS = ("{word} x", "x {word} y", "  {word}")


def token_type_of(code: str, word: str):
    for token_type, text in RulesLexer().get_tokens(code):
        if text == word:
            return token_type
    raise AssertionError(f"{word!r} is not one token in {list(RulesLexer().get_tokens(code))!r}")


@pytest.mark.parametrize("word", sorted(EXPECTED_TOKEN))
@pytest.mark.parametrize("snippet", SNIPPETS)
def test_lexer_highlights_keyword(word, snippet):
    assert token_type_of(snippet.format(word=word), word) is EXPECTED_TOKEN[word]


def test_lexer_highlights_rule_as_a_type_in_a_field():
    assert token_type_of("reglas: list[rule]", "rule") is Keyword.Type
    assert token_type_of("regla: rule", "rule") is Keyword.Type


# ----------------------------------------------------------------------------- parser and checker


def test_parser_and_checker_share_the_list():
    # the checker (compiler/) imports KEYWORDS from rulebook.rules_dsl.parser
    assert parser.KEYWORDS is keywords.KEYWORDS


def test_declaration_start_follows_the_declaration_keywords():
    for word in DECLARATION_KEYWORDS:
        assert parser.DECL_START.match(f"{word} x"), word
    assert not parser.DECL_START.match("rules x")
