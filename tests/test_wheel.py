"""The tool as a user installs it, and the generated package as a downstream tool installs it.

Marked ``packaging`` (about a minute; CI runs them): a wheel built
from a clean copy of the sources is installed into a fresh virtual environment
(no system site-packages); from an empty folder outside the repository its
``rulebook`` command checks, builds (with the site), tests and resolves the
bundled rulebook, and its RECORD holds everything under ``rulebook/`` and
nothing named ``compiler``, ``runtime`` or ``rules_dsl`` at the top of
site-packages. The generated package of the bundled rulebook is installed with
the README's ``pip install`` line into a second fresh environment holding
nothing else, then imported, resolved and run through the README's snippet
from another folder. All of it happens in temporary folders outside the
repository.

Fast: pyproject.toml names every package folder; the generated project file
parses and carries the rulebook's version; the vendored runtime is the tool's,
byte for byte; the tool runs generated code on its own runtime.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import ROOT

SOURCES = ("compiler", "runtime", "rules_dsl")
DATA = ("site", "content")
INPUT = {"i_base": 6, "m": 0, "p": 7, "calidad": "regular"}


def _env() -> dict[str, str]:
    """The environment of a user's shell: no PYTHONPATH or active venv of the test run."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _run(args: list[str], cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=_env(), timeout=timeout)
    assert proc.returncode == 0, f"{shlex.join(args)} → {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def _fresh_venv(folder: Path) -> Path:
    """A new virtual environment (without the system's packages); its bin folder."""
    _run([sys.executable, "-m", "venv", str(folder)], folder.parent)
    return folder / "bin"


