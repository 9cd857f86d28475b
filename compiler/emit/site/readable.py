"""IR names, values and expressions → plain-language text for players.

Reads a checked :class:`rulebook.compiler.ir.Program`; produces unescaped plain text (the
page emitter escapes it): a procedure's ``let``/``return``/``require`` as
formulas in the manual's notation (``Total = Base + M``, ``×``, ``≥``,
``mín(…)``), a worked example's inputs and expectations as short phrases,
and human labels for names that are written like code (``base_roll``,
``MaxLosses``), in the rulebook's language (:mod:`rulebook.compiler.i18n`).

Names are spelt as the rulebook's own prose and titles spell them: the words of
``base_roll`` are looked up, without accents or case, in the text of the
rulebook, and the most frequent spelling found there is used (``Base roll``).

Entry point: :class:`Readable` (``Readable(program).expr(e)``, ``.statement(s)``,
``.label(text)``).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections import Counter
from fractions import Fraction
from typing import Any

from rulebook.compiler import ir
from rulebook.compiler.support.i18n import N_, _
from rulebook.compiler.emit.site import readable_dice
from rulebook.compiler.emit.site.markdown import number

# operators and built-in functions as the manual writes them; words are message ids (translated by ``_``)
OPERATORS = {
    "+": "+", "-": "−", "*": "×", "/": "÷", "//": "÷", "%": N_("mod"), "==": "=", "!=": "≠", "<": "<", "<=": "≤",
    ">": ">", ">=": "≥", "and": N_("and"), "or": N_("or"), "in": N_("in"),
}
PRECEDENCE = {"or": 1, "and": 2, "in": 3, "==": 3, "!=": 3, "<": 3, "<=": 3, ">": 3, ">=": 3, "+": 4, "-": 4,
              "*": 5, "/": 5, "//": 5, "%": 5}
FUNCTIONS = {
    "min": N_("min"), "max": N_("max"), "clamp": N_("between"), "abs": N_("absolute value"), "floor": N_("rounded down"),
    "ceil": N_("rounded up"), "round": N_("rounded"), "trunc": N_("whole part"), "capped_sum": N_("capped sum"),
    "len": N_("number of"), "sum": N_("sum of"), "any": N_("any of"), "all": N_("all of"), "ord": N_("position of"),
    "shift": N_("shift"), "probability": N_("probability of"),
}


def shouted(text: str) -> bool:
    """Whether a spelling has a word of four or more letters in capitals (``PRIMERA acción``)."""
    return any(len(w) >= 4 and w.isupper() for w in text.split())


def quoted(text: str) -> str:
    """A title quoted as the current language quotes it (``«Tabla»``, ``“Table”``)."""
    return _("“%(text)s”") % {"text": text}


def operator(op: str) -> str:
    return _(OPERATORS[op]) if op in OPERATORS else op
CODE_LIKE = re.compile(r"^(?:[a-z0-9]+(?:_[a-z0-9]+)+|[A-Z]?[a-z0-9]+(?:[A-Z][a-z0-9]*)+|[a-z][a-z0-9]*_?[A-Z]\w*)$")


class _Folded(dict):
    """Code point → its folded character, worked out on first use (for ``str.translate``)."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        self[code] = folded = (unicodedata.normalize("NFD", ch)[:1] or ch).lower()[:1]
        return folded


_FOLDED = _Folded()


def fold(text: str) -> str:
    """Lower case without accents, one character for each character (``Órdenes`` → ``ordenes``)."""
    return text.translate(_FOLDED)


def looks_like_code(title: str) -> bool:
    """``MaxLosses``, ``melee_d_base``, ``WeaponType``: a title written as an identifier."""
    return bool(CODE_LIKE.match(title))


def words_of(name: str) -> list[str]:
    """The words of an identifier: ``MaxLosses`` → max, losses; ``melee_D_tank`` → melee, D, tank."""
    parts = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).split("_")
    return [p.lower() if p[1:].islower() else p for p in parts if p]


