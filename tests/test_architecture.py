"""The compiler's shape, checked: emitters read only the IR, the modules of
``compiler/`` import each other without cycles, no table is keyed by ``id()``,
and the built-in functions have one source (documented in LANGUAGE.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMPILER = ROOT / "compiler"


def _modules() -> dict[str, ast.Module]:
    """rulebook.compiler.<dotted name> → parsed source, for every module of the package."""
    out = {}
    for path in sorted(COMPILER.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        name = ".".join(("rulebook", *rel.parts)).removesuffix(".__init__")
        out[name] = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return out


def _imports(name: str, tree: ast.Module, is_package: bool) -> set[str]:
    """Absolute names of the modules ``name`` imports (anywhere in the file)."""
    package = name if is_package else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            out.add(prefix)
            out |= {f"{prefix}.{a.name}" for a in node.names}
    return out


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    mods = _modules()
    packages = {name for name in mods if (ROOT / name.removeprefix("rulebook.").replace(".", "/") / "__init__.py").exists()}
    return {name: {i for i in _imports(name, tree, name in packages) if i in mods and i != name} for name, tree in mods.items()}


# The stages of compiler/, lowest first. A module may import its own stage and the
# stages its entry names; ``support`` (no rulebook knowledge) is open to all.
# commands → pipeline → emit → analysis → ir ← check; lsp reads check and ir; format reads check.
ALLOWED = {
    "support": set(),
    "ir": {"support"},
    "check": {"ir", "support"},
    "analysis": {"ir", "support"},
    "emit.python": {"analysis", "ir", "support"},
    "emit.data": {"analysis", "ir", "support"},
    "emit.js": {"emit.data", "analysis", "ir", "support"},  # the JS package checks inputs against the data's schemas
    # the site shows the data (army documents) and its army builder runs the JS package's army module
    "emit.site": {"emit.data", "emit.js", "analysis", "ir", "support"},
    "pipeline": {"emit.python", "emit.data", "emit.js", "emit.site", "analysis", "check", "ir", "support"},
    "format": {"check", "ir", "support"},
    "lsp": {"check", "ir", "support", "format"},
    "commands": {"pipeline", "lsp", "format", "emit.python", "emit.data", "emit.js", "emit.site", "analysis", "check", "ir", "support"},
}


# Single modules a stage may read beyond its stages: the site's data page names the
# generated package as Python imports it (the one door from a rules name to Python).
ALLOWED_MODULES = {("emit.site", "rulebook.compiler.emit.python.names")}


def _stage(module: str) -> str:
    """rulebook.compiler.emit.site.to_pages → 'emit.site'; the package itself → ''."""
    parts = module.removeprefix("rulebook.compiler").lstrip(".").split(".")
    if parts[0] == "emit" and len(parts) > 1:
        return "emit." + parts[1]
    return parts[0]


def test_every_module_of_the_compiler_belongs_to_a_stage(graph):
    loose = sorted(m for m in graph if m != "rulebook.compiler" and _stage(m) not in ALLOWED and _stage(m) != "emit")
    assert loose == [], "modules outside the stage packages: " + ", ".join(loose)


def test_stages_import_only_the_stages_below_them(graph):
    wrong = []
    for module, imported in sorted(graph.items()):
        here = _stage(module)
        for other in sorted(imported):
            there = _stage(other)
            if there in ("", "emit") or there == here:
                continue
            if there not in ALLOWED.get(here, set()) and (here, other) not in ALLOWED_MODULES:
                wrong.append(f"{module} imports {other} ({here} → {there})")
    assert wrong == []


def test_nothing_outside_the_compiler_imports_it():
    """The runtime (copied into every generated package) and the language's own
    package import nothing of the compiler."""
    for folder in ("runtime", "rules_dsl"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = ".".join(("rulebook", *path.relative_to(ROOT).with_suffix("").parts))
            imported = _imports(name, ast.parse(path.read_text(encoding="utf-8")), path.name == "__init__.py")
            assert not {i for i in imported if i.startswith("rulebook.compiler")}, path


def test_emitters_and_analyses_never_read_the_ast():
    """The IR is what emitters and analyses read: no module of ir, analysis or emit imports
    the AST's nodes or the parser (the checker is the only way from one to the other)."""
    readers = []
    for module, tree in _modules().items():
        if _stage(module).startswith(("emit", "analysis", "ir")):
            is_package = (ROOT / module.removeprefix("rulebook.").replace(".", "/") / "__init__.py").exists()
            names = _imports(module, tree, is_package)
            readers += [f"{module} imports {i}" for i in sorted(names)
                        if i.startswith("rulebook.rules_dsl.nodes") or i.startswith("rulebook.rules_dsl.parser")
                        or i.startswith("rulebook.compiler.check")]
    assert readers == []


