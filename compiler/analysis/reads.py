"""What each worked example and odds table of a generated package reads: keys to reuse their results.

Reads: the Python files of a generated package (the folder
:func:`rulebook.compiler.pipeline.pyload.load_package` imported it from) and its
``EXAMPLES`` and ``ODDS``. Produces one key per worked example
(:func:`example_keys(package) -> list[str] | None`) and per odds table
(:func:`odds_keys(package) -> list[str] | None`): SHA-256 of every piece of
generated code its result can depend on. Two packages that give an example the
same key compute the same result for it, so ``rulebook serve`` resolves again,
after a data edit, only the examples and tables that read what changed.

How a key is made (over-approximating is safe, missing a dependency is not):

* every module is cut into its top-level statements; a ``def``, a ``class`` or an
  assignment to plain names (a catalog, a die, a registry, an alias) is a
  *definition* of the names it binds; every other statement (imports,
  registrations) is *global*: every key includes it and what it names, as it runs
  on import; so is an assignment of a constant (``LANG``), which the runtime may
  read by name;
* a definition depends on every definition named by any identifier in its text
  (``_d.CATALOG_x`` names ``CATALOG_x``; a name in a string or a comment counts too);
* the elements of the registries ``EXAMPLES``, ``ODDS`` and ``PROCEDURES`` are
  pieces of their own: an example's key covers its element of ``EXAMPLES``, its
  procedure's element of ``PROCEDURES`` (but its :data:`UNREAD` arguments) and
  everything they reach; an odds table's, its element of ``ODDS`` and everything it reaches;
* source positions (``file.rules:LINE``, :data:`POSITION`) and ``CONTENT_HASH`` are
  blanked first: results citing a position are handled by
  :mod:`rulebook.compiler.analysis.evaluations`.

Keys are None when the package's folder no longer holds the files it was loaded
from, or when a module does not parse as expected: callers then resolve again.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

POSITION = re.compile(rb"\.rules:\d+(?::\d+)?")
"""A source position as generated code cites it (``reglamento/02-disparo.rules:148``)."""
_FOLDER = re.compile(rb"[^\s'\"(),]*/([^/\s'\"(),]+\.rules)")
"""A rules file's path as generated code cites it: its folder is left out of procedure keys."""
_CONTENT_HASH = re.compile(rb"^CONTENT_HASH = .*$", re.MULTILINE)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
REGISTRIES = ("EXAMPLES", "ODDS", "PROCEDURES")
UNREAD = frozenset({"schema"})
"""Arguments of a registry element that no example, vector or odds table reads: a procedure's
``schema`` (every catalog's ids, for ``Procedure.convert`` of JSON input, which none of them calls)."""


@dataclass
class _Module:
    """One module cut into pieces: (digest, names bound, identifiers used) per definition,
    the digest of its global statements, and the registries' elements (digest, identifiers)."""

    definitions: list[tuple[str, tuple[str, ...], frozenset[str]]] = field(default_factory=list)
    global_digest: str = ""
    roots: frozenset[str] = frozenset()  # the names its global statements use
    elements: dict[str, dict] = field(default_factory=dict)  # registry → {index or key: (digest, identifiers)}


_LAST: list = [None, (None, None)]
"""The digest of the last package's blanked modules, and its keys."""

_PARSED: dict[str, _Module] = {}
"""Modules by the digest of their blanked text: an edit parses only the modules it changed."""


_ACROSS_BUILDS = [0]
"""How many :func:`across_builds` blocks are open (``rulebook serve`` keeps one open around each build)."""


@contextmanager
def across_builds() -> Iterator[None]:
    """Within this block, keys are worked out from the code (what the module docstring
    says), so that a later package reuses the results of an earlier one. Outside, a
    package's keys are its source hash and the index: one build shares each result
    between the stages that show it, and a one-shot ``rulebook build`` (whose results no
    later build in its process reuses) does not analyse the code."""
    _ACROSS_BUILDS[0] += 1
    try:
        yield
    finally:
        _ACROSS_BUILDS[0] -= 1


def example_keys(package: ModuleType) -> list[str] | None:
    """The key of each worked example of ``package`` (in ``EXAMPLES`` order), or None."""
    return _keys(package)[0]


def odds_keys(package: ModuleType) -> list[str] | None:
    """The key of each odds table of ``package`` (in ``ODDS`` order), or None."""
    return _keys(package)[1]


