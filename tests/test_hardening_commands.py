"""Issue 29 (hardening): ``rulebook diff``, ``rulebook roster``, the rulebook id as a
Python distribution name, and what every command prints.

* S1 — ``diff`` reads a build folder as data: its ``python/`` is never imported;
* D1 — a build whose JSON is not of the shape diff reads is one line naming the file, exit 2;
* R1 — a lone surrogate in a roster prints (and validates as JSON) without an internal error;
* R2 — a build given as ``roster --rulebook`` is read as data, checked against the army
  and roster schemas the compiler makes (not the build's copies): one line naming the file, exit 2;
* S2 — a rulebook id that installing its package would replace (pip…) is a check error,
  and the project emitter refuses such a name;
* S3 — control characters of a roster, a build or a rules file never reach the terminal raw
  (one filter, :mod:`rulebook.compiler.support.terminal`, in front of every command).

The commands run in-process (``cli.main``) with their streams captured, under the hang guard.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from conftest import DATA, ROOT
from guards import deadline

SHOOTING = DATA / "python" / "shooting.rules"  # a catalog, a table, odds tables (one grouped) and worked examples
SKIRMISH = DATA / "armies" / "skirmish"
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""A character that drives a terminal (the newline and the tab are let through)."""
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[H\r\nLista válida\u202e\x9b31m"


def run(*argv: object, seconds: float = 20) -> tuple[int, str, str]:
    """``rulebook *argv`` in this process: (exit status, standard output, standard error)."""
    from rulebook.compiler.commands.cli import main

    out, err = io.StringIO(), io.StringIO()
    with deadline(seconds, what=" ".join(map(str, argv))), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    text = out.getvalue() + err.getvalue()
    assert "Traceback" not in text and "internal error" not in text, text[-2000:]
    return code, out.getvalue(), err.getvalue()


def one_line_naming(err: str, path: Path) -> bool:
    return err.count("\n") <= 1 and err.startswith(f"{path}")


def build(tmp_path_factory, source: Path, name: str) -> Path:
    from rulebook.compiler.pipeline import driver

    out = tmp_path_factory.mktemp(name) / "build"
    result = driver.build(source, out, site=False)
    assert result.ok, [d.message for d in result.diagnostics if d.severity == "error"]
    return out


@pytest.fixture(scope="module")
def shooting_build(tmp_path_factory) -> Path:
    return build(tmp_path_factory, SHOOTING, "shooting")


@pytest.fixture(scope="module")
def skirmish_build(tmp_path_factory) -> Path:
    return build(tmp_path_factory, SKIRMISH, "skirmish")


def copy_of(build_dir: Path, tmp_path: Path, name: str = "copy") -> Path:
    target = tmp_path / name
    shutil.copytree(build_dir, target)
    return target


def edit_json(path: Path, change) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    replaced = change(doc)
    doc = doc if replaced is None else replaced
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")


# ---------------------------------------------------------------------------- S1: diff never runs a build's code


EVIL = "import pathlib\npathlib.Path('PWNED').write_text('ran')\n"


def test_s1_diff_of_a_build_folder_never_imports_its_python(tmp_path, monkeypatch, shooting_build):
    monkeypatch.chdir(tmp_path)
    evil = tmp_path / "evilbuild"
    (evil / "json").mkdir(parents=True)
    (evil / "json" / "rulebook.json").write_text("{}", encoding="utf-8")
    (evil / "python" / "evil").mkdir(parents=True)
    (evil / "python" / "evil" / "__init__.py").write_text(EVIL, encoding="utf-8")
    code, out, err = run("diff", evil, evil)
    assert (code, out) == (2, "") and one_line_naming(err, evil / "json" / "rulebook.json"), err
    assert "$: 'version' is a required property" in err  # what is missing
    # with a build's real data beside the same package: compared, and still nothing run
    shutil.rmtree(evil / "json")
    shutil.copytree(shooting_build / "json", evil / "json")
    code, out, err = run("diff", evil, evil)
    assert (code, out.strip()) == (0, "sin cambios"), err
    assert not (tmp_path / "PWNED").exists()
    assert not [m for m in sys.modules if m.endswith("evil")]


def test_builds_are_compared_from_their_data(tmp_path, shooting_build):
    from rulebook.compiler.commands.diff import diff_rulebooks, render_text

    new = copy_of(shooting_build, tmp_path, "new")

    def bundle(b):
        b["version"] = "0.2"
        b["catalogs"]["perfiles"]["entries"]["pistola"]["nombre"] = "Pistolón"
        b["tables"]["dados_calidad"]["rows"][0]["values"]["dados"] = 4
        b["odds"]["tables"]["tabla_impacto"]["cells"][1][0] = "1/7"
        b["odds"]["tables"]["danio_por_perfil"]["cells"][1][0][0] = "1/5"  # grouped: cells[group][row][column]

    def vectors(doc):
        dist = next(v for v in doc["vectors"] if v["procedure"] == "danio_perfil")["distribution"]
        dist[0]["probability"], dist[1]["probability"] = "1/12", "1/4"

    edit_json(new / "json" / "rulebook.json", bundle)
    edit_json(new / "json" / "examples.json", vectors)
    d = diff_rulebooks(shooting_build, new)
    assert {c.path for c in d.data} == {("catalogs", "perfiles", "pistola", "nombre"), ("tables", "dados_calidad", "calidad=green", "dados")}
    assert {c.path for c in d.odds} == {("odds", "tabla_impacto", "-2", "green"), ("odds", "danio_por_perfil", "pistola", "0")}  # no "None" segment
    assert [(c.path[-1], str(c.old), str(c.new)) for c in d.examples] == [("2", "1/6", "1/12"), ("3", "1/6", "1/4")]
    text = render_text(d)
    assert text.startswith("versión 0.1.0 → 0.2: cambio PATCH") and '"Pistola" → "Pistolón"' in text and "Pistola: 1 + d6" in text


def test_a_build_and_its_sources_compare_alike(shooting_build):
    from rulebook.compiler.commands.diff import diff_rulebooks

    assert diff_rulebooks(SHOOTING, shooting_build).empty


def test_a_long_distribution_of_a_build_is_compared_by_its_digest(tmp_path, shooting_build):
    from rulebook.compiler.commands.diff import diff_rulebooks

    old, new = copy_of(shooting_build, tmp_path, "old"), copy_of(shooting_build, tmp_path, "new")
    for folder, digest in ((old, "a"), (new, "b")):  # as a build writes a distribution of more than 100 results
        edit_json(folder / "json" / "examples.json", lambda doc: doc["vectors"][0].update(distribution=None, digest="sha256:" + digest * 64))
    (change,) = diff_rulebooks(old, new).examples
    assert change.label.endswith(": distribución") and change.old.endswith("a" * 64) and change.new.endswith("b" * 64)


# ---------------------------------------------------------------------------- D1: a build of the wrong shape


def _deep(b):
    b["catalogs"]["perfiles"]["entries"]["pistola"]["nombre"] = json.loads("[" * 200 + "]" * 200)


def _set(path: str, value):
    def change(doc):
        *parents, last = path.split("/")
        target = doc
        for p in parents:
            target = target[int(p)] if isinstance(target, list) else target[p]
        target[int(last) if isinstance(target, list) else last] = value
    return change


TAMPERED = {
    "bundle-is-a-list": ("rulebook.json", lambda b: []),
    "no-catalogs": ("rulebook.json", lambda b: b.pop("catalogs") and None),
    "entries-a-list": ("rulebook.json", _set("catalogs/perfiles/entries", [])),
    "row-values-a-list": ("rulebook.json", _set("tables/dados_calidad/rows/0/values", [1])),
    "version-a-number": ("rulebook.json", _set("version", 3)),
    "odds-cell-a-word": ("rulebook.json", _set("odds/tables/tabla_impacto/cells/0/0", "abc")),
    "odds-grid-flat": ("rulebook.json", _set("odds/tables/tabla_impacto/cells", [1, 2])),
    "grouped-odds-two-deep": ("rulebook.json", _set("odds/tables/danio_por_perfil/cells", [["1/2"]])),
    "nested-200-deep": ("rulebook.json", _deep),
    "probability-a-word": ("examples.json", _set("vectors/0/distribution/0/probability", "x")),
    "vectors-an-object": ("examples.json", _set("vectors", {})),
    "NaN": ("rulebook.json", '{"version": NaN}'),
    "1e400": ("rulebook.json", '{"version": 1e400}'),
    "not-json": ("rulebook.json", '{"version": '),
    "not-utf8": ("rulebook.json", b"\xff\xfe{}"),
    "no-examples": ("examples.json", None),
}


@pytest.mark.parametrize("case", sorted(TAMPERED))
def test_d1_a_build_of_the_wrong_shape_is_one_line_naming_the_file(case, tmp_path, shooting_build):
    name, change = TAMPERED[case]
    bad = copy_of(shooting_build, tmp_path)
    file = bad / "json" / name
    if change is None:
        file.unlink()
    elif isinstance(change, bytes):
        file.write_bytes(change)
    elif isinstance(change, str):
        file.write_text(change, encoding="utf-8")
    else:
        edit_json(file, change)
    for argv in (("diff", shooting_build, bad), ("diff", bad, shooting_build, "--format", "json")):
        code, out, err = run(*argv)
        assert (code, out) == (2, "") and one_line_naming(err, file), err


def test_d1_a_bundle_over_the_size_limit_is_refused_before_it_is_read(tmp_path, shooting_build, monkeypatch):
    from rulebook.compiler.commands import diff

    monkeypatch.setattr(diff, "MAX_BUILD_JSON", 1000)
    code, _, err = run("diff", shooting_build, shooting_build)
    assert code == 2 and one_line_naming(err, shooting_build / "json" / "rulebook.json") and "larger than 1,000 bytes" in err


# ---------------------------------------------------------------------------- S3: one filter in front of the terminal


def test_the_filter_shows_controls_as_symbols_and_keeps_json_the_same():
    from rulebook.compiler.support import terminal

    assert terminal.visible("a\x1b[2J\r\n\tb\x9b\ud800") == "a␛[2J␍\n\tb\ufffd\ufffd"
    assert terminal.one_line("a\nb") == "a␊b"
    value = {"k": HOSTILE + "\ud800\u2028\x7f"}
    text = terminal.json_safe(json.dumps(value, ensure_ascii=False))
    assert not RAW.search(text) and json.loads(text) == value


def test_s3_diff_prints_a_build_s_texts_as_symbols(tmp_path, shooting_build):
    new = copy_of(shooting_build, tmp_path)
    edit_json(new / "json" / "rulebook.json", _set("version", "0.2" + HOSTILE))
    edit_json(new / "json" / "rulebook.json", _set("catalogs/perfiles/entries/pistola/nombre", HOSTILE))
    code, out, _ = run("diff", shooting_build, new)
    assert code == 1 and not RAW.search(out)  # 1: the two differ
    assert out.splitlines()[0].startswith("versión 0.1.0 → 0.2␛]0;pwned␇␛[2J␛[H␍␊Lista válida\ufffd\ufffd31m: cambio PATCH")
    code, out, _ = run("diff", shooting_build, new, "--format", "json")
    assert code == 1 and not RAW.search(out) and json.loads(out)["new_version"] == "0.2" + HOSTILE


ROSTER = {"format": 1, "rulebook": "skirmish", "army": "patrol", "side": "red", "role": "attacker", "size": "small",
          "units": [{"entry": "riflemen", "quality": "veteran", "models": 7}]}


def write_roster(tmp_path: Path, roster: dict | str, name: str = "roster.json") -> Path:
    path = tmp_path / name
    path.write_text(roster if isinstance(roster, str) else json.dumps(roster), encoding="utf-8")
    return path


def test_s3_roster_print_and_validate_show_a_roster_s_controls_as_symbols(tmp_path, skirmish_build):
    roster = {**ROSTER, "name": HOSTILE, "units": [{"entry": "riflemen" + HOSTILE, "name": HOSTILE}]}
    path = write_roster(tmp_path, roster)
    for argv, status in ((("print",), 0), (("print", "--format", "markdown"), 0), (("validate",), 1), (("validate", "--format", "json"), 1)):
        code, out, err = run("roster", *argv, path, "--rulebook", skirmish_build)
        assert code == status and out and not RAW.search(out + err), (argv, out, err)
    sheet = tmp_path / "sheet.html"
    assert run("roster", "print", path, "--rulebook", skirmish_build, "-o", sheet)[0] == 0
    assert not RAW.search(sheet.read_text(encoding="utf-8"))
    # the rulebook a roster names is echoed when no bundled rulebook has that id: on one line, as symbols
    code, out, err = run("roster", "validate", write_roster(tmp_path, {**ROSTER, "rulebook": "skirmish" + HOSTILE}, "other.json"))
    assert code == 2 and not RAW.search(err) and "'skirmish␛]0;pwned␇" in err
    assert not any(line.startswith("Lista válida") for line in err.splitlines())


IN_A_LINE = "\x1b]0;pwned\x07\x1b[2J\x1b[H\u202e\x9b31m"  # a rules string is one line
HOSTILE_RULES = f"""```rules
rulebook hostil "Hostil {IN_A_LINE}" version "1{IN_A_LINE}"
section I "S"
enum E {{ a, b }}
procedure p "P" () -> E {{ return E.a }}
example p "Ejemplo {IN_A_LINE}" {{
  given ()
  expect result == E.b
}}
```
"""


def test_s3_check_and_test_show_a_rules_file_s_controls_as_symbols(tmp_path):
    folder = tmp_path / "hostil"
    folder.mkdir()
    (folder / "a.rules").write_text(HOSTILE_RULES.replace("E.b\n", "E.b\n  expect result == E.c\n"), encoding="utf-8")
    for fmt in ("text", "json"):
        code, out, err = run("check", folder, "--format", fmt)
        assert code == 1 and "'c' is not a value of E" in out and not RAW.search(out + err), out + err
    (folder / "a.rules").write_text(HOSTILE_RULES, encoding="utf-8")
    code, out, err = run("test", folder)  # the failing example's title is printed
    assert code == 1 and "Ejemplo ␛]0;pwned␇" in out and not RAW.search(out + err), out + err
    code, out, err = run("test", folder, "--format", "json")
    assert code == 1 and not RAW.search(out + err) and json.loads(out)[0]["title"] == "Ejemplo " + IN_A_LINE


# ---------------------------------------------------------------------------- R1: lone surrogates in a roster


def test_r1_a_lone_surrogate_in_a_roster_is_printed_and_validated(tmp_path, skirmish_build):
    text = json.dumps({**ROSTER, "name": "x", "units": [{"entry": "riflemen", "quality": "veteran", "models": 7, "name": "y"}]})
    path = write_roster(tmp_path, text.replace('"x"', '"\\ud800"').replace('"y"', '"a\\udfffb"'))
    for argv in (("print",), ("print", "--format", "markdown"), ("validate",)):
        code, out, _ = run("roster", *argv, path, "--rulebook", skirmish_build)
        assert code in (0, 1) and "\ufffd" in out and not RAW.search(out), argv
    code, out, _ = run("roster", "validate", path, "--rulebook", skirmish_build, "--format", "json")
    assert code in (0, 1) and json.loads(out)["units"][0]["name"] == "a\udfffb"  # escaped, the same JSON


# ---------------------------------------------------------------------------- R2: a tampered build as --rulebook


def _entry_offers_a_missing_option(doc):
    doc["entries"][0]["options"].append("nowhere")


def _option_filed_under_another_key(doc):
    doc["options"]["banner"]["key"] = "flag"


ARMY_TAMPERED = {
    "an-empty-object": lambda doc: {},
    "a-list": lambda doc: [],
    "no-rulebook": lambda doc: doc.pop("rulebook") and None,
    "no-label-legal": lambda doc: doc["labels"].pop("legal") and None,
    "no-messages": lambda doc: doc.pop("messages") and None,
    "entries-of-numbers": _set("entries", [1, 2]),
    "missing-option": _entry_offers_a_missing_option,
    "option-under-another-key": _option_filed_under_another_key,
    "a-cost-of-200-digits": _set("entries/0/cost", 10**200),
    "a-second-army-of-the-same-id": None,
}


@pytest.mark.parametrize("case", sorted(ARMY_TAMPERED))
def test_r2_a_tampered_army_document_is_one_line_naming_it(case, tmp_path, skirmish_build):
    bad = copy_of(skirmish_build, tmp_path)
    army = bad / "json" / "armies" / "patrol.json"
    if ARMY_TAMPERED[case] is None:
        shutil.copy(army, army.with_name("zz.json"))
        army = army.with_name("zz.json")
    else:
        edit_json(army, ARMY_TAMPERED[case])
    for argv in (("validate",), ("validate", "--format", "json"), ("print",)):
        code, out, err = run("roster", *argv, write_roster(tmp_path, ROSTER), "--rulebook", bad)
        assert (code, out) == (2, "") and one_line_naming(err, army), err


def test_r2_the_roster_follows_the_compiler_s_roster_schema_not_the_build_s(tmp_path, skirmish_build):
    bad = copy_of(skirmish_build, tmp_path)
    (bad / "schemas" / "roster.schema.json").write_text("{}", encoding="utf-8")  # lets anything through
    for units in ([5], [{"entry": 5}], [{"entry": "riflemen", "options": "grenades"}]):
        path = write_roster(tmp_path, {**ROSTER, "units": units})
        code, out, err = run("roster", "validate", path, "--rulebook", bad)
        assert (code, out) == (2, "") and err.startswith(f"{path}: error: $.units[0]"), err


def test_r2_a_roster_taking_an_option_40000_times_validates_in_linear_time(tmp_path, skirmish_build):
    bad = copy_of(skirmish_build, tmp_path)

    def troops(doc):  # riflemen are made of troops; banner takes away one the unit does not have, and adds one
        doc["entries"][0]["composition"] = [{"count": 3, "alternatives": ["rifleman"]}]
        doc["entries"][0]["options"].append("banner")
        doc["options"]["banner"].update(remove=["ghost"], add=["rifleman"])

    edit_json(bad / "json" / "armies" / "patrol.json", troops)
    path = write_roster(tmp_path, {**ROSTER, "units": [{"entry": "riflemen", "quality": "veteran", "models": 7, "options": ["banner"] * 40_000}]})
    code, out, _ = run("roster", "validate", path, "--rulebook", bad, seconds=10)  # list.remove over a growing list: minutes
    assert code == 1 and out.count("[option-remove-missing]") == 40_000 and out.count("[option-max]") == 1


def test_r2_units_of_more_than_100000_troops_are_refused(tmp_path, skirmish_build):
    bad = copy_of(skirmish_build, tmp_path)
    edit_json(bad / "json" / "armies" / "patrol.json", _set("entries/0/composition", [{"count": 10**90, "alternatives": ["rifleman"]}]))
    path = write_roster(tmp_path, ROSTER)
    code, out, err = run("roster", "print", path, "--rulebook", bad)
    assert (code, out) == (2, "") and err.startswith(f"{path}: error: the units are made of more than 100,000 troops"), err


@pytest.mark.parametrize("number", ["9007199254740992", "-9007199254740992", "1e300", "NaN", "Infinity"])
def test_roster_numbers_are_those_a_javascript_port_reads_exactly(number, tmp_path, skirmish_build):
    path = write_roster(tmp_path, json.dumps({**ROSTER, "units": []})[:-1] + f', "points": {number}}}')
    code, out, err = run("roster", "validate", path, "--rulebook", skirmish_build)
    assert (code, out) == (2, "") and err.startswith(f"{path}: error: not JSON this program reads: "), err


def test_a_whole_number_written_with_a_decimal_point_is_that_number(tmp_path, skirmish_build):
    path = write_roster(tmp_path, json.dumps(ROSTER).replace('"models": 7', '"models": 7.0'))
    code, out, _ = run("roster", "validate", path, "--rulebook", skirmish_build, "--format", "json")
    assert json.loads(out)["units"][0]["cost"]["base"] == 64 and ": 64.0" not in out


# ---------------------------------------------------------------------------- S2: the rulebook id as a distribution name


@pytest.mark.parametrize("name", ["pip", "Pip", "setuptools", "wheel", "requests", "rulebook", "json", "typing_extensions", "Jinja2", "numpy"])
def test_s2_a_rulebook_id_taken_by_a_distribution_is_a_check_error(name, tmp_path):
    from rulebook.compiler.pipeline import driver

    (tmp_path / "a.rules").write_text(f'```rules\nrulebook {name} "T" version "1.0"\nsection I "S"\n```\n', encoding="utf-8")
    result = driver.check(tmp_path)
    (error,) = [d for d in result.diagnostics if d.severity == "error"]
    assert error.message.startswith(f"the rulebook id '{name}' would name its Python package and distribution ") and error.code == "rulebook"
    assert (error.span.line, error.span.col) == (2, 1) and f"choose another id, e.g. {name}_rules" in error.hint


def test_s2_the_bundled_rulebooks_keep_their_ids():
    from rulebook.compiler.support.distributions import taken_by

    ids = [re.search(r"^rulebook (\w+) ", f.read_text(encoding="utf-8"), re.M) for f in sorted((ROOT / "content").glob("*/00-*.rules"))]
    assert [m.group(1) for m in ids] == ["manual_1936", "cookbook", "napoleonico", "tercios"]
    assert [taken_by(m.group(1)) for m in ids] == [None, None, None, None]


def test_s2_the_project_emitter_never_writes_a_taken_name():
    from types import SimpleNamespace

    from rulebook.compiler.emit.python import to_project

    program = SimpleNamespace(rulebook=SimpleNamespace(name="pip", title="T", version="1.0"))
    for pkg in ("pip", "Setuptools", "rulebook"):
        with pytest.raises(ValueError, match="no project is written for a package named"):
            to_project.project_files(program, pkg)
        with pytest.raises(ValueError):
            to_project.pyproject(program, pkg, [])
    assert 'name = "manual_1936"' in to_project.pyproject(program, "manual_1936", [])


def test_s2_the_tool_s_distributions_are_listed_as_taken():
    """TOOL_DISTRIBUTIONS in step with what the installed tool requires (and that requires…)."""
    from importlib import metadata

    from packaging.requirements import Requirement

    from rulebook.compiler.support.distributions import PACKAGING_TOOLS, TOOL_DISTRIBUTIONS, normalized

    seen, todo = set(), [("rulebook", frozenset())]
    while todo:
        dist, extras = todo.pop()
        for text in metadata.requires(dist) or []:
            req = Requirement(text)
            if req.marker and not any(req.marker.evaluate({"extra": e}) for e in extras | {""}):
                continue
            name = normalized(req.name)
            if name not in seen:
                seen.add(name)
                try:
                    metadata.distribution(name)
                except metadata.PackageNotFoundError:
                    continue
                todo.append((name, frozenset(req.extras)))
    assert seen and "jinja2" in seen
    assert sorted(seen - TOOL_DISTRIBUTIONS - PACKAGING_TOOLS) == []


# ---------------------------------------------------------------------------- fuzzed rosters (tests/fuzz_roster.py)

ROSTER_CASES = 200  # about 10 s on one core; bench/fuzz_roster.py runs thousands


@pytest.fixture(scope="module")
def roster_fuzz(tmp_path_factory, skirmish_build):
    import fuzz_roster

    for folder in fuzz_roster.RULEBOOKS.values():  # the army documents, made once (not counted in the cases' deadline)
        fuzz_roster.armies(folder)
        fuzz_roster.armies(folder.resolve())
    return fuzz_roster, tmp_path_factory.mktemp("fuzz-roster"), skirmish_build


@settings(max_examples=ROSTER_CASES, derandomize=True, database=None, deadline=None, phases=(Phase.explicit, Phase.generate),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture], print_blob=True)
@given(rng=st.randoms(use_true_random=False))
def test_fuzzed_rosters_end_in_a_result_or_a_clear_error(rng, roster_fuzz):
    fuzz_roster, folder, build = roster_fuzz
    data, rulebook, how = fuzz_roster.make_case(rng)
    with deadline(what=how):
        problem = fuzz_roster.failure(data, rulebook, folder, build if rulebook == "skirmish" else None, rng)
    assert problem is None, f"{problem} on {how}\n--- case ---\n{data[:3000]!r}"