class Readable:
    """Plain-language renderings of one program's names, values and expressions."""

    def __init__(self, program: ir.Program):
        self.p = program
        self.member_titles = {e.name: {m.name: m.title for m in e.members} for e in program.enums.values()}
        self._corpus: str | None = None
        self._folded: str | None = None
        self._spellings: dict[tuple[str, ...], str | None] = {}
        self._index: _WordIndex | None = None

    # ------------------------------------------------------------------ names
    def _text(self) -> tuple[str, str]:
        """All the rulebook's prose and titles (and its folded copy, same length)."""
        if self._corpus is None:
            chunks: list[str] = []
            items = list(self.p.front) + [i for s in self.p.sections for i in s.items]
            for item in items:
                runs = getattr(item, "inlines", None)
                if runs is not None:
                    chunks.append("".join(getattr(r, "text", "") for r in runs))
                for run_list in getattr(item, "items", ()) if isinstance(item, ir.ListBlock) else ():
                    chunks.append("".join(getattr(r, "text", "") for r in run_list))
            for d in self.p.decls.values():
                chunks.append(d.title)
                if d.doc:
                    chunks.append(d.doc)
                if isinstance(d, ir.Procedure):
                    chunks += [s.label for s in d.steps]
                if isinstance(d, ir.Rule):
                    chunks += list(d.texts)
                if isinstance(d, ir.Term):
                    chunks.append(d.definition)
            self._corpus = "\n".join(chunks)
            self._folded = fold(self._corpus)
        return self._corpus, self._folded or ""

    def _words(self) -> _WordIndex:
        if self._index is None:
            corpus, folded = self._text()
            self._index = _WordIndex(corpus, folded)
        return self._index

    def spelling(self, words: tuple[str, ...]) -> str | None:
        """The rulebook's most frequent spelling of these words in a row, if it writes them."""
        if words not in self._spellings:
            found = self._words().phrase([fold(w) for w in words])
            self._spellings[words] = max(sorted(found), key=lambda s: (not shouted(s), found[s], s[:1].isupper())) if found else None
        return self._spellings[words]

    def word(self, word: str) -> str:
        """One word as the rulebook spells it, or with the accents of a word of the same stem
        (``maximas`` → ``máximas`` when the rulebook only writes ``máxima``)."""
        found = self.spelling((word,))
        if found is not None:
            return found
        stem = fold(word)[: max(4, len(word) - 2)]
        if len(stem) < 4:
            return word
        kin = self._words().kin(stem)
        if not kin:
            return word
        model = max(sorted(kin), key=lambda s: kin[s]).ljust(len(word))
        return "".join((m.upper() if c.isupper() else m) if not m.isascii() and fold(m) == fold(c) else c for c, m in zip(word, model))

    def name(self, identifier: str) -> str:
        """A code name in the rulebook's words: ``base_roll`` → ``Base roll``."""
        words = words_of(identifier)
        whole = self.spelling(tuple(words))
        if whole is None and len(words) > 1:  # ``linea_de_fuego`` spelt ``linea_fuego`` → ``Línea de Fuego``, as the prose writes it
            whole = self.spelling((LINKED,) + tuple(words))
        if whole is None:
            return " ".join(self.word(w) for w in words)
        return " ".join(self._unshouted(w) for w in whole.split())

    def _unshouted(self, word: str) -> str:
        """A word the prose writes in capitals for emphasis (``PRIMERA``) as it writes it elsewhere;
        short or always-capital words (``HE``, ``INI``) stay."""
        return self.word(word) if shouted(word) else word

    def label(self, title: str) -> str:
        """A title as players read it: one written like code is spelt out (``MaxLosses`` → ``Max losses``)."""
        if not looks_like_code(title):
            return title[:1].upper() + title[1:] if title[:1].islower() and " " not in title else title
        text = self.name(title)
        return text[:1].upper() + text[1:]

    # ------------------------------------------------------------------ values
    def value(self, v: Any) -> str:
        """A data value: numbers in the site's notation, yes/no, an enum value's title, an entry's title."""
        if v is None:
            return _("none")
        if isinstance(v, bool):
            return _("yes") if v else _("no")
        if isinstance(v, (int, Fraction)):
            return number(v)
        if isinstance(v, str):
            for titles in self.member_titles.values():
                if v in titles:
                    return titles[v]
            return v
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(self.value(x) for x in v) + "]"
        return str(v)

    def entry_title(self, catalog: str, ident: str) -> str:
        d = self.p.get(catalog, ir.Catalog)
        if d is None:
            table = self.p.get(catalog, ir.Table)
            if table is not None and table.keyed_by_id:  # a row of a table keyed by id: its title, or its id in words
                row = next((r for r in table.rows if r.keys[0] == ident), None)
                if row is not None:
                    return row.title if row.title and row.title.strip() else self.name(ident)
            return ident
        if ident not in d.entries:
            return ident
        rec = self.p.get(d.record, ir.Record)
        field = next((f.name for f in rec.fields if f.type.kind == "text"), None) if rec else None
        title = d.entries[ident].get(field) if field else None
        return title if isinstance(title, str) and title.strip() else ident

    def field_title(self, owner_type, field: str) -> str:
        """The display title of ``field`` of the record behind a type (a record, a row, an entry)."""
        record = None
        if owner_type is not None:
            t = owner_type.inner
            if t.kind == "record":
                record = self.p.get(t.name or "", ir.Record)
            elif t.kind in ("ref", "refs"):
                cat = self.p.get((t.name or "").split("|")[0], ir.Catalog)
                record = self.p.get(cat.record, ir.Record) if cat else None
        f = record.field(field) if record is not None else None
        if f is not None and f.title:
            return self.label(f.title)
        return self.name(field)

    # ------------------------------------------------------------------ expressions
    def expr(self, e: ir.Expr, outer: int = 0) -> str:
        """An expression in the manual's notation (``outer``: the precedence around it).

        Dispatches on the node's class: ``_literal``, ``_binary``, ``_roll``…"""
        return getattr(self, "_" + type(e).__name__.lower(), lambda _e, _o: "…")(e, outer)

    def _literal(self, e: ir.Literal, _outer: int) -> str:
        return quoted(e.value) if isinstance(e.value, str) else self.value(e.value)

    def _local(self, e: ir.Local, _outer: int) -> str:
        return _("result") if e.name == "result" else self.name(e.name)

    def _constref(self, e: ir.ConstRef, _outer: int) -> str:
        return self._title(e.name)

    def _enumvalue(self, e: ir.EnumValue, _outer: int) -> str:
        return self.member_titles.get(e.enum, {}).get(e.member, e.member)

    def _entryid(self, e: ir.EntryId, _outer: int) -> str:
        return self.entry_title(e.catalog, e.ident)

    def _fieldaccess(self, e: ir.FieldAccess, _outer: int) -> str:
        title = self.field_title(getattr(e.obj, "type", None), e.field)
        if isinstance(e.obj, ir.Local) and e.obj.name == "result":
            return title
        return _("%(field)s of %(owner)s") % {"field": title, "owner": self.expr(e.obj, 9)}

    def _countof(self, e: ir.CountOf, _outer: int) -> str:
        return _("%(kind)s in %(owner)s") % {"kind": self.value(e.kind), "owner": self.expr(e.obj, 9)}

    def _tablelookup(self, e: ir.TableLookup, _outer: int) -> str:
        return f"{quoted(self._title(e.table))} ({', '.join(self.expr(k) for k in e.keys)})"

    def _cataloglookup(self, e: ir.CatalogLookup, _outer: int) -> str:
        return f"{quoted(self._title(e.catalog))} ({self.expr(e.key)})"

    def _mapindex(self, e: ir.MapIndex, _outer: int) -> str:
        return f"{self.expr(e.obj, 9)} ({self.expr(e.key)})"

    def _listindex(self, e: ir.ListIndex, _outer: int) -> str:
        return f"{self.expr(e.obj, 9)} [{self.expr(e.index)}]"

    def _procedurecall(self, e: ir.ProcedureCall, _outer: int) -> str:
        """``«Title» (name: value, …)``; a value that reads as its parameter's name is said once
        (``desgaste previo``, not ``desgaste previo desgaste previo``)."""
        return f"{quoted(self._title(e.procedure))} ({self.arguments(e.args, self.p.get(e.procedure, ir.Procedure))})"

    def arguments(self, args: tuple[tuple[str, ir.Expr], ...], procedure: ir.Procedure | None = None) -> str:
        """``name: value, …``: each parameter by its title when it has one, else its name spelt out."""
        titles = {p.name: p.title for p in procedure.params if p.title} if procedure is not None else {}
        said = []
        for param, value in args:
            name, text = titles.get(param) or self.name(param), self.expr(value)
            said.append(text if fold(text) == fold(name) else f"{name}: {text}")
        return ", ".join(said)

    def _recordnew(self, e: ir.RecordNew, _outer: int) -> str:
        """The fields given, leaving out those that pass on a value of the same name."""
        shown = [(f, v) for f, v in e.args if not (isinstance(v, ir.Local) and v.name == f)]
        return "; ".join(f"{self.field_title(e.type, f)} = {self.expr(v)}" for f, v in shown or e.args)

    def _unary(self, e: ir.Unary, _outer: int) -> str:
        inner = self.expr(e.operand, 6)
        return _("not %(condition)s") % {"condition": inner} if e.op == "not" else f"−{inner}"

    def _binary(self, e: ir.Binary, outer: int) -> str:
        prec = PRECEDENCE.get(e.op, 3)
        text = f"{self.expr(e.left, prec)} {operator(e.op)} {self.expr(e.right, prec + 1)}"
        return f"({text})" if prec < outer else text

    def _conditional(self, e: ir.Conditional, outer: int) -> str:
        text = _("if %(condition)s: %(then)s; otherwise: %(other)s") % {
            "condition": self.expr(e.cond), "then": self.expr(e.then), "other": self.expr(e.other)}
        return f"({text})" if outer else text

    def _listof(self, e: ir.ListOf, _outer: int) -> str:
        return "[" + ", ".join(self.expr(x) for x in e.items) + "]"

    def _comprehension(self, e: ir.Comprehension, _outer: int) -> str:
        cond = " " + _("if %(condition)s") % {"condition": self.expr(e.cond)} if e.cond is not None else ""
        each = _("%(value)s for each %(name)s of %(items)s") % {
            "value": self.expr(e.body), "name": self.name(e.var), "items": self.expr(e.iterable)}
        return f"[{each}{cond}]"

    def _intrange(self, e: ir.IntRange, _outer: int) -> str:
        return _("%(low)s to %(high)s") % {"low": self.expr(e.lo), "high": self.expr(e.hi)}

    def _draw(self, e: ir.Draw, _outer: int) -> str:
        return _("draw of %(count)s from %(bag)s") % {"count": self.expr(e.count), "bag": quoted(self._title(e.bag))}

    def _title(self, name: str) -> str:
        d = self.p.decls.get(name)
        return d.title if d is not None else name

    def _builtincall(self, e: ir.BuiltinCall, _outer: int) -> str:
        args = [self.expr(a) for a in e.args]
        if e.name == "has_rule":
            return _("%(owner)s includes %(rule)s") % {"owner": args[0], "rule": quoted(self._title(e.rule or ""))}
        if e.name == "rule_param":
            return _("%(param)s of %(rule)s in %(owner)s") % {"param": e.param, "rule": quoted(self._title(e.rule or "")), "owner": args[0]}
        name = _(FUNCTIONS[e.name]) if e.name in FUNCTIONS else e.name
        return f"{name}({', '.join(args)})"

    def _sources(self, e: ir.Sources, _outer: int) -> str:
        return "; ".join(f"{quoted(label)} {self.expr(value)}" for label, value in e.items)

    def _roll(self, e: ir.Roll, _outer: int) -> str:
        dice = self._title(e.die) if e.die else f"{e.count if e.times is None else ''}d{e.sides}"
        text = _("roll of %(dice)s") % {"dice": dice}
        if e.times is not None:
            text += f" × {self.expr(e.times, 9)}"
        if e.mods is not None:
            text += readable_dice.before_keep(self, e.mods, operator)
        if e.keep is not None:
            keep = _("keeps the %(n)s highest") if e.keep[0] == "highest" else _("keeps the %(n)s lowest")
            text += ", " + keep % {"n": e.keep[1]}
        if e.test is not None:
            text += ", " + _("counts the dice %(test)s") % {"test": f"{operator(e.test[0])} {self.expr(e.test[1])}"}
        if e.mods is not None:
            text += readable_dice.counts(self, e.mods, operator)
        return text

    def _dieface(self, e: ir.DieFace, _outer: int) -> str:
        return e.name

    # ------------------------------------------------------------------ statements
    def statement(self, s: ir.Stmt) -> list[str]:
        """A statement as formula lines (nested ``if``s are flattened into conditions)."""
        if isinstance(s, ir.Let):
            return [f"{self.name(s.name)} = {self.expr(s.value)}"]
        if isinstance(s, ir.Return):
            return [_("result: %(value)s") % {"value": self.expr(s.value)}]
        if isinstance(s, ir.Require):
            return [_("requires %(condition)s; otherwise it stops: “%(message)s”") % {
                "condition": self.expr(s.cond), "message": s.message}]
        if isinstance(s, ir.If):
            out = []
            for i, (cond, body) in enumerate(s.branches):
                lead = _("if %(condition)s:") if i == 0 else _("otherwise, if %(condition)s:")
                head = lead % {"condition": self.expr(cond)}
                out += [f"{head} {line}" for b in body for line in self.statement(b)]
            for b in s.orelse or ():
                out += [_("otherwise: %(line)s") % {"line": line} for line in self.statement(b)]
            return out
        if isinstance(s, ir.Step):
            return [line for b in s.body for line in self.statement(b)]
        if isinstance(s, ir.Repeat):
            lines = [line for b in s.body for line in self.statement(b)]
            return lines + [_("repeated until %(condition)s") % {"condition": self.expr(s.cond)}]
        if isinstance(s, ir.Loop):
            return self._loop(s)
        if isinstance(s, ir.Set):
            return [_("%(name)s becomes %(value)s") % {"name": self.name(s.name), "value": self.expr(s.value)}]
        return []

    def _loop(self, s: ir.Loop) -> list[str]:
        """A bounded loop: the values it starts with, its header, then each line of its body
        as done in each run."""
        out = []
        if s.carried:
            values = "; ".join(f"{self.name(name)} = {self.expr(init)}" for name, init in s.carried)
            out.append(_("starting with %(values)s") % {"values": values})
        fills = {"n": self.expr(s.times) if s.times is not None else "",
                 "condition": self.expr(s.cond) if s.cond is not None else "",
                 "name": self.name(s.var or ""), "items": self.expr(s.iterable) if s.iterable is not None else ""}
        if s.iterable is not None:
            head = _("for each %(name)s of %(items)s, until %(condition)s:") if s.cond else _("for each %(name)s of %(items)s:")
        else:
            head = _("repeat at most %(n)s times, until %(condition)s:") if s.cond else _("repeat %(n)s times:")
        out.append(head % fills)
        return out + [_("in each run: %(line)s") % {"line": line} for b in s.body for line in self.statement(b)]


