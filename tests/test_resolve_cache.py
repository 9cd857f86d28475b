"""``rulebook resolve`` with its cache of compiled rulebooks, and ``--batch``,
run as a user runs them (subprocesses), each test with its own cache folder
(``XDG_CACHE_HOME``).

Cache: a first call writes one entry; a second one answers from it without
importing the checker; an edited rulebook gets a new entry; a truncated
source, altered bytecode or a missing manifest is rebuilt, never imported; a
cache folder others could write is not used; ``--no-cache`` and
``--clear-cache``. Batch: answers in order, a numbered error line for each bad
line (not JSON, not an object, unknown procedure, invalid input, too long) and
the lines after it answered; sampled answers equal single calls with the same seed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import DATA, ROOT

SMALL = DATA / "cli" / "failing_example.rules"
INPUT = '{"moral": 4}'


@pytest.fixture
def env(tmp_path):
    return {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}


@pytest.fixture
def rulebook(tmp_path):
    folder = tmp_path / "reglas"
    folder.mkdir()
    shutil.copy(SMALL, folder / "reglas.rules")
    return folder


def resolve(env, *args, stdin=None, python_args=()):
    proc = subprocess.run(
        [sys.executable, *python_args, "-m", "rulebook.compiler.commands.cli", "resolve", *args],
        capture_output=True, text=True, cwd=ROOT, env=env, input=stdin, timeout=120,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def written(entry) -> int:
    """When the entry was written (a hit leaves its files alone; inode numbers are reused)."""
    return os.stat(os.path.join(entry.path, "resolve.json")).st_mtime_ns


def entries(env) -> list:
    folder = os.path.join(env["XDG_CACHE_HOME"], "rulebook")
    return sorted((e for e in os.scandir(folder) if not e.name.startswith(".")), key=lambda e: e.name) if os.path.isdir(folder) else []


def exact(env, rulebook, *more):
    proc = resolve(env, "chequeo", "--rulebook", str(rulebook), "--input", INPUT, "--exact", *more)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["distribution"]


def test_first_call_fills_the_cache_and_the_next_answers_without_checking(env, rulebook):
    first = exact(env, rulebook)
    (entry,) = entries(env)
    assert {p.name for p in os.scandir(entry.path)} == {"manifest.json", "python", "resolve.json"}
    stamp = written(entry)
    proc = resolve(env, "chequeo", "--rulebook", str(rulebook), "--input", INPUT, "--exact", python_args=("-X", "importtime"))
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["distribution"] == first
    imported = proc.stderr
    assert "rulebook.compiler.pipeline.cache" in imported
    assert "rulebook.compiler.pipeline.driver" not in imported and "rulebook.compiler.check" not in imported and "lark" not in imported
    (again,) = entries(env)
    assert written(again) == stamp


def test_the_cache_folder_is_private(env, rulebook):
    exact(env, rulebook)
    folder = os.path.join(env["XDG_CACHE_HOME"], "rulebook")
    for dirpath, dirnames, filenames in os.walk(folder):
        assert os.stat(dirpath).st_mode & 0o077 == 0, dirpath
        for name in filenames:
            assert os.stat(os.path.join(dirpath, name)).st_mode & 0o077 == 0, name


def test_an_edited_rulebook_gets_a_new_entry_and_the_new_answer(env, rulebook):
    before = exact(env, rulebook)
    rules = rulebook / "reglas.rules"
    rules.write_text(rules.read_text(encoding="utf-8").replace("tirada + moral >= 7", "tirada + moral >= 8"), encoding="utf-8")
    after = exact(env, rulebook)
    assert after != before
    assert len(entries(env)) == 2


def _entry_file(env, pattern: str):
    (entry,) = entries(env)
    found = sorted((p for p in _walk(entry.path) if p.endswith(pattern)))
    assert found, pattern
    return entry, found[0]


def _walk(folder):
    for dirpath, _, filenames in os.walk(folder):
        for name in filenames:
            yield os.path.join(dirpath, name)


@pytest.mark.parametrize("damage", ["truncated source", "altered bytecode", "missing manifest", "extra file"])
def test_a_damaged_entry_is_rebuilt_not_trusted(env, rulebook, damage):
    good = exact(env, rulebook)
    if damage == "truncated source":
        entry, path = _entry_file(env, "procedures.py")
        with open(path, "r+b") as f:
            f.truncate(os.path.getsize(path) // 2)
    elif damage == "altered bytecode":
        entry, path = _entry_file(env, "procedures.cpython-%d%d.pyc" % sys.version_info[:2])
        data = bytearray(open(path, "rb").read())
        data[-8] ^= 0xFF
        open(path, "wb").write(bytes(data))
    elif damage == "missing manifest":
        entry, path = _entry_file(env, "manifest.json")
        os.unlink(path)
    else:
        entry, path = _entry_file(env, "__init__.py")
        with open(os.path.join(os.path.dirname(path), "evil.py"), "w") as f:
            f.write("raise SystemExit('imported')\n")
    stamp = written(entry)
    assert exact(env, rulebook) == good
    (rebuilt,) = entries(env)
    assert written(rebuilt) != stamp
    assert exact(env, rulebook) == good


def test_a_cache_others_can_write_is_not_used(env, rulebook):
    exact(env, rulebook)
    folder = os.path.join(env["XDG_CACHE_HOME"], "rulebook")
    os.chmod(folder, 0o777)
    proc = resolve(env, "chequeo", "--rulebook", str(rulebook), "--input", INPUT, "--exact")
    assert proc.returncode == 0
    assert "warning: the resolver cache is not used" in proc.stderr and "can be written by other users" in proc.stderr
    assert json.loads(proc.stdout)["distribution"]


def test_no_cache_and_clear_cache(env, rulebook):
    exact(env, rulebook, "--no-cache")
    assert entries(env) == []
    exact(env, rulebook)
    assert len(entries(env)) == 1
    proc = resolve(env, "--clear-cache")
    assert proc.returncode == 0 and "removed" in proc.stderr
    assert not os.path.exists(os.path.join(env["XDG_CACHE_HOME"], "rulebook"))


# ---------------------------------------------------------------------------- --batch


def test_batch_answers_in_order_and_numbers_bad_lines(env, rulebook):
    good = {"procedure": "chequeo", "input": {"moral": 4}}
    lines = [
        json.dumps({**good, "seed": 1}),
        "{not json",
        "",
        json.dumps({**good, "exact": True}),
        "[1, 2]",
        json.dumps({"procedure": "chequeos", "input": {}, "seed": 1}),
        json.dumps({"procedure": "chequeo", "input": {"moral": "alta"}, "seed": 1}),
        json.dumps({**good, "seed": "uno"}),
        json.dumps({**good, "seed": 2, "colour": "red"}),
        json.dumps({**good, "seed": 3}),
    ]
    proc = resolve(env, "--rulebook", str(rulebook), "--batch", stdin="\n".join(lines) + "\n")
    assert proc.returncode == 1  # a line failed
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(out) == 9  # the blank line is skipped
    assert out[0]["seed"] == 1 and "result" in out[0]
    assert out[1]["line"] == 2 and "not valid JSON" in out[1]["error"]
    assert "distribution" in out[2] and out[2]["procedure"] == "chequeo"
    assert out[3] == {"line": 5, "error": out[3]["error"]} and "not a JSON object" in out[3]["error"]
    assert out[4]["line"] == 6 and "did you mean 'chequeo'" in out[4]["error"]
    assert out[5]["line"] == 7 and "$.moral" in out[5]["error"]
    assert out[6]["line"] == 8 and "'seed' must be an integer" in out[6]["error"]
    assert out[7]["line"] == 9 and "unknown field 'colour'" in out[7]["error"]
    assert out[8]["seed"] == 3
    for answer in (out[0], out[8]):
        single = resolve(env, "chequeo", "--rulebook", str(rulebook), "--input", INPUT, "--seed", str(answer["seed"]))
        assert json.loads(single.stdout)["result"] == answer["result"]


def test_batch_bounds_each_line_and_goes_on(env, rulebook):
    long_line = json.dumps({"procedure": "chequeo", "input": {"moral": 4, "x": "ñ" * 600_000}, "seed": 1})
    deep = '{"procedure": "chequeo", "input": ' + "[" * 100 + "]" * 100 + ', "seed": 1}'
    nan = '{"procedure": "chequeo", "input": {"moral": NaN}, "seed": 1}'
    good = json.dumps({"procedure": "chequeo", "input": {"moral": 4}, "seed": 5})
    proc = resolve(env, "--rulebook", str(rulebook), "--batch", stdin="\n".join([long_line, deep, nan, good]))
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [o.get("line") for o in out] == [1, 2, 3, None]
    assert "larger than" in out[0]["error"]
    assert "nested more than" in out[1]["error"]
    assert "NaN" in out[2]["error"]
    assert out[3]["seed"] == 5 and "result" in out[3]


def test_batch_takes_seed_and_exact_from_the_command_line(env, rulebook):
    line = json.dumps({"procedure": "chequeo", "input": {"moral": 4}})
    proc = resolve(env, "--rulebook", str(rulebook), "--batch", "--exact", stdin=line + "\n" + line + "\n")
    assert proc.returncode == 0
    first, second = (json.loads(x) for x in proc.stdout.splitlines())
    assert first == second and "distribution" in first
    proc = resolve(env, "--rulebook", str(rulebook), "--batch", stdin=line)
    assert proc.returncode == 1 and "give --seed" in json.loads(proc.stdout)["error"]


def test_a_warm_entry_runs_its_bytecode_and_a_loaded_build_gets_none(env, rulebook, tmp_path, monkeypatch):
    """Loading a cache entry's package compiles nothing (its checked bytecode is read);
    loading a build's package compiles its sources and writes no ``__pycache__`` beside
    them, even where Python may write bytecode."""
    from pathlib import Path

    from rulebook.compiler.pipeline import pyload

    exact(env, rulebook)
    (entry,) = entries(env)
    compiled: list[str] = []
    compile_source = pyload._Loader.source_to_code
    monkeypatch.setattr(pyload._Loader, "source_to_code",
                        lambda self, data, path, **kw: compiled.append(path) or compile_source(self, data, path, **kw))
    monkeypatch.setattr(pyload, "_COMPILED", {})  # nothing remembered from an earlier load in this process
    assert pyload.load_package(Path(entry.path) / "python").PROCEDURES
    assert compiled == []
    built = tmp_path / "built"
    shutil.copytree(Path(entry.path) / "python", built, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(pyload, "_COMPILED", {})
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert pyload.load_package(built).PROCEDURES
    assert compiled and not list(built.rglob("__pycache__"))
