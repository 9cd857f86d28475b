"""Traces: the step-by-step explanation of one sampled resolution.

Takes: the calls a resolver makes on its context while it runs — ``enter``
(a procedure starts), ``step`` (a numbered step starts), ``let`` (a local value
is bound), ``roll`` (dice are rolled), ``leave`` (the procedure returns).
Produces: a tree of :class:`ProcedureFrame` objects, each with its arguments,
the events recorded before its first step, its :class:`Step` list (each with
its events: :class:`LetEvent`, :class:`RollEvent` and nested frames) and its
result; rendered as JSON-safe data (:meth:`Trace.to_json`) or as indented
text for players in their language (:meth:`Trace.render_text`, whose phrases
come from the gettext catalogs ``runtime/locale/<lang>/LC_MESSAGES/runtime.mo``,
read with the standard library only). A trace is recorded in one language (its
``lang``, the package's ``LANG`` given to the context: dice descriptions are
written in it) and renders in it by default; e.g. in Spanish::

    Resolución de la prueba (resolver_prueba) [II.4] (03-ejemplo.rules:100)
         datos: base = 6, m = 0
    1. Total = base + M [II.4] (03-ejemplo.rules:120)
         total = 6
    ⇒ resultado: true

:meth:`Trace.render_compact` is the short form (``rulebook resolve --explain --format
text``): one line per step with its rolls and values, nested procedures indented
(collapsed to one line when they roll no dice), long values abbreviated — a record by
its name and the fields that hold something, a catalog entry by its name, a long list
by its first items and its length — and no line wider than ``width``::

    Resolución de la prueba [II.4]: base = 6, m = 0
      1. Total = base + M: total = 6
    ⇒ resultado: true
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Union

from .messages import DEFAULT_LANGUAGE, phrases

from .records import shown
from .values import Record, format_value, shown_type_name, to_jsonable

__all__ = ["Trace", "ProcedureFrame", "Step", "LetEvent", "RollEvent", "Event"]


@dataclass
class LetEvent:
    """A local binding ``name = value``."""

    name: str
    value: Any
    src: str | None = None

    def to_json(self) -> dict:
        return {"kind": "let", "name": self.name, "value": to_jsonable(self.value), "src": self.src}

    def __repr__(self) -> str:
        return f"<LetEvent {self.name} = {shown(self.value)}>"


@dataclass
class RollEvent:
    """A roll: its label, the random variable's description and the value obtained."""

    label: str
    description: str
    value: Any
    src: str | None = None

    def to_json(self) -> dict:
        return {
            "kind": "roll",
            "label": self.label,
            "description": self.description,
            "value": to_jsonable(self.value),
            "src": self.src,
        }

    def __repr__(self) -> str:
        return f"<RollEvent {self.label or self.description}: {shown(self.value)}>"


@dataclass
class Step:
    """A numbered step of a procedure and the events recorded during it."""

    number: int
    label: str
    ref: str | None
    src: str | None
    events: list[Event] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "number": self.number,
            "label": self.label,
            "ref": self.ref,
            "src": self.src,
            "events": [e.to_json() for e in self.events],
        }

    def __repr__(self) -> str:
        return f"<Step {self.number}. {shown(self.label)}: {len(self.events)} events>"


@dataclass
class ProcedureFrame:
    """One call of a procedure.

    ``events`` holds what happened before the first step; ``finished`` is
    False while the procedure runs (or if it raised before returning).
    """

    name: str
    title: str
    ref: str | None
    src: str | None
    args: dict[str, Any]
    events: list[Event] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    result: Any = None
    finished: bool = False

    def to_json(self) -> dict:
        return {
            "kind": "procedure",
            "name": self.name,
            "title": self.title,
            "ref": self.ref,
            "src": self.src,
            "args": {k: to_jsonable(v) for k, v in self.args.items()},
            "events": [e.to_json() for e in self.events],
            "steps": [s.to_json() for s in self.steps],
            "result": to_jsonable(self.result),
            "finished": self.finished,
        }

    def __repr__(self) -> str:
        """Short (the frame holds the whole resolution below it): the procedure, its steps and result."""
        result = f" → {shown(self.result)}" if self.finished else " (no result)"
        return f"<ProcedureFrame {self.name or self.title}: {len(self.steps)} steps{result}>"


Event = Union[LetEvent, RollEvent, ProcedureFrame]

_INDENT = " " * 5

COMPACT_WIDTH = 160
"""The widest line of :meth:`Trace.render_compact`."""


