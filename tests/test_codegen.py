"""Generated Python: golden files, compile(), import, and byte-identical rebuilds.

tests/data/python/<case>.rules → <case>.py holds the expected procedures
module (the fast resolvers) and <case>.traced.py the expected traced twins
(``pytest --update-goldens`` rewrites them).
"""

from __future__ import annotations

import ast

import pytest

from conftest import DATA, ROOT, compare_golden

CASES = sorted((DATA / "python").glob("*.rules"))


def generate(path):
    from rulebook.compiler.pipeline import driver
    from rulebook.compiler.emit.python import to_python

    result = driver.check(path)
    assert result.ok, [d.render(result.sources) for d in result.diagnostics]
    return result.program, to_python.generate(result.program)


@pytest.mark.parametrize("module", ["procedures", "traced"])
@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_golden_procedures(case, module, update_goldens):
    _, files = generate(case)
    text = next(text for name, text in files.items() if name.endswith(f"/{module}.py"))
    golden = case.with_suffix(".py") if module == "procedures" else case.with_suffix(f".{module}.py")
    compare_golden(text, golden, update_goldens)


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_generated_modules_compile_and_are_stable(case):
    _, first = generate(case)
    _, second = generate(case)
    assert first == second
    for name, text in first.items():
        compile(text, name, "exec")
        tree = ast.parse(text)
        imported = {a.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module}
        imported -= {"__future__"}  # annotations, for type checkers only: a directive, not a dependency
        assert not imported, f"{name} imports {imported}: generated code imports only its package (and its _runtime)"
        calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert not calls & {"eval", "exec", "compile", "__import__"}


def test_bundled_rulebook_modules_compile(program):
    from rulebook.compiler.emit.python import to_python

    for name, text in to_python.generate(program).items():
        compile(text, name, "exec")


MAX_LINE = 120


def _long_lines(files: dict[str, str]) -> list[str]:
    """Generated lines over MAX_LINE characters."""
    return [f"{name}:{number}: {len(line)} characters"
            for name, text in files.items() for number, line in enumerate(text.splitlines(), 1) if len(line) > MAX_LINE]


@pytest.mark.parametrize("rulebook", ["1936", "napoleonico", "tercios"])
def test_bundled_rulebook_lines_are_short(rulebook):
    """Every file the build generates in the package (its modules, data.py's long catalog
    entries included, and pyproject.toml; not the vendored copy of the runtime)."""
    from rulebook.compiler.emit.python import to_project, to_python
    from rulebook.compiler.pipeline import driver

    result = driver.check(ROOT / "content" / rulebook)
    assert result.ok
    pkg = to_python.package_name(result.program)
    files = to_python.generate(result.program)
    project = to_project.project_files(result.program, pkg)
    files |= {rel: data.decode("utf-8") for rel, data in project.items() if not rel.startswith(f"{pkg}/{to_project.VENDORED}/")}
    assert f"{pkg}/data.py" in files and f"{pkg}/pyproject.toml" in files
    assert _long_lines(files) == []


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_generated_lines_are_short(case):
    _, files = generate(case)
    assert _long_lines(files) == []


def test_long_expressions_are_broken_at_top_level_commas_and_operators():
    from rulebook.compiler.emit.python.layout import Chain, Group, Seq, Text
    from rulebook.compiler.emit.python.writer import Writer

    w = Writer()
    w.level = 1
    terms = tuple(("+", Group("_rt.lookup", (f"_d.TABLE_t{i}", "clave", Text("t"), f"_SRC[{i}]"))) for i in range(4))
    w.code(Seq(("return ", Group("ctx.leave", (Chain("base", terms),)))))
    assert w.lines == [
        "    return ctx.leave(",
        "        base",
        "        + _rt.lookup(_d.TABLE_t0, clave, 't', _SRC[0])",
        "        + _rt.lookup(_d.TABLE_t1, clave, 't', _SRC[1])",
        "        + _rt.lookup(_d.TABLE_t2, clave, 't', _SRC[2])",
        "        + _rt.lookup(_d.TABLE_t3, clave, 't', _SRC[3])",
        "    )",
    ]
    text = "palabra «ñ» 'x' \"y\" \\ " * 12 + "z" * 300 + "\n" * 3
    w = Writer()
    w.code(Group("f", (Text(text), "x")))
    assert all(len(line) <= 120 for line in w.lines)
    call = ast.parse("\n".join(w.lines)).body[0].value
    assert call.args[0].value == text


def test_long_words_of_comments_and_docstrings_are_cut_between_escapes():
    """Rules text with a word longer than a line (escapes, quotes, non-ASCII letters) goes
    into a docstring and a comment in lines that fit; the docstring still compiles, and
    holds the text but for its line breaks (at spaces, or inside the long word)."""
    from rulebook.compiler.emit.python.layout import Seq, Text
    from rulebook.compiler.emit.python.writer import Writer

    word = "«ñ»\x01\\\"'" * 40
    w = Writer()
    w.line("def f():")
    w.indent()
    w.docstring([f"Título {word} fin."])
    w.comment(f"nota {word}")
    w.code(Seq((Text("x"), ",")), note=word)  # too long to follow the code: above it
    w.outdent()
    assert all(len(line) <= MAX_LINE for line in w.lines)
    assert w.lines[-1] == "    'x',"
    function = ast.parse("\n".join(w.lines)).body[0]
    docstring = ast.get_docstring(function, clean=False)
    assert docstring.count("\n") > 2 and docstring.replace("\n    ", "").replace(" ", "") == f"Título{word}fin."


