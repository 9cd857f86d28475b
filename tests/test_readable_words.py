"""Names spelt as the rulebook spells them (:mod:`rulebook.compiler.emit.site.readable`), looked up in an
index of the rulebook's words built once: every lookup finds exactly what a scan
of the text with the regular expressions it replaced finds — phrases across line
breaks, repeated words, words joined by ``_``, accents and capitals — and the
labels a rulebook's pages show come out as the rulebook writes the words."""

from __future__ import annotations

import re
from collections import Counter

from rulebook.compiler.pipeline import driver
from rulebook.compiler.emit.site.readable import Readable, _WordIndex, fold, words_of
from conftest import DATA

TEXT = (
    "Las Órdenes de combate se dan antes del disparo. Orden de combate, orden\n de  combate;"
    " la tirada base (Tirada base) y la tirada_base_extra. Máxima, máximas y MÁXIMA: mínimo.\n"
    "base base base; fin_de_turno fin de turno 2d6 d6_base ñandú Ñandú"
)


def _scan_phrase(corpus: str, folded: str, words: list[str]) -> Counter:
    pattern = r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words) + r"(?!\w)"
    return Counter(corpus[m.start():m.end()] for m in re.finditer(pattern, folded))


def _scan_kin(corpus: str, folded: str, stem: str) -> Counter:
    return Counter(corpus[m.start():m.end()] for m in re.finditer(r"(?<!\w)" + re.escape(stem) + r"[^\W_]*", folded))


def _queries(folded: str) -> list[list[str]]:
    tokens = re.findall(r"\w+", folded)
    out = [[t] for t in tokens] + [tokens[i:i + n] for n in (2, 3) for i in range(len(tokens) - n + 1)]
    return out + [["base", "base"], ["orden", "de", "combate"], ["de", "turno"], ["ausente"], ["tirada", "ausente"]]


def test_the_index_finds_what_the_scan_finds():
    folded = fold(TEXT)
    index = _WordIndex(TEXT, folded)
    for words in _queries(folded):
        assert index.phrase(words) == _scan_phrase(TEXT, folded, words), words
    for stem in {t[:n] for t in re.findall(r"\w+", folded) for n in (1, 2, 4, 6)} | {"maxim", "tirada_b", "zzzz"}:
        assert index.kin(stem) == _scan_kin(TEXT, folded, stem), stem


def test_repeated_words_do_not_overlap():
    folded = fold(TEXT)
    assert _WordIndex(TEXT, folded).phrase(["base", "base"]) == Counter({"base base": 1})


def test_a_rulebooks_labels_match_a_scan_of_its_text():
    checked = driver.check(DATA / "python" / "shooting.rules")
    assert checked.ok
    readable = Readable(checked.program)
    corpus, folded = readable._text()
    index = readable._words()
    names = sorted({n for d in checked.program.decls.values() for n in [d.name, *(getattr(f, "name", "") for f in getattr(d, "fields", ()) or ())] if n})
    assert names
    for name in names:
        words = [fold(w) for w in words_of(name)]
        assert index.phrase(words) == _scan_phrase(corpus, folded, words), name
        for w in words:
            stem = w[: max(4, len(w) - 2)]
            assert index.kin(stem) == _scan_kin(corpus, folded, stem), stem