def _readme_section(title: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def _fences(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)


# ---------------------------------------------------------------------------- fast


def test_pyproject_names_every_package_folder():
    """Each folder of the sources with an ``__init__.py`` is a package of the wheel,
    under ``rulebook.``; ``site/`` and ``content/`` are its data packages."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    expected = {f"rulebook.{name}" for name in DATA}
    for top in SOURCES:
        for init in (ROOT / top).rglob("__init__.py"):
            expected.add(".".join(("rulebook", *init.parent.relative_to(ROOT).parts)))
    assert set(config["packages"]) == expected
    assert {name: config["package-dir"][f"rulebook.{name}"] for name in SOURCES + DATA} == {name: name for name in SOURCES + DATA}


def test_the_generated_project_carries_the_version_and_the_runtime(program):
    from rulebook.compiler.emit.python import to_project, to_python

    name = to_python.package_name(program)
    files = to_project.project_files(program, name)
    pkg = to_python.generate(program)
    project = tomllib.loads(files[f"{name}/pyproject.toml"].decode("utf-8"))
    assert project["project"]["name"] == name == "manual_1936"
    assert project["project"]["version"] == program.rulebook.version == "1.0"
    assert project["project"]["dependencies"] == []
    assert project["tool"]["setuptools"]["packages"] == [name, f"{name}._runtime"]
    vendored = {rel.removeprefix(f"{name}/_runtime/"): data for rel, data in files.items() if rel.startswith(f"{name}/_runtime/")}
    source = {p.relative_to(ROOT / "runtime").as_posix(): p.read_bytes() for p in sorted((ROOT / "runtime").rglob("*"))
              if p.is_file() and "__pycache__" not in p.parts and not p.name.startswith(".")}
    assert vendored == source
    init = pkg[f"{name}/__init__.py"]
    assert "from . import _runtime as _rt\n" in init and "\nruntime = _rt" in init
    assert f"__version__ = '1.0'\n" in init and "CONTENT_HASH = 'sha256:" in init


def test_versions_that_pip_would_refuse_become_local_labels():
    from rulebook.compiler.emit.python.to_project import distribution_version

    def version(v):
        return distribution_version(SimpleNamespace(rulebook=SimpleNamespace(version=v)))

    assert [version(v) for v in ("1.0", "2015", "2.1rc1", "2ª edición", "v1 (beta)", "", "¿?")] == [
        "1.0", "2015", "2.1rc1", "0+2a.edicion", "0+v1.beta", "0", "0",
    ]


@pytest.mark.parametrize("title", [
    'Título "con" \\ comillas\x7f\n[tool.evil]\nx = 1',
    'Título largo "con" \\ comillas\x7f\n[tool.evil]\nx = 1 ' * 6 + "«" * 150,  # wrapped: no line over 120
])
def test_a_hostile_title_stays_inside_its_toml_string(title):
    from rulebook.compiler.emit.python.to_project import pyproject

    text = pyproject(SimpleNamespace(rulebook=SimpleNamespace(name="prueba", title=title, version="1.0")), "prueba", ["locale/es.mo"] * 8)
    data = tomllib.loads(text)
    assert set(data) == {"build-system", "project", "tool"} and set(data["tool"]) == {"setuptools"}
    assert data["project"]["description"] == f"Resolvers of «{' '.join(title.split())}», generated by rulebook."
    assert data["tool"]["setuptools"]["package-data"] == {"prueba": ["py.typed"], "prueba._runtime": ["locale/es.mo"] * 8}
    assert max(len(line) for line in text.splitlines()) <= 120


def test_the_tool_runs_generated_code_on_its_own_runtime(package):
    """Loaded by the tool, a generated package uses rulebook.runtime (not its copy), so
    the tool recognises its values and errors."""
    from rulebook import runtime

    assert package._runtime is runtime and package.runtime is runtime
    proc = package.PROCEDURES["resolucion_impacto"]
    with pytest.raises(runtime.RuleError):
        proc.convert({**INPUT, "calidad": "no_existe"})


# ---------------------------------------------------------------------------- slow: real installs


def _wheel_in_fresh_venv(tmp: Path) -> tuple[Path, Path]:
    """The wheel, built from a clean copy of the sources and installed into a fresh
    venv: (its bin folder, its site-packages)."""
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "venv", "build", "*.egg-info", "__pycache__", "node_modules", ".pytest_cache", "tests", "bench"))
    _run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "-w", str(tmp / "dist"), "-q"], tmp)
    (wheel,) = (tmp / "dist").glob("rulebook-*.whl")
    bin_dir = _fresh_venv(tmp / "venv")
    _run([str(bin_dir / "pip"), "install", "-q", str(wheel)], tmp, timeout=600)
    purelib = _run([str(bin_dir / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp).stdout
    return bin_dir, Path(purelib.strip())


def _assert_record_is_under_the_namespace(site_packages: Path) -> None:
    """Everything of the wheel is under rulebook/ (no __init__.py: a namespace), every
    file of the source and data folders is there, nothing else is at the top."""
    (record,) = site_packages.glob("rulebook-*.dist-info/RECORD")
    installed = {line.split(",")[0] for line in record.read_text(encoding="utf-8").splitlines()}
    tops = {path.split("/")[0] for path in installed if not path.startswith("..")}
    assert tops == {"rulebook", record.parent.name}, tops
    assert "rulebook/__init__.py" not in installed
    for folder in SOURCES + DATA:
        files = {p.relative_to(ROOT).as_posix() for p in (ROOT / folder).rglob("*")
                 if p.is_file() and "__pycache__" not in p.parts and not p.name.startswith(".")}
        assert not {f"rulebook/{f}" for f in files} - installed, f"{folder}/ files missing from the wheel"
    assert not any((site_packages / name).exists() for name in SOURCES + DATA)


@pytest.mark.packaging
def test_the_installed_wheel_works_from_an_empty_folder(tmp_path):
    """pip install of the wheel, then check, build (with the site), test and resolve
    the bundled rulebook from a folder that holds nothing."""
    bin_dir, site_packages = _wheel_in_fresh_venv(tmp_path)
    _assert_record_is_under_the_namespace(site_packages)
    rulebook = str(bin_dir / "rulebook")
    empty = tmp_path / "empty"
    empty.mkdir()
    checked = _run([rulebook, "check"], empty)
    assert "0 errors" in checked.stdout + checked.stderr
    _run([rulebook, "build"], empty, timeout=600)
    assert sorted(p.name for p in empty.iterdir()) == ["build"]
    # build/ is the bundled rulebook's build, or holds one folder per bundled rulebook
    builds = {json.loads(m.read_text(encoding="utf-8"))["rulebook"]: m.parent.parent
              for m in (empty / "build").glob("**/json/manifest.json") if (m.parent.parent / "python").is_dir()}
    build = builds["manual_1936"]
    assert (build / "site" / "index.html").is_file() and (build / "site" / "datos.html").is_file()
    manifest = json.loads((build / "json" / "manifest.json").read_text(encoding="utf-8"))
    assert len(manifest["documents"]) > 50
    assert (build / "python" / "manual_1936" / "pyproject.toml").is_file()
    assert (build / "python" / "manual_1936" / "_runtime" / "__init__.py").is_file()  # from the installed package data
    summary = _run([rulebook, "test"], empty).stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"\d+ passed, 0 failed", summary), summary
    out = json.loads(_run([rulebook, "resolve", "resolucion_impacto", "--input", json.dumps(INPUT), "--exact"], empty).stdout)
    assert sum(Fraction(d["probability"]) for d in out["distribution"] if d["outcome"]["impacto"]) == Fraction(1, 3)


@pytest.fixture(scope="module")
def generated_install(program, tmp_path_factory) -> SimpleNamespace:
    """build/python/<rulebook>/ installed with the README's pip line (pip builds its wheel and
    installs it) into a fresh venv that holds nothing else: the venv's bin folder, the
    written project, and an empty folder outside the repository. Shared by the tests that
    run and type-check the installed package (one venv for both)."""
    from rulebook.compiler.emit.python import to_python

    tmp_path = tmp_path_factory.mktemp("generated")
    to_python.write_package(program, tmp_path / "build" / "python")
    bin_dir = _fresh_venv(tmp_path / "venv")
    section = _readme_section("Using the outputs from other programs")
    (line,) = [c for c in _fences(section, "sh")[0].splitlines() if c.startswith("pip install")]
    _run([str(bin_dir / "pip"), *shlex.split(line)[1:], "-q"], tmp_path, timeout=600)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return SimpleNamespace(root=tmp_path, bin=bin_dir, written=tmp_path / "build" / "python", elsewhere=elsewhere)


@pytest.mark.packaging
def test_the_generated_package_installs_alone(program, generated_install):
    """build/python/<rulebook>/ installed with the README's pip line into a fresh venv
    that holds nothing else; imported and resolved from another folder, and the
    README's snippet runs there."""
    from rulebook.compiler.emit.data import to_json

    tmp_path, bin_dir, written = generated_install.root, generated_install.bin, generated_install.written
    section = _readme_section("Using the outputs from other programs")
    packages = {p["name"] for p in json.loads(_run([str(bin_dir / "pip"), "list", "--format", "json"], tmp_path).stdout)}
    assert packages <= {"pip", "setuptools", "manual_1936"} and "manual_1936" in packages
    purelib = _run([str(bin_dir / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp_path).stdout
    (record,) = Path(purelib.strip()).glob("manual_1936-*.dist-info/RECORD")
    installed = {line.split(",")[0] for line in record.read_text(encoding="utf-8").splitlines()}
    package_files = {p.relative_to(written).as_posix() for p in (written / "manual_1936").rglob("*")
                     if p.is_file() and not {"build", "__pycache__"} & set(p.relative_to(written).parts[1:])
                     and ".egg-info" not in p.as_posix() and p.name != "pyproject.toml"}
    assert package_files - installed == set()  # every module, every file of the runtime's copy, py.typed
    assert "manual_1936/py.typed" in installed

    elsewhere = generated_install.elsewhere
    script = (
        "import json, sys\n"
        "import manual_1936\n"
        "from manual_1936 import runtime\n"
        "proc = manual_1936.PROCEDURES['resolucion_impacto']\n"
        f"dist = runtime.exact(proc.function, **proc.convert({INPUT!r}))\n"
        "try:\n"
        f"    proc.convert({{**{INPUT!r}, 'calidad': 'no_existe'}})\n"
        "    error = None\n"
        "except runtime.RuleError as exc:\n"
        "    error = type(exc).__module__\n"
        "print(json.dumps({'version': manual_1936.__version__, 'declared': manual_1936.VERSION,\n"
        "    'hash': manual_1936.CONTENT_HASH, 'hit': str(dist.probability(lambda r: r.impacto)), 'error': error,\n"
        "    'file': manual_1936.__file__, 'tool': sorted(m for m in sys.modules if m.split('.')[0] == 'rulebook')}))\n"
    )
    seen = json.loads(_run([str(bin_dir / "python"), "-c", script], elsewhere).stdout)
    assert seen["version"] == seen["declared"] == program.rulebook.version == "1.0"
    assert seen["hash"] == to_json.content_hash(program)
    assert seen["hit"] == "1/3"
    assert seen["error"] == "manual_1936._runtime.errors"
    assert seen["tool"] == [] and Path(seen["file"]).is_relative_to(tmp_path / "venv")

    (snippet,) = _fences(section, "python")[:1]
    assert not elsewhere.is_relative_to(ROOT)
    assert "1/3" in _run([str(bin_dir / "python"), "-c", snippet], elsewhere).stdout.splitlines()


def _marked_lines(script: Path) -> set[int]:
    return {n for n, line in enumerate(script.read_text(encoding="utf-8").splitlines(), 1) if "  # ERROR:" in line}


@pytest.mark.packaging
def test_a_program_using_the_generated_package_type_checks(generated_install):
    """The generated package is typed (py.typed; resolvers, records and enums annotated): in the
    venv that holds it alone, tests/data/typed/consumer_ok.py and the README's typed snippet run
    and pass ``mypy --strict`` and pyright in strict mode, and each checker reports consumer_wrong.py's mistakes (a bad enum
    value, a misspelt record field, an argument of the wrong type, an unknown catalog id, a
    misspelt field of exact's outcomes) on exactly the lines marked ``# ERROR:``."""
    import importlib.util

    here, python = generated_install.elsewhere, generated_install.bin / "python"
    for name in ("consumer_ok.py", "consumer_wrong.py"):
        shutil.copy(ROOT / "tests" / "data" / "typed" / name, here / name)
    (typed,) = _fences(_readme_section("Using the outputs from other programs"), "python")[1:2]
    (here / "readme_typed.py").write_text(typed, encoding="utf-8")  # the README's typed snippet
    good = ["consumer_ok.py", "readme_typed.py"]
    ran = _run([str(python), "consumer_ok.py"], here).stdout.splitlines()
    assert ran[-1] == "$.calidad: 'elitee' no es un valor de Calidad (green, regular, veteran, elite)"
    assert _run([str(python), "readme_typed.py"], here).stdout.splitlines()[0] in ("True 3", "False 0", "True 0")
    expected = _marked_lines(here / "consumer_wrong.py")
    assert len(expected) == 5
    checked = 0

    if importlib.util.find_spec("mypy") is not None:
        mypy = [sys.executable, "-m", "mypy", "--strict", "--python-executable", str(python), "--no-incremental",
                "--cache-dir", str(here / ".mypy_cache"), "--no-error-summary", "--hide-error-context"]
        _run([*mypy, *good], here)
        wrong = subprocess.run([*mypy, "consumer_wrong.py"], cwd=here, capture_output=True, text=True, env=_env(), timeout=300)
        assert wrong.returncode == 1, wrong.stdout + wrong.stderr
        found = {int(m) for m in re.findall(r"^consumer_wrong\.py:(\d+): error:", wrong.stdout, re.M)}
        assert found == expected, wrong.stdout
        checked += 1

    pyright = ROOT / "tests" / "codegen" / "node_modules" / ".bin" / "pyright"
    if pyright.exists() and shutil.which("node"):
        (here / "pyrightconfig.json").write_text(json.dumps({"typeCheckingMode": "strict"}), encoding="utf-8")
        command = [str(pyright), "--outputjson", "--pythonpath", str(python)]
        ok = json.loads(subprocess.run([*command, *good], cwd=here, capture_output=True, text=True,
                                       env=_env(), timeout=300).stdout)
        assert ok["summary"]["errorCount"] == 0, ok["generalDiagnostics"]
        report = json.loads(subprocess.run([*command, "consumer_wrong.py"], cwd=here, capture_output=True, text=True,
                                           env=_env(), timeout=300).stdout)
        found = {d["range"]["start"]["line"] + 1 for d in report["generalDiagnostics"] if d["severity"] == "error"}
        assert found == expected, report["generalDiagnostics"]
        checked += 1

    if checked < 2:
        pytest.skip("mypy (pip install -e '.[test]') or pyright (npm ci in tests/codegen) is missing: "
                    f"{checked} of 2 type checkers ran")
