"""Pass 1 — declarations: every name of the rulebook, where it is, its
annotations, and the sections the prose and declarations fall into.

Entry point: :func:`collect(state)`. Reads the parsed modules; adds to the
state the declaration of each name (duplicates, reserved names and
declarations that failed to parse are reported), its file, manual reference
(``@source`` or the enclosing section and numbered heading), ``@status`` and
``@doc``, the rulebook declaration (its id must not name a Python distribution that
installing the generated package would replace), and the items of each section.
"""

from __future__ import annotations

import re
import unicodedata

from rulebook.rules_dsl import nodes as n
from rulebook.rules_dsl.diagnostics import Span
from rulebook.rules_dsl.parser import KEYWORDS

from rulebook.compiler.support import distributions
from rulebook.compiler.ir.builtins import BUILTINS
from rulebook.compiler.ir.types import PRIMITIVES
from rulebook.compiler.check.state import CheckState, hint

STATUSES = ("active", "deferred", "not_playable")
# Layout hints for the site, all on catalogs (checked by the layout pass).
LAYOUT_ANNOTATIONS = ("datasheet", "cost_field", "cost_modifier")
# Data-contract annotations (checked by the data pass): dangling ids kept as printed; a catalog holding the version history.
CONTRACT_ANNOTATIONS = ("as_printed", "changelog")
# A warning silenced inside one declaration, with the reason; how a record's values are shown;
# typing-only records and enums kept off the player pages; constants and tables repeated on the
# quick-reference page (checked in compiler/check/lints.py).
ALLOW_ANNOTATIONS = ("allow", "display", "internal", "quick_reference")
ANNOTATIONS = ("source", "status", "doc", *LAYOUT_ANNOTATIONS, *CONTRACT_ANNOTATIONS, *ALLOW_ANNOTATIONS)
RESERVED_NAMES = ("id", "rule", "result")
_SLUG = re.compile(r"[^a-z0-9]+")


