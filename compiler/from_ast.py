"""Name resolution and type checking: parsed modules → :class:`ir.Program`.

Entry point: :func:`translate(modules, sources, reporter) -> Program`.

It checks, across all files of a rulebook: duplicate and unknown names (with
did-you-mean), field and parameter types, catalog rows against their record,
table keys (gaps and overlaps of ranges, missing enum keys), special-rule
applications against the rule's parameters, procedure bodies (types, scopes,
every path returns), examples against their procedure, prose ``[[links]]``,
and unused declarations. Every problem is reported, none stops the pass.
"""

from __future__ import annotations

import re
from collections import defaultdict
from fractions import Fraction
from typing import Any

from rules_dsl import nodes as n
from rules_dsl.diagnostics import Reporter, Span, did_you_mean
from rules_dsl.parser import KEYWORDS

from .ir import Program, Section, TableInfo
from .types import ANY, BOOL, DEC, ID, INT, NONE, PRIMITIVES, RULE, TEXT, T, assignable, is_numeric, opt, unify

TYPE_DECLS = (n.EnumDecl, n.RecordDecl, n.DieDecl, n.BagDecl)
BUILTINS = {
    "any", "all", "min", "max", "clamp", "abs", "floor", "ceil", "round", "trunc", "capped_sum", "len", "sum", "ord",
    "shift", "probability", "has_rule", "rule_param",
}
STATUSES = ("active", "deferred", "not_playable")
MAX_NESTING = 100  # nested sub-expressions (chains like a + b + c are flat and do not count)
# layout hints for the site, all on catalogs: @datasheet "Page title" renders one card
# per entry; @cost_field "field" + @cost_modifier "table" show that int field at each
# value of the enum keying a percentage table.
SITE_ANNOTATIONS = ("datasheet", "cost_field", "cost_modifier")
_SLUG = re.compile(r"[^a-z0-9]+")


def slugify(text: str) -> str:
    import unicodedata

    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return _SLUG.sub("-", plain).strip("-") or "x"


class _Scope:
    def __init__(self, parent: "_Scope | None" = None, narrowed: set[str] | None = None):
        self.vars: dict[str, tuple[T, Span]] = {}
        self.parent = parent
        self.narrowed: set[str] = set(narrowed or ())  # optional names known not to be none here

    def get(self, name: str):
        s = self
        known = False
        while s is not None:
            known |= name in s.narrowed
            if name in s.vars:
                t, span = s.vars[name]
                return (t.inner if known and t.kind == "opt" else t, span)
            s = s.parent
        return None

    def is_narrowed(self, path: str) -> bool:
        s = self
        while s is not None:
            if path in s.narrowed:
                return True
            s = s.parent
        return False

    def names(self) -> set[str]:
        out = set()
        s = self
        while s is not None:
            out |= set(s.vars)
            s = s.parent
        return out


