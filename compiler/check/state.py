"""What the checking passes share: the declarations seen so far, the IR built so
far, the reporter, and the scopes of procedure bodies.

Each pass (one module of :mod:`rulebook.compiler.check`) reads what earlier passes put
in a :class:`CheckState` and adds its own part; none stops at the first
problem: every error goes to the reporter and the pass goes on.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Edit, Reporter, Span, SuggestionBudget, did_you_mean
from rulebook.rules_dsl.keywords import reserved

from rulebook.compiler import ir
from rulebook.compiler.ir.types import T

_DID_YOU_MEAN = re.compile(r"did you mean '([^'\s]+)'\?")
_QUOTED = re.compile(r"'(@?[^\W\d]\w*)'")


class Scope:
    """Local names of a procedure body (parameters, lets, loop variables),
    with the optional paths known not to be none here (narrowing)."""

    def __init__(self, parent: "Scope | None" = None, narrowed: set[str] | None = None):
        self.vars: dict[str, tuple[T, Span]] = {}
        self.parent = parent
        self.narrowed: set[str] = set(narrowed or ())

    def get(self, name: str) -> tuple[T, Span] | None:
        s: Scope | None = self
        known = False
        while s is not None:
            known |= name in s.narrowed
            if name in s.vars:
                t, span = s.vars[name]
                return (t.inner if known and t.kind == "opt" else t, span)
            s = s.parent
        return None

    def owner(self, name: str) -> "Scope | None":
        """The scope that declares ``name``."""
        s: Scope | None = self
        while s is not None and name not in s.vars:
            s = s.parent
        return s

    def is_narrowed(self, path: str) -> bool:
        s: Scope | None = self
        while s is not None:
            if path in s.narrowed:
                return True
            s = s.parent
        return False

    def names(self) -> set[str]:
        out: set[str] = set()
        s: Scope | None = self
        while s is not None:
            out |= set(s.vars)
            s = s.parent
        return out


class CheckState:
    """The state of one checking run over a whole rulebook."""

    def __init__(self, modules: list[n.Module], sources: dict[str, str], reporter: Reporter):
        self.modules = modules
        self.sources = sources
        self.rep = reporter
        # declarations pass
        self.ast: dict[str, Any] = {}  # name -> its (first) declaration node
        self.file: dict[str, str] = {}
        self.ref: dict[str, str] = {}
        self.status: dict[str, str] = {}
        self.doc: dict[str, str | None] = {}
        self.doc_is_prose: dict[str, bool] = {}
        self.broken: set[str] = set()  # declarations with syntax errors: not reported again as unknown
        self.suggestions = SuggestionBudget()  # did-you-mean of unknown names: bounded per check
        self.rulebook: n.RulebookDecl | None = None
        self.section_items: list[tuple[n.SectionDecl | None, str, str, list]] = []  # (section, file, slug, items)
        self.section_notes: dict[str, tuple[str, str | None]] = {}  # slug -> the section's @status and @doc
        # signatures pass
        self.consts: dict[str, T] = {}  # const name -> its type
        self.enum_members: dict[str, list[tuple[str, str]]] = {}
        self.record_fields: dict[str, list[tuple[str, T, str | None]]] = {}
        self.rule_params: dict[str, list[tuple[str, T]]] = {}
        self.param_types: dict[str, list[tuple[str, T]]] = {}
        self.result_types: dict[str, T] = {}
        # data and tables passes
        self.catalogs: dict[str, dict[str, dict[str, Any]]] = {}
        self.catalog_row_spans: dict[tuple[str, str], Span] = {}
        self.tables: dict[str, ir.Table] = {}
        self.pending_refs: list[tuple[str, str, Span, str]] = []  # (catalogs, id, span, context)
        # entries and rows reported broken (a wrong number of cells, a bad cell): declared, so
        # that a reference to one is no second error, but left out of the data
        self.broken_entries: dict[str, set] = {}
        # the IR, as the passes build it
        self.decls: dict[str, Any] = {}
        self.examples: list[ir.Example] = []
        self.uses: dict[str, set[str]] = defaultdict(set)
        self.current: str | None = None  # the declaration being checked (for uses)
        # procedure bodies
        self.local_decl: dict[tuple[Scope, str], Span] = {}  # where each local is declared
        self.local_uses: set[tuple[Scope, str]] = set()
        self.loop_lets: dict[str, Span] = {}  # the lets of bounded loops' bodies, gone after the loop: its span
        self.in_body = False  # checking a procedure body (where `stack` may stand)
        self.depth = 0  # nesting of the expression being checked
        self.too_deep = False

    # ------------------------------------------------------------------ reporting
    def err(self, msg: str, span: Span, hint: str | None = None, code: str = "type", fix: tuple[Edit, ...] = (), suggest: tuple[Edit, ...] = ()) -> None:
        self.rep.error(msg, span, hint, code, fix, suggest or self._guessed(msg, span, hint, fix))

    def warn(self, msg: str, span: Span, hint: str | None = None, code: str = "warning", suggest: tuple[Edit, ...] = ()) -> None:
        self.rep.warning(msg, span, hint, code, suggest=suggest or self._guessed(msg, span, hint, ()))

    def _guessed(self, msg: str, span: Span, hint: str | None, fix: tuple[Edit, ...]) -> tuple[Edit, ...]:
        """The rewrite a ``did you mean 'x'?`` hint proposes: ``x`` instead of the name the
        message quotes, where that name is written in the diagnostic's span (none otherwise,
        and none when the hint's rewrite is exact: it is the fix)."""
        guess = _DID_YOU_MEAN.search(hint or "") if not fix else None
        if guess is None:
            return ()
        for wrong in _QUOTED.findall(msg):
            wrong = wrong.lstrip("@")
            if wrong != guess.group(1) and (edit := self.replace_word(span, wrong, guess.group(1))):
                return edit
        return ()

    def replace_word(self, span: Span, word: str, new: str) -> tuple[Edit, ...]:
        """The suggestion of writing ``new`` instead of the word ``word`` in ``span`` (none when
        the word is not found written there)."""
        at = self.word_span(span, word)
        lines = self.sources.get(at.file, "").splitlines()
        inside = span.end_line > span.line or at.end_col <= span.end_col
        if inside and at.line == at.end_line and 0 < at.line <= len(lines) and lines[at.line - 1][at.col - 1 : at.end_col - 1] == word:
            return (Edit(at, new),)
        return ()

    def reserved(self, word: str, what: str, span: Span, after_keyword: bool = False) -> None:
        """``'roll' is a reserved word (it starts a dice roll) and cannot name <what>``, at the word itself
        (``after_keyword``: the word after the declaration's keyword, ``record roll``)."""
        message, hint_text = reserved(word, what)
        self.err(message, self.word_span(span, word, after_keyword), hint_text, "reserved")

    def word_span(self, span: Span, word: str, after_keyword: bool = False) -> Span:
        """The first ``word`` (whole) on the first line of ``span``, from its column (and after
        the keyword that starts it); ``span`` when not found there."""
        lines = self.sources.get(span.file, "").splitlines()
        if 1 <= span.line <= len(lines):
            skip = re.match(r"\w+", lines[span.line - 1][span.col - 1:]) if after_keyword else None
            m = re.compile(rf"(?<![\w.]){re.escape(word)}(?!\w)").search(lines[span.line - 1], span.col - 1 + (skip.end() if skip else 0))
            if m:
                return Span(span.file, span.line, m.start() + 1, span.line, m.end() + 1)
        return span

    def unknown(self, what: str, name: str, span: Span, candidates, kinds: str = "") -> None:
        """``unknown <what> 'name'`` with a did-you-mean while the check's budget for them
        lasts (silent for declarations that failed to parse)."""
        if name in self.broken:
            return
        guess = did_you_mean(name, candidates, self.suggestions)
        hint = None
        if guess:
            where = self.ast.get(guess)
            hint = f"did you mean '{guess}'?" + (f" (defined at {where.span})" if where is not None and hasattr(where, "span") else "")
        self.err(f"unknown {what} '{name}'", span, hint, "unknown-name", suggest=self.replace_word(span, name, guess) if guess else ())

    # ------------------------------------------------------------------ lookups
    def use(self, name: str) -> None:
        """Record that the declaration being checked uses ``name``."""
        if self.current and name != self.current:
            self.uses[name].add(self.current)

    def names_of(self, *classes) -> list[str]:
        return [k for k, d in self.ast.items() if isinstance(d, classes)]

    def is_ordered(self, enum: str) -> bool:
        d = self.ast.get(enum)
        return isinstance(d, n.EnumDecl) and d.ordered

    def members(self, enum: str) -> list[str]:
        return [m for m, _ in self.enum_members.get(enum, [])]

    def ref_ids(self, name: str):
        """The ids a ``ref name`` may hold: catalog entries or id-table keys (with those of
        the entries and rows already reported broken)."""
        broken = self.broken_entries.get(name)
        if name in self.catalogs:
            rows = self.catalogs[name]
            return {**rows, **dict.fromkeys(broken)} if broken else rows
        table = self.tables.get(name)
        if table is None:
            return {}
        return {**{row.keys[0]: None for row in table.rows}, **dict.fromkeys(broken or ())}

    def common(self, d) -> dict[str, Any]:
        """The fields every IR declaration has, for the declaration node ``d``."""
        return {
            "name": d.name,
            "title": getattr(d, "title", None) or d.name,
            "has_title": bool(getattr(d, "title", None)),
            "ref": self.ref.get(d.name, ""),
            "status": self.status.get(d.name, "active"),
            "doc": self.doc.get(d.name),
            "doc_is_prose": self.doc_is_prose.get(d.name, False),
            "file": self.file.get(d.name, d.span.file),
            "span": d.span,
            "source_text": d.source_text,
        }


def hint(name: str, candidates) -> str | None:
    """``did you mean 'x'?`` or None."""
    g = did_you_mean(name, candidates)
    return f"did you mean '{g}'?" if g else None


def referenceable(d) -> bool:
    """Catalogs, and tables keyed by one id, can be the target of ``ref``."""
    if isinstance(d, n.CatalogDecl):
        return True
    return isinstance(d, n.TableDecl) and len(d.keys) == 1 and d.keys[0].type.kind == "id" and d.across is None


def describe_value(v) -> str:
    """A data value as a diagnostic names it."""
    if isinstance(v, n.VNum):
        return f"the number {v.text or v.value}"
    if isinstance(v, n.VStr):
        return f'the text "{v.value}"'
    if isinstance(v, n.VBool):
        return "true" if v.value else "false"
    if isinstance(v, n.VName):
        return f"the name '{v.name}'"
    if isinstance(v, n.VQualified):
        return f"'{v.qualifier}.{v.name}'"
    if isinstance(v, n.VList):
        return "a list"
    if isinstance(v, n.VRecord):
        return "a record"
    if isinstance(v, n.VApply):
        return f"'{v.name}(…)'"
    if isinstance(v, n.RangeKey):
        return "a range"
    return "an empty value"
