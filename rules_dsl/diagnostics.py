"""Source spans and diagnostics.

Every error or warning the toolchain reports is a :class:`Diagnostic` carrying a
:class:`Span`. Rendering adds ``file:line:col``, the source line and a caret,
what was expected and an optional hint (did-you-mean). Stages collect
diagnostics in a :class:`Reporter` and the driver reports them all together.
A diagnostic may carry the rewrite its hint states (:class:`Edit` s: ``fix`` when
exact, ``suggest`` when a guess); :func:`rewrite` makes edits in a text, for
``rulebook check --fix`` and the language server alike.

Rendering is safe for a terminal and bounded: control characters from a rules
file are shown as visible symbols, a long source line is cut to a window
around the caret, and each source is split into lines once for all its
diagnostics.
"""

from __future__ import annotations

import difflib
import json
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable


@dataclass(frozen=True, slots=True)
class Span:
    """A region of a source file (1-based lines and columns, end exclusive)."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        if self.line <= 0:  # a whole file or folder, or no place in any file
            return self.file
        return f"{self.file}:{self.line}:{self.col}"

    @property
    def src(self) -> str:
        """``file:line``, as cited by generated code and runtime errors."""
        return f"{self.file}:{self.line}"


NO_SPAN = Span("<builtin>", 0, 0, 0, 0)

SHOWN_COLUMNS = 120
"""The widest part of a source line a diagnostic shows."""

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_CONTROL_OR_NEWLINE = re.compile(_CONTROL.pattern[:-1] + r"\n\t]")


def has_control(text: str) -> bool:
    """Whether ``text`` holds a control character, a line or paragraph separator,
    a bidirectional override or a lone surrogate (an undecodable byte of a file name)."""
    return _CONTROL_OR_NEWLINE.search(text) is not None


def escaped(text: str) -> str:
    """``text`` with each character :func:`has_control` looks for written as a
    Python escape (``\\n``, ``\\x1b``, ``\\u202e``): one line, safe to print."""
    return _CONTROL_OR_NEWLINE.sub(lambda m: repr(m.group())[1:-1], text)


def visible(text: str, keep_newlines: bool = False) -> str:
    """``text`` with control characters (and bidirectional overrides) replaced by
    visible symbols of the same width, so that what a rules file contains cannot
    move the cursor, recolour or rewrite a terminal: NUL becomes ␀, ESC ␛, …"""
    pattern = _CONTROL if keep_newlines else _CONTROL_OR_NEWLINE
    return pattern.sub(_symbol, text)


def _symbol(m: re.Match) -> str:
    code = ord(m.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block
    return "\u2421" if code == 0x7F else "\ufffd"


@lru_cache(maxsize=4)
def _lines(text: str) -> list[str]:
    """The lines of a source, split once however many diagnostics it has."""
    return text.splitlines()


def _window(line: str, col: int, width: int) -> tuple[str, int, int]:
    """The part of ``line`` to show for columns ``col`` .. ``col + width``: at most
    :data:`SHOWN_COLUMNS` wide, with … where it was cut; returns (text, col, width)
    with the column and caret width moved into the shown part."""
    width = max(1, min(width, len(line) - col + 2))
    if len(line) <= SHOWN_COLUMNS:
        return line, col, width
    start = max(0, min(col - 1 - SHOWN_COLUMNS // 4, len(line) - SHOWN_COLUMNS))
    shown = line[start : start + SHOWN_COLUMNS]
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + SHOWN_COLUMNS < len(line) else ""
    width = max(1, min(width, start + SHOWN_COLUMNS - col + 2))
    return prefix + shown + suffix, col - start + len(prefix), width


@dataclass(frozen=True, slots=True)
class Edit:
    """A machine-readable fix: replace the text of ``span`` (one file) with ``text``."""

    span: Span
    text: str

    def to_json(self) -> dict:
        return {"line": self.span.line, "column": self.span.col, "end_line": self.span.end_line,
                "end_column": self.span.end_col, "replacement": self.text}


def _offsets(text: str) -> list[int]:
    """The offset of the start of each line (1-based line n starts at ``[n - 1]``)."""
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return starts


def _range(starts: list[int], text: str, edit: Edit) -> tuple[int, int] | None:
    """The offsets an edit replaces, or None when its span is not in the text."""
    s = edit.span
    if not (1 <= s.line <= s.end_line <= len(starts)) or s.col < 1 or s.end_col < 1:
        return None
    start, end = starts[s.line - 1] + s.col - 1, starts[s.end_line - 1] + s.end_col - 1
    return (start, end) if start <= end <= len(text) else None


def rewrite(text: str, edits: list[Edit]) -> str | None:
    """``text`` with every edit made; None when two of them overlap (or one falls outside it).
    What ``rulebook check --fix`` writes, and what the language server's fix-all and rename
    check before they answer."""
    starts = _offsets(text)
    ranges = []
    for edit in {(e.span, e.text): e for e in edits}.values():  # the same edit twice is one edit
        where = _range(starts, text, edit)
        if where is None:
            return None
        ranges.append((where, edit.text))
    ranges.sort(key=lambda r: r[0])
    for (a, b) in zip(ranges, ranges[1:]):
        if b[0][0] < a[0][1] or (b[0][0] == a[0][1] == b[0][1] and a[0] == b[0]):
            return None
    out, at = [], 0
    for (start, end), new in ranges:
        out += [text[at:start], new]
        at = end
    return "".join(out + [text[at:]])


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One error or warning, with where it is and how to fix it; ``fix``: the edits that
    make the hint's rewrite, when the hint is an exact one (``rulebook check --fix`` and the
    editor's preferred quick fix); ``suggest``: rewrites the hint proposes that are not
    certain (each a did-you-mean guess, or removing what nothing uses), each one an
    alternative the editor offers as a quick fix and ``--fix`` never applies."""

    severity: str  # "error" | "warning"
    message: str
    span: Span
    hint: str | None = None
    code: str = ""
    fix: tuple[Edit, ...] = ()
    suggest: tuple[Edit, ...] = ()

    def render(self, sources: dict[str, str] | None = None) -> str:
        """Human-readable form: position, message, source line with caret, hint."""
        out = [visible(f"{self.span}: {self.severity}: {self.message}", keep_newlines=True)]
        text = (sources or {}).get(self.span.file)
        if text is not None and self.span.line > 0:
            lines = _lines(text)
            if self.span.line <= len(lines):
                width = 1
                if self.span.end_line == self.span.line and self.span.end_col > self.span.col:
                    width = self.span.end_col - self.span.col
                src_line, col, width = _window(visible(lines[self.span.line - 1].expandtabs(1)), self.span.col, width)
                gutter = f"{self.span.line:>5} | "
                out.append(gutter + src_line)
                out.append(" " * (len(gutter) - 2) + "| " + " " * (col - 1) + "^" * width)
        if self.hint:
            out.append(visible(f"hint: {self.hint}", keep_newlines=True))
        if self.fix:
            out.append("fix: `rulebook check --fix` makes this change")
        return "\n".join(out)

    def to_json(self) -> dict:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "file": self.span.file,
            "line": self.span.line,
            "column": self.span.col,
            "end_line": self.span.end_line,
            "end_column": self.span.end_col,
            "hint": self.hint,
            "fix": [e.to_json() for e in self.fix] or None,
        }