def _keys(package: ModuleType) -> tuple[list[str] | None, list[str] | None]:
    if not _ACROSS_BUILDS[0]:
        return _own_keys(package)
    kept = getattr(package, "__rulebook_reads__", None)
    if kept is None:
        try:
            kept = _compute(package)
        except (OSError, SyntaxError, ValueError, RecursionError):
            kept = (None, None)
        package.__rulebook_reads__ = kept
    return kept


def _own_keys(package: ModuleType) -> tuple[list[str] | None, list[str] | None]:
    """Keys that hold for ``package`` alone: its source hash and the index (listed once per
    package: each example asks for its key, and listing them each time was quadratic)."""
    source = getattr(package, "__rulebook_source_hash__", None)
    if source is None:
        return None, None
    kept = getattr(package, "__rulebook_own_keys__", None)
    if kept is None or kept[0] != source:
        kept = package.__rulebook_own_keys__ = (source, (
            [f"{source}:example:{i}" for i in range(len(package.examples.EXAMPLES))],
            [f"{source}:odds:{i}" for i in range(len(package.odds.ODDS))]))
    return kept[1]


def procedure_keys(package: ModuleType) -> dict[str, str] | None:
    """The key of each procedure of ``package`` (by name): its element of ``PROCEDURES`` and
    every definition it reaches (the catalogs and tables its code reads), worked out from the
    code whether or not :func:`across_builds` is open, the folder of the rules files left out
    (a copy of the rulebook elsewhere, as ``rulebook diff`` compares, gives the same keys); None when the package's folder no longer
    holds its files. ``rulebook balance`` keeps distributions under these keys, so that a
    cost edit (data no procedure reads) resolves nothing again."""
    kept = getattr(package, "__rulebook_procedure_keys__", None)
    if kept is not None:
        return kept
    source = getattr(package, "__rulebook_source_hash__", None)
    if source is None:
        return None
    files, blanked = hashlib.sha256(), []
    try:
        for path in sorted(Path(package.__file__).parent.glob("*.py")):
            data = path.read_bytes()
            files.update(path.name.encode() + b"\0" + len(data).to_bytes(8, "big") + data)
            blanked.append(_CONTENT_HASH.sub(b"CONTENT_HASH = None", POSITION.sub(b".rules:#", _FOLDER.sub(rb"\1", data))))
        if files.hexdigest() != source:
            return None
        graph = _Graph([_module(data) for data in blanked])
    except (OSError, SyntaxError, ValueError, RecursionError):
        return None
    keys = {}
    for name in package.PROCEDURES:
        key = graph.key(("PROCEDURES", name))
        if key is not None:
            keys[name] = key
    package.__rulebook_procedure_keys__ = keys
    return keys


def _compute(package: ModuleType) -> tuple[list[str] | None, list[str] | None]:
    source = getattr(package, "__rulebook_source_hash__", None)
    if source is None:
        return None, None
    files, blanked = hashlib.sha256(), []
    for path in sorted(Path(package.__file__).parent.glob("*.py")):
        data = path.read_bytes()
        files.update(path.name.encode() + b"\0" + len(data).to_bytes(8, "big") + data)
        blanked.append((path.name, _CONTENT_HASH.sub(b"CONTENT_HASH = None", POSITION.sub(b".rules:#", data))))
    if files.hexdigest() != source:  # the folder is gone or holds other files
        return None, None
    whole = hashlib.sha256(b"".join(name.encode() + b"\0" + hashlib.sha256(data).digest() for name, data in blanked)).digest()
    if _LAST[0] == whole:  # the same code as the last package's (a prose edit): the same keys
        return _LAST[1]
    graph = _Graph([_module(data) for _name, data in blanked])
    examples = [graph.key(("EXAMPLES", i), ("PROCEDURES", ex.procedure)) for i, ex in enumerate(package.examples.EXAMPLES)]
    odds = [graph.key(("ODDS", i)) for i in range(len(package.odds.ODDS))]
    keys = (None if None in examples else examples), (None if None in odds else odds)
    _LAST[:] = [whole, keys]
    return keys


def _module(data: bytes) -> _Module:
    digest = hashlib.sha256(data).hexdigest()
    if digest not in _PARSED:
        if len(_PARSED) > 64:
            _PARSED.clear()
        _PARSED[digest] = _cut(data.decode("utf-8"))
    return _PARSED[digest]