class Translator:
    """One checking pass over a whole rulebook."""

    def __init__(self, modules: list[n.Module], sources: dict[str, str], rep: Reporter):
        self.modules = modules
        self.sources = sources
        self.rep = rep
        self.decls: dict[str, Any] = {}
        self.decl_file: dict[str, str] = {}
        self.refs: dict[str, str] = {}
        self.uses: dict[str, set[str]] = defaultdict(set)
        self.expr_types: dict[int, T] = {}
        self.expr_info: dict[int, Any] = {}
        self.record_fields: dict[str, list[tuple[str, T, str | None]]] = {}
        self.enum_members: dict[str, list[tuple[str, str]]] = {}
        self.catalogs: dict[str, dict[str, dict[str, Any]]] = {}
        self.catalog_row_spans: dict[tuple[str, str], Span] = {}
        self.tables: dict[str, TableInfo] = {}
        self.rule_params: dict[str, list[tuple[str, T]]] = {}
        self.param_types: dict[str, list[tuple[str, T]]] = {}
        self.result_types: dict[str, T] = {}
        self.pending_refs: list[tuple[str, str, Span, str]] = []  # catalog, id, span, context
        self.status: dict[str, str] = {}
        self.rulebook: n.RulebookDecl | None = None
        self.sections: list[Section] = []
        self.front: list = []
        self.current_decl: str | None = None
        self.local_uses: set[tuple[int, str]] = set()
        self.broken: set[str] = set()  # names of declarations with syntax errors
        self.depth = 0  # expression nesting, bounded so generated Python stays compilable
        self.too_deep = False
        self.chain_left = False  # the next expr() is the left operand of a chain: same depth

    # ------------------------------------------------------------------ helpers
    def err(self, msg: str, span: Span, hint: str | None = None, code: str = "type") -> None:
        self.rep.error(msg, span, hint, code)

    def warn(self, msg: str, span: Span, hint: str | None = None, code: str = "warning") -> None:
        self.rep.warning(msg, span, hint, code)

    def use(self, name: str) -> None:
        if self.current_decl and name != self.current_decl:
            self.uses[name].add(self.current_decl)

    def unknown(self, what: str, name: str, span: Span, candidates, kinds: str = "") -> None:
        if name in self.broken:
            return  # already reported as a syntax error where it is declared
        guess = did_you_mean(name, candidates)
        hint = None
        if guess:
            where = self.decls.get(guess)
            hint = f"did you mean '{guess}'?" + (f" (defined at {where.span})" if where is not None and hasattr(where, "span") else "")
        self.err(f"unknown {what} '{name}'", span, hint, "unknown-name")

    def is_ordered(self, enum: str) -> bool:
        d = self.decls.get(enum)
        return isinstance(d, n.EnumDecl) and d.ordered

    def names_of(self, *classes) -> list[str]:
        return [k for k, d in self.decls.items() if isinstance(d, classes)]

    # ------------------------------------------------------------------ pass 1: declarations
    def collect(self) -> None:
        for mod in self.modules:
            section: Section | None = None
            heading_num: str | None = None
            for item in mod.items:
                if isinstance(item, n.SectionDecl):
                    section = Section(item.name, item.title, mod.filename, slug=f"{_section_index(self.sections)}-{slugify(item.title)}")
                    self.sections.append(section)
                    heading_num = None
                    continue
                target = section.items if section is not None else self.front
                if isinstance(item, n.Heading):
                    if item.number:
                        heading_num = item.number
                    elif item.level <= 3:
                        heading_num = None
                    target.append(item)
                    continue
                target.append(item)
                if isinstance(item, (n.RulebookDecl, n.ExampleDecl, n.ShowDecl)):
                    self.annotations(item)
                if isinstance(item, n.RulebookDecl):
                    if self.rulebook is not None:
                        self.err("a rulebook is declared twice", item.span, f"first declared at {self.rulebook.span}", "duplicate")
                    self.rulebook = item
                    continue
                name = getattr(item, "name", None)
                if name is None or isinstance(item, (n.ShowDecl, n.ExampleDecl)) or not hasattr(item, "span"):
                    continue
                if name in self.decls:
                    first = self.decls[name]
                    self.err(f"'{name}' is declared twice", item.span, f"first declared at {first.span}", "duplicate")
                    continue
                if name in PRIMITIVES or name in BUILTINS or name in ("id", "rule", "result"):
                    self.err(f"'{name}' is a built-in name and cannot be declared", item.span, None, "reserved")
                    continue
                if isinstance(item, n.BrokenDecl):
                    self.broken.add(name)
                    continue
                if name in KEYWORDS:
                    self.err(f"'{name}' is a reserved word and cannot name a declaration", item.span, "choose another name", "reserved")
                    continue
                self.decls[name] = item
                self.decl_file[name] = mod.filename
                ref, status = self.annotations(item)
                if ref is None:
                    if section is not None:
                        ref = section.name + (f".{heading_num}" if heading_num else "")
                    else:
                        ref = ""
                self.refs[name] = ref
                self.status[name] = status
        if self.rulebook is None and not any(isinstance(i, n.BrokenDecl) and i.keyword == "rulebook" for m in self.modules for i in m.items):
            first = self.modules[0].filename if self.modules else "<rulebook>"
            self.err("no rulebook declaration found", Span(first, 1, 1, 1, 1), 'add a fence with: rulebook <id> "Título" version "1.0" lang "es"', "rulebook")

    def annotations(self, item) -> tuple[str | None, str]:
        """Check an item's annotations; returns its @source and @status."""
        ref = None
        status = "active"
        known = ["source", "doc"] if isinstance(item, (n.RulebookDecl, n.ExampleDecl, n.ShowDecl, n.SectionDecl)) else ["source", "status", "doc", *SITE_ANNOTATIONS]
        for ann in getattr(item, "annotations", ()):
            if ann.name not in known:
                where = f" on {type(item).__name__.removesuffix('Decl').lower()}" if ann.name in ("status", *SITE_ANNOTATIONS) else ""
                self.err(f"unknown annotation '@{ann.name}'{where}", ann.span, _hint(ann.name, known) or "known annotations here: " + ", ".join("@" + k for k in known), "annotation")
            elif ann.name == "source":
                if isinstance(ann.value, n.VStr):
                    ref = ann.value.value
                else:
                    self.err('@source expects a string such as "VI.13"', ann.span, None, "annotation")
            elif ann.name == "status":
                v = ann.value.name if isinstance(ann.value, n.VName) else ann.value.value if isinstance(ann.value, n.VStr) else None
                if v not in STATUSES:
                    shown = f"unknown status '{v}'" if v is not None else "@status needs a value"
                    self.err(shown, ann.span, (_hint(v, STATUSES) if v else None) or "expected one of: " + ", ".join(STATUSES), "annotation")
                else:
                    status = v
            elif ann.name == "doc":
                if not isinstance(ann.value, n.VStr):
                    self.err("@doc expects a string", ann.span, None, "annotation")
            elif ann.name in SITE_ANNOTATIONS:
                if not isinstance(item, n.CatalogDecl):
                    self.err(f"@{ann.name} applies to catalogs only", ann.span, None, "annotation")
                elif not isinstance(ann.value, n.VStr) or not ann.value.value.strip():
                    self.err(f'@{ann.name} expects a string, e.g. @{ann.name} "…"', ann.span, None, "annotation")
        return ref, status

    # ------------------------------------------------------------------ types
    def resolve_type(self, tr: n.TypeRef) -> T:
        t = self._resolve_base(tr)
        return opt(t) if tr.optional else t

    def _resolve_base(self, tr: n.TypeRef) -> T:
        if tr.kind == "named":
            if tr.name in PRIMITIVES:
                return PRIMITIVES[tr.name]
            d = self.decls.get(tr.name)
            if isinstance(d, n.EnumDecl):
                self.use(tr.name)
                return T("enum", tr.name)
            if isinstance(d, n.RecordDecl):
                self.use(tr.name)
                return T("record", tr.name)
            self.unknown("type", tr.name, tr.span, [*PRIMITIVES, *self.names_of(n.EnumDecl, n.RecordDecl)])
            return ANY
        if tr.kind == "list":
            return T("list", None, (self.resolve_type(tr.args[0]),))
        if tr.kind == "map":
            d = self.decls.get(tr.name)
            if not isinstance(d, n.EnumDecl):
                self.unknown("enum", tr.name, tr.span, self.names_of(n.EnumDecl))
                return ANY
            self.use(tr.name)
            return T("map", tr.name, (self.resolve_type(tr.args[0]),))
        if tr.kind == "ref":
            names = tr.name.split("|")
            for name in names:
                if not _referenceable(self.decls.get(name)):
                    self.unknown("catalog (or table keyed by id)", name, tr.span, [*self.names_of(n.CatalogDecl), *(k for k, d in self.decls.items() if _referenceable(d))])
                    return ANY
                self.use(name)
            return T("ref", tr.name) if len(names) == 1 else T("refs", tr.name)
        if tr.kind == "rule":
            return RULE
        return ID

    def check_types(self) -> None:
        for name, d in self.decls.items():
            self.current_decl = name
            if isinstance(d, n.EnumDecl):
                seen: dict[str, Span] = {}
                for m in d.members:
                    if m.name in seen:
                        self.err(f"value '{m.name}' appears twice in enum {name}", m.span, f"first at {seen[m.name]}", "duplicate")
                    seen[m.name] = m.span
                self.enum_members[name] = [(m.name, m.title or m.name) for m in d.members if seen.get(m.name) is m.span]
                if not d.members:
                    self.err(f"enum {name} has no values", d.span, None, "empty")
        for name, d in self.decls.items():
            self.current_decl = name
            if isinstance(d, n.RecordDecl):
                fields = []
                seen = {}
                for f in d.fields:
                    if f.name in seen:
                        self.err(f"field '{f.name}' appears twice in record {name}", f.span, f"first at {seen[f.name]}", "duplicate")
                        continue
                    seen[f.name] = f.span
                    fields.append((f.name, self.resolve_type(f.type), f.title))
                self.record_fields[name] = fields
            elif isinstance(d, n.RuleDecl):
                self.rule_params[name] = [(p.name, self.resolve_type(p.type)) for p in d.params]
            elif isinstance(d, n.ProcedureDecl):
                self.param_types[name] = [(p.name, self.resolve_type(p.type)) for p in d.params]
                self.result_types[name] = self.resolve_type(d.result)
        self.current_decl = None

    # ------------------------------------------------------------------ data values
    def value(self, v: n.Value, t: T, ctx: str) -> Any:
        """Check a data value against ``t`` and convert it to plain data."""
        if t.kind == "any":
            return None
        if isinstance(v, n.VNone):
            if t.kind == "opt":
                return None
            self.err(f"{ctx}: a value of type {t} is required here, not '-'", v.span, "only optional fields (T?) may be empty", "type")
            return None
        if t.kind == "opt":
            return self.value(v, t.args[0], ctx)
        k = t.kind
        if k in ("int", "decimal"):
            if isinstance(v, n.VNum) and (k == "decimal" or isinstance(v.value, int)):
                return v.value
            return self._bad(v, t, ctx)
        if k == "text":
            if isinstance(v, n.VStr):
                return v.value
            return self._bad(v, t, ctx, 'write text in double quotes: "…"' if isinstance(v, n.VName) else None)
        if k == "bool":
            if isinstance(v, n.VBool):
                return v.value
            return self._bad(v, t, ctx)
        if k == "id":
            if isinstance(v, (n.VName, n.VStr)):
                return v.name if isinstance(v, n.VName) else v.value
            return self._bad(v, t, ctx)
        if k == "enum":
            members = [m for m, _ in self.enum_members.get(t.name, [])]
            if isinstance(v, n.VName):
                if v.name in members:
                    return v.name
                guess = did_you_mean(v.name, members)
                self.err(f"{ctx}: '{v.name}' is not a value of {t.name}", v.span, f"did you mean '{guess}'?" if guess else "expected one of: " + ", ".join(members), "unknown-name")
                return None
            return self._bad(v, t, ctx)
        if k in ("ref", "refs"):
            if isinstance(v, (n.VName, n.VStr)):
                ident = v.name if isinstance(v, n.VName) else v.value
                self.pending_refs.append((t.name, ident, v.span, ctx))
                return ident
            return self._bad(v, t, ctx)
        if k == "rule":
            return self.rule_app(v, ctx)
        if k == "list":
            if isinstance(v, n.VList):
                return [self.value(x, t.args[0], ctx) for x in v.items]
            return self._bad(v, t, ctx)
        if k == "map":
            members = [m for m, _ in self.enum_members.get(t.name, [])]
            if isinstance(v, n.VList):
                if len(v.items) != len(members):
                    self.err(f"{ctx}: a map[{t.name}, …] needs {len(members)} values ({', '.join(members)}), got {len(v.items)}", v.span, None, "arity")
                    return None
                return {m: self.value(x, t.args[0], ctx) for m, x in zip(members, v.items)}
            if isinstance(v, n.VRecord) and all(name for name, _ in v.fields):
                out = {}
                for name, x in v.fields:
                    if name not in members:
                        self.err(f"{ctx}: '{name}' is not a value of {t.name}", x.span, _hint(name, members), "unknown-name")
                        continue
                    out[name] = self.value(x, t.args[0], ctx)
                for m in members:
                    if m not in out:
                        if t.args[0].kind == "opt":
                            out[m] = None
                        else:
                            self.err(f"{ctx}: missing value for '{m}'", v.span, None, "missing")
                return {m: out.get(m) for m in members}
            return self._bad(v, t, ctx)
        if k == "record":
            fields = self.record_fields.get(t.name, [])
            if isinstance(v, n.VRecord):
                return self.record_value(v, t.name, fields, ctx)
            return self._bad(v, t, ctx)
        return self._bad(v, t, ctx)

    def record_value(self, v: n.VRecord, rname: str, fields, ctx: str) -> dict | None:
        out: dict[str, Any] = {}
        positional = [x for name, x in v.fields if name is None]
        named = [(name, x) for name, x in v.fields if name is not None]
        if positional and named:
            self.err(f"{ctx}: write all fields of {rname} by name or all by position, not both", v.span, None, "syntax")
            return None
        if positional:
            if len(positional) > len(fields):
                self.err(f"{ctx}: {rname} has {len(fields)} fields, got {len(positional)} values", v.span, "fields: " + ", ".join(f for f, _, _ in fields), "arity")
                return None
            for (fname, ftype, _), x in zip(fields, positional):
                out[fname] = self.value(x, ftype, f"{ctx}.{fname}")
        else:
            by_name = {f: (ft, ti) for f, ft, ti in fields}
            for name, x in named:
                if name not in by_name:
                    self.err(f"{ctx}: record {rname} has no field '{name}'", x.span, _hint(name, list(by_name)), "unknown-name")
                    continue
                out[name] = self.value(x, by_name[name][0], f"{ctx}.{name}")
        for fname, ftype, _ in fields:
            if fname not in out:
                if ftype.kind in ("opt", "any"):
                    out[fname] = None
                elif ftype.kind == "list":
                    out[fname] = []
                else:
                    self.err(f"{ctx}: missing field '{fname}' of {rname}", v.span, None, "missing")
        return {f: out.get(f) for f, _, _ in fields}

    def rule_app(self, v: n.Value, ctx: str) -> dict | None:
        if isinstance(v, n.VName):
            name, args, span = v.name, (), v.span
        elif isinstance(v, n.VApply):
            name, args, span = v.name, v.args, v.span
        else:
            return self._bad(v, RULE, ctx, "write a special rule as id or id(args)")
        d = self.decls.get(name)
        if not isinstance(d, n.RuleDecl):
            self.unknown("special rule", name, span, self.names_of(n.RuleDecl))
            return {"rule": name, "args": {}}
        self.use(name)
        params = self.rule_params.get(name, [])
        decl_params = self.decls[name].params
        required = sum(1 for p in decl_params if p.default is None)
        if required <= len(args) <= len(params):
            params = params[: len(args)]
        if len(args) != len(params):
            self.err(
                f"{ctx}: special rule '{name}' takes {len(params)} parameter(s) ({', '.join(p for p, _ in params) or 'none'}), got {len(args)}",
                span, f"write {name}({', '.join(p for p, _ in params)})" if params else f"write {name}", "arity",
            )
            return {"rule": name, "args": {}}
        return {"rule": name, "args": {p: self.value(a, pt, f"{ctx} {name}({p})") for (p, pt), a in zip(params, args)}}

    def _bad(self, v: n.Value, t: T, ctx: str, hint: str | None = None):
        self.err(f"{ctx}: expected a value of type {t}, got {_describe_value(v)}", v.span, hint, "type")
        return None

    # ------------------------------------------------------------------ catalogs, tables, dice, bags, rules
    def check_data(self) -> None:
        for name, d in self.decls.items():
            self.current_decl = name
            if isinstance(d, n.CatalogDecl):
                self.check_catalog(d)
            elif isinstance(d, n.TableDecl):
                self.check_table(d)
            elif isinstance(d, n.DieDecl):
                self.check_die(d)
            elif isinstance(d, n.BagDecl):
                seen = set()
                for kind, count, span in d.tokens:
                    if kind in seen:
                        self.err(f"token kind '{kind}' appears twice in bag {name}", span, None, "duplicate")
                    seen.add(kind)
                    if not isinstance(count, int) or count < 0:
                        self.err(f"a bag holds a whole number of tokens, got {count}", span, None, "type")
                if not d.tokens:
                    self.err(f"bag {name} is empty", d.span, None, "empty")
            elif isinstance(d, n.RuleDecl):
                for g in d.grants:
                    self.rule_app(g, f"rule {name} grants")
                for lvl, _ in d.levels:
                    if lvl < 0:
                        self.err("levels are whole numbers from 0", d.span, None, "type")
        self.current_decl = None
        self.check_ids_across_catalogs()
        self.check_site_annotations()
        for cats, ident, span, ctx in self.pending_refs:
            names = cats.split("|")
            if any(ident in self.ref_ids(c) for c in names):
                continue
            pool = [i for c in names for i in self.ref_ids(c)]
            guess = did_you_mean(ident, pool)
            if len(names) == 1:
                where = f"catalog {cats}"
            elif len(names) <= 3:
                where = "any of the catalogs " + ", ".join(names)
            else:
                where = f"any of the {len(names)} catalogs {', '.join(names[:2])}, …"
            self.warn(
                f"{ctx}: '{ident}' is not an entry of {where}", span,
                f"did you mean '{guess}'?" if guess else f"catalog {names[0]} is declared at {self.decls[names[0]].span}", "unknown-ref",
            )

    def ref_ids(self, name: str):
        """The ids a ``ref name`` may hold: catalog entries or id-table keys."""
        if name in self.catalogs:
            return self.catalogs[name]
        info = self.tables.get(name)
        if info is None:
            return {}
        return {keys[0]: None for keys, _t, _v, _r in info.rows}

    def check_site_annotations(self) -> None:
        for name, d in self.decls.items():
            if not isinstance(d, n.CatalogDecl):
                continue
            anns = {a.name: a for a in d.annotations if isinstance(a.value, n.VStr)}
            field, table = anns.get("cost_field"), anns.get("cost_modifier")
            if (field is None) != (table is None):
                present = field or table
                self.err("@cost_field and @cost_modifier go together", present.span, None, "annotation")
                continue
            if field is None:
                continue
            if "datasheet" not in anns:
                self.err("@cost_field / @cost_modifier need @datasheet on the same catalog", field.span, None, "annotation")
            fields = {f: t for f, t, _ in self.record_fields.get(d.record, [])}
            if fields.get(field.value.value, ANY).inner.kind != "int":
                self.err(f"@cost_field: '{field.value.value}' is not an int field of record {d.record}", field.value.span, _hint(field.value.value, list(fields)), "annotation")
            info = self.tables.get(table.value.value)
            if info is None:
                self.unknown("table", table.value.value, table.value.span, self.tables)
            elif (len(info.key_types) != 1 or info.key_types[0].kind != "enum" or info.decl.across
                  or len(info.decl.columns) != 1 or info.col_types[0].inner.kind not in ("int", "decimal")):
                self.err(f"@cost_modifier: table {info.decl.name} must be keyed by an enum with one numeric column (a percentage)", table.value.span, None, "annotation")
            else:
                self.uses[info.decl.name].add(name)

    def check_ids_across_catalogs(self) -> None:
        """An id defined in two catalogs of the same record type is ambiguous for readers."""
        first: dict[tuple[str, str], str] = {}
        for name, d in self.decls.items():
            if not isinstance(d, n.CatalogDecl):
                continue
            for ident in self.catalogs.get(name, {}):
                key = (d.record, ident)
                if key in first:
                    other = first[key]
                    a, b = self.catalogs[other][ident], self.catalogs[name][ident]
                    differing = [f for f in a if a.get(f) != b.get(f)]
                    if differing:
                        self.warn(
                            f"id '{ident}' is defined in catalogs {other} and {name} with different values ({', '.join(differing)})",
                            self.catalog_row_spans[(name, ident)],
                            f"the other definition is at {self.catalog_row_spans[(other, ident)]}",
                            "duplicate-id",
                        )
                else:
                    first[key] = name

    def check_catalog(self, d: n.CatalogDecl) -> None:
        rec = self.decls.get(d.record)
        rows: dict[str, dict] = {}
        self.catalogs[d.name] = rows
        if not isinstance(rec, n.RecordDecl):
            self.unknown("record", d.record, d.record_span or d.span, self.names_of(n.RecordDecl))
            return
        self.use(d.record)
        fields = self.record_fields[d.record]
        by_name = {f: (t, ti) for f, t, ti in fields}
        cols = list(d.columns) if d.columns is not None else [f for f, _, _ in fields]
        for c in cols:
            if c not in by_name:
                self.err(f"record {d.record} has no field '{c}'", d.columns_span or d.span, _hint(c, list(by_name)), "unknown-name")
        missing = [f for f, t, _ in fields if f not in cols and t.kind not in ("opt", "list")]
        if missing:
            self.err(f"columns of catalog {d.name} leave out required field(s) {', '.join(missing)} of {d.record}", d.columns_span or d.span, None, "missing")
        for row in d.rows:
            if row.id in rows:
                self.err(f"id '{row.id}' appears twice in catalog {d.name}", row.span, f"first at {self.catalog_row_spans[(d.name, row.id)]}", "duplicate")
                continue
            if len(row.values) != len(cols):
                self.err(f"row '{row.id}' has {len(row.values)} values but catalog {d.name} has {len(cols)} columns ({' | '.join(cols)})", row.span, None, "arity")
                continue
            rec_data: dict[str, Any] = {}
            for c, v in zip(cols, row.values):
                if c in by_name:
                    rec_data[c] = self.value(v, by_name[c][0], f"{d.name}.{row.id}.{c}")
            for f, t, _ in fields:
                rec_data.setdefault(f, [] if t.kind == "list" else None)
            rows[row.id] = {f: rec_data[f] for f, _, _ in fields}
            self.catalog_row_spans[(d.name, row.id)] = row.span

    def check_table(self, d: n.TableDecl) -> None:
        key_types = []
        for k in d.keys:
            kt = self.resolve_type(k.type)
            if k.ranged and kt not in (INT, DEC):
                self.err(f"a range key must be int or decimal, not {kt}", k.type.span, None, "type")
            if kt.kind not in ("int", "decimal", "enum", "id", "text", "bool", "ref", "refs", "any"):
                self.err(f"a table key must be an enum, id, text, bool or number, not {kt}", k.type.span, None, "type")
            key_types.append(kt)
        across_t = self.resolve_type(d.across.type) if d.across else None
        col_types = [self.resolve_type(c.type) for c in d.columns]
        info = TableInfo(d, key_types, across_t, col_types)
        self.tables[d.name] = info
        seen_cols = set()
        for c in d.columns:
            if c.name in seen_cols:
                self.err(f"column '{c.name}' appears twice in table {d.name}", c.span, None, "duplicate")
            seen_cols.add(c.name)
        if d.across:
            if len(d.columns) != 1:
                self.err("a table with 'across' has exactly one result column", d.span, None, "arity")
            if d.header is None:
                self.err(f"table {d.name} needs a 'header | …' row listing the values of {d.across.name}", d.span, None, "missing")
            else:
                info.across_values = [self.value(v, across_t, f"{d.name} header") for v in d.header]
        elif d.header is not None:
            self.err("a 'header' row is only allowed in tables with 'across'", d.span, None, "syntax")
        ncols = len(info.across_values) if d.across else len(d.columns)
        seen_keys: dict[Any, Span] = {}
        for row in d.rows:
            if len(row.keys) != len(d.keys):
                self.err(f"table {d.name} has {len(d.keys)} key(s), this row gives {len(row.keys)}", row.span, None, "arity")
                continue
            keys = []
            for ks, kt, kv in zip(d.keys, key_types, row.keys):
                if ks.ranged:
                    if isinstance(kv, n.RangeKey):
                        keys.append(kv)
                    elif isinstance(kv, n.VNum):
                        keys.append(n.RangeKey(kv.value, True, kv.value, True, kv.span))
                    else:
                        self.err(f"table {d.name}: expected a range such as 0..10 or >10..20, got {_describe_value(kv)}", kv.span, None, "type")
                        keys.append(None)
                elif isinstance(kv, n.RangeKey):
                    self.err(f"table {d.name}: key '{ks.name}' is not a range; declare it as `{ks.name}: {ks.type} range`", kv.span, None, "type")
                    keys.append(None)
                else:
                    keys.append(self.value(kv, kt, f"{d.name} key"))
            if len(row.values) != ncols:
                self.err(f"row of table {d.name} has {len(row.values)} values, expected {ncols}", row.span, None, "arity")
                continue
            if d.across:
                values = {"__across__": [self.value(v, col_types[0] if col_types else ANY, f"{d.name}") for v in row.values]}
            else:
                values = {c.name: self.value(v, t, f"{d.name}.{c.name}") for c, t, v in zip(d.columns, col_types, row.values)}
            if row.title is not None and not any(kt.kind in ("id", "text") for kt in key_types) and not any(k.ranged for k in d.keys) and not any(kt.kind == "enum" for kt in key_types):
                self.err("only rows keyed by an id, enum or range may have a display name", row.span, None, "syntax")
            hashable = tuple((k.lo, k.lo_inclusive, k.hi, k.hi_inclusive) if isinstance(k, n.RangeKey) else k for k in keys)
            if not any(k.ranged for k in d.keys) and None not in keys:
                if hashable in seen_keys:
                    self.err(f"key {', '.join(map(str, hashable))} appears twice in table {d.name}", row.span, f"first at {seen_keys[hashable]}", "duplicate")
                    continue
                seen_keys[hashable] = row.span
            info.rows.append((tuple(keys), row.title, values, row))
        self.check_table_coverage(info)

    def check_table_coverage(self, info: TableInfo) -> None:
        d = info.decl
        integer_key = bool(info.key_types) and info.key_types[0] == INT
        for keys, _t, _v, _row in info.rows:
            for r in keys:
                if isinstance(r, n.RangeKey) and _range_empty(r, integer_key):
                    self.err(f"range {_fmt_range(r)} of table {d.name} contains no value", r.span, "write the lower bound first: lo..hi", "range")
        if len(d.keys) == 1 and d.keys[0].ranged:
            ranges = sorted((r[0][0] for r in info.rows if r[0][0] is not None), key=lambda r: (_lo_key(r), r.span.line))
            integer = info.key_types[0] == INT
            for a, b in zip(ranges, ranges[1:]):
                rel = _range_relation(a, b, integer)
                if rel == "overlap":
                    later, other = (b, a) if b.span.line >= a.span.line else (a, b)
                    self.err(f"ranges {_fmt_range(a)} and {_fmt_range(b)} of table {d.name} overlap", later.span, f"the other range is at line {other.span.line}", "overlap")
                elif rel == "gap":
                    self.warn(f"gap between ranges {_fmt_range(a)} and {_fmt_range(b)} of table {d.name}: some values have no row", b.span, None, "gap")
        for pos, (ks, kt) in enumerate(zip(d.keys, info.key_types)):
            if kt.kind == "enum" and len(d.keys) == 1:
                present = {r[0][pos] for r in info.rows}
                missing = [m for m, _ in self.enum_members.get(kt.name, []) if m not in present]
                if missing:
                    self.warn(f"table {d.name} has no row for {', '.join(missing)} of {kt.name}", d.span, None, "missing-key")
        if d.across and info.across_type is not None and info.across_type.kind == "enum":
            missing = [m for m, _ in self.enum_members.get(info.across_type.name, []) if m not in info.across_values]
            if missing:
                self.warn(f"table {d.name} has no column for {', '.join(missing)} of {info.across_type.name}", d.span, None, "missing-key")

    def check_die(self, d: n.DieDecl) -> None:
        if d.face_enum:
            ed = self.decls.get(d.face_enum)
            if not isinstance(ed, n.EnumDecl):
                self.unknown("enum", d.face_enum, d.span, self.names_of(n.EnumDecl))
                return
            self.use(d.face_enum)
            for f in d.faces:
                self.value(f, T("enum", d.face_enum), f"die {d.name}")
        else:
            for f in d.faces:
                if not (isinstance(f, n.VNum) and isinstance(f.value, int)):
                    self.err(f"faces of die {d.name} must be whole numbers (or declare `of <Enum>` for named faces), got {_describe_value(f)}", f.span, None, "type")
        if not d.faces:
            self.err(f"die {d.name} has no faces", d.span, None, "empty")

    # ------------------------------------------------------------------ procedures
    def check_procedures(self) -> None:
        for name, d in self.decls.items():
            if isinstance(d, n.ProcedureDecl):
                self.current_decl = name
                self.check_procedure(d)
        self.current_decl = None

    def check_procedure(self, d: n.ProcedureDecl) -> None:
        scope = _Scope()
        self.proc_result = self.result_types[d.name]
        self.local_decl: dict[tuple[int, str], Span] = {}
        seen = set()
        for p, (pname, pt) in zip(d.params, self.param_types[d.name]):
            if pname in KEYWORDS:
                self.err(f"'{pname}' is a reserved word and cannot name a parameter", p.span, "choose another name", "reserved")
            if pname in seen:
                self.err(f"parameter '{pname}' appears twice", p.span, None, "duplicate")
            seen.add(pname)
            if p.default is not None:
                dt = self.expr(p.default, _Scope())
                if not assignable(dt, pt):
                    self.err(f"default of '{pname}' has type {dt}, expected {pt}", p.default.span, None, "type")
            scope.vars[pname] = (pt, p.span)
            self.local_decl[(id(scope), pname)] = p.span
        returns = self.block(list(d.body), scope)
        if not returns:
            self.err(f"procedure {d.name} may end without returning a value", d.span, "end every path with `return …`", "no-return")
        for (sid, lname), span in self.local_decl.items():
            if (sid, lname) not in self.local_uses:
                self.warn(f"'{lname}' is never used", span, None, "unused")

    def block(self, stmts: list, scope: _Scope) -> bool:
        """Check statements; True when every path through them returns."""
        returned = False
        for st in stmts:
            if returned:
                self.warn("this statement is never reached", st.span, None, "unreachable")
                break
            if isinstance(st, n.Step):
                returned = self.block(list(st.body), scope)
            elif isinstance(st, n.Let):
                t = self.expr(st.value, scope)
                if st.name in KEYWORDS:
                    self.err(f"'{st.name}' is a reserved word and cannot name a value", st.span, "choose another name", "reserved")
                if scope.get(st.name) is not None:
                    self.err(f"'{st.name}' is already defined", st.span, f"first defined at {scope.get(st.name)[1]}", "duplicate")
                if isinstance(self.decls.get(st.name), (n.EnumDecl, n.TableDecl, n.CatalogDecl)):
                    self.err(f"'{st.name}' would hide the declaration at {self.decls[st.name].span}", st.span, "choose another name", "shadow")
                if t.kind == "none":
                    t = ANY
                scope.vars[st.name] = (t, st.span)
                self.local_decl[(id(scope), st.name)] = st.span
            elif isinstance(st, n.Return):
                t = self.expr(st.value, scope)
                if not assignable(t, self.proc_result):
                    self.err(f"returns {t}, but the procedure's result is {self.proc_result}", st.value.span, None, "type")
                returned = True
            elif isinstance(st, n.Require):
                self.want_bool(st.cond, scope, "require")
                scope.narrowed |= _not_none(st.cond, True)
            elif isinstance(st, n.If):
                all_return = True
                excluded: set[str] = set()  # names proven not none by earlier failed `x == none` tests
                for cond, body in st.branches:
                    self.want_bool(cond, _Scope(scope, excluded))
                    all_return &= self.block(list(body), _Scope(scope, excluded | _not_none(cond, True)))
                    excluded |= _not_none(cond, False)
                if st.orelse is not None:
                    all_return &= self.block(list(st.orelse), _Scope(scope, excluded))
                else:
                    all_return = False
                returned = all_return
        return returned

    def want_bool(self, e: n.Expr, scope: _Scope, what: str = "if") -> None:
        t = self.expr(e, scope)
        if t not in (BOOL, ANY):
            self.err(f"the condition of {what} must be true/false, got {t}", e.span, None, "type")

    # ------------------------------------------------------------------ expressions
    def expr(self, e: n.Expr, scope: _Scope, in_expect: bool = False) -> T:
        step = 0 if self.chain_left else 1
        self.chain_left = False
        self.depth += step
        try:
            if self.depth > MAX_NESTING:
                if not self.too_deep:
                    self.err(f"this expression is nested more than {MAX_NESTING} levels deep", e.span, "split it with let", "limit")
                self.too_deep = True
                t = ANY
            else:
                t = self._expr(e, scope, in_expect)
        finally:
            self.depth -= step
        self.expr_types[id(e)] = t
        return t

    def _expr(self, e, scope: _Scope, in_expect: bool) -> T:
        if isinstance(e, n.Num):
            return INT if isinstance(e.value, int) else DEC
        if isinstance(e, n.Str):
            return TEXT
        if isinstance(e, n.Bool):
            return BOOL
        if isinstance(e, n.NoneLit):
            return NONE
        if isinstance(e, n.Name):
            return self.name(e, scope)
        if isinstance(e, n.Attr):
            return self.attr(e, scope, in_expect)
        if isinstance(e, n.Index):
            return self.index(e, scope, in_expect)
        if isinstance(e, n.Call):
            return self.call(e, scope, in_expect)
        if isinstance(e, n.Unary):
            t = self.expr(e.operand, scope, in_expect)
            if e.op == "not":
                if t not in (BOOL, ANY):
                    self.err(f"'not' needs true/false, got {t}", e.operand.span, None, "type")
                return BOOL
            if not is_numeric(t):
                self.err(f"'{e.op}' needs a number, got {t}", e.operand.span, None, "type")
                return ANY
            return t
        if isinstance(e, n.Binary):
            return self.binary(e, scope, in_expect)
        if isinstance(e, n.IfExpr):
            self.want_bool(e.cond, scope, "if")
            a = self.expr(e.then, _Scope(scope, _not_none(e.cond, True)), in_expect)
            b = self.expr(e.other, _Scope(scope, _not_none(e.cond, False)), in_expect)
            u = unify(a, b)
            if u is None:
                self.err(f"the two branches have different types ({a} and {b})", e.span, None, "type")
                return ANY
            return u
        if isinstance(e, n.ListExpr):
            acc = None
            for x in e.items:
                t = self.expr(x, scope, in_expect)
                acc = t if acc is None else unify(acc, t)
                if acc is None:
                    self.err("list elements have different types", x.span, None, "type")
                    acc = ANY
            return T("list", None, (acc or ANY,))
        if isinstance(e, n.Comprehension):
            it = self.expr(e.iterable, scope, in_expect)
            if it.kind not in ("list", "any"):
                self.err(f"'for' needs a list to go through, got {it}", e.iterable.span, None, "type")
            inner = _Scope(scope)
            if scope.get(e.name) is not None or e.name in self.decls or e.name in KEYWORDS:
                self.err(f"'{e.name}' is already defined or reserved; choose another name for the loop variable", e.span, None, "shadow")
            inner.vars[e.name] = (it.args[0] if it.kind == "list" else ANY, e.span)
            self.local_uses.add((id(inner), e.name))
            if e.cond is not None:
                self.want_bool(e.cond, inner, "if")
            return T("list", None, (self.expr(e.expr, inner, in_expect),))
        if isinstance(e, n.Roll):
            return self.roll(e, scope)
        if isinstance(e, n.Draw):
            ct = self.expr(e.count, scope)
            if ct not in (INT, ANY):
                self.err(f"the number of tokens drawn must be a whole number, got {ct}", e.count.span, None, "type")
            bag = self.decls.get(e.bag)
            if not isinstance(bag, n.BagDecl):
                self.unknown("bag", e.bag, e.span, self.names_of(n.BagDecl))
                return ANY
            self.use(e.bag)
            kinds = [k for k, _, _ in bag.tokens]
            for a in e.removed:
                if a.name not in kinds:
                    self.err(f"'{a.name}' is not a kind of token of bag {e.bag}", a.span, _hint(a.name, kinds) or "kinds: " + ", ".join(kinds), "unknown-name")
                at = self.expr(a.value, scope)
                if at not in (INT, ANY):
                    self.err(f"the number of '{a.name}' tokens must be a whole number, got {at}", a.value.span, None, "type")
            return T("counts", e.bag, tuple(T("key", k) for k in kinds))
        raise AssertionError(type(e))

    def name(self, e: n.Name, scope: _Scope) -> T:
        local = scope.get(e.name)
        if local is not None:
            s = scope
            while s is not None and e.name not in s.vars:
                s = s.parent
            self.local_uses.add((id(s), e.name))
            self.expr_info[id(e)] = ("local", e.name)
            return local[0]
        d = self.decls.get(e.name)
        if d is not None:
            self.use(e.name)
            kind = {n.EnumDecl: "enumtype", n.TableDecl: "table", n.CatalogDecl: "catalog"}.get(type(d))
            if kind:
                self.expr_info[id(e)] = (kind, e.name)
                return T(kind, e.name)
            self.err(f"'{e.name}' is a {type(d).__name__.removesuffix('Decl').lower()}, not a value", e.span, None, "type")
            return ANY
        self.unknown("name", e.name, e.span, scope.names() | set(self.decls))
        return ANY

    def attr(self, e: n.Attr, scope: _Scope, in_expect: bool) -> T:
        ot = self.expr(e.obj, scope, in_expect)
        at = e.name_span or e.span  # errors point at the name after the dot
        base = ot.inner
        nullable = ot.kind == "opt"
        if base.kind == "any":
            return ANY
        if base.kind == "enumtype":
            members = [m for m, _ in self.enum_members.get(base.name, [])]
            if e.name not in members:
                self.err(f"'{e.name}' is not a value of {base.name}", at, _hint(e.name, members) or "values: " + ", ".join(members), "unknown-name")
                return ANY
            self.expr_info[id(e)] = ("enumval", base.name, e.name)
            return T("enum", base.name)
        if base.kind == "table" and _referenceable(self.decls.get(base.name)):
            rows = self.ref_ids(base.name)
            if e.name not in rows:
                self.err(f"'{e.name}' is not a row of table {base.name}", at, _hint(e.name, list(rows)), "unknown-name")
                return ANY
            self.expr_info[id(e)] = ("catalogid", base.name, e.name)
            return T("ref", base.name)
        if base.kind == "catalog":
            rows = self.catalogs.get(base.name, {})
            if e.name not in rows:
                self.err(f"'{e.name}' is not an entry of catalog {base.name}", at, _hint(e.name, list(rows)), "unknown-name")
                return ANY
            self.expr_info[id(e)] = ("catalogid", base.name, e.name)
            return T("ref", base.name)
        fields: list[tuple[str, T]] = []
        kind = None
        if base.kind == "record":
            fields = [(f, t) for f, t, _ in self.record_fields.get(base.name, [])]
            kind = "field"
        elif base.kind == "ref" and base.name in self.tables:
            info = self.tables[base.name]
            fields = [(c.name, t) for c, t in zip(info.decl.columns, info.col_types)]
            kind = "reftable"
        elif base.kind == "ref":
            rec = self.decls[base.name].record
            fields = [(f, t) for f, t, _ in self.record_fields.get(rec, [])]
            kind = "reffield"
        elif base.kind == "row":
            info = self.tables[base.name]
            fields = [(c.name, t) for c, t in zip(info.decl.columns, info.col_types)]
            kind = "field"
        elif base.kind == "counts":
            keys = [k.name for k in base.args]
            if e.name not in keys:
                self.err(f"'{e.name}' is not a kind of {base.name}", at, _hint(e.name, keys) or "kinds: " + ", ".join(keys), "unknown-name")
                return ANY
            self.expr_info[id(e)] = ("count", e.name, nullable)
            return INT
        else:
            self.err(f"{ot} has no fields", at, None, "type")
            return ANY
        for f, t in fields:
            if f == e.name:
                self.expr_info[id(e)] = (kind, e.name, nullable, base.name)
                result = opt(t) if nullable else t
                path = _path(e)
                if path is not None and result.kind == "opt" and scope.is_narrowed(path):
                    result = result.inner
                return result
        self.err(f"{base} has no field '{e.name}'", at, _hint(e.name, [f for f, _ in fields]) or "fields: " + ", ".join(f for f, _ in fields), "unknown-name")
        return ANY

    def index(self, e: n.Index, scope: _Scope, in_expect: bool) -> T:
        ot = self.expr(e.obj, scope, in_expect)
        kts = [self.expr(k, scope, in_expect) for k in e.keys]
        if ot.kind == "any":
            return ANY
        if ot.kind == "table":
            info = self.tables[ot.name]
            want = list(info.key_types) + ([info.across_type] if info.across_type else [])
            if len(kts) != len(want):
                self.err(f"table {ot.name} is looked up with {len(want)} key(s), got {len(kts)}", e.span, None, "arity")
                return ANY
            for k, kt, wt in zip(e.keys, kts, want):
                if isinstance(k, n.Str) and wt.kind in ("id", "text", "ref", "refs") and info.key_types and wt is info.key_types[0] and len(info.key_types) == 1:
                    rows = self.ref_ids(ot.name)
                    if k.value not in rows:
                        self.err(f"'{k.value}' is not a row of table {ot.name}", k.span, _hint(k.value, list(rows)), "unknown-name")
                ok = assignable(kt, wt) or (wt.kind in ("id", "text", "ref", "refs") and kt.kind in ("text", "id", "ref", "refs"))
                if not ok and not (is_numeric(kt) and is_numeric(wt)):
                    self.err(f"key of table {ot.name} must be {wt}, got {kt}", k.span, None, "type")
            self.expr_info[id(e)] = ("table", ot.name)
            if info.single_column or info.decl.across:
                return info.col_types[0] if info.col_types else ANY
            return T("row", ot.name)
        if ot.kind == "catalog":
            if len(kts) != 1 or not (kts[0].kind in ("text", "id", "any") or (kts[0].kind == "ref" and kts[0].name == ot.name)):
                self.err(f"catalog {ot.name} is looked up by one id", e.span, None, "type")
            self.expr_info[id(e)] = ("catalog", ot.name)
            return T("record", self.decls[ot.name].record)
        base = ot.inner
        if base.kind == "map":
            if len(kts) != 1 or not assignable(kts[0], T("enum", base.name)):
                self.err(f"a map[{base.name}, …] is indexed by a {base.name}", e.span, None, "type")
            self.expr_info[id(e)] = ("map", ot.kind == "opt")
            return base.args[0]
        if base.kind == "list":
            if len(kts) != 1 or kts[0] not in (INT, ANY):
                self.err("a list is indexed by a whole number (0 is the first element)", e.span, None, "type")
            self.expr_info[id(e)] = ("list", ot.kind == "opt")
            return base.args[0]
        self.err(f"{ot} cannot be indexed", e.span, None, "type")
        return ANY

    def call(self, e: n.Call, scope: _Scope, in_expect: bool) -> T:
        fn = e.func
        fspan = e.func_span or e.span
        if fn in BUILTINS:
            return self.builtin(e, scope, in_expect)
        d = self.decls.get(fn)
        if isinstance(d, n.ProcedureDecl):
            self.use(fn)
            self.expr_info[id(e)] = ("procedure", fn)
            self.bind_args(e.args, self.param_types[fn], {p.name for p in d.params if p.default is not None}, f"procedure {fn}", e.span, scope, in_expect)
            return self.result_types[fn]
        if isinstance(d, n.RecordDecl):
            self.use(fn)
            self.expr_info[id(e)] = ("record", fn)
            fields = self.record_fields.get(fn, [])
            optional = {f for f, t, _ in fields if t.kind in ("opt", "list")}
            self.bind_args(e.args, [(f, t) for f, t, _ in fields], optional, f"record {fn}", e.span, scope, in_expect)
            return T("record", fn)
        self.unknown("procedure, record or function", fn, fspan, [*BUILTINS, *self.names_of(n.ProcedureDecl, n.RecordDecl)])
        for a in e.args:
            self.expr(a.value, scope, in_expect)
        return ANY

    def bind_args(self, args, params, optional: set[str], what: str, span: Span, scope: _Scope, in_expect: bool) -> None:
        given: dict[str, n.Arg] = {}
        names = [p for p, _ in params]
        for i, a in enumerate(args):
            if a.name is None:
                if any(x.name for x in args[:i]):
                    self.err("positional arguments must come before named ones", a.span, None, "syntax")
                    continue
                if i >= len(params):
                    self.err(f"{what} takes {len(params)} argument(s), got {len(args)}", a.span, None, "arity")
                    continue
                pname = names[i]
            else:
                pname = a.name
                if pname not in names:
                    noun = "field" if what.startswith("record ") else "parameter"
                    self.err(f"{what} has no {noun} '{pname}'", a.span, _hint(pname, names) or f"{noun}s: " + ", ".join(names), "unknown-name")
                    self.expr(a.value, scope, in_expect)
                    continue
            if pname in given:
                self.err(f"argument '{pname}' is given twice", a.span, None, "duplicate")
            given[pname] = a
            pt = dict(params)[pname]
            at = self.expr(a.value, scope, in_expect)
            self.check_arg_value(a.value, at, pt, pname, what)
        missing = [p for p in names if p not in given and p not in optional]
        if missing:
            noun = "field(s)" if what.startswith("record ") else "argument(s)"
            self.err(f"{what}: missing {noun} {', '.join(missing)}", span, None, "arity")

    def check_arg_value(self, expr: n.Expr, at: T, pt: T, pname: str, what: str) -> None:
        what_arg = "field" if what.startswith("record ") else "argument"
        if pt.inner.kind == "ref" and isinstance(expr, n.Str):
            rows = self.ref_ids(pt.inner.name)
            if expr.value not in rows:
                self.err(f"'{expr.value}' is not an entry of catalog {pt.inner.name}", expr.span, _hint(expr.value, list(rows)), "unknown-name")
            return
        if pt.inner.kind == "ref" and at.kind == "ref" and at.name != pt.inner.name:
            self.err(f"argument '{pname}' of {what} must be an entry of {pt.inner.name}, got one of {at.name}", expr.span, None, "type")
            return
        if not assignable(at, pt) and not (pt.inner.kind == "ref" and at.kind in ("text", "id")):
            hint = _OPTIONAL_HINT if at.kind == "opt" and assignable(at.inner, pt) else None
            self.err(f"{what_arg} '{pname}' of {what} must be {pt}, got {at}", expr.span, hint, "type")

    def rule_builtin(self, e: n.Call, scope: _Scope, in_expect: bool) -> T:
        """``has_rule(rules, lmg)`` and ``rule_param(rules, lmg, X)`` on a list of special rules."""
        fn = e.func
        want = 2 if fn == "has_rule" else 3
        result = BOOL if fn == "has_rule" else ANY
        if len(e.args) != want or any(a.name for a in e.args):
            self.err(f"{fn}() takes {want} positional arguments: the list of rules, a rule" + (" and one of its parameters" if want == 3 else ""), e.span, None, "arity")
            return result
        lt = self.expr(e.args[0].value, scope, in_expect)
        if lt.inner != T("list", None, (RULE,)) and lt.kind != "any":
            self.err(f"{fn}() needs a list of special rules (list[rule]), got {lt}", e.args[0].value.span, None, "type")
        rule_arg = e.args[1].value
        if not isinstance(rule_arg, n.Name) or not isinstance(self.decls.get(rule_arg.name), n.RuleDecl):
            name = rule_arg.name if isinstance(rule_arg, n.Name) else "?"
            self.unknown("special rule", name, rule_arg.span, self.names_of(n.RuleDecl))
            return result
        self.use(rule_arg.name)
        param = None
        if fn == "rule_param":
            p_arg = e.args[2].value
            params = dict(self.rule_params.get(rule_arg.name, []))
            if not isinstance(p_arg, n.Name) or p_arg.name not in params:
                shown = p_arg.name if isinstance(p_arg, n.Name) else "?"
                self.err(f"special rule {rule_arg.name} has no parameter '{shown}'", p_arg.span, "parameters: " + (", ".join(params) or "none"), "unknown-name")
                return result
            param = p_arg.name
            result = opt(params[param])
        self.expr_info[id(e)] = ("builtin", fn, rule_arg.name, param)
        return result

    def builtin(self, e: n.Call, scope: _Scope, in_expect: bool) -> T:
        fn = e.func
        if fn in ("has_rule", "rule_param"):
            return self.rule_builtin(e, scope, in_expect)
        self.expr_info[id(e)] = ("builtin", fn)
        if any(a.name for a in e.args):
            self.err(f"{fn}() takes positional arguments only", e.span, None, "syntax")
        ts = [self.expr(a.value, scope, in_expect) for a in e.args]
        nargs = len(ts)

        def need(count: int | tuple[int, int]) -> bool:
            lo, hi = (count, count) if isinstance(count, int) else count
            if not lo <= nargs <= hi:
                self.err(f"{fn}() takes {lo if lo == hi else f'{lo} or more'} argument(s), got {nargs}", e.span, None, "arity")
                return False
            return True

        def numeric_all() -> T:
            acc = INT
            for a, t in zip(e.args, ts):
                if not is_numeric(t):
                    self.err(f"{fn}() needs numbers, got {t}", a.value.span, None, "type")
                    return ANY
                if t == DEC:
                    acc = DEC
            return acc

        if fn in ("min", "max"):
            if nargs == 1 and ts[0].kind == "list":
                return ts[0].args[0]
            if not need((1, 99)):
                return ANY
            return numeric_all()
        if fn == "clamp":
            return numeric_all() if need(3) else ANY
        if fn == "abs":
            return numeric_all() if need(1) else ANY
        if fn in ("floor", "ceil", "round", "trunc"):
            if need(1):
                numeric_all()
            return INT
        if fn == "capped_sum":
            if not need((2, 99)):
                return ANY
            return numeric_all()
        if fn in ("any", "all"):
            if need(1) and ts[0] != T("list", None, (BOOL,)) and ts[0].kind != "any":
                self.err(f"{fn}() needs a list of true/false values, got {ts[0]}", e.args[0].value.span, None, "type")
            return BOOL
        if fn in ("len", "sum"):
            if not need(1):
                return ANY
            if ts[0].kind not in ("list", "any"):
                self.err(f"{fn}() needs a list, got {ts[0]}", e.args[0].value.span, None, "type")
                return ANY
            if fn == "len":
                return INT
            return ts[0].args[0] if ts[0].kind == "list" and is_numeric(ts[0].args[0]) else ANY
        if fn == "ord":
            if need(1) and ts[0].kind not in ("enum", "any"):
                self.err(f"ord() needs an enum value, got {ts[0]}", e.args[0].value.span, None, "type")
            elif nargs == 1 and ts[0].kind == "enum" and not self.is_ordered(ts[0].name):
                self.err(f"ord() needs an ordered enum; declare {ts[0].name} as `ordered`", e.span, None, "type")
            return INT
        if fn == "shift":
            if not need(2):
                return ANY
            if ts[0].kind != "enum":
                if ts[0].kind != "any":
                    self.err(f"shift() needs an enum value, got {ts[0]}", e.args[0].value.span, None, "type")
                return ANY
            if not self.is_ordered(ts[0].name):
                self.err(f"shift() needs an ordered enum; declare {ts[0].name} as `ordered`", e.span, None, "type")
            if ts[1] not in (INT, ANY):
                self.err(f"shift() moves by a whole number, got {ts[1]}", e.args[1].value.span, None, "type")
            return ts[0]
        if fn == "probability":
            if not in_expect:
                self.err("probability() is only available in an example's expect", e.span, None, "context")
            if need(1) and ts[0] not in (BOOL, ANY):
                self.err(f"probability() needs a true/false condition, got {ts[0]}", e.args[0].value.span, None, "type")
            return DEC
        raise AssertionError(fn)

    def binary(self, e: n.Binary, scope: _Scope, in_expect: bool) -> T:
        op = e.op
        self.chain_left = isinstance(e.left, n.Binary) and e.left.op in _CHAIN.get(op, ())
        a = self.expr(e.left, scope, in_expect)
        b = self.expr(e.right, scope, in_expect) if op not in ("and", "or") else ANY
        if op in ("and", "or"):
            b = self.expr(e.right, _Scope(scope, _not_none(e.left, op == "and")), in_expect)
            for side, t in ((e.left, a), (e.right, b)):
                if t not in (BOOL, ANY):
                    self.err(f"'{op}' needs true/false, got {t}", side.span, None, "type")
            return BOOL
        if op in ("+", "-", "*", "/"):
            if not is_numeric(a) or not is_numeric(b):
                bad = e.left if not is_numeric(a) else e.right
                bt = a if bad is e.left else b
                self.err(f"'{op}' needs numbers, got {bt}", bad.span, _OPTIONAL_HINT if bt.kind == "opt" else None, "type")
                return ANY
            if op == "/":
                return DEC
            return DEC if DEC in (a, b) else (ANY if ANY in (a, b) else INT)
        if op == "in":
            if b.kind != "list" and b.kind != "any":
                self.err(f"'in' needs a list on its right, got {b}", e.right.span, None, "type")
            elif b.kind == "list" and unify(a, b.args[0]) is None:
                self.err(f"cannot look for {a} in {b}", e.span, None, "type")
            self.expr_info[id(e)] = ("in",)
            return BOOL
        # comparisons
        if a.kind == "any" or b.kind == "any":
            return BOOL
        if is_numeric(a) and is_numeric(b):
            self.expr_info[id(e)] = ("cmp", "num")
            return BOOL
        ia, ib = a.inner, b.inner
        if op in ("==", "!="):
            if a.kind == "none" or b.kind == "none" or unify(a, b) is not None or (ia.kind == "ref" and ib.kind in ("text", "id", "ref")) or (ib.kind == "ref" and ia.kind in ("text", "id")):
                self.expr_info[id(e)] = ("cmp", "eq")
                return BOOL
            self.err(f"cannot compare {a} with {b}", e.span, None, "type")
            return BOOL
        if a.kind == "enum" and a == b:
            if not self.is_ordered(a.name):
                self.err(f"enum {a.name} is not ordered; declare it `ordered` to compare with '{op}'", e.span, None, "type")
            self.expr_info[id(e)] = ("cmp", "enum", a.name)
            return BOOL
        self.err(f"cannot compare {a} with {b} using '{op}'", e.span, None, "type")
        return BOOL

    def roll(self, e: n.Roll, scope: _Scope) -> T:
        if e.times is not None:
            tt = self.expr(e.times, scope)
            if tt not in (INT, ANY):
                self.err(f"the number of dice must be a whole number, got {tt}", e.times.span, None, "type")
        if e.count is not None:
            ct = self.expr(e.count[1], scope)
            declared = self.decls.get(e.die)
            face_enum = declared.face_enum if isinstance(declared, n.DieDecl) else None
            if face_enum is not None:
                if e.count[0] not in ("==", "!=") or not assignable(ct, T("enum", face_enum)):
                    self.err(f"dice with named faces are counted with == or != against a {face_enum}, got {e.count[0]} {ct}", e.count[1].span, None, "type")
            elif not is_numeric(ct):
                self.err(f"dice are counted against a number, got {ct}", e.count[1].span, None, "type")
        if e.keep is not None and e.count is not None:
            self.err("use either keep or count, not both", e.span, None, "syntax")
        if re.fullmatch(r"d\d+", e.die):
            if int(e.die[1:]) < 1:
                self.err("a die needs at least one face", e.die_span or e.span, None, "type")
            if e.std_count is not None and e.std_count != 1 and e.times is not None:
                self.err(f"write either {e.std_count}{e.die} or {e.die} times n, not both", e.span, None, "syntax")
            return INT
        d = self.decls.get(e.die)
        if not isinstance(d, n.DieDecl):
            self.unknown("die", e.die, e.die_span or e.span, [*self.names_of(n.DieDecl), "d6", "d10", "d20"])
            return ANY
        self.use(e.die)
        if d.face_enum and not isinstance(self.decls.get(d.face_enum), n.EnumDecl):
            return ANY  # reported where the die is declared
        if d.face_enum:
            if e.keep is not None:
                self.err(f"die {d.name} has named faces: keep needs numeric faces", e.span, None, "type")
            if e.count is not None:
                return INT
            if e.times is not None:
                return T("counts", d.face_enum, tuple(T("key", m) for m, _ in self.enum_members.get(d.face_enum, [])))
            return T("enum", d.face_enum)
        return INT

    # ------------------------------------------------------------------ examples, prose, show
    def check_examples(self) -> list[n.ExampleDecl]:
        examples = []
        for mod in self.modules:
            for item in mod.items:
                if isinstance(item, n.ExampleDecl):
                    d = self.decls.get(item.procedure)
                    if not isinstance(d, n.ProcedureDecl):
                        self.unknown("procedure", item.procedure, item.procedure_span or item.span, self.names_of(n.ProcedureDecl))
                        continue
                    self.current_decl = "example:" + item.procedure
                    self.uses[item.procedure].add(self.current_decl)
                    self.bind_args(item.given, self.param_types[item.procedure], {p.name for p in d.params if p.default is not None}, f"procedure {item.procedure}", item.span, _Scope(), False)
                    scope = _Scope()
                    scope.vars["result"] = (self.result_types[item.procedure], item.span)
                    if any(ex.expr is None for ex in item.expects) and len(item.expects) > 1:
                        self.err("an example that expects an error cannot expect anything else", item.span, None, "example")
                    for ex in item.expects:
                        if ex.expr is None:
                            continue
                        t = self.expr(ex.expr, scope, in_expect=True)
                        if t not in (BOOL, ANY):
                            self.err(f"expect needs a true/false statement, got {t}", ex.expr.span, "for example: expect result == 3", "type")
                    if not item.expects:
                        self.err("an example needs at least one expect", item.span, None, "missing")
                    examples.append(item)
        self.current_decl = None
        return examples

    def check_odds(self) -> None:
        for name, d in self.decls.items():
            if isinstance(d, n.OddsDecl):
                self.current_decl = name
                self.check_odds_decl(d)
        self.current_decl = None

    def check_odds_decl(self, d: n.OddsDecl) -> None:
        proc = self.decls.get(d.procedure)
        if not isinstance(proc, n.ProcedureDecl):
            self.unknown("procedure", d.procedure, d.procedure_span or d.span, self.names_of(n.ProcedureDecl))
            return
        self.use(d.procedure)
        scope = _Scope()
        for axis in (d.each, d.rows, d.columns):
            if axis is None:
                continue
            if axis is d.each:
                if not isinstance(self.decls.get(axis.enum), n.CatalogDecl):
                    self.unknown("catalog", axis.enum, axis.span, self.names_of(n.CatalogDecl))
                    t = ANY
                else:
                    self.use(axis.enum)
                    t = T("ref", axis.enum)
            elif axis.values is not None:
                if any(not isinstance(v, int) for v in axis.values) or len(axis.values) > 200:
                    self.err("a list of values for an odds table holds at most 200 whole numbers", axis.span, None, "odds")
                t = INT
            elif axis.enum is not None:
                if not isinstance(self.decls.get(axis.enum), n.EnumDecl):
                    self.unknown("enum", axis.enum, axis.span, self.names_of(n.EnumDecl))
                    t = ANY
                else:
                    self.use(axis.enum)
                    t = T("enum", axis.enum)
            else:
                if axis.lo > axis.hi or axis.hi - axis.lo > 200:
                    self.err(f"the range {axis.lo}..{axis.hi} must go upwards and have at most 201 values", axis.span, None, "odds")
                t = INT
            if scope.get(axis.name) is not None or axis.name in self.decls or axis.name in ("result", *KEYWORDS):
                self.err(f"'{axis.name}' is already defined; choose another name", axis.span, None, "shadow")
            scope.vars[axis.name] = (t, axis.span)
            self.local_uses.add((id(scope), axis.name))
        optional = {p.name for p in proc.params if p.default is not None}
        self.bind_args(d.args, self.param_types[d.procedure], optional, f"procedure {d.procedure}", d.span, scope, False)
        inner = _Scope(scope)
        inner.vars["result"] = (self.result_types[d.procedure], d.span)
        self.local_uses.add((id(inner), "result"))
        show = d.show
        if isinstance(show, n.Call) and show.func == "outcomes":
            if len(show.args) != 1 or show.args[0].name is not None:
                self.err("outcomes() takes one expression over result", show.span, None, "arity")
                return
            if d.columns is not None:
                self.err("outcomes() lays the results out as columns: give only one `for`", d.columns.span, None, "odds")
            self.expr_info[id(show)] = ("outcomes",)
            self.expr(show.args[0].value, inner)
            return
        t = self.expr(show, inner, in_expect=True)
        if not (is_numeric(t) or t == BOOL):
            self.err(f"an odds table shows numbers (e.g. probability(…)), got {t}", show.span, "write show probability(result.x) or show outcomes(result.x)", "type")

    def check_prose(self) -> None:
        for mod in self.modules:
            for item in mod.items:
                inls = []
                if isinstance(item, (n.Paragraph, n.Note, n.Heading)):
                    inls = list(item.inlines)
                elif isinstance(item, n.ListBlock):
                    inls = [i for it in item.items for i in it]
                for inl in inls:
                    if isinstance(inl, n.Ref):
                        target = inl.target.split("#", 1)[0]
                        if target not in self.decls:
                            self.unknown("link target", target, inl.span, self.decls)
                        else:
                            self.uses[target].add("prose")
                if isinstance(item, n.ShowDecl):
                    if item.name not in self.decls:
                        self.unknown("declaration", item.name, item.span, self.decls)
                    else:
                        self.uses[item.name].add("show")

    def check_unused(self) -> None:
        for name, d in self.decls.items():
            if isinstance(d, (n.RecordDecl, n.EnumDecl, n.DieDecl, n.BagDecl)) and not self.uses.get(name):
                self.warn(f"{type(d).__name__.removesuffix('Decl').lower()} '{name}' is never used", d.span, None, "unused")

    # ------------------------------------------------------------------ driver
    def run(self) -> Program:
        self.collect()
        self.check_types()
        self.check_data()
        self.check_procedures()
        examples = self.check_examples()
        self.check_odds()
        self.check_prose()
        self.check_unused()
        return Program(
            rulebook=self.rulebook, modules=self.modules, sources=self.sources, decls=self.decls,
            decl_file=self.decl_file, refs=self.refs, sections=self.sections, front=self.front,
            record_fields=self.record_fields, enum_members=self.enum_members, catalogs=self.catalogs,
            tables=self.tables, rule_params=self.rule_params, expr_types=self.expr_types,
            expr_info=self.expr_info, param_types=self.param_types, result_types=self.result_types,
            examples=examples, uses=dict(self.uses), status=self.status,
        )