@dataclass
class Reporter:
    """Collects the diagnostics of a run; stages add to it and go on."""

    diagnostics: list[Diagnostic] = field(default_factory=list)

    def error(self, message: str, span: Span, hint: str | None = None, code: str = "", fix: tuple[Edit, ...] = (), suggest: tuple[Edit, ...] = ()) -> None:
        self.diagnostics.append(Diagnostic("error", message, span, hint, code, fix, suggest))

    def warning(self, message: str, span: Span, hint: str | None = None, code: str = "", fix: tuple[Edit, ...] = (), suggest: tuple[Edit, ...] = ()) -> None:
        self.diagnostics.append(Diagnostic("warning", message, span, hint, code, fix, suggest))

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)

    def sorted(self) -> list[Diagnostic]:
        return sorted(self.diagnostics, key=lambda d: (d.span.file, d.span.line, d.span.col, d.message))


MAX_SUGGESTED_NAME = 100
"""Names longer than this get no did-you-mean (comparing them costs their length squared)."""

SUGGESTION_CUTOFF = 0.6
"""How alike a candidate must be to be suggested (:func:`difflib.get_close_matches`' ``cutoff``)."""

SUGGESTION_WORK = 5_000_000
"""What one check may spend on did-you-mean (:class:`SuggestionBudget`), in pairs of
characters compared: a second or two at worst (every candidate a long name much like
the misspelt one); hundreds of misspelt names over the names of a large rulebook."""