def test_every_stage_package_says_what_it_reads_and_produces():
    for init in sorted(COMPILER.rglob("__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert "Reads" in doc and "Produces" in doc, f"{init.relative_to(ROOT)}: its docstring says what it reads and produces"


def test_modules_and_classes_stay_small():
    """No module of the compiler or of the language's package over ~1,000 lines, no class over ~400."""
    big = []
    for path in sorted([*COMPILER.rglob("*.py"), *(ROOT / "rules_dsl").rglob("*.py")]):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > 1050:
            big.append(f"{path.relative_to(ROOT)}: {text.count(chr(10))} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > 420:
                big.append(f"{path.relative_to(ROOT)}: class {node.name} {node.end_lineno - node.lineno + 1} lines")
    assert big == []


def test_no_import_cycle_in_compiler(graph):
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
                pytest.fail("import cycle: " + " → ".join(cycle))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])


def test_no_table_keyed_by_object_identity():
    for path in sorted(COMPILER.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "id"]
        assert not calls, f"{path.name}:{calls[0].lineno} uses id()"


def test_builtins_have_one_source_and_are_documented():
    from rulebook.compiler.ir.builtins import BUILTINS

    language = (ROOT / "rules_dsl" / "LANGUAGE.md").read_text(encoding="utf-8")
    for name in BUILTINS:
        assert f"`{name}(" in language, f"LANGUAGE.md does not document {name}()"
    sources = [p for p in COMPILER.rglob("*.py") if p.name != "builtins.py"]
    for p in sources:
        text = p.read_text(encoding="utf-8")
        assert '"capped_sum", "len"' not in text and "BUILTINS = {" not in text, f"{p.name} keeps its own list of built-ins"


def test_the_checker_is_a_package_of_passes():
    from rulebook.compiler import check

    assert len(check.PASSES) >= 8
    for run in check.PASSES:
        assert run.__doc__, f"{run.__module__}.{run.__name__} has no docstring"
        module = __import__(run.__module__, fromlist=["_"])
        assert module.__doc__ and "Entry point" in module.__doc__, run.__module__


def test_the_lexer_highlights_exactly_the_builtins():
    """The Pygments lexer (in rules_dsl, which must not import the compiler) keeps
    its own tuple of built-in names; it must match the table, plus ``outcomes``
    (a word of odds tables, not a function of expressions)."""
    from rulebook.compiler.ir.builtins import BUILTINS
    from rulebook.rules_dsl.pygments_lexer import BUILTINS as LEXER_BUILTINS

    assert set(LEXER_BUILTINS) == set(BUILTINS) | {"outcomes"}


def test_no_eval_or_exec_in_the_compiler_or_the_runtime():
    for folder in (COMPILER, ROOT / "runtime", ROOT / "rules_dsl"):
        for path in sorted(folder.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("eval", "exec")]
            assert not calls, f"{path.relative_to(ROOT)}:{calls[0].lineno} calls {calls[0].func.id}()"


def test_the_graph_sees_the_imports(graph):
    """The cycle check reads real edges: names in the graph match what modules import."""
    assert "rulebook.compiler.ir" in graph["rulebook.compiler.emit.python.to_python"]
    assert len(graph) > 30 and sum(len(edges) for edges in graph.values()) > 50


def test_every_import_of_the_project_goes_through_the_rulebook_namespace():
    """``compiler``, ``runtime`` and ``rules_dsl`` are installed as ``rulebook.*`` only:
    an absolute import of the bare name would load a second copy (or fail once installed)."""
    not_sources = {".git", ".venv", "venv", "node_modules", "build", "__pycache__"}
    bare = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if not_sources & set(path.relative_to(ROOT).parts) or rel.startswith("tests/data/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else [])
            bare += [f"{rel}:{node.lineno}: {name}" for name in names if name.split(".")[0] in ("compiler", "runtime", "rules_dsl")]
    assert bare == []
