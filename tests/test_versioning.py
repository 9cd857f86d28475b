"""Semantic versions from the diff (issue 25): each edit of a copy of content/1936, built
over the previous build in the same folder, gets the version its change calls for
(README, "Versions"), reported by ``rulebook diff`` with the procedure and step when it
is logic; the version is stamped in the manifest, the Python package and every schema
``$id``; the same content built twice is the same bytes; the JSON output validates
against its published schema."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import CONTENT, replace_loosely

COST = ("02-costes-listas.rules", '  n_infanteria_linea | "Sección Infantería de Línea" | 80 |',
        '  n_infanteria_linea | "Sección Infantería de Línea" | 85 |')
CELL = ("01-escenarios.rules", '(arbustos_linea, 0, 1), (muro, 0, 2)]),', '(arbustos_linea, 0, 1), (muro, 0, 3)]),')
MODIFIER = ("06-disparo.rules", "require municion_disponible >= coste_municion[modo], ", "require municion_disponible >= coste_municion[modo] + 1, ")
OPTIONAL_INPUT = ("06-disparo.rules", '    casco: bool = false\n) -> ResultadoDisparo {\n  step "1. Declara la munición',
                  '    casco: bool = false,\n    nocturno: bool = false\n) -> ResultadoDisparo {\n  step "1. Declara la munición')

STEPS = (
    # (edit, expected version, level, what the diff must report)
    (COST, "1.0.1", "patch", ("data", ("catalogs", "infanteria_nacional", "n_infanteria_linea", "coste"))),
    (CELL, "1.0.2", "patch", ("data", ("tables", "elementos_escenografia", "terreno=llanura", "sectores", "0", "elementos", "3", "maximo"))),
    (MODIFIER, "1.1.0", "minor", ("logic", ("procedures", "disparo_directo", "statements", "7"))),
    (OPTIONAL_INPUT, "1.2.0", "minor", ("logic", ("procedures", "disparo_directo", "params", "nocturno"))),
)


def _edit(folder, edit):
    name, old, new = edit
    path = folder / name
    text = path.read_text(encoding="utf-8")
    path.write_text(replace_loosely(text, old, new), encoding="utf-8")  # the first occurrence, however rulebook fmt aligned it


def _json(path):
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """content/1936 built, then each edit of STEPS built over it into the same folder; a
    copy of each build is kept (builds[i] is after STEPS[:i])."""
    from rulebook.compiler.pipeline import driver

    root = tmp_path_factory.mktemp("versions")
    source, out = root / "1936", root / "out"
    shutil.copytree(CONTENT, source)
    builds = []
    for i, step in enumerate((None,) + STEPS):
        if step is not None:
            _edit(source, step[0])
        result = driver.build(source, out, site=False)
        assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
        shutil.copytree(out, root / f"v{i}")
        builds.append(root / f"v{i}")
    return source, out, builds


def test_an_empty_folder_gets_the_declared_version(history):
    _source, _out, builds = history
    manifest = _json(builds[0] / "json" / "manifest.json")
    assert (manifest["version"], manifest["declared_version"], manifest["previous_version"], manifest["change_level"]) == ("1.0.0", "1.0", None, None)


@pytest.mark.parametrize("index", range(len(STEPS)), ids=[s[1] for s in STEPS])
def test_each_edit_gets_the_version_its_change_calls_for(history, index):
    from rulebook.compiler.commands.diff import diff_rulebooks

    _source, _out, builds = history
    _edit_, version, level, (section, path) = STEPS[index]
    manifest = _json(builds[index + 1] / "json" / "manifest.json")
    assert (manifest["version"], manifest["change_level"]) == (version, level)
    diff = diff_rulebooks(builds[index], builds[index + 1])  # two builds, read as data
    assert diff.level == level and diff.new_version == version
    found = {c.path: c for c in getattr(diff, section)}
    assert path in found, sorted(found)
    assert {c.level for c in diff.data + diff.logic} == {level}


def test_a_logic_change_no_example_covers_is_reported_with_its_procedure_and_step(history):
    from rulebook.compiler.commands.diff import diff_rulebooks, render_text

    _source, _out, builds = history
    diff = diff_rulebooks(builds[2], builds[3])
    assert not diff.odds and not diff.examples and not diff.data  # nothing but the logic shows it
    text = render_text(diff)
    assert ("~ [MINOR] procedimiento disparo_directo, paso 2 «2–3. Declara Fuego Preciso o Fuego de Área; comprueba y consume "
            "Munición (Preciso 1, Área 2)»: `require municion_disponible >= coste_municion[modo], ") in text
    assert "`require municion_disponible >= coste_municion[modo] + 1, " in text and "(06-disparo.rules:1062)" in text


def test_the_version_is_stamped_everywhere(history):
    _source, out, builds = history
    last = builds[-1]
    version = STEPS[-1][1]
    manifest = _json(last / "json" / "manifest.json")
    assert manifest["base_uri"].endswith(f"/manual_1936/{version}/")
    for schema_id in manifest["schemas"]:
        assert f"/manual_1936/{version}/schemas/" in schema_id
    package = (last / "python" / "manual_1936" / "__init__.py").read_text(encoding="utf-8")
    assert f"__version__ = '{version}'" in package and f"VERSION = '{version}'" in package
    assert f'version = "{version}"' in (last / "python" / "manual_1936" / "pyproject.toml").read_text(encoding="utf-8")
    history_doc = _json(last / "json" / "changelog.json")
    assert [v["version"] for v in history_doc["versions"]] == ["1.2.0", "1.1.0", "1.0.2", "1.0.1", "1.0.0"]
    page = (last / "docs" / "cambios.md").read_text(encoding="utf-8")
    assert "Versiones publicadas" in page and "1\\.1\\.0 — cambio menor desde 1\\.0\\.2" in page


def test_the_same_content_built_again_is_the_same_bytes(history):
    from rulebook.compiler.pipeline import driver

    source, out, builds = history
    assert driver.build(source, out, site=False).ok  # over its own previous build: the version stays
    for file in sorted(p for p in builds[-1].rglob("*") if p.is_file()):
        assert (out / file.relative_to(builds[-1])).read_bytes() == file.read_bytes(), file


def test_a_removed_procedure_is_major_and_a_base_can_be_given(history, tmp_path):
    from rulebook.compiler.pipeline import driver

    source, _out, builds = history
    copy = tmp_path / "1936"
    shutil.copytree(source, copy)
    _remove_a_procedure(copy)
    out = tmp_path / "out"
    result = driver.build(copy, out, site=False, base=builds[-1])  # an empty folder, counted from --base
    assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
    manifest = _json(out / "json" / "manifest.json")
    assert (manifest["version"], manifest["change_level"], manifest["previous_version"]) == ("2.0.0", "major", "1.2.0")
    entry = _json(out / "json" / "changelog.json")["versions"][0]
    assert any(c["level"] == "major" and c["kind"] == "removed" and "procedimiento coste_de_unidad" in c["label"] for c in entry["changes"])


def _remove_a_procedure(folder):
    """Remove procedure coste_de_unidad (with its examples): only examples call it."""
    import re

    path = next(p for p in folder.glob("*.rules") if "procedure coste_de_unidad " in p.read_text(encoding="utf-8"))
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"(@\w+[^\n]*\n)*procedure coste_de_unidad .*?\n}\n", "", text, count=1, flags=re.S)
    text = re.sub(r"example coste_de_unidad .*?\n}\n", "", text, flags=re.S)
    path.write_text(text, encoding="utf-8")


def test_the_declared_version_wins_when_raised(history, tmp_path):
    from rulebook.compiler.emit.data.changes import next_version

    assert next_version("1.2.0", "2.0", "patch") == "2.0.0"
    assert next_version("1.2.0", "1.0", "patch") == "1.2.1"
    assert next_version("1.2.0", "2ª edición", "patch") == "2ª edición"


def test_a_tampered_previous_build_is_not_trusted(history, tmp_path):
    from rulebook.compiler.pipeline import driver

    source, _out, builds = history
    out = tmp_path / "out"
    shutil.copytree(builds[-1], out)
    logic = out / "json" / "logic.json"
    logic.write_text(logic.read_text(encoding="utf-8").replace('"casco"', '"casco2"'), encoding="utf-8")  # not what its manifest lists
    result = driver.build(source, out, site=False)
    assert result.ok
    warnings = [d.message for d in result.diagnostics if d.severity == "warning" and d.code == "version"]
    assert warnings and "sha256 differs" in warnings[0]
    assert _json(out / "json" / "manifest.json")["version"] == "1.0.0"  # counted from the declared version
    bad = driver.build(source, tmp_path / "other", site=False, base=out)  # the build just made is fine…
    assert bad.ok
    shutil.rmtree(out / "json")
    bad = driver.build(source, tmp_path / "third", site=False, base=out)  # …a base that is no rulebook is an error
    assert not bad.ok and any("base version cannot be used" in d.message for d in bad.diagnostics)


def test_the_json_output_validates_against_its_published_schema(history, capsys):
    from jsonschema import Draft202012Validator

    from rulebook.compiler.commands.cli import main
    from rulebook.compiler.emit.data.changes import diff_schema

    _source, _out, builds = history
    published = _json(builds[-1] / "schemas" / "diff.schema.json")
    assert {k: v for k, v in published.items() if k not in ("$id", "description", "title", "$schema")}.keys() >= {"properties", "$defs"}
    for old, new in ((builds[0], builds[1]), (builds[2], builds[4]), (CONTENT, builds[1])):
        assert main(["diff", str(old), str(new), "--format", "json"]) == 1
        doc = json.loads(capsys.readouterr().out)
        for schema in (diff_schema(), published):
            errors = list(Draft202012Validator(schema).iter_errors(doc))
            assert not errors, errors[0].message
    assert main(["diff", str(builds[1]), str(builds[1]), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["level"] is None