class Trace:
    """A recorded resolution: top-level events (normally one procedure frame).

    The recording methods mirror the context API and are called by
    :class:`rulebook.runtime.context.SampleContext`.
    """

    def __init__(self, lang: str = DEFAULT_LANGUAGE) -> None:
        self.lang = lang  # the language its roll descriptions were recorded in, and the default of render_text
        self.events: list[Event] = []
        self._stack: list[ProcedureFrame] = []

    # Recording -------------------------------------------------------------
    def _sink(self) -> list[Event]:
        if not self._stack:
            return self.events
        frame = self._stack[-1]
        return frame.steps[-1].events if frame.steps else frame.events

    def enter(self, name: str, title: str, ref: str | None, src: str | None, args: dict) -> None:
        """A procedure starts: open a frame inside the current step."""
        frame = ProcedureFrame(name, title, ref, src, dict(args))
        self._sink().append(frame)
        self._stack.append(frame)

    def leave(self, result: Any) -> None:
        """The current procedure returns ``result``: close its frame."""
        if not self._stack:
            raise RuntimeError("trace: leave() without a matching enter()")
        frame = self._stack.pop()
        frame.result = result
        frame.finished = True

    def step(self, number: int, label: str, ref: str | None, src: str | None) -> None:
        """A numbered step of the current procedure starts."""
        step = Step(number, label, ref, src)
        if self._stack:
            self._stack[-1].steps.append(step)
        else:  # a step outside any procedure: keep it visible as a frame-less step
            frame = ProcedureFrame("", "", None, None, {}, steps=[step], finished=True)
            self.events.append(frame)

    def let(self, name: str, value: Any, src: str | None = None) -> None:
        """Record the binding ``name = value``."""
        self._sink().append(LetEvent(name, value, src))

    def roll(self, label: str, description: str, value: Any, src: str | None = None) -> None:
        """Record a roll."""
        self._sink().append(RollEvent(label, description, value, src))

    # Reading ---------------------------------------------------------------
    @property
    def current(self) -> ProcedureFrame | None:
        """The innermost procedure frame still running, if any."""
        return self._stack[-1] if self._stack else None

    @property
    def root(self) -> ProcedureFrame | None:
        """The first top-level procedure frame, if any."""
        for event in self.events:
            if isinstance(event, ProcedureFrame):
                return event
        return None

    def to_json(self) -> dict:
        """JSON-safe form: ``{"events": [...]}``; events have a ``"kind"``
        (``"procedure"``, ``"let"`` or ``"roll"``)."""
        return {"events": [e.to_json() for e in self.events]}

    def render_text(self, lang: str | None = None) -> str:
        """Indented explanation for players in ``lang`` (a generated package's ``LANG``; see the module
        docstring); by default in the language the trace was recorded in."""
        lines: list[str] = []
        _ = phrases(lang or self.lang).gettext
        for event in self.events:
            _render_event(event, "", lines, _)
        return "\n".join(lines)

    def render_compact(self, lang: str | None = None, width: int = COMPACT_WIDTH) -> str:
        """The short explanation (see the module docstring): what a player or a bot reads at a
        glance; the JSON form (:meth:`to_json`) keeps everything."""
        _ = phrases(lang or self.lang).gettext
        out = _Compact(_, width)
        for event in self.events:
            out.event(event, 0)
        return "\n".join(out.lines)

    def __repr__(self) -> str:
        return f"<Trace {len(self.events)} events>"


def _short_src(src: str | None) -> str:
    """``"content/libro/03-ejemplo.rules:120"`` -> ``"03-ejemplo.rules:120"``."""
    return os.path.basename(src) if src else ""


def _suffix(ref: str | None, src: str | None) -> str:
    text = ""
    if ref:
        text += f" [{ref}]"
    if src:
        text += f" ({_short_src(src)})"
    return text


def _render_event(event: Event, indent: str, lines: list[str], _) -> None:
    if isinstance(event, LetEvent):
        lines.append(f"{indent}{event.name} = {format_value(event.value)}")
    elif isinstance(event, RollEvent):
        label = event.label or _("roll")
        lines.append(f"{indent}{label}: {event.description} → {format_value(event.value)}")
    else:
        _render_frame(event, indent, lines, _)


def _render_frame(frame: ProcedureFrame, indent: str, lines: list[str], _) -> None:
    inner = indent + _INDENT
    if frame.name or frame.title:
        heading = frame.title or frame.name
        if frame.title and frame.name:
            heading = f"{frame.title} ({frame.name})"
        lines.append(f"{indent}{heading}{_suffix(frame.ref, frame.src)}")
        if frame.args:
            args = ", ".join(f"{k} = {format_value(v)}" for k, v in frame.args.items())
            lines.append(inner + _("data: %(args)s") % {"args": args})
    for event in frame.events:
        _render_event(event, inner, lines, _)
    for step in frame.steps:
        lines.append(f"{indent}{step.number}. {step.label}{_suffix(step.ref, step.src)}")
        for event in step.events:
            _render_event(event, inner, lines, _)
    if frame.name or frame.title:
        if frame.finished:
            lines.append(indent + _("⇒ result: %(value)s") % {"value": format_value(frame.result)})
        else:
            lines.append(indent + _("⇒ (no result)"))


