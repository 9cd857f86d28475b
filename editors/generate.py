"""Editor files generated from the compiler's own lists: the TextMate grammar and the snippets.

Reads ``rules_dsl/keywords.py`` (the one keyword list), the Pygments lexer's
built-in names and ``@status`` values (``rules_dsl/pygments_lexer.py``), the
clause words of ``army`` blocks (``compiler/check/armies.py``) and the
declaration templates (``compiler/lsp/snippets.py``). Writes

* ``editors/vscode/syntaxes/rules.tmLanguage.json``: a TextMate grammar for
  literate ``.rules`` files (prose, and declarations in ```` ```rules ````
  fences, highlighted token for token like the Pygments lexer of the site);
* ``editors/vscode/snippets/rules.code-snippets``: the templates, in the
  snippet format of VS Code (also read by Neovim's LuaSnip and nvim-snippets).

Run ``python editors/generate.py`` after changing a keyword or a template;
``--check`` only compares (``tests/test_lsp_editors.py`` does the same).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rulebook.compiler.check.armies import TOP_CLAUSES, UNIT_CLAUSES  # noqa: E402
from rulebook.compiler.lsp.snippets import SNIPPETS  # noqa: E402
from rulebook.rules_dsl.keywords import (  # noqa: E402
    CONSTANT_KEYWORDS,
    DECLARATION_KEYWORDS,
    OTHER_KEYWORDS,
    PRIMITIVE_TYPE_NAMES,
    TYPE_KEYWORDS,
    WORD_OPERATORS,
)
from rulebook.rules_dsl.pygments_lexer import BUILTINS, IDENT, SIGNED_INT, STATUS_VALUES, VALUE_START  # noqa: E402

GRAMMAR = ROOT / "editors" / "vscode" / "syntaxes" / "rules.tmLanguage.json"
SNIPPET_FILE = ROOT / "editors" / "vscode" / "snippets" / "rules.code-snippets"
UPPER = "A-ZÁÉÍÓÚÑÜ"  # CamelCase names (types, enums, dice, bags) start with one


def _words(words) -> str:
    return r"\b(?:" + "|".join(sorted(words, key=lambda w: (-len(w), w))) + r")\b"


def _head(keywords, name_scope: str) -> dict:
    """``<keyword> <name>``: a declaration and the name it declares."""
    return {
        "match": r"\b(" + "|".join(keywords) + r")([ \t]+)(" + IDENT + r")\b(?![ \t]*[:,)\]])",
        "captures": {"1": {"name": "storage.type.declaration.rules"}, "3": {"name": name_scope}},
    }


def grammar() -> dict:
    """The TextMate grammar, as a JSON-ready dict (same tokens as the Pygments lexer)."""
    code = [
        {"match": r"#.*$", "name": "comment.line.number-sign.rules"},
        {
            "match": r"(@status)([ \t]+)(" + "|".join(STATUS_VALUES) + r")\b",
            "captures": {"1": {"name": "entity.name.function.decorator.rules"}, "3": {"name": "constant.language.rules"}},
        },
        {
            "match": r"(@allow)([ \t]+)(" + IDENT + r"(?:-\w+)*)",
            "captures": {"1": {"name": "entity.name.function.decorator.rules"}, "3": {"name": "constant.other.warning-kind.rules"}},
        },
        {"match": "@" + IDENT, "name": "entity.name.function.decorator.rules"},
        {
            "begin": '"', "end": '"|$', "name": "string.quoted.double.rules",
            "patterns": [{"match": r"\\.", "name": "constant.character.escape.rules"}],
        },
        _head(("rulebook", "section"), "entity.name.namespace.rules"),
        _head(("procedure", "rule", "example"), "entity.name.function.rules"),
        _head(("enum", "record", "catalog", "table", "die", "bag", "const", "odds", "army"), "entity.name.type.rules"),
        {"match": r"(:|\[)([ \t]*)(rule)\b", "captures": {"3": {"name": "support.type.rules"}}},
        {"match": r"\b\d*d\d+\b", "name": "constant.numeric.dice.rules"},
        {
            "match": VALUE_START + r"(>?)(" + SIGNED_INT + r")(\.\.)(<?)(" + SIGNED_INT + r")?",
            "captures": {
                "1": {"name": "keyword.operator.range.rules"}, "2": {"name": "constant.numeric.integer.rules"},
                "3": {"name": "keyword.operator.range.rules"}, "4": {"name": "keyword.operator.range.rules"},
                "5": {"name": "constant.numeric.integer.rules"},
            },
        },
        {
            "match": VALUE_START + r"(\.\.)(<?)(" + SIGNED_INT + r")",
            "captures": {"1": {"name": "keyword.operator.range.rules"}, "2": {"name": "keyword.operator.range.rules"}, "3": {"name": "constant.numeric.integer.rules"}},
        },
        {"match": VALUE_START + r"-(?=[ \t]*(?:[,\])|#]|$))", "name": "constant.language.none.rules"},
        {"match": "\u2014", "name": "constant.language.none.rules"},
        {"match": VALUE_START + r"[+-]?\d+\.\d+", "name": "constant.numeric.float.rules"},
        {"match": r"\d+\.\d+", "name": "constant.numeric.float.rules"},
        {"match": VALUE_START + r"[+-]\d+", "name": "constant.numeric.integer.rules"},
        {"match": r"\d+", "name": "constant.numeric.integer.rules"},
        {"match": _words(DECLARATION_KEYWORDS), "name": "storage.type.declaration.rules"},
        {"match": _words(TYPE_KEYWORDS + PRIMITIVE_TYPE_NAMES), "name": "support.type.rules"},
        {"match": _words(CONSTANT_KEYWORDS), "name": "constant.language.rules"},
        {"match": _words(WORD_OPERATORS), "name": "keyword.operator.word.rules"},
        {"match": _words(OTHER_KEYWORDS), "name": "keyword.control.rules"},
        {"match": _words(BUILTINS), "name": "support.function.builtin.rules"},
        {"match": r"\bresult\b", "name": "variable.language.result.rules"},
        {"match": r"(\.)(" + IDENT + r")", "captures": {"1": {"name": "punctuation.accessor.rules"}, "2": {"name": "variable.other.member.rules"}}},
        {"match": IDENT + r"(?=[ \t]*:)", "name": "variable.other.property.rules"},
        {"match": "[" + UPPER + r"]\w*(?=\()", "name": "entity.name.type.rules"},
        {"match": IDENT + r"(?=\()", "name": "entity.name.function.call.rules"},
        {"match": "[" + UPPER + r"]\w*", "name": "entity.name.type.rules"},
        {"match": IDENT, "name": "variable.other.rules"},
        {"match": r"->|==|!=|<=|>=|\.\.|[-+*/<>=?]", "name": "keyword.operator.rules"},
        {"match": r"\|", "name": "punctuation.separator.cell.rules"},
        {"match": r"[()\[\]{},:.]", "name": "punctuation.rules"},
    ]
    prose = [
        {"match": r"^#{1,4}\s.*$", "name": "markup.heading.rules"},
        {"match": r"^\s*>.*$", "name": "markup.quote.rules"},
        {"match": r"^\s*(?:[-*+]|\d+[.)])\s", "name": "punctuation.definition.list.rules"},
        {"match": r"\*\*.+?\*\*", "name": "markup.bold.rules"},
        {"match": r"(?<![\w*])\*[^*\s][^*]*?\*(?![\w*])", "name": "markup.italic.rules"},
        {"match": r"`[^`]+`", "name": "markup.inline.raw.rules"},
        {"match": r"\[\[[^\]\s]+\]\]", "name": "markup.underline.link.rules"},
    ]
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "Rules",
        "scopeName": "text.rules",
        "fileTypes": ["rules"],
        "comment": "Generated by editors/generate.py from rules_dsl/keywords.py; do not edit.",
        "patterns": [{"include": "#fence"}, {"include": "#prose"}],
        "repository": {
            "fence": {
                "begin": r"^(```)\s*(rules)\s*$", "end": r"^(```)\s*$",
                "beginCaptures": {"1": {"name": "punctuation.definition.markdown"}, "2": {"name": "fenced_code.block.language"}},
                "endCaptures": {"1": {"name": "punctuation.definition.markdown"}},
                "contentName": "meta.embedded.block.rules source.rules",
                "patterns": [{"include": "#army"}, {"include": "#code"}],
            },
            "army": {
                "comment": "An army block: the word that starts each clause is a keyword there (and only there).",
                "begin": r"^(?=army\b)", "end": r"^\}|^(?=```[ \t]*$)",
                "endCaptures": {"0": {"name": "punctuation.rules"}},
                "patterns": [
                    {"match": r"^[ \t]*" + _words(TOP_CLAUSES + UNIT_CLAUSES), "name": "keyword.other.clause.rules"},
                    {"include": "#code"},
                ],
            },
            "code": {"patterns": code},
            "prose": {"patterns": prose},
        },
    }


def snippets() -> dict:
    """The templates in VS Code's snippet format."""
    return {s.prefix: {"scope": "rules", "prefix": s.prefix, "description": s.description, "body": list(s.body)} for s in SNIPPETS}


def rendered() -> dict[Path, str]:
    """Every generated file and its text."""
    dump = lambda data: json.dumps(data, ensure_ascii=False, indent=2) + "\n"  # noqa: E731
    return {GRAMMAR: dump(grammar()), SNIPPET_FILE: dump(snippets())}


def main(argv: list[str]) -> int:
    stale = [path for path, text in rendered().items() if not path.exists() or path.read_text(encoding="utf-8") != text]
    if "--check" in argv:
        for path in stale:
            print(f"out of date: {path.relative_to(ROOT)} (run python editors/generate.py)")
        return 1 if stale else 0
    for path, text in rendered().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
