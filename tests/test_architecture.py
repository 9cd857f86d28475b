"""The compiler's shape, checked: emitters read only the IR, the modules of
``compiler/`` import each other without cycles, no table is keyed by ``id()``,
and the built-in functions have one source (documented in LANGUAGE.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMPILER = ROOT / "compiler"
EMITTERS = ("to_python", "to_json", "schemas", "to_pages", "markdown", "odds", "examples")


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


@pytest.mark.parametrize("emitter", EMITTERS)
def test_emitters_do_not_import_the_ast(emitter):
    tree = ast.parse((COMPILER / f"{emitter}.py").read_text(encoding="utf-8"))
    imported = _imports(f"rulebook.compiler.{emitter}", tree, False)
    assert not {i for i in imported if i.startswith("rulebook.rules_dsl.nodes") or i == "rulebook.rules_dsl.parser"}, imported
    assert "rulebook.compiler.check" not in imported


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
    from rulebook.compiler.builtins import BUILTINS

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
    from rulebook.compiler.builtins import BUILTINS
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
    assert "rulebook.compiler.ir" in graph["rulebook.compiler.to_python"]
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