def translate(modules: list[n.Module], sources: dict[str, str], reporter: Reporter) -> Program:
    """Resolve and check parsed modules.

    Args:
        modules: the rulebook's parsed files, in order.
        sources: file name → text (for diagnostics).
        reporter: receives every error and warning.

    Returns:
        The checked :class:`Program` (usable by emitters only when the
        reporter holds no errors).
    """
    return Translator(modules, sources, reporter).run()


# ---------------------------------------------------------------------- small helpers


_CHAIN = {"+": ("+", "-"), "-": ("+", "-"), "*": ("*",), "and": ("and",), "or": ("or",)}
_OPTIONAL_HINT = "the value may be none: check it first (require x != none, \"…\" or if x != none { … })"


def _referenceable(d) -> bool:
    """Catalogs, and tables keyed by one id, can be the target of ``ref``."""
    if isinstance(d, n.CatalogDecl):
        return True
    return isinstance(d, n.TableDecl) and len(d.keys) == 1 and d.keys[0].type.kind == "id" and d.across is None


def _path(e) -> str | None:
    """``x`` or ``x.f.g`` for names and field chains; None for anything else."""
    if isinstance(e, n.Name):
        return e.name
    if isinstance(e, n.Attr):
        base = _path(e.obj)
        return f"{base}.{e.name}" if base is not None else None
    return None