REMEMBERED_CANDIDATES = 100_000
"""The most candidates kept, over all the sets remembered by :func:`did_you_mean` (the oldest sets go first)."""

REMEMBERED_SETS = 32
"""The most sets of candidates remembered by :func:`did_you_mean`."""

ANSWERS_PER_SET = 4096
"""The most names whose answer is remembered for one set of candidates (then they are forgotten at once)."""


class SuggestionBudget:
    """What did-you-mean may still spend in one run: each answer costs the characters
    compared to find it (the same whether it was remembered or computed, so that a run
    gives the same hints however many ran before it); once spent, names get no hint."""

    __slots__ = ("left",)

    def __init__(self, work: int = SUGGESTION_WORK):
        self.left = work


def _alike_enough(matches: int, total: int) -> bool:
    """Is a ratio of ``matches`` characters out of ``total`` (both names) at least the
    cutoff? Computed as :mod:`difflib` computes its ratios."""
    return (2.0 * matches / total if total else 1.0) >= SUGGESTION_CUTOFF


def _may_be_close(length: int, other: int) -> bool:
    """Can a name of ``length`` characters and one of ``other`` be alike enough? The
    bound :mod:`difflib` tries first (``real_quick_ratio``)."""
    return _alike_enough(min(length, other), length + other)


_SEPARATOR = "\x00"
"""What joins the candidates of one length into one string (a candidate holding it is looked at alone)."""


@lru_cache(maxsize=None)
def _fewest_shared(size: int, length: int) -> int:
    """The fewest letters two names of ``size`` and ``length`` characters must share to be alike enough."""
    return next(m for m in range(min(size, length) + 1) if _alike_enough(m, size + length))


class _Suggestions:
    """Did-you-mean over one set of candidates: sorted, lower-cased and grouped by
    length once; the answer for each name remembered with what it cost (or, for a name
    given up on, that it costs more than what was left)."""

    __slots__ = ("lowered", "by_length", "answers", "costs_over")

    def __init__(self, pool: frozenset[str]):
        ordered = sorted(pool)
        self.lowered = {c.lower(): c for c in ordered}
        groups: dict[int, list[str]] = {}
        for c in ordered:
            groups.setdefault(len(c), []).append(c)
        self.by_length: dict[int, tuple[list[str], str | None]] = {
            length: (group, None if any(_SEPARATOR in c for c in group) else _SEPARATOR.join(group))
            for length, group in groups.items()
        }
        self.answers: dict[str, tuple[str | None, int]] = {}
        self.costs_over: dict[str, float] = {}  # names given up on: their answer costs more than this

    def closest(self, name: str, limit: float) -> tuple[str | None, int] | None:
        """The closest candidate (or None) and its cost; None when it costs over ``limit``."""
        known = self.answers.get(name)
        if known is None:
            if limit <= self.costs_over.get(name, -1):
                return None
            known = self._closest(name, limit)
            if len(self.answers) + len(self.costs_over) >= ANSWERS_PER_SET:
                self.answers.clear()
                self.costs_over.clear()
            if known is None:
                self.costs_over[name] = limit
                return None
            self.answers[name] = known
        return known if known[1] <= limit else None

    def _closest(self, name: str, limit: float) -> tuple[str | None, int] | None:
        """:func:`difflib.get_close_matches` with ``n=1``, step by step to count its work,
        stopping once the work is over ``limit``. Two bounds of difflib's ratio, cheap to
        compute, leave out the candidates that cannot be close enough (the same answer,
        sooner): their length, difflib's own first test; and how many of their letters
        are in ``name`` (at most these can match), found for all the candidates of one
        length by one :meth:`str.translate` that deletes the name's letters."""
        same = self.lowered.get(name.lower())
        if same is not None and same != name:
            return same, 0
        matcher = difflib.SequenceMatcher()
        matcher.set_seq2(name)
        size = len(name)
        letters_of_name = dict.fromkeys(map(ord, name))
        work = 0
        scored: list[tuple[float, str]] = []
        for length, (group, joined) in self.by_length.items():
            if not _may_be_close(size, length):
                continue
            work += len(group) * _PER_CANDIDATE
            if work > limit:
                return None
            most_unshared = length - _fewest_shared(size, length)
            if joined is not None and _SEPARATOR not in name:
                unshared = joined.translate(letters_of_name).split(_SEPARATOR)
                near = [c for c, rest in zip(group, unshared) if len(rest) <= most_unshared]
            else:
                near = [c for c in group if len(c.translate(letters_of_name)) <= most_unshared]
            for candidate in near:
                work += size + length + _PER_COMPARISON
                if work > limit:
                    return None
                matcher.set_seq1(candidate)
                if matcher.quick_ratio() >= SUGGESTION_CUTOFF:
                    work += size * length + _PER_COMPARISON
                    if work > limit:
                        return None
                    if matcher.ratio() >= SUGGESTION_CUTOFF:
                        scored.append((matcher.ratio(), candidate))
        best = max(scored, default=None)  # as difflib's heapq.nlargest(1, ...): the best score, then the last name
        return (best[1] if best else None), work