def slugify(text: str) -> str:
    """ASCII, lower-case, hyphen-separated (page file names)."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return _SLUG.sub("-", plain).strip("-") or "x"


def collect(st: CheckState) -> None:
    """Register every declaration and split the rulebook into sections."""
    front: list = []
    st.section_items.append((None, "", "", front))
    sections = 0
    for mod in st.modules:
        target = front
        heading_num: str | None = None
        in_section: n.SectionDecl | None = None
        previous = None  # the item right above, for `@doc` without text
        for item in mod.items:
            above, previous = previous, item
            if isinstance(item, n.SectionDecl):
                sections += 1
                target = []
                slug = f"{sections:02d}-{slugify(item.title)}"
                st.section_items.append((item, mod.filename, slug, target))
                _ref, status, doc = _annotations(st, item)
                st.section_notes[slug] = (status, doc)
                in_section = item
                heading_num = None
                continue
            if isinstance(item, n.Heading):
                if item.number:
                    heading_num = item.number
                elif item.level <= 3:
                    heading_num = None
                target.append(item)
                continue
            target.append(item)
            if isinstance(item, (n.RulebookDecl, n.ExampleDecl, n.ShowDecl)):
                _annotations(st, item)
            if isinstance(item, n.RulebookDecl):
                if st.rulebook is not None:
                    st.err("a rulebook is declared twice", item.span, f"first declared at {st.rulebook.span}", "duplicate")
                st.rulebook = item
                _check_distribution_name(st, item)
                continue
            name = getattr(item, "name", None)
            if name is None or isinstance(item, (n.ShowDecl, n.ExampleDecl)) or not hasattr(item, "span"):
                continue
            if name in st.ast:
                st.err(f"'{name}' is declared twice", item.span, f"first declared at {st.ast[name].span}", "duplicate")
                continue
            if name in PRIMITIVES or name in BUILTINS or name in RESERVED_NAMES:
                st.err(f"'{name}' is a built-in name and cannot be declared", item.span, None, "reserved")
                continue
            if isinstance(item, n.BrokenDecl):
                st.broken.add(name)
                continue
            if name in KEYWORDS:
                st.reserved(name, "a declaration", item.span, after_keyword=True)
                continue
            st.ast[name] = item
            st.file[name] = mod.filename
            ref, status, doc = _annotations(st, item, above)
            if ref is None:
                ref = (in_section.name + (f".{heading_num}" if heading_num else "")) if in_section is not None else ""
            st.ref[name] = ref
            st.status[name] = status
            st.doc[name] = doc
            st.doc_is_prose[name] = any(a.name == "doc" and a.value is None for a in getattr(item, "annotations", ()))
    if st.rulebook is None and not any(isinstance(i, n.BrokenDecl) and i.keyword == "rulebook" for m in st.modules for i in m.items):
        first = st.modules[0].filename if st.modules else "<rulebook>"
        st.err("no rulebook declaration found", Span(first, 1, 1, 1, 1), 'add a fence with: rulebook <id> "Título" version "1.0" lang "es"', "rulebook")


def _check_distribution_name(st: CheckState, item: n.RulebookDecl) -> None:
    """The rulebook id names the generated Python package and its distribution: not one
    that installing it would replace (pip, the standard library's modules, the tool's own
    dependencies…: :mod:`rulebook.compiler.support.distributions`)."""
    taken = distributions.taken_by(item.name)
    if taken is not None:
        st.err(f"the rulebook id '{item.name}' would name its Python package and distribution '{distributions.normalized(item.name)}', the name of {taken}",
               item.span, f"installing the generated package would replace it (or be hidden by it); choose another id, e.g. {item.name}_rules",
               "rulebook")


def plain_text(inlines) -> str:
    """Prose inlines as plain text (a link shows its target)."""
    return "".join(i.target if isinstance(i, n.Ref) else i.text for i in inlines).strip()


def _annotations(st: CheckState, item, above=None) -> tuple[str | None, str, str | None]:
    """Check an item's annotations; returns its @source, @status and @doc.

    ``@doc`` without text takes the prose paragraph right above the
    declaration (``above``), so the documentation is not written twice."""
    ref = None
    status = "active"
    doc = None
    plain_item = isinstance(item, (n.RulebookDecl, n.ExampleDecl, n.ShowDecl))
    known = ["doc", "status"] if isinstance(item, n.SectionDecl) else ["source", "doc"] if plain_item else list(ANNOTATIONS)
    given: dict[str, n.Annotation] = {}
    for ann in getattr(item, "annotations", ()):
        if ann.name in given and ann.name != "allow":  # one of each: a second would silently replace the first
            st.err(f"@{ann.name} is given twice on this declaration", ann.span, f"keep one (the first is at line {given[ann.name].span.line})", "annotation")
            continue
        given.setdefault(ann.name, ann)
        if ann.name not in known:
            where = f" on {type(item).__name__.removesuffix('Decl').lower()}" if ann.name in ("status", *LAYOUT_ANNOTATIONS) else ""
            st.err(f"unknown annotation '@{ann.name}'{where}", ann.span, hint(ann.name, known) or "known annotations here: " + ", ".join("@" + k for k in known), "annotation")
        elif ann.name == "source":
            if isinstance(ann.value, n.VStr):
                ref = ann.value.value
            else:
                st.err('@source expects a string such as "VI.13"', ann.span, None, "annotation")
        elif ann.name == "status":
            v = ann.value.name if isinstance(ann.value, n.VName) else ann.value.value if isinstance(ann.value, n.VStr) else None
            if v not in STATUSES:
                shown = f"unknown status '{v}'" if v is not None else "@status needs a value"
                st.err(shown, ann.span, (hint(v, STATUSES) if v else None) or "expected one of: " + ", ".join(STATUSES), "annotation")
            else:
                status = v
        elif ann.name == "doc":
            if isinstance(ann.value, n.VStr):
                doc = ann.value.value
            elif ann.value is None and isinstance(above, n.Paragraph):
                doc = plain_text(above.inlines)
            elif ann.value is None:
                st.err(
                    "@doc without text takes the paragraph right above the declaration, and there is none", ann.span,
                    'write the text, @doc "…", or put the declaration right after its paragraph', "annotation",
                )
            else:
                st.err("@doc expects a string", ann.span, None, "annotation")
        elif ann.name in LAYOUT_ANNOTATIONS:
            if not isinstance(item, n.CatalogDecl):
                st.err(f"@{ann.name} applies to catalogs only", ann.span, None, "annotation")
            elif not isinstance(ann.value, n.VStr) or not ann.value.value.strip():
                st.err(f'@{ann.name} expects a string, e.g. @{ann.name} "…"', ann.span, None, "annotation")
    return ref, status, doc