def _not_none(cond, truth: bool) -> set[str]:
    """Local names that cannot be none when ``cond`` evaluates to ``truth``."""
    if isinstance(cond, n.Binary):
        if cond.op == "and" and truth:
            return _not_none(cond.left, True) | _not_none(cond.right, True)
        if cond.op == "or" and not truth:
            return _not_none(cond.left, False) | _not_none(cond.right, False)
        if cond.op in ("!=", "=="):
            proves = (cond.op == "!=") == truth
            sides = (cond.left, cond.right)
            if proves and any(isinstance(x, n.NoneLit) for x in sides):
                return {p for x in sides if (p := _path(x)) is not None}
    if isinstance(cond, n.Unary) and cond.op == "not":
        return _not_none(cond.operand, not truth)
    return set()


def _hint(name: str, candidates) -> str | None:
    g = did_you_mean(name, candidates)
    return f"did you mean '{g}'?" if g else None


def _section_index(sections: list) -> str:
    return f"{len(sections) + 1:02d}"


def _describe_value(v) -> str:
    if isinstance(v, n.VNum):
        return f"the number {v.text or v.value}"
    if isinstance(v, n.VStr):
        return f'the text "{v.value}"'
    if isinstance(v, n.VBool):
        return "true" if v.value else "false"
    if isinstance(v, n.VName):
        return f"the name '{v.name}'"
    if isinstance(v, n.VList):
        return "a list"
    if isinstance(v, n.VRecord):
        return "a record"
    if isinstance(v, n.VApply):
        return f"the rule application '{v.name}(…)'"
    if isinstance(v, n.RangeKey):
        return "a range"
    return "an empty value"


