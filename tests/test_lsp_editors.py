"""The editor files: generated from the one keyword list, up to date, and
highlighting the bundled rulebook token for token like the Pygments lexer."""

from __future__ import annotations

import json
import re
import sys

import pytest
from pygments.token import Comment, Keyword, Name, Number, Operator, String

from conftest import CONTENT, ROOT

sys.path.insert(0, str(ROOT / "editors"))
import generate  # noqa: E402

#: TextMate scope prefix → the Pygments token the site's lexer gives the same text.
SCOPE_TOKENS = {
    "storage.type.declaration": Keyword.Declaration,
    "support.type": Keyword.Type,
    "constant.language": Keyword.Constant,
    "keyword.operator.word": Operator.Word,
    "keyword.control": Keyword,
    "support.function.builtin": Name.Builtin,
    "variable.language.result": Name.Builtin.Pseudo,
    "constant.numeric.dice": Number.Dice,
    "constant.numeric.float": Number.Float,
    "constant.numeric.integer": Number.Integer,
    "comment": Comment,
    "entity.name.function.decorator": Name.Decorator,
    "string": String,
}
COMPARED = (Keyword, Operator.Word, Name.Builtin, Number, Comment, Name.Decorator, String)


def test_generated_files_are_up_to_date():
    for path, text in generate.rendered().items():
        assert path.read_text(encoding="utf-8") == text, f"{path.relative_to(ROOT)} is out of date: run python editors/generate.py"


def test_every_keyword_has_its_scope():
    from rulebook.rules_dsl.keywords import KEYWORDS

    for word in sorted(KEYWORDS):
        scopes = {scope for _, _, scope in _tokenize(f"x {word} y")}
        assert any(s.startswith(("storage.type", "support.type", "constant.language", "keyword.")) for s in scopes), (word, scopes)


def _tokenize(line: str):
    """(start, end, scope) of each token of one line of code, as a TextMate engine
    reads the grammar's ``code`` patterns (the earliest match wins, then the first pattern)."""
    patterns = generate.grammar()["repository"]["code"]["patterns"]
    compiled = [(re.compile(p.get("match") or p["begin"]), p) for p in patterns]
    pos = 0
    while pos < len(line):
        found = [(m.start(), i, m, p) for i, (rx, p) in enumerate(compiled) if (m := rx.search(line, pos))]
        if not found:
            return
        _, _, m, p = min(found, key=lambda f: (f[0], f[1]))
        end = m.end()
        if "begin" in p:
            close = re.compile(r'(?:\\.|[^"\\])*("|$)').match(line, m.end())
            end = close.end()
            yield m.start(), end, p["name"]
        elif "captures" in p:
            for group, scope in p["captures"].items():
                if m.group(int(group)):
                    yield m.start(int(group)), m.end(int(group)), scope["name"]
        else:
            yield m.start(), end, p["name"]
        pos = max(end, pos + 1)


def _fences(text: str) -> list[str]:
    return re.findall(r"^```rules\n(.*?)^```$", text, flags=re.M | re.S)


@pytest.mark.parametrize("name", ["05-turnos-ordenes.rules", "06-disparo.rules", "02-costes-listas.rules"])
def test_the_grammar_highlights_like_the_pygments_lexer(name):
    from rulebook.rules_dsl.pygments_lexer import RulesLexer

    lexer = RulesLexer()
    compared = 0
    for code in _fences((CONTENT / name).read_text(encoding="utf-8")):
        offsets = [0]
        for line in code.split("\n"):
            offsets.append(offsets[-1] + len(line) + 1)
        scopes: dict[int, str] = {}
        for number, line in enumerate(code.split("\n")):
            for start, _, scope in _tokenize(line):
                scopes[offsets[number] + start] = scope
        for start, token, text in lexer.get_tokens_unprocessed(code):
            if not any(token in kind for kind in COMPARED) or token is String.Escape or not text.strip() or (token in String and start not in scopes):
                continue
            scope = scopes.get(start, "")
            expected = next((t for prefix, t in SCOPE_TOKENS.items() if scope.startswith(prefix)), None)
            assert expected is not None and token in expected, f"{name}: {text!r} is {token} for Pygments, {scope or 'nothing'} for the grammar"
            compared += 1
    assert compared > 500


def test_the_vscode_extension_points_at_the_generated_files():
    package = json.loads((ROOT / "editors" / "vscode" / "package.json").read_text(encoding="utf-8"))
    contributes = package["contributes"]
    assert contributes["languages"][0]["id"] == "rules" and ".rules" in contributes["languages"][0]["extensions"]
    for entry in (*contributes["grammars"], *contributes["snippets"]):
        assert (ROOT / "editors" / "vscode" / entry["path"]).is_file(), entry
    assert (ROOT / "editors" / "vscode" / package["main"]).is_file()


def test_the_clause_words_of_an_army_block_are_keywords_there_only():
    """The grammar's ``army`` region: it opens at ``army`` and closes at the block's
    ``}``; inside it the word that starts a clause is a keyword (an enum value
    written ``side`` elsewhere stays a name)."""
    army = generate.grammar()["repository"]["army"]
    begin, end, clause = re.compile(army["begin"]), re.compile(army["end"]), re.compile(army["patterns"][0]["match"])
    assert army["patterns"][0]["name"] == "keyword.other.clause.rules" and army["patterns"][-1] == {"include": "#code"}
    lines = (CONTENT / "02-costes-listas.rules").read_text(encoding="utf-8").split("\n")
    start = next(i for i, line in enumerate(lines) if begin.match(line))
    stop = next(i for i in range(start + 1, len(lines)) if end.match(lines[i]))
    words = [m.group().strip() for line in lines[start + 1 : stop] if (m := clause.match(line))]
    assert words[:6] == ["side", "side", "roles", "sizes", "agreed", "bonus"] and words.count("options") >= 10
    assert not [line for line in lines[start + 1 : stop] if line.strip() and line.strip() != "}" and not clause.match(line)]
    assert not clause.match('  side_a "Lado A"') and end.match("```")


def test_the_kind_named_by_allow_is_highlighted():
    assert [(s, e, scope) for s, e, scope in _tokenize('@allow missing-key("motivo")')][:2] == [
        (0, 6, "entity.name.function.decorator.rules"), (7, 18, "constant.other.warning-kind.rules"),
    ]
