"""What the editor shows when the pointer rests on a name.

Entry point: :func:`describe(target, declarations, occurrence) -> str | None`.

Reads the checked declarations of a rulebook (with their titles,
manual references, documentation, types and data) and one
:class:`~rulebook.compiler.lsp.index.Target`; produces Markdown: for a declaration its
kind, display title, manual reference, documentation and shape (a procedure's
signature, a record's fields, an enum's values, an army's sides, sizes and
units…), for a catalog entry its main values, for a field, parameter or local
value its type, for an army's side, size or option what it is, for an
annotation, a kind of warning or a clause word its documentation
(:mod:`rulebook.compiler.lsp.docs`). Every text taken from
the rules is escaped, so a title cannot inject Markdown or HTML.
"""

from __future__ import annotations

from fractions import Fraction

from rulebook.compiler import ir
from rulebook.compiler.ir.builtins import BUILTINS
from rulebook.compiler.ir.types import T
from rulebook.compiler.lsp.docs import ANNOTATION_DOCS, CLAUSE_DOCS, WARNING_KINDS
from rulebook.compiler.lsp.index import Occurrence, Target

MAX_ROWS = 16  # fields of an entry shown in a hover
_MARKDOWN_SPECIAL = set("\\`*_{}[]()#+-.!|<>~&")


def describe(target: Target, decls: dict[str, ir.Declaration], occurrence: Occurrence | None = None) -> str | None:
    """Markdown for ``target`` (None when there is nothing to say)."""
    if target.kind == "builtin":
        b = BUILTINS.get(target.name)
        return _code(b.signature) + "\n\n" + esc(b.doc) if b else None
    if target.kind == "decl":
        d = decls.get(target.name)
        return _declaration(d) if d is not None else None
    if target.kind == "annotation":
        doc = ANNOTATION_DOCS.get(target.name)
        return f"**@{esc(target.name)}** · annotation\n\n{doc}" if doc else None
    if target.kind == "warning":
        doc = WARNING_KINDS.get(target.name)
        return f"**{esc(target.name)}** · kind of warning\n\n{doc}" if doc else None
    if target.kind == "clause":
        doc = CLAUSE_DOCS.get((target.owner, target.name))
        return f"**{esc(target.name)}** · {target.owner} clause\n\n{doc}" if doc else None
    if target.kind == "choice":
        return _choice(decls.get(target.owner), target.name)
    owner = decls.get(target.owner)
    typ = occurrence.type if occurrence is not None else None
    if target.kind == "member":
        return _member(owner, target.name)
    if target.kind == "field":
        return _field(owner, target.name, typ)
    if target.kind == "entry":
        return _entry(owner, target.name)
    if target.kind == "param":
        param = next((p for p in getattr(owner, "params", ()) if p.name == target.name), None)
        shown = param.type if param is not None else typ
        default = f" = {param.default_text}" if param is not None and param.default_text else ""
        what = f"parameter of {owner.kind} {_code_inline(target.owner)}" if owner is not None else "parameter"
        if param is not None and param.title:
            what = f"**{esc(param.title)}** · {what}"
        return _code(f"{target.name}: {shown or '?'}{default}") + f"\n\n{what}"
    what = "the result of" if target.name == "result" and target.where is None else "a value in"
    return _code(f"{target.name}: {typ or '?'}") + f"\n\n{what} {_code_inline(target.owner)}"


def esc(text: str) -> str:
    """Rules text as literal Markdown (every special character escaped)."""
    return "".join("\\" + c if c in _MARKDOWN_SPECIAL else c for c in text.replace("\n", " "))