def test_source_positions_are_written_once_per_module(program):
    from rulebook.compiler.emit.python import to_python

    for name, text in to_python.generate(program).items():
        if name.endswith(("/procedures.py", "/examples.py", "/odds.py")):
            cited = [line for line in text.splitlines() if ".rules:" in line and not line.startswith("#")]
            table = [line for line in cited if line.startswith("    '") and line.rstrip().split("  # ")[-1].isdigit()]
            docstrings = [line for line in cited if "Generated from" in line]
            assert len(cited) == len(table) + len(docstrings), name


def test_generated_package_runs(tmp_path):
    from rulebook import runtime
    from rulebook.compiler.pipeline import pyload

    program, _ = generate(DATA / "python" / "shooting.rules")
    pkg = pyload.compile_and_load(program)
    proc = pkg.PROCEDURES["impacto"]
    dist = runtime.exact(proc.function, **proc.convert({"i": 6, "p": 7, "calidad": "regular"}))
    assert dist.probability(lambda r: r.impacto) == runtime.Fraction(1, 3)
    # names that are Python keywords or not identifiers survive mangling
    assert pkg.data.CATALOG_perfiles["19k"].x_636c617373 == 1
    assert runtime.to_jsonable(pkg.data.CATALOG_perfiles["19k"])["class"] == 1
    varios = pkg.PROCEDURES["varios"].function
    d = runtime.exact(varios, cm=30, perfil="19k", n=2)
    assert sum(p for _, p in d.items()) == 1
    assert min(d) == -3 + 2 + 3 + 4 + 0 + 0 + 10 + 1


def test_runtime_error_names_rules_line():
    from rulebook import runtime
    from rulebook.compiler.pipeline import pyload

    program, _ = generate(DATA / "python" / "shooting.rules")
    pkg = pyload.compile_and_load(program)
    with pytest.raises(runtime.RuleError) as exc:
        runtime.sample(pkg.PROCEDURES["varios"].function, seed=1, cm=-5, perfil="pistola", n=1)
    assert "shooting.rules:" in str(exc.value)


def test_name_mangling_is_injective_and_safe():
    import keyword

    from rulebook.compiler.emit.python.names import py_name

    names = ["a", "class", "tamaño", "x_1", "ctx", "print", "_x", "A", "Año", "año", "x_636c617373"]
    mangled = [py_name(n) for n in names]
    assert len(set(mangled)) == len(names)
    for m in mangled:
        assert m.isidentifier() and not keyword.iskeyword(m) and not m.startswith("_")


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_examples_of_each_case_pass(case):
    from rulebook.compiler.pipeline import pyload
    from rulebook.compiler.analysis.examples import run_examples

    program, _ = generate(case)
    results = run_examples(pyload.compile_and_load(program))
    assert results and all(r.ok for r in results), [(r.title, r.failures, r.error) for r in results if not r.ok]


def test_odds_tables_are_computed_by_the_resolvers():
    from fractions import Fraction

    from rulebook.compiler.analysis import odds
    from rulebook.compiler.pipeline import pyload

    program, _ = generate(DATA / "python" / "shooting.rules")
    tables = {t.name: t for t in odds.compute(pyload.compile_and_load(program))}
    hit = tables["tabla_impacto"]
    assert hit.rows == [-3, -2, -1, 0, 1, 2] and hit.columns == ["green", "regular", "veteran", "elite"]
    assert hit.cells[0] == [0, 0, 0, 0]  # I + 2 < P: impossible
    assert hit.cells[2][1] == Fraction(1, 3)  # Regular, I efectivo 6 vs P 7 (the manual's statement)
    assert hit.cells[3][1] == Fraction(2, 3)  # Regular, I = P: 2 dice summing 0 or more
    assert hit.cells[5] == [1, 1, 1, 1]  # automatic
    rolls = tables["tiradas"]
    assert rolls.columns == [-2, -1, 0, 1, 2]
    for row in rolls.cells:
        assert sum(row) == 1


def test_grouped_odds_have_one_grid_per_catalog_entry():
    from fractions import Fraction

    from rulebook.compiler.analysis import odds
    from rulebook.compiler.pipeline import pyload

    program, _ = generate(DATA / "python" / "shooting.rules")
    table = {t.name: t for t in odds.compute(pyload.compile_and_load(program))}["danio_por_perfil"]
    assert table.groups == ["19k", "pistola"] and table.rows == [0, 2]
    assert table.cells[0] == [[Fraction(2, 3)], [1]]  # 4 + d6 >= 7; 6 + d6 >= 7
    assert table.cells[1] == [[Fraction(1, 6)], [Fraction(1, 2)]]
