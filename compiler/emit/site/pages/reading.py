"""How the pages spell the rulebook's names, noted as what a page reads and remembered across builds.

Reads the checked program's prose (through :class:`rulebook.compiler.emit.site.readable.Readable`)
and, in ``rulebook serve``, the previous build's text and answers. Produces
:class:`NotedReadable`: a :class:`Readable` whose answers that read the whole rulebook (a name's
spelling in all of its prose, a value among all enumerations' members, an entry's or a
declaration's title) are noted as queries of the page being rendered
(:class:`rulebook.compiler.emit.site.pages.memo.PageReads`), and, after an edit, taken from the
previous text when the edit cannot change them (:meth:`NotedReadable._unchanged`);
:class:`TextScan`, what the word index finds, by scanning the text (the first look-ups after
an edit).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from rulebook.compiler import ir
from rulebook.compiler.emit.site.pages.memo import UNKNOWN, PageMemo, PageReads, digest
from rulebook.compiler.emit.site.readable import LINKED, WORD, Readable, fold, phrase_pattern

SCANS = 64  # look-ups answered by a scan of the text after an edit, before the text is indexed


class NotedReadable(Readable):
    """:class:`Readable` whose answers that read the whole rulebook (a name's spelling in
    all of its prose, a value among all enumerations' members) are noted as queries."""

    def __init__(self, program: ir.Program, reads: PageReads) -> None:
        super().__init__(program)
        self.reads = reads
        self.known: dict[tuple, Any] = {}  # ("spelling", words) / ("word", word) → the answer (kept across builds of the same text)
        self.previous: tuple[str, dict[tuple, Any]] | None = None  # another text and its answers: see _unchanged
        self._near_edit: set[str] | None = None
        self._scans = 0  # look-ups answered by scanning the text (see _words)

    def _words(self):
        """The text's words, indexed (:class:`rulebook.compiler.emit.site.readable._WordIndex`), or, for the first
        :data:`SCANS` look-ups after an edit (when most answers are the previous text's), a scan of
        the text for each: indexing it costs several scans."""
        if self._index is None and self.previous is not None and self._scans < SCANS:
            self._scans += 1
            return TextScan(*self._text())
        return super()._words()

    def corpus(self) -> bytes | None:
        """The digest of the text that spellings are taken from (the same text, the same spellings)."""
        return digest(self._text())

    def recall(self, memo: PageMemo) -> bytes | None:
        """Take the previous build's spellings (``memo``): all of them when the text is the same,
        else those an edit cannot change. Returns the digest of this build's text."""
        corpus = self.corpus()
        self.reads.same_corpus = corpus is not None and corpus == memo.corpus
        if self.reads.same_corpus:
            self.known = memo.spellings  # the same text: the same spellings
        elif memo.corpus is not None and memo.text is not None:  # those of the previous text that an edit cannot change
            self.previous = (memo.text, memo.spellings)
        return corpus

    def spelling(self, words: tuple[str, ...]) -> str | None:
        return self.reads.query("spelling", words, lambda: self._known("spelling", words, super(NotedReadable, self).spelling))

    def word(self, word: str) -> str:
        return self.reads.query("word", word, lambda: self._known("word", word, super(NotedReadable, self).word))

    def _known(self, query: str, arg: Any, answer) -> Any:
        key = (query, arg)
        if key not in self.known:
            old = self.previous[1].get(key, UNKNOWN) if self.previous is not None else UNKNOWN
            self.known[key] = old if old is not UNKNOWN and self._unchanged(query, arg) else answer(arg)
        return self.known[key]

    def _unchanged(self, query: str, arg: Any) -> bool:
        """Whether the answer to a spelling query is the same in the ``previous`` text as in this
        one, because the words it looks for are not written where the texts differ.

        A spelling counts the runs of words (``\\w+`` in the folded text) that match a phrase,
        left to right without overlap (:class:`rulebook.compiler.emit.site.readable._WordIndex`); a word
        with no spelling of its own takes that of the words beginning with its stem. Outside the
        span where the two texts differ (their longest common beginning and end) the words and
        what lies between them are the same. So when no word of the phrase is among the words of
        that span in either text, nor the word just before it or just after it (a run across the
        span joins those two), every run that matches is outside it, the same in both texts, and
        so are the counts; for a stem, when no word of the span, or next to it, begins with it.
        Phrases of words that are not plain words are looked up by a scan: never reused."""
        near = self._words_near_edit()
        if query == "spelling":
            words = [fold(w) for w in arg]
            return bool(words) and all(WORD.fullmatch(w) and w not in near for w in words)
        if query == "word":
            folded = fold(arg)
            if not WORD.fullmatch(folded) or folded in near:
                return False
            stem = folded[: max(4, len(arg) - 2)]
            return len(stem) < 4 or ("_" not in stem and not any(w.startswith(stem) for w in near))
        return False

    def _words_near_edit(self) -> set[str]:
        """The folded words of the span where the previous text and this one differ, and the word on each side, in both texts."""
        if self._near_edit is None:
            assert self.previous is not None
            old, new = self.previous[0], self._text()[0]
            start = _common_length(old, new, len(old), len(new), 0)
            same_end = _common_length(old, new, len(old), len(new), min(len(old), len(new)) - start)
            self._near_edit = _words_around(fold(old), start, len(old) - same_end) | _words_around(self._text()[1], start, len(new) - same_end)
        return self._near_edit

    def entry_title(self, catalog: str, ident: str) -> str:
        return self.reads.query("entry_title", (catalog, ident), lambda: super(NotedReadable, self).entry_title(catalog, ident))

    def _title(self, name: str) -> str:
        return self.reads.query("title", name, lambda: super(NotedReadable, self)._title(name))

    def value(self, v: Any) -> str:
        if isinstance(v, str):
            return self.reads.query("value", v, lambda: super(NotedReadable, self).value(v))
        return super().value(v)



class TextScan:
    """What :class:`rulebook.compiler.emit.site.readable._WordIndex` finds, by scanning the folded text for the
    expressions it stands for (``(?<!\\w)w1\\s+w2…(?!\\w)`` for a phrase, ``(?<!\\w)stem[^\\W_]*`` for a
    stem), counting the original text's spellings: as ``re.finditer`` finds them (left to right,
    without overlap), trying only where the first word is written (``str.find``)."""

    def __init__(self, corpus: str, folded: str) -> None:
        self.corpus, self.folded = corpus, folded

    def phrase(self, words: list[str]) -> Counter:
        real = [w for w in words if w != LINKED]
        return self._found(real[0] if real else "", phrase_pattern(words) + r"(?!\w)")

    def kin(self, stem: str) -> Counter:
        return self._found(stem, re.escape(stem) + r"[^\W_]*")

    def _found(self, first: str, rest: str) -> Counter:
        """The original spellings of what ``(?<!\\w)`` + ``rest`` matches, each match starting with ``first``."""
        found: Counter = Counter()
        if not first:  # nothing to look for first: every position
            return Counter(self.corpus[m.start():m.end()] for m in re.finditer(r"(?<!\w)" + rest, self.folded))
        pattern, folded = re.compile(rest), self.folded
        at = folded.find(first)
        while at >= 0:
            m = None if at > 0 and _WORD_CHAR.match(folded, at - 1) else pattern.match(folded, at)
            if m is not None:
                found[self.corpus[at:m.end()]] += 1
                at = folded.find(first, max(m.end(), at + 1))
            else:
                at = folded.find(first, at + 1)
        return found


def _common_length(a: str, b: str, len_a: int, len_b: int, limit: int) -> int:
    """With ``limit`` 0: the length of the longest common beginning of ``a`` and ``b``; else the
    length, up to ``limit``, of their longest common end. (A binary search over slices: the
    comparisons run in C.)"""
    if limit == 0:
        low, high = 0, min(len_a, len_b)
        while low < high:
            mid = (low + high + 1) // 2
            if a[:mid] == b[:mid]:
                low = mid
            else:
                high = mid - 1
        return low
    low, high = 0, max(limit, 0)
    while low < high:
        mid = (low + high + 1) // 2
        if a[len_a - mid:] == b[len_b - mid:]:
            low = mid
        else:
            high = mid - 1
    return low


_WORD_CHAR = re.compile(r"\w")


def _words_around(folded: str, start: int, end: int) -> set[str]:
    """The words (``\\w+``) of ``folded`` that overlap or touch ``[start, end)``, and the word before and after those."""
    a = start
    for word in (True, False, True):  # the word touching the span, the gap before it, the word before
        while a > 0 and bool(_WORD_CHAR.match(folded, a - 1)) == word:
            a -= 1
    b = end
    for word in (True, False, True):
        while b < len(folded) and bool(_WORD_CHAR.match(folded, b)) == word:
            b += 1
    return set(WORD.findall(folded, a, b))