# ---------------------------------------------------------------------------
# The compact form
# ---------------------------------------------------------------------------

STEP_LABEL = 64
"""Characters of a step's label kept on its line when the line also shows values."""

VALUE_BUDGET = 48
"""Characters a single value takes at most in the compact form."""

EVENTS_SHOWN = 8
"""Values and rolls of one step shown before the rest are counted (a long repeat)."""

TITLE_FIELDS = ("nombre", "name", "title", "titulo", "título")
"""The fields a catalog entry is named by (the title column the rules declare first)."""

_STEP = "  "
ELLIPSIS = "…"


def cut(text: str, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters (an ellipsis marks a cut)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(1, limit - 1)].rstrip() + ELLIPSIS


def brief(value: Any, budget: int = VALUE_BUDGET) -> str:
    """A value in at most about ``budget`` characters: a record by its name and the fields that
    hold something (a catalog entry by its title), a long list by its first items and length."""
    if value is None or isinstance(value, (bool, int, str, float)) or type(value).__module__ == "fractions":
        return cut(format_value(value), budget)
    if isinstance(value, Record) or (hasattr(value, "__dataclass_fields__") and not isinstance(value, type)):
        names, values = _fields_of(value)
        name = shown_type_name(type(value))
        for field_name, v in zip(names, values):
            if field_name in TITLE_FIELDS and isinstance(v, str) and v:
                return cut(f"{name} «{v}»", budget)
        held = [(n, v) for n, v in zip(names, values) if v is not None and v != () and v != [] and v != {}]
        inner = _inner_budget(budget, name)
        return _joined(f"{name}(", [f"{n}: {brief(v, inner - len(n))}" for n, v in held[:budget // 4]], ")", budget, total=len(held))
    if isinstance(value, dict) or hasattr(value, "items"):
        pairs = list(value.items())
        inner = _inner_budget(budget, "")
        return _joined("(", [f"{format_value(k)}: {brief(v, inner)}" for k, v in pairs[:budget // 4]], ")", budget, total=len(pairs))
    if isinstance(value, (tuple, list, set, frozenset)):
        items = list(value) if isinstance(value, (tuple, list)) else sorted(value, key=format_value)
        inner = _inner_budget(budget, "")
        return _joined("[", [brief(v, inner) for v in items[:budget // 3]], "]", budget, count=len(items))
    if hasattr(value, "value") and type(value).__module__ == "enum":
        return brief(value.value, budget)
    return cut(format_value(value), budget)


def _fields_of(value: Any) -> tuple[tuple, tuple]:
    if isinstance(value, Record):
        return value._names, value._values(value)
    names = tuple(value.__dataclass_fields__)
    return names, tuple(getattr(value, n) for n in names)


def _inner_budget(budget: int, name: str) -> int:
    """What one part of a record, mapping or list may take of the whole's ``budget``."""
    return max(12, budget - len(name) - 12)


def _joined(opening: str, parts: list[str], closing: str, budget: int, count: int | None = None,
            total: int | None = None) -> str:
    """``opening`` + parts + ``closing`` within ``budget``: as many parts as fit, then ``…``
    (and the number of items of a list, ``(+3)``); ``parts`` may be the first of ``count`` or ``total``."""
    whole = count if count is not None else total if total is not None else len(parts)
    text = opening + ", ".join(parts) + closing
    if len(text) <= budget and whole == len(parts):
        return text
    shown: list[str] = []
    for part in parts:
        rest = f", {ELLIPSIS}" + (f" (+{whole - len(shown) - 1})" if count is not None else "")
        if len(opening) + len(", ".join(shown + [part])) + len(rest) + len(closing) > budget:
            break
        shown.append(part)
    rest = ELLIPSIS + (f" (+{whole - len(shown)})" if count is not None else "")
    return opening + ", ".join(shown + [rest]) + closing


def _has_rolls(frame: ProcedureFrame) -> bool:
    events = list(frame.events) + [e for step in frame.steps for e in step.events]
    return any(isinstance(e, RollEvent) or (isinstance(e, ProcedureFrame) and _has_rolls(e)) for e in events)


class _Compact:
    """Lines of the compact form, written frame by frame."""

    def __init__(self, gettext, width: int) -> None:
        self._ = gettext
        self.width = max(40, width)
        self.lines: list[str] = []

    def line(self, indent: int, text: str) -> None:
        self.lines.append(" " * indent + (cut(text, self.width - indent) if len(text) + indent > self.width else text))

    def heading(self, frame: ProcedureFrame) -> str:
        title = frame.title or frame.name
        return title + (f" [{frame.ref}]" if frame.ref else "")

    def args(self, frame: ProcedureFrame, budget: int) -> str:
        return ", ".join(f"{k} = {brief(v, budget)}" for k, v in frame.args.items())

    def result(self, frame: ProcedureFrame) -> str:
        if frame.finished:
            return self._("⇒ result: %(value)s") % {"value": brief(frame.result, self.width // 2)}
        return self._("⇒ (no result)")

    def event(self, event: Event, indent: int) -> None:
        if isinstance(event, ProcedureFrame):
            self.frame(event, indent)
        else:
            self.line(indent, self.item(event))

    def item(self, event: Event) -> str:
        if isinstance(event, RollEvent):
            return f"{event.description or event.label or self._('roll')} → {brief(event.value)}"
        return f"{event.name} = {brief(event.value)}"

    def frame(self, frame: ProcedureFrame, indent: int, bound: str | None = None) -> None:
        """A procedure: its heading with its data, its steps indented, its result; one line
        (``name = Heading: data ⇒ result``) when it rolls no dice."""
        if not (frame.name or frame.title):  # steps recorded outside any procedure
            for step in frame.steps:
                self.step(step, indent)
            return
        head = self.heading(frame)
        args = self.args(frame, VALUE_BUDGET // 2)
        if indent and frame.finished and not _has_rolls(frame):
            called = (f"{bound} = " if bound else "") + head + (f" ({args})" if args else "")
            result = f" ⇒ {brief(frame.result, max(VALUE_BUDGET, (self.width - indent) // 2))}"
            room = self.width - indent - len(result)
            self.line(indent, cut(called, room) + result)
            return
        self.line(indent, (f"{bound} = " if bound else "") + head + (f": {args}" if args else ""))
        self.events(frame.events, indent + len(_STEP))
        for step in frame.steps:
            self.step(step, indent + len(_STEP))
        self.line(indent, self.result(frame))

    def step(self, step: Step, indent: int) -> None:
        """``n. label: value; roll → n`` and, below it, what does not fit on that line and the
        procedures the step calls."""
        head = f"{step.number}. "
        items, rest = self._leading_items(step.events)
        if not items:
            self.line(indent, head + cut(step.label, self.width - indent - len(head)))
        else:
            room = self.width - indent - len(head) - 2 - len("; ".join(items))
            line = head + cut(step.label, max(STEP_LABEL, room)) + ": " + items[0]
            shown = 1
            while shown < len(items) and indent + len(line) + 2 + len(items[shown]) <= self.width:
                line += "; " + items[shown]
                shown += 1
            self.line(indent, line)
            self._flush(items[shown:], indent + len(head))
        self.events(rest, indent + len(head))

    def _leading_items(self, events: list[Event]) -> tuple[list[str], list[Event]]:
        """The values and rolls before a step's first procedure call (shown on its line, at most
        :data:`EVENTS_SHOWN`, the rest counted), and the events from that call on."""
        n = 0
        while n < len(events) and not isinstance(events[n], ProcedureFrame):
            n += 1
        items = [self.item(e) for e in events[:n]]
        if len(items) > EVENTS_SHOWN:
            items = items[: EVENTS_SHOWN - 1] + [f"{ELLIPSIS} (+{len(items) - EVENTS_SHOWN + 1})"]
        return items, list(events[n:])

    def events(self, events: list[Event], indent: int) -> None:
        """Events below a step: a procedure call followed by the value it is bound to reads
        ``name = call ⇒ result``; values and rolls in between share lines."""
        i = 0
        pending: list[str] = []
        while i < len(events):
            e = events[i]
            if isinstance(e, ProcedureFrame):
                self._flush(pending, indent)
                nxt = events[i + 1] if i + 1 < len(events) else None
                if isinstance(nxt, LetEvent) and e.finished and _same(nxt.value, e.result):
                    self.frame(e, indent, bound=nxt.name)
                    i += 2
                    continue
                self.frame(e, indent)
            else:
                pending.append(self.item(e))
            i += 1
        self._flush(pending, indent)

    def _flush(self, items: list[str], indent: int) -> None:
        if len(items) > EVENTS_SHOWN:
            items[:] = items[: EVENTS_SHOWN - 1] + [f"{ELLIPSIS} (+{len(items) - EVENTS_SHOWN + 1})"]
        line = ""
        for item in items:
            if line and indent + len(line) + 2 + len(item) > self.width:
                self.line(indent, line)
                line = ""
            line = f"{line}; {item}" if line else item
        if line:
            self.line(indent, line)
        items.clear()


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:
        return False