def _cut(text: str) -> _Module:
    """``text`` (a generated module) cut into its pieces: each top-level statement is worked
    out from its own text (:func:`_statements`), remembered by that text, so an edit that
    changes one catalog parses only the statements it changed."""
    module, glob, roots = _Module(), hashlib.sha256(), set()
    for chunk in _chunks(text):
        for chunk_digest, names, scalar, used, registry in _statements(chunk):
            if names is None or scalar:  # run on import, or read by name from outside (LANG): in every key
                glob.update(chunk_digest.encode())
            if names is None:
                roots.update(used)  # what runs on import may read any definition
                continue
            module.definitions.append((chunk_digest, names, used))
            if registry is not None:
                module.elements[names[0]] = registry
    module.global_digest = glob.hexdigest()
    module.roots = frozenset(roots)
    return module


_STARTS = re.compile(r"^(?=[^\s#)\]}])", re.MULTILINE)
"""Where a line may start a top-level statement: at its first column, not a comment, not
a closing bracket (generated code indents everything else; a string that spans lines
at the first column makes a piece that does not parse, and the module is cut whole)."""


def _chunks(text: str) -> list[str]:
    """``text`` cut before each line that may start a top-level statement; a decorator
    keeps what it decorates. Pieces that do not parse alone: the whole text, one piece."""
    starts = [m.start() for m in _STARTS.finditer(text)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    pieces = [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]
    merged: list[str] = []
    for piece in pieces:
        if merged and merged[-1].startswith("@"):
            merged[-1] += piece
        else:
            merged.append(piece)
    try:
        for piece in merged:
            _statements(piece)
    except SyntaxError:
        return [text]
    return merged


_STATEMENTS: dict[str, tuple] = {}
""":func:`_statements` by the text of the piece (bounded: see :func:`_statements`)."""


def _statements(chunk: str) -> tuple:
    """Each top-level statement of ``chunk``: (digest of its text, names it binds or None,
    whether it assigns a constant, the identifiers its text uses, its registry elements
    when it binds one of :data:`REGISTRIES`, else None)."""
    found = _STATEMENTS.get(chunk)
    if found is not None:
        return found
    lines = chunk.splitlines(keepends=True)

    def piece(node: ast.AST) -> str:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
        return "".join(lines[first - 1:node.end_lineno])

    def digest(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()

    out = []
    for node in ast.parse(chunk).body:
        names = _bound(node)
        text = piece(node)
        if names is None:
            used = frozenset() if isinstance(node, (ast.Import, ast.ImportFrom)) or _docstring(node) else frozenset(_IDENTIFIER.findall(text))
        else:
            used = frozenset(_IDENTIFIER.findall(text))
        registry = _elements(node.value, piece, digest) if names is not None and len(names) == 1 and names[0] in REGISTRIES else None  # type: ignore[attr-defined]
        out.append((digest(text), names, names is not None and _scalar(node), used, registry))
    found = tuple(out)
    if len(_STATEMENTS) > 65536:
        _STATEMENTS.clear()
    _STATEMENTS[chunk] = found
    return found


def _bound(node: ast.stmt) -> tuple[str, ...] | None:
    """The names a definition binds (a ``def``, a ``class``, an assignment to plain names);
    None for any other statement."""
    if isinstance(node, _DEFINITIONS):
        return (node.name,)
    if isinstance(node, ast.Assign):
        names: list[str] = []
        for target in node.targets:
            for t in (target.elts if isinstance(target, ast.Tuple) else [target]):
                if not isinstance(t, ast.Name):
                    return None
                names.append(t.id)
        return tuple(names)
    return None


def _scalar(node: ast.stmt) -> bool:
    """An assignment of a constant (``LANG = 'es'``, ``CONST_x = -1``): the runtime may read it
    by name (``language_of`` reads a package's ``LANG``), so every key includes it."""
    value = getattr(node, "value", None)
    if isinstance(value, ast.UnaryOp):
        value = value.operand
    return isinstance(node, ast.Assign) and isinstance(value, ast.Constant)


def _docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)


def _elements(value: ast.expr, piece, digest) -> dict:
    """A registry's elements: a tuple's or list's by index, a dict's by its constant keys
    (each with its key's text); {} for another shape (the registry is then not found)."""
    out: dict = {}
    if isinstance(value, (ast.Tuple, ast.List)):
        for i, elt in enumerate(value.elts):
            text = piece(elt)
            out[i] = (digest(text), frozenset(_IDENTIFIER.findall(text)))
    elif isinstance(value, ast.Dict):
        for k, v in zip(value.keys, value.values):
            if not isinstance(k, ast.Constant):
                return {}
            read = [k, v] if not isinstance(v, ast.Call) else [k, v.func, *v.args, *(kw.value for kw in v.keywords if kw.arg not in UNREAD)]
            out[k.value] = (digest(piece(k) + piece(v)), frozenset(n for part in read for n in _IDENTIFIER.findall(piece(part))))
    return out


class _Graph:
    """The definitions of every module, linked by the names their text uses.

    What a definition reaches is worked out once for all of them, as a bit mask (bit ``i``:
    definition ``i``): the graph's strongly connected components, each with the union of its
    members and of what its successors reach (Tarjan's algorithm finds a component after all
    those it reaches); a key then joins a few masks, and the sorted digests of a mask are
    remembered (the examples of one procedure reach the same definitions)."""

    def __init__(self, modules: list[_Module]) -> None:
        self.digests: list[str] = []
        self.uses: list[frozenset[str]] = []
        self.defining: dict[str, list[int]] = {}
        self.elements: dict[str, dict] = {}
        glob, roots = hashlib.sha256(), set()
        for m in modules:
            glob.update(m.global_digest.encode())
            roots |= m.roots
            for d, names, used in m.definitions:
                for name in names:
                    self.defining.setdefault(name, []).append(len(self.digests))
                self.digests.append(d)
                self.uses.append(used)
            for registry, elements in m.elements.items():
                self.elements.setdefault(registry, {}).update(elements)
        self.global_digest = glob.hexdigest()
        self.masks = _reach_masks([sorted({j for n in used for j in self.defining.get(n, ())}) for used in self.uses])
        self.reached: dict[frozenset[str], int] = {}
        self.sorted_digests: dict[int, bytes] = {}
        self.always = self.closure(frozenset(roots))

    def closure(self, names: frozenset[str]) -> int:
        """The definitions named by ``names``, and everything they name, transitively (a bit mask)."""
        mask = self.reached.get(names)
        if mask is None:
            mask = 0
            for n in names:
                for i in self.defining.get(n, ()):
                    mask |= self.masks[i]
            self.reached[names] = mask
        return mask

    def members(self, mask: int) -> list[int]:
        """The definitions of a bit mask, in index order."""
        bits = bin(mask)[:1:-1]
        out, i = [], bits.find("1")
        while i >= 0:
            out.append(i)
            i = bits.find("1", i + 1)
        return out

    def key(self, *roots: tuple[str, object]) -> str | None:
        """The key of what ``roots`` (registry elements) read; None when one is missing."""
        digest = hashlib.sha256(self.global_digest.encode())
        reached = self.always
        for registry, which in roots:
            element = self.elements.get(registry, {}).get(which)
            if element is None:
                return None
            digest.update(f"{registry}\0{which!r}\0{element[0]}\0".encode())
            reached |= self.closure(element[1])
        text = self.sorted_digests.get(reached)
        if text is None:
            text = self.sorted_digests[reached] = "".join(sorted(self.digests[i] for i in self.members(reached))).encode()
        digest.update(text)
        return digest.hexdigest()


def _reach_masks(edges: list[list[int]]) -> list[int]:
    """For each node of a graph (``edges[i]``: the nodes ``i`` links to), the bit mask of the
    nodes it reaches, itself included: Tarjan's strongly connected components, iteratively."""
    count = len(edges)
    index, low = [-1] * count, [0] * count
    on_stack = [False] * count
    stack: list[int] = []
    component_of = [-1] * count
    component_masks: list[int] = []
    counter = 0
    for start in range(count):
        if index[start] >= 0:
            continue
        work = [(start, 0)]
        while work:
            node, at = work.pop()
            if at == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack[node] = True
            recurse = False
            succ = edges[node]
            while at < len(succ):
                nxt = succ[at]
                at += 1
                if index[nxt] < 0:
                    work.append((node, at))
                    work.append((nxt, 0))
                    recurse = True
                    break
                if on_stack[nxt]:
                    low[node] = min(low[node], index[nxt])
            if recurse:
                continue
            if low[node] == index[node]:  # a component: all it reaches is found already
                members = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    members.append(w)
                    if w == node:
                        break
                number = len(component_masks)
                mask = 0
                for w in members:
                    component_of[w] = number
                    mask |= 1 << w
                for w in members:
                    for nxt in edges[w]:
                        c = component_of[nxt]
                        if c != number:
                            mask |= component_masks[c]
                component_masks.append(mask)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return [component_masks[component_of[i]] for i in range(count)]