def _code_inline(text: str) -> str:
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}" if fence == "`" else f"{fence} {text} {fence}"


def _code(text: str) -> str:
    """A fenced code block that no backtick run in ``text`` can close."""
    longest = 0
    run = 0
    for c in text:
        run = run + 1 if c == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}rules\n{text}\n{fence}"


def value_text(v) -> str:
    """A data value as it is written in the rules."""
    if v is None:
        return "—"
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, Fraction):
        return str(float(v)) if v.denominator in (2, 4, 5, 8, 10, 20, 25, 50, 100) else str(v)
    if isinstance(v, ir.RuleApp):
        return v.rule + (f"({', '.join(f'{k}={value_text(x)}' for k, x in v.args)})" if v.args else "")
    if isinstance(v, dict) and set(v) == {"rule", "args"}:
        args = v["args"]
        return v["rule"] + (f"({', '.join(f'{k}={value_text(x)}' for k, x in args.items())})" if args else "")
    if isinstance(v, dict):
        return "(" + ", ".join(value_text(x) for x in v.values()) + ")"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value_text(x) for x in v) + "]"
    if isinstance(v, ir.Range):
        lo = "" if v.lo is None else (">" if not v.lo_inclusive else "") + value_text(v.lo)
        hi = "" if v.hi is None else ("<" if not v.hi_inclusive else "") + value_text(v.hi)
        return f"{lo}..{hi}"
    return str(v)


def _header(d: ir.Decl) -> str:
    """**Title** · kind · manual reference · status, then the documentation."""
    parts = [f"**{esc(d.title)}**" if d.has_title else f"**{esc(d.name)}**", f"{d.kind} {_code_inline(d.name)}"]
    if d.ref:
        parts.append(f"manual {esc(d.ref)}")
    if d.status != "active":
        parts.append(f"*{esc(d.status)}*")
    out = " · ".join(parts)
    return out + (f"\n\n{esc(d.doc)}" if d.doc else "")


def _params(params) -> str:
    return ", ".join(f"{p.name}: {p.type}" + (f' "{p.title}"' if p.title else "") + (f" = {p.default_text}" if p.default_text else "") for p in params)


def _declaration(d) -> str:
    """The hover of a declaration: its header and shape."""
    head = _header(d)
    if isinstance(d, ir.Procedure):
        steps = "".join(f"\n\n{s.number}. {esc(s.label)}" for s in d.steps)
        return _code(f"procedure {d.name}({_params(d.params)}) -> {d.result}") + "\n\n" + head + steps
    if isinstance(d, ir.Rule):
        sig = f"rule {d.name}" + (f"({_params(d.params)})" if d.params else "")
        texts = "".join(f"\n\n{esc(t)}" for t in d.texts)
        levels = "".join(f"\n- level {lvl}: {esc(t)}" for lvl, t in d.levels)
        return _code(sig) + "\n\n" + head + texts + ("\n" + levels if levels else "")
    if isinstance(d, ir.Enum):
        members = "\n".join(f"- {_code_inline(m.name)} {esc(m.title)}" for m in d.members)
        return _code(f"enum {d.name}" + (" ordered" if d.ordered else "")) + "\n\n" + head + "\n\n" + members
    if isinstance(d, ir.Record):
        fields = "\n".join(f"  {f.name}: {f.type}" for f in d.fields)
        return _code(f"record {d.name} {{\n{fields}\n}}") + "\n\n" + head
    if isinstance(d, ir.Catalog):
        return _code(f"catalog {d.name} of {d.record}") + "\n\n" + head + f"\n\n{len(d.entries)} entries"
    if isinstance(d, ir.Table):
        keys = ", ".join(f"{k.name}: {k.type}" + (" range" if k.ranged else "") for k in d.keys)
        across = f" across {d.across.name}: {d.across.type}" if d.across else ""
        cols = ", ".join(f"{c.name}: {c.type}" for c in d.columns)
        return _code(f"table {d.name} by {keys}{across} -> {cols}") + "\n\n" + head + f"\n\n{len(d.rows)} rows"
    if isinstance(d, ir.Die):
        return _code(f"die {d.name}" + (f" of {d.face_enum}" if d.face_enum else "") + f" = {value_text(list(d.faces))}") + "\n\n" + head
    if isinstance(d, ir.Bag):
        return _code(f"bag {d.name} {{ " + ", ".join(f"{k}: {c}" for k, c in d.tokens) + " }") + "\n\n" + head
    if isinstance(d, ir.Const):
        return _code(f"const {d.name}: {d.type} = {value_text(d.value)}") + "\n\n" + head
    if isinstance(d, ir.Term):
        return head + "\n\n" + esc(d.definition)
    if isinstance(d, ir.Odds):
        return _code(f"odds {d.name}: procedure {d.procedure}") + "\n\n" + head
    if isinstance(d, ir.Army):
        return _army(d, head)
    return head


def _army(d: ir.Army, head: str) -> str:
    """An army: its sides, roles, sizes, quality, units and options in numbers."""
    lines = []
    for what, choices in (("sides", d.sides), ("roles", d.roles), ("categories", d.categories)):
        if choices:
            lines.append(f"- {what}: " + ", ".join(esc(c.title) for c in choices))
    if d.sizes:
        lines.append("- sizes: " + ", ".join(f"{esc(s.title)} ({esc(value_text(s.points))})" for s in d.sizes))
    if d.agreed:
        lines.append(f"- agreed points (at least {d.agreed_min})")
    if d.quality:
        lines.append(f"- {esc(d.quality_title or 'quality')}: " + ", ".join(f"{esc(q.title)} {q.percent:+d} %" for q in d.quality))
    catalogs = sorted({e.catalog for e in d.entries})
    lines.append(f"- {len(d.entries)} units from {len(catalogs)} catalogs, {len(d.options)} options, {len(d.limits)} limits")
    return _code(f"army {d.name}") + "\n\n" + head + "\n\n" + "\n".join(lines)


def _choice(army, ident: str) -> str | None:
    """A side, game size or option defined in place in an army."""
    if not isinstance(army, ir.Army):
        return None
    side = next((c for c in army.sides if c.id == ident), None)
    if side is not None:
        return f"**{esc(side.title)}** · side `{esc(ident)}` of army {_code_inline(army.name)}"
    size = next((s for s in army.sizes if s.id == ident), None)
    if size is not None:
        return f"**{esc(size.title)}** · game size `{esc(ident)}` of army {_code_inline(army.name)}: {esc(value_text(size.points))} points"
    option = army.options.get(ident)
    if option is not None:
        changes = "".join(f"\n- {what}: {esc(', '.join(ids))}" for what, ids in (("removes", option.remove), ("adds", option.add)) if ids)
        offered = sum(1 for e in army.entries if option.key in e.options)
        return (f"**{esc(option.title)}** · option `{esc(ident)}` of army {_code_inline(army.name)}\n\n"
                f"- cost {option.cost}, at most {option.max} per unit, offered to {offered} unit{'' if offered == 1 else 's'}{changes}")
    return None


def _member(owner, name: str) -> str | None:
    if isinstance(owner, ir.Enum):
        m = next((m for m in owner.members if m.name == name), None)
        if m is None:
            return None
        position = f" (value {owner.values.index(name) + 1} of {len(owner.members)})" if owner.ordered else ""
        return _code(f"{owner.name}.{name}") + f"\n\n**{esc(m.title)}** · value of enum {_code_inline(owner.name)}{position}"
    if isinstance(owner, ir.Bag):
        count = dict(owner.tokens).get(name)
        return _code(f"{owner.name}.{name}: {count}") + f"\n\ntokens of bag {_code_inline(owner.name)}"
    return None


def _field(owner, name: str, typ: T | None) -> str | None:
    if isinstance(owner, ir.Record):
        f = owner.field(name)
        if f is None:
            return None
        title = f"**{esc(f.title)}** · " if f.title else ""
        return _code(f"{name}: {f.type}") + f"\n\n{title}field of record {_code_inline(owner.name)}"
    if isinstance(owner, ir.Table):
        specs = [*owner.keys, *owner.columns, *((owner.across,) if owner.across else ())]
        spec = next((s for s in specs if s.name == name), None)
        if spec is None:
            return None
        role = "key" if spec in owner.keys or spec is owner.across else "column"
        title = f"**{esc(spec.title)}** · " if spec.title else ""
        return _code(f"{name}: {spec.type}") + f"\n\n{title}{role} of table {_code_inline(owner.name)}"
    return _code(f"{name}: {typ}") if typ is not None else None


def _entry(owner, ident: str) -> str | None:
    """A catalog entry with its main values, or a row of an id-keyed table."""
    if isinstance(owner, ir.Catalog):
        values = owner.entries.get(ident)
        if values is None:
            return f"{_code_inline(ident)} names no entry of catalog {_code_inline(owner.name)} (kept as the manual prints it if the declaration says `@as_printed`)"
        title = next((v for v in values.values() if isinstance(v, str)), ident)
        rows = list(values.items())
        table = "\n".join(f"| {esc(k)} | {esc(value_text(v))} |" for k, v in rows[:MAX_ROWS])
        more = f"\n\n… and {len(rows) - MAX_ROWS} more fields" if len(rows) > MAX_ROWS else ""
        head = f"**{esc(title)}** · entry {_code_inline(ident)} of catalog {_code_inline(owner.name)} ({esc(owner.record)})"
        return head + "\n\n| field | value |\n|---|---|\n" + table + more
    if isinstance(owner, ir.Table):
        row = next((r for r in owner.rows if r.keys and r.keys[0] == ident), None)
        if row is None:
            return None
        head = f"**{esc(row.title or ident)}** · row {_code_inline(ident)} of table {_code_inline(owner.name)}"
        cells = "\n".join(f"| {esc(k)} | {esc(value_text(v))} |" for k, v in row.values.items())
        return head + ("\n\n| column | value |\n|---|---|\n" + cells if cells else "")
    return None