WORD = re.compile(r"\w+")
# first of the words of a phrase looked up when short linking words may come between them
# (``puntos ruptura`` finds ``Puntos de Ruptura``): up to two words of two or three letters, never a
# negation or a conjunction (they would change what the name means)
LINKED = "\x00"
LINKING = r"(?:(?!(?:no|not|nor|ni|non|sin|and|or)\s)[^\W\d_]{2,3}\s+){0,2}"


def phrase_pattern(words: list[str]) -> str:
    """The expression that finds ``words`` (folded) in a row in the folded text: white space between
    them, or, after :data:`LINKED`, white space and linking words."""
    if words[:1] == [LINKED]:
        return (r"\s+" + LINKING).join(re.escape(w) for w in words[1:])
    return r"\s+".join(re.escape(w) for w in words)


class _WordIndex:
    r"""The words of a text and its folded copy (same length), indexed once, so that looking up a
    phrase costs its occurrences rather than a scan of the text.

    :meth:`phrase` finds what ``(?<!\w)w1\s+w2…(?!\w)`` finds in the folded text, and
    :meth:`kin` what ``(?<!\w)stem[^\W_]*`` finds; both count the original text's spellings.
    """

    def __init__(self, corpus: str, folded: str):
        self.corpus, self.folded = corpus, folded
        tokens = [(m.start(), m.end()) for m in WORD.finditer(folded)]
        self.spans = tokens
        # after token i, only white space up to token i + 1
        self.joined = [
            end < start_next and folded[end:start_next].isspace()
            for (start, end), (start_next, end_next) in zip(tokens, tokens[1:])
        ] + [False]
        self.at: dict[str, list[int]] = {}
        for i, (start, end) in enumerate(tokens):
            self.at.setdefault(folded[start:end], []).append(i)
        self.sorted_words = sorted(self.at)

    def phrase(self, words: list[str]) -> Counter:
        """The original spellings of ``words`` written in a row (white space between), by count."""
        if not words or any(not WORD.fullmatch(w) for w in words):  # not plain words: scan the text
            pattern = r"(?<!\w)" + phrase_pattern(words) + r"(?!\w)"
            return Counter(self.corpus[m.start():m.end()] for m in re.finditer(pattern, self.folded))
        found: Counter = Counter()
        n, spans, at, joined = len(words), self.spans, self.at, self.joined
        after = -1  # matches do not overlap, as with re.finditer
        for i in at.get(words[0], ()):
            if i < after or i + n > len(spans):
                continue
            if all(joined[i + k] and at_word(self, i + k + 1, words[k + 1]) for k in range(n - 1)):
                found[self.corpus[spans[i][0]:spans[i + n - 1][1]]] += 1
                after = i + n
        return found

    def kin(self, stem: str) -> Counter:
        """The original spellings of the words that begin with ``stem``, each up to its first ``_``."""
        if not WORD.fullmatch(stem) or "_" in stem:
            return Counter(self.corpus[m.start():m.end()] for m in re.finditer(r"(?<!\w)" + re.escape(stem) + r"[^\W_]*", self.folded))
        found: Counter = Counter()
        first = bisect.bisect_left(self.sorted_words, stem)
        for word in self.sorted_words[first:]:
            if not word.startswith(stem):
                break
            cut = word.find("_", len(stem))
            length = len(word) if cut < 0 else cut
            for i in self.at[word]:
                start = self.spans[i][0]
                found[self.corpus[start:start + length]] += 1
        return found


def at_word(index: _WordIndex, i: int, word: str) -> bool:
    start, end = index.spans[i]
    return index.folded[start:end] == word