def _lo_key(r: n.RangeKey):
    return (float("-inf") if r.lo is None else r.lo, 0 if r.lo_inclusive else 1)


def _fmt_num(x) -> str:
    if isinstance(x, Fraction) and x.denominator != 1:
        return format(float(x), "g")
    return str(int(x)) if isinstance(x, Fraction) else str(x)


def _fmt_range(r: n.RangeKey) -> str:
    lo = "" if r.lo is None else (">" if not r.lo_inclusive else "") + _fmt_num(r.lo)
    hi = "" if r.hi is None else ("<" if not r.hi_inclusive else "") + _fmt_num(r.hi)
    return f"{lo}..{hi}"


def _range_empty(r: n.RangeKey, integer: bool) -> bool:
    if r.lo is None or r.hi is None:
        return False
    if integer:
        lo = _next_int(r.lo) if not r.lo_inclusive else Fraction(r.lo).__ceil__()
        hi = _prev_int(r.hi) if not r.hi_inclusive else Fraction(r.hi).__floor__()
        return lo > hi
    return r.lo > r.hi or (r.lo == r.hi and not (r.lo_inclusive and r.hi_inclusive))


def _range_relation(a: n.RangeKey, b: n.RangeKey, integer: bool) -> str:
    """'ok', 'gap' or 'overlap' between consecutive ranges a (lower) and b."""
    if a.hi is None:
        return "overlap"
    if b.lo is None:
        return "overlap"
    if integer:
        a_hi = a.hi if a.hi_inclusive else _prev_int(a.hi)
        b_lo = b.lo if b.lo_inclusive else _next_int(b.lo)
        a_hi = int(a_hi) if a.hi_inclusive and a.hi == int(a.hi) else (int(Fraction(a_hi).__floor__()) if a.hi_inclusive else a_hi)
        b_lo = int(Fraction(b_lo).__ceil__()) if b.lo_inclusive else b_lo
        if b_lo <= a_hi:
            return "overlap"
        return "ok" if b_lo == a_hi + 1 else "gap"
    if b.lo < a.hi or (b.lo == a.hi and a.hi_inclusive and b.lo_inclusive):
        return "overlap"
    if b.lo == a.hi and (a.hi_inclusive or b.lo_inclusive):
        return "ok"
    return "gap"


def _prev_int(x) -> int:
    f = Fraction(x)
    return int(f) - 1 if f.denominator == 1 else int(f.__floor__())


def _next_int(x) -> int:
    f = Fraction(x)
    return int(f) + 1 if f.denominator == 1 else int(f.__ceil__())
