"""Signature help: the parameters of the call being typed, and the clauses of a dice roll.

Reads the document's text as typed (it may not parse) up to the cursor and the declarations
of the last check (``analysis.known``: procedures, special rules, records) and the built-in
functions (:data:`~rulebook.compiler.ir.builtins.BUILTINS`). Produces an LSP
``SignatureHelp``:

* inside ``name(…`` (a procedure call, ``stack name(…``, a built-in, a special rule applied
  in data, a record written as ``Record(…)``): the declaration's parameters (or fields) with
  their types and defaults, the one being written active — by position, or by its name when
  the argument is written ``name: value``;
* after ``roll``: the clauses of a roll in the order the language reads them (``NdS``,
  ``times``, ``reroll``, ``explode … chain``, ``keep``, ``count``), the last one written
  active.
"""

from __future__ import annotations

import re

from lsprotocol import types

from rulebook.compiler import ir
from rulebook.compiler.ir.builtins import BUILTINS
from rulebook.compiler.lsp.workspace import Analysis

TRIGGERS = ["(", ",", " "]
RETRIGGERS = [")"]
_CALL_HEAD = re.compile(r"([^\W\d]\w*)\s*$")
_NAMED_ARG = re.compile(r"^\s*([^\W\d]\w*)\s*:(?!:)")
_ROLL = re.compile(r"\broll\s+(.*)$")
ROLL_CLAUSES = (
    ("NdS", "the dice: 2d6, d10, or a die declared with `die` (d6 alone is one six-sided die)"),
    ("times n", "roll the dice n times and add them up"),
    ("reroll test", "roll again each die whose face passes the test (>= 5, or a face: 1), once"),
    ("explode test [chain n]", "each die whose face passes the test adds another die (chain: up to n times)"),
    ("keep highest|lowest n", "keep only the n highest (or lowest) dice"),
    ("count test", "the number of dice whose face passes the test (>= 4), instead of their sum"),
)
_ROLL_WORDS = {"times": 1, "reroll": 2, "explode": 3, "chain": 3, "keep": 4, "count": 5}
MAX_LOOKBACK_LINES = 30


def signature_help(analysis: Analysis, text: str, line: int, col: int) -> types.SignatureHelp | None:
    """The signature of what is being typed at ``line:col`` (1-based) of ``text``."""
    lines = text.split("\n")
    if not 0 < line <= len(lines):
        return None
    before = "\n".join(lines[max(0, line - MAX_LOOKBACK_LINES) : line - 1] + [lines[line - 1][: col - 1]])
    call = _open_call(before)
    if call is not None:
        found = _call_signature(analysis, *call)
        if found is not None:
            return found
    return _roll_signature(lines[line - 1][: col - 1])


def _open_call(before: str) -> tuple[str, int, str] | None:
    """The innermost ``name(`` still open before the cursor: its name, the index of the argument
    being written, and that argument's text so far."""
    depth = 0
    in_string = False
    commas = 0
    arg_start = len(before)
    for i in range(len(before) - 1, -1, -1):
        ch = before[i]
        if ch == '"':
            in_string = not in_string
        if in_string:
            continue
        if ch in ")]}":
            depth += 1
        elif ch in "[{":
            if depth == 0:
                return None  # inside a list or a block, not a call's arguments
            depth -= 1
        elif ch == "(":
            if depth == 0:
                m = _CALL_HEAD.search(before[:i])
                if m is None:
                    return None
                current = before[arg_start:] if commas else before[i + 1 :]
                return m.group(1), commas, current
            depth -= 1
        elif ch == "," and depth == 0:
            if not commas:
                arg_start = i + 1
            commas += 1
    return None


def _call_signature(analysis: Analysis, name: str, index: int, current: str) -> types.SignatureHelp | None:
    d = analysis.known.get(name)
    if isinstance(d, (ir.Procedure, ir.Rule)):
        params = [(p.name, f"{p.name}: {p.type}" + (f" = {p.default_text}" if p.default_text else "")) for p in d.params]
        result = f" -> {d.result}" if isinstance(d, ir.Procedure) else ""
        doc = d.title if d.has_title else None
    elif isinstance(d, ir.Record):
        params = [(f.name, f"{f.name}: {f.type}") for f in d.fields]
        result, doc = "", d.title if d.has_title else None
    elif name in BUILTINS:
        b = BUILTINS[name]
        first = b.signature.split(" · ")[0]
        inner = first[first.find("(") + 1 : first.rfind(")")]
        params = [(p.strip(), p.strip()) for p in inner.split(",") if p.strip()]
        label = b.signature
        return _help(label, [p for _, p in params], _active(params, index, current, variadic=params[-1][0] == "…" if params else False), b.doc)
    else:
        return None
    label = f"{name}(" + ", ".join(p for _, p in params) + f"){result}"
    return _help(label, [p for _, p in params], _active(params, index, current), doc)


def _active(params: list[tuple[str, str]], index: int, current: str, variadic: bool = False) -> int:
    """The parameter being written: the one named ``name:`` at the start of the argument, else by position."""
    m = _NAMED_ARG.match(current)
    if m is not None:
        names = [n for n, _ in params]
        if m.group(1) in names:
            return names.index(m.group(1))
    if variadic and index >= len(params) - 1:
        return max(len(params) - 2, 0)
    return min(index, max(len(params) - 1, 0))


def _help(label: str, parameters: list[str], active: int, doc: str | None) -> types.SignatureHelp:
    """A signature whose parameters are given as offsets into its label (each found in order)."""
    infos = []
    at = label.find("(") + 1
    for p in parameters:
        start = label.find(p, at)
        if start < 0:
            infos.append(types.ParameterInformation(label=p))
            continue
        infos.append(types.ParameterInformation(label=(start, start + len(p))))
        at = start + len(p)
    documentation = types.MarkupContent(kind=types.MarkupKind.Markdown, value=doc) if doc else None
    return types.SignatureHelp(signatures=[types.SignatureInformation(label=label, parameters=infos, documentation=documentation, active_parameter=active)], active_signature=0, active_parameter=active)


def _roll_signature(before: str) -> types.SignatureHelp | None:
    """The clauses of the roll being written on the line."""
    m = _ROLL.search(before)
    if m is None or ")" in m.group(1) and m.group(1).count(")") > m.group(1).count("("):
        return None
    words = re.findall(r"[^\W\d]\w*", m.group(1))
    active = 0
    for word in words:
        active = max(active, _ROLL_WORDS.get(word, active))
    label = "roll " + " ".join(f"[{c}]" if i else c for i, (c, _) in enumerate(ROLL_CLAUSES))
    help_ = _help(label, [c for c, _ in ROLL_CLAUSES], active, "A dice roll; its clauses, in this order:\n\n" + "\n".join(f"* `{c}`: {doc}" for c, doc in ROLL_CLAUSES))
    return help_