_PER_CANDIDATE = 1
"""The work counted for looking at a candidate's length and letters (a unit of work is
about one pair of characters compared by difflib, a third of a microsecond)."""

_PER_COMPARISON = 10
"""The work counted for one of difflib's comparisons, besides the characters compared."""

_remembered: OrderedDict[frozenset[str], _Suggestions] = OrderedDict()
_remembering = threading.Lock()  # ``rulebook serve`` may check in more than one thread


def _suggestions_for(pool: frozenset[str]) -> _Suggestions:
    """The prepared suggestions of ``pool`` (remembered: a checker asks many names of the same set)."""
    with _remembering:
        found = _remembered.get(pool)
        if found is not None:
            _remembered.move_to_end(pool)
            return found
        found = _remembered[pool] = _Suggestions(pool)
        kept = sum(len(p) for p in _remembered)
        while len(_remembered) > 1 and (len(_remembered) > REMEMBERED_SETS or kept > REMEMBERED_CANDIDATES):
            oldest, _ = _remembered.popitem(last=False)
            kept -= len(oldest)
        return found


def did_you_mean(name: str, candidates: Iterable, budget: SuggestionBudget | None = None) -> str | None:
    """The closest candidate to a misspelt ``name``, if any is close enough;
    candidates that are not strings (e.g. numeric table keys) are ignored.

    The answer of :func:`difflib.get_close_matches` (``n=1``, cutoff
    :data:`SUGGESTION_CUTOFF`) over the sorted candidates, after a candidate
    that differs from ``name`` only in case. Remembered per set of candidates
    and name. With a ``budget``, its cost is taken from it, and a name that
    costs more than is left gets None (and spends the rest)."""
    if len(name) > MAX_SUGGESTED_NAME or (budget is not None and budget.left <= 0):
        return None
    pool = frozenset(c for c in candidates if isinstance(c, str) and len(c) <= MAX_SUGGESTED_NAME)
    found = _suggestions_for(pool).closest(name, budget.left if budget is not None else float("inf"))
    if budget is not None:
        budget.left = budget.left - found[1] if found is not None else 0
    return found[0] if found is not None else None


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """``n`` and the noun that agrees with it, in English: ``1 error``, ``2 errors``,
    ``0 warnings`` (``plural``: an irregular plural, ``1 entry`` / ``2 entries``)."""
    return f"{n} {singular if n == 1 else plural or singular + 's'}"


def summary(diagnostics: Iterable[Diagnostic]) -> str:
    """``2 errors, 1 warning``: what a run found."""
    severities = [d.severity for d in diagnostics]
    errors = severities.count("error")
    return f"{counted(errors, 'error')}, {counted(len(severities) - errors, 'warning')}"


def render_all(diagnostics: Iterable[Diagnostic], sources: dict[str, str], fmt: str = "text", summarize=None) -> str:
    """All diagnostics in text (with carets) or JSON form, sorted by position; the text ends with
    ``summarize(diagnostics)`` (by default :func:`summary`, in English; the command line
    passes one in the user's language)."""
    diags = sorted(diagnostics, key=lambda d: (d.span.file, d.span.line, d.span.col, d.message))
    if fmt == "json":
        return json.dumps([d.to_json() for d in diags], ensure_ascii=False, indent=2)
    blocks = [d.render(sources) for d in diags]
    if diags:
        blocks.append((summarize or summary)(diags))
    return "\n\n".join(blocks[:-1]) + ("\n\n" if len(blocks) > 1 else "") + blocks[-1] if blocks else ""
