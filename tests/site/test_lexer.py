"""Tests for the Pygments lexer of the rules language (rules_dsl/pygments_lexer.py)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import sys
from pathlib import Path

import pytest

pygments = pytest.importorskip("pygments")

from pygments import highlight  # noqa: E402
from pygments.formatters import HtmlFormatter  # noqa: E402
from pygments.token import Error, Keyword, Name, Number, Operator, Punctuation, String  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LANGUAGE_MD = ROOT / "rules_dsl" / "LANGUAGE.md"

# Make the project importable when pytest is run without an installed package
# or a `pythonpath` setting.
if importlib.util.find_spec("rulebook.rules_dsl") is None:  # pragma: no cover - env dependent
    sys.path.insert(0, str(ROOT))

from rulebook.rules_dsl.pygments_lexer import RulesLexer  # noqa: E402

ENTRY_POINT_GROUP = "pygments.lexers"
ENTRY_POINT_VALUE = "rulebook.rules_dsl.pygments_lexer:RulesLexer"


def rules_blocks(markdown_text: str) -> list[str]:
    """The bodies of the ```rules fences of a Markdown/literate text."""
    return re.findall(r"^```rules[ \t]*\n(.*?)^```[ \t]*$", markdown_text, re.M | re.S)


def tokens(code: str) -> list[tuple[object, str]]:
    return [(t, v) for t, v in RulesLexer().get_tokens(code) if v.strip()]


def token_of(code: str, text: str):
    """The token type of the first token whose text is exactly `text`."""
    for t, v in tokens(code):
        if v == text:
            return t
    raise AssertionError(f"no token {text!r} in {tokens(code)!r}")


# --------------------------------------------------------------------------
# token types

def test_lexer_metadata():
    assert RulesLexer.name == "Rules"
    assert RulesLexer.aliases == ["rules"]
    assert RulesLexer.filenames == ["*.rules"]


def test_language_md_has_examples():
    assert len(rules_blocks(LANGUAGE_MD.read_text(encoding="utf-8"))) >= 8


@pytest.mark.parametrize(
    "block",
    rules_blocks(LANGUAGE_MD.read_text(encoding="utf-8")),
    ids=lambda b: b.strip().splitlines()[0][:40],
)
def test_no_error_tokens_in_language_md_examples(block):
    errors = [(t, v) for t, v in RulesLexer().get_tokens(block) if t in Error]
    assert errors == []
    # the lexer round-trips the text (modulo the trailing newline Pygments adds)
    assert "".join(v for _, v in RulesLexer().get_tokens(block)).rstrip("\n") == block.rstrip("\n")


SAMPLE = '''\
@source "VI.11"
@status deferred
procedure resolver "Resolución" (i_base: int, calidad: Calidad = Calidad.regular) -> Resultado {
  step "Tirada" {
    let t = roll 2d6 + roll d6 times 3 keep highest 2   # comentario
    let c = capped_sum(3, t, -1) + max(1, 2)
    require t in [1, 2] and not false, "mensaje"
    return Resultado(impacto: t >= 7, n: 1.5)
  }
}
table movimiento "Mov" by d: int range -> m: int "M" {
  0..10    | 0
  >10..20  | -1
  >20..<30 | -2
  30..     | -
}
'''


@pytest.mark.parametrize(
    "text, expected",
    [
        ("@source", Name.Decorator),
        ("@status", Name.Decorator),
        ("procedure", Keyword),
        ("step", Keyword),
        ("let", Keyword),
        ("roll", Keyword),
        ("times", Keyword),
        ("keep", Keyword),
        ("highest", Keyword),
        ("require", Keyword),
        ("return", Keyword),
        ("table", Keyword),
        ("by", Keyword),
        ("range", Keyword),
        ("int", Keyword),
        ("false", Keyword),
        ("resolver", Name.Function),
        ("Calidad", Name.Class),
        ("Resultado", Name.Class),
        ("capped_sum", Name.Builtin),
        ("max", Name.Builtin),
        ("2d6", Number),
        ("d6", Number),
        ("1.5", Number.Float),
        ("-1", Number.Integer),
        ("-2", Number.Integer),
        ("3", Number.Integer),
    ],
)
def test_sample_token_types(text, expected):
    ttype = token_of(SAMPLE, text)
    assert ttype in expected, (text, ttype)


def test_sample_specific_tokens():
    toks = tokens(SAMPLE)
    types = {v: t for t, v in reversed(toks)}  # first occurrence wins
    assert types["# comentario"] in pygments.token.Comment
    assert types['"'] in String
    assert types["Resolución"] in String
    assert types["|"] in Punctuation
    assert types["->"] in Operator
    assert types[">="] in Operator
    assert types["and"] in Operator.Word
    assert types["not"] in Operator.Word
    assert types["in"] in Operator.Word
    assert types["deferred"] in Keyword.Constant
    # dice are a Number subtype of their own
    assert types["2d6"] is Number.Dice
    assert types["d6"] is Number.Dice
    assert not [t for t, _ in toks if t in Error]


def test_ranges():
    assert [(str(t), v) for t, v in tokens(">20..<30 | -2")] == [
        ("Token.Operator", ">"),
        ("Token.Literal.Number.Integer", "20"),
        ("Token.Operator", ".."),
        ("Token.Operator", "<"),
        ("Token.Literal.Number.Integer", "30"),
        ("Token.Punctuation", "|"),
        ("Token.Literal.Number.Integer", "-2"),
    ]
    assert [v for _, v in tokens("30.. | -3")] == ["30", "..", "|", "-3"]
    assert [v for _, v in tokens("..5 | 1")] == ["..", "5", "|", "1"]


def test_signed_numbers_vs_subtraction():
    # `a-1` and `a - 1` are subtractions, `[+1, -1]` holds signed numbers
    assert [(t, v) for t, v in tokens("a-1")] == [
        (Name, "a"), (Operator, "-"), (Number.Integer, "1")]
    assert [(t, v) for t, v in tokens("a - 1")] == [
        (Name, "a"), (Operator, "-"), (Number.Integer, "1")]
    assert [(t, v) for t, v in tokens("[+1, -1]")] == [
        (Punctuation, "["), (Number.Integer, "+1"), (Punctuation, ","),
        (Number.Integer, "-1"), (Punctuation, "]")]


def test_none_value_dash():
    toks = tokens("[4, -, -]")
    assert [t for t, v in toks if v == "-"] == [Keyword.Constant, Keyword.Constant]


def test_all_listed_keywords_and_builtins_are_recognised():
    keywords = (
        "rulebook section enum ordered record catalog of columns table by across "
        "range die bag rule level grants stacking procedure step let return if then "
        "else require example given expect roll times keep highest lowest count draw "
        "from and or not in true false int decimal text bool list map ref id"
    ).split()
    for kw in keywords:
        (ttype, value), = tokens(kw)
        assert value == kw
        assert ttype in Keyword or ttype in Operator.Word, (kw, ttype)
    for fn in "min max clamp abs floor ceil round trunc capped_sum len sum ord shift probability".split():
        assert tokens(f"{fn}(x)")[0] == (Name.Builtin, fn)
    # keywords are whole words only
    assert tokens("ordered_x")[0] == (Name, "ordered_x")
    assert tokens("integer")[0] == (Name, "integer")


def test_grammar_extras():
    toks = tokens("show movimiento\nlet x = none\n[1, \u2014, -]")
    assert (Keyword.Declaration, "show") in toks
    assert (Keyword.Constant, "none") in toks
    assert (Keyword.Constant, "\u2014") in toks
    assert not [t for t, _ in toks if t in Error]


GRAMMAR = ROOT / "rules_dsl" / "grammar.lark"


def test_grammar_keywords_are_highlighted():
    """Every word literal of the parser's grammar is highlighted as a keyword."""
    if not GRAMMAR.exists():
        pytest.skip("rules_dsl/grammar.lark not present")
    grammar = GRAMMAR.read_text(encoding="utf-8")
    literals = set(re.findall(r'"([A-Za-z_]+)"', grammar))
    assert literals, "no keyword literals found in grammar.lark"
    for word in sorted(literals):
        (ttype, value), = tokens(word)
        assert ttype in Keyword or ttype in Operator.Word, (word, ttype)


CONTENT_RULES = sorted((ROOT / "content").glob("**/*.rules"))


@pytest.mark.skipif(not CONTENT_RULES, reason="no content/**/*.rules files yet")
@pytest.mark.parametrize("path", CONTENT_RULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_error_tokens_in_content_rules(path):
    for block in rules_blocks(path.read_text(encoding="utf-8")):
        errors = [(t, v) for t, v in RulesLexer().get_tokens(block) if t in Error]
        assert errors == [], block[:200]


def test_unicode_identifiers():
    toks = tokens("let daño = Élite.x + ñandú(a: 1)")
    assert (Name, "daño") in toks
    assert (Name.Class, "Élite") in toks
    assert (Name.Function, "ñandú") in toks


# --------------------------------------------------------------------------
# HTML output

def test_html_formatter_spans():
    html = highlight(SAMPLE, RulesLexer(), HtmlFormatter())
    for css_class in ("k", "kd", "kt", "nd", "nc", "nb", "s2", "mi", "mf", "c1", "p", "o", "ow"):
        assert f'<span class="{css_class}">' in html, css_class
    # Pygments emits the parent classes too: class="m m-Dice"
    assert re.search(r'<span class="(?:[^"]* )?m-Dice">2d6</span>', html)
    assert 'class="err"' not in html


def _entry_point_installed() -> bool:
    eps = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    return any(ep.name == "rules" and ep.value == ENTRY_POINT_VALUE for ep in eps)


@pytest.fixture
def rules_lexer_registered(monkeypatch):
    """Make `get_lexer_by_name('rules')` work even without the installed entry point.

    Pygments looks up lexers in `pygments.lexers.LEXERS` first, then entry points;
    adding a mapping entry (module, name, aliases, filenames, mimetypes) is the
    documented shape of that table.
    """
    if not _entry_point_installed():
        import pygments.lexers

        monkeypatch.setitem(
            pygments.lexers.LEXERS,
            "RulesLexer",
            ("rulebook.rules_dsl.pygments_lexer", RulesLexer.name, tuple(RulesLexer.aliases),
             tuple(RulesLexer.filenames), ()),
        )
    yield


def test_entry_point_registration():
    if not _entry_point_installed():
        pytest.skip(
            "entry point 'rules = rulebook.rules_dsl.pygments_lexer:RulesLexer' in group "
            "'pygments.lexers' is not installed (declare it in pyproject.toml "
            "[project.entry-points.\"pygments.lexers\"] and `pip install -e .`)"
        )
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename

    assert type(get_lexer_by_name("rules")).__name__ == "RulesLexer"
    assert type(get_lexer_for_filename("00-manual.rules")).__name__ == "RulesLexer"


def test_get_lexer_by_name(rules_lexer_registered):
    from pygments.lexers import get_lexer_by_name

    assert type(get_lexer_by_name("rules")).__name__ == "RulesLexer"


def test_pymdownx_highlight_of_rules_fence(rules_lexer_registered):
    markdown = pytest.importorskip("markdown")
    pytest.importorskip("pymdownx")
    text = "Texto.\n\n```rules\n" + SAMPLE + "```\n"
    html = markdown.markdown(text, extensions=["pymdownx.superfences", "pymdownx.highlight"])
    assert 'class="highlight"' in html or "highlight" in html
    assert '<span class="k">let</span>' in html
    assert '<span class="kd">procedure</span>' in html
    assert '<span class="nb">capped_sum</span>' in html
    assert re.search(r'<span class="(?:[^"]* )?m-Dice">2d6</span>', html)
    assert 'class="err"' not in html
