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
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Union

from .messages import DEFAULT_LANGUAGE, phrases

from .records import shown
from .values import format_value, to_jsonable

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
