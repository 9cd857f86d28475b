"""Issue 11's reproductions, each kept as a regression test.

Security (S1 file names, S2 links out of the rulebook), ``check`` failures
(F1 huge literals, F2 a huge list number, F8 in ``tests/data/errors``), hangs
and memory (H1/H2 quadratic regular expressions, string literals, size limits,
rendering many diagnostics), ``resolve`` (R1–R5, with the rest of the hostile
corpus in ``test_hostile_resolve.py``) and build faults (the swap, killed
builds, mkdocs left running, ``-o`` on a file, file-system errors,
``SOURCE_DATE_EPOCH=``). Time limits are hang guards (:mod:`guards`), not
measurements.
"""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA, ROOT
from guards import deadline

SHOOTING = DATA / "python" / "shooting.rules"
HEADER = '```rules\nrulebook t "T"\n```\n\n'


def cli(*args, env=None, preexec_fn=None, timeout=120) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "rulebook.compiler.commands.cli", *args], capture_output=True, text=True, cwd=ROOT,
        env=env, preexec_fn=preexec_fn, timeout=timeout,
    )
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    assert "internal error" not in proc.stderr + proc.stdout, proc.stderr
    return proc


def check_text(tmp_path: Path, text: str, name: str = "a.rules"):
    from rulebook.compiler.pipeline import driver

    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with deadline(what=f"check of {name}"):
        return driver.check(path)


def errors(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.severity == "error"]


def rulebook_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "rb"
    folder.mkdir()
    (folder / "a.rules").write_text(SHOOTING.read_text(encoding="utf-8"), encoding="utf-8")
    return folder


# ---------------------------------------------------------------------------- security

S1_NAME = 'a\nimport os; os.system("touch PWNED")\n#.rules'


@pytest.mark.parametrize("command", ["build", "test", "resolve"])
def test_s1_a_file_name_with_code_is_refused_and_never_run(command, tmp_path):
    folder = rulebook_folder(tmp_path)
    (folder / "a.rules").rename(folder / S1_NAME)
    args = {
        "build": ["build", str(folder), "-o", str(tmp_path / "out"), "--no-site"],
        "test": ["test", str(folder)],
        "resolve": ["resolve", "impacto", "--rulebook", str(folder), "--input", '{"i": 6, "p": 7}', "--exact"],
    }[command]
    proc = subprocess.run([sys.executable, "-m", "rulebook.compiler.commands.cli", *args], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert not (tmp_path / "PWNED").exists()
    out = proc.stdout + proc.stderr
    assert "control character" in out and ("rb/a\\nimport os" in out or "rb/a\\\\nimport os" in out), out  # escaped (twice in JSON)
    assert "Traceback" not in out and "internal error" not in out
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["a\x1b[2J.rules", "r\u202eselur.txt.rules", "tab\there.rules", os.fsdecode(b"bad\xff.rules")])
def test_file_names_with_control_characters_are_refused_and_shown_escaped(name, tmp_path):
    folder = rulebook_folder(tmp_path)
    (folder / "a.rules").rename(folder / name)
    from rulebook.compiler.pipeline import driver
    from rulebook.rules_dsl.diagnostics import render_all

    result = driver.check(folder)
    assert errors(result) == ["this file name contains a control character; such names are not read"]
    shown = render_all(result.diagnostics, result.sources)
    assert all(ch.isprintable() or ch == "\n" for ch in shown), shown
    assert "\\x" in shown or "\\u" in shown or "\\t" in shown


def test_s2_a_link_out_of_the_rulebook_is_refused(tmp_path):
    folder = rulebook_folder(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:SECRET-CONTENT\n", encoding="utf-8")
    (folder / "zz.rules").symlink_to(secret)
    (folder / "dangling.rules").symlink_to(tmp_path / "nowhere")
    proc = cli("build", str(folder), "-o", str(tmp_path / "out"), "--no-site")
    assert proc.returncode == 1
    assert "outside the rulebook folder" in proc.stderr and "leads nowhere" in proc.stderr
    assert not (tmp_path / "out").exists()
    from rulebook.compiler.pipeline import driver

    (folder / "zz.rules").unlink()
    (folder / "dangling.rules").unlink()
    (folder / "b.rules").symlink_to(folder / "a.rules")  # a link inside the rulebook is read
    result = driver.check(folder)
    assert any("declared twice" in m for m in errors(result)), errors(result)


# ---------------------------------------------------------------------------- check

def test_f1_f2_huge_numbers_are_diagnostics(tmp_path):
    result = check_text(tmp_path, '```rules\nrulebook t "T"\n\nconst grande = ' + "9" * 4400 + "\n```\n")
    assert errors(result) == ["this number has 4400 digits; at most 100 are allowed"]
    assert result.diagnostics[0].span.line == 4 and result.diagnostics[0].span.col == 16
    result = check_text(tmp_path, HEADER + "9" * 4301 + ". item\n")  # more than 9 digits: a paragraph, as in CommonMark
    assert result.ok, errors(result)


def test_string_and_name_limits(tmp_path):
    from rulebook.rules_dsl.parser import MAX_NAME_CHARS, MAX_STRING_CHARS

    result = check_text(tmp_path, HEADER + '```rules\n@doc "' + "x" * (MAX_STRING_CHARS + 1) + '"\nconst a = 1\n```\n')
    assert errors(result) == [f"this text has {MAX_STRING_CHARS + 1} characters; at most {MAX_STRING_CHARS} are allowed"]
    result = check_text(tmp_path, HEADER + "```rules\nconst " + "n" * (MAX_NAME_CHARS + 1) + " = 1\n```\n")
    assert errors(result) == [f"this name has {MAX_NAME_CHARS + 1} characters; at most {MAX_NAME_CHARS} are allowed"]


def test_file_and_rulebook_size_limits(tmp_path, monkeypatch):
    from rulebook.compiler.pipeline import driver
    from rulebook.compiler.check import loader

    folder = tmp_path / "big"
    folder.mkdir()
    (folder / "a.rules").write_text(HEADER, encoding="utf-8")
    (folder / "b.rules").write_text(HEADER + "x" * (loader.MAX_FILE_BYTES + 1), encoding="utf-8")
    assert errors(driver.check(folder)) == [f"this file has {loader.MAX_FILE_BYTES + len(HEADER) + 1} bytes; a .rules file may have at most {loader.MAX_FILE_BYTES}"]
    (folder / "b.rules").unlink()
    monkeypatch.setattr(loader, "MAX_RULEBOOK_BYTES", 2 * len(HEADER))
    for name in ("b", "c", "d"):
        (folder / f"{name}.rules").write_text("Texto.\n", encoding="utf-8")
    (folder / "c.rules").write_text(HEADER, encoding="utf-8")
    result = driver.check(folder)
    assert [d.span.file for d in result.diagnostics if "is over" in d.message] == [str((folder / "c.rules").relative_to(tmp_path).as_posix())]


def test_a_file_that_is_not_utf8_is_a_diagnostic_with_its_position(tmp_path):
    from rulebook.compiler.pipeline import driver

    path = tmp_path / "latin1.rules"
    path.write_bytes("línea 1\nseñal ñ\n".encode("latin-1"))
    (d,) = driver.check(path).diagnostics
    assert (d.span.line, d.span.col) == (1, 2) and "not UTF-8" in d.message and "0xed" in d.message


def test_f8_numeric_keys_of_an_id_table_do_not_break_did_you_mean():
    from rulebook.rules_dsl.diagnostics import did_you_mean

    assert did_you_mean("cas", [1, "casa", None, 2.5]) == "casa"
    assert did_you_mean("x" * 10_000, ["x"]) is None  # too long to compare


F3_F4 = """```rules
rulebook t "T\x00x" version "1\x00"
section I "Un\x00o"
```

### 1. Uno\x00

```rules
record R "R\x00" { x: int "x\x00y" }
procedure dados "Dados\x00" () -> R {
  step "Paso\x00" {
    return R(x: roll \u0662d6 + \u0662)
  }
}
```
"""


def test_f3_f4_unicode_digits_and_nul_in_titles_make_python_that_runs(tmp_path):
    from rulebook import runtime
    from rulebook.compiler.pipeline import pyload

    result = check_text(tmp_path, F3_F4)
    assert result.ok, errors(result)
    package = pyload.compile_and_load(result.program)
    dist = runtime.exact(package.PROCEDURES["dados"].function)
    assert sorted({r.x for r in dist.outcomes()}) == list(range(4, 15))
    assert errors(check_text(tmp_path, HEADER + "```rules\nprocedure p () -> int {\n  return roll d\u0666\n}\n```\n")) == ["unknown die 'd\u0666'"]


# ---------------------------------------------------------------------------- hangs and memory

LONG_LINES = {
    "h1_heading_with_20000_hashes": "# a" + "#" * 20_000 + "b",
    "heading_of_200000_hashes_and_spaces": "## " + "# " * 100_000 + "x",
    "h2_200000_open_links": "x " + "[[" * 100_000,
    "200000_unclosed_bold": "**a" * 70_000,
    "200000_unclosed_italics": " *a" * 70_000,
    "200000_backticks": "`a" * 100_000,
    "links_without_end": "[[a " * 50_000,
    "a_200_kb_prose_line": ("palabra **negrita** *cursiva* `code` [[ref]] " * 5_000),
}


@pytest.mark.parametrize("name", sorted(LONG_LINES))
def test_the_prose_scanners_take_linear_time_on_long_lines(name):
    from rulebook.rules_dsl.parser import _prose_blocks

    with deadline(what=name):
        (block,) = _prose_blocks([(1, LONG_LINES[name])], "a.rules")
    assert block.span.line == 1


def test_h2_a_prose_line_over_the_limit_is_refused(tmp_path):
    from rulebook.rules_dsl.parser import MAX_LINE_CHARS

    result = check_text(tmp_path, HEADER + "x " + "[[" * 100_000 + "\n\nTexto.\n")
    assert errors(result) == [f"this line of prose has 200002 characters; at most {MAX_LINE_CHARS} are allowed"]
    assert (result.diagnostics[0].span.line, result.diagnostics[0].span.col) == (5, MAX_LINE_CHARS + 1)


_OLD_INLINE = re.compile(r"\*\*(?P<strong>.+?)\*\*|(?<![\w*])\*(?P<em>[^*\s][^*]*?)\*(?![\w*])|`(?P<code>[^`]+)`|\[\[(?P<ref>[^\]\s]+)\]\]")
_OLD_HEADING = re.compile(r"^(#{1,4})\s+(.*?)\s*#*\s*$")


@settings(max_examples=400, derandomize=True, database=None, deadline=None)
@given(st.text(alphabet="*`[] a_.é\t#1", max_size=16))
def test_the_linear_prose_scanners_read_as_the_regular_expressions_they_replace(line):
    from rulebook.rules_dsl.parser import _HEADING, inline_runs

    assert inline_runs(line) == [(m.start(), m.end(), m.lastgroup, m.group(m.lastgroup)) for m in _OLD_INLINE.finditer(line)]
    stripped = line.strip()
    old, new = _OLD_HEADING.match(stripped), _HEADING.match(stripped)
    assert bool(old) == bool(new)
    if old:
        assert (old.group(1), old.group(2), old.start(2)) == (new.group(1), new.group(2).rstrip("#").rstrip(), new.start(2))


def test_a_string_literal_costs_little_memory(tmp_path):
    from rulebook.rules_dsl.parser import MAX_STRING_CHARS, parse

    parse(HEADER, "warm.rules")  # builds the parser outside the measurement
    text = HEADER + '```rules\n@doc "' + "ñ" * MAX_STRING_CHARS + '"\nconst a = 1\n```\n'
    tracemalloc.start()
    try:
        module, diags = parse(text, "a.rules")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not diags
    assert peak < 10 * len(text.encode("utf-8")), f"{peak} bytes for a {len(text)}-character file"


def test_many_declarations_and_their_20000_warnings(tmp_path):
    from rulebook.rules_dsl.diagnostics import render_all

    text = HEADER + "```rules\n" + "".join(f"const c{i} = {i}\n" for i in range(20_000)) + "```\n"
    result = check_text(tmp_path, text)
    assert len(result.diagnostics) == 20_000
    with deadline(what="rendering 20000 warnings"):
        rendered = render_all(result.diagnostics, result.sources)
    assert rendered.endswith("0 errors, 20000 warnings")


def test_diagnostics_show_control_characters_and_long_lines_safely():
    from rulebook.rules_dsl.diagnostics import SHOWN_COLUMNS, Diagnostic, Span

    source = {"f.rules": "x" * 500 + "\x1b[2J\u202e" + "y" * 500 + "\n"}
    text = Diagnostic("error", "bad \x1b[31m", Span("f.rules", 1, 501, 1, 503), "hint \x07").render(source)
    assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text and "␛[2J" in text
    source_line, caret_line = text.splitlines()[1:3]
    assert len(source_line) < SHOWN_COLUMNS + 20
    assert source_line[caret_line.index("^")] == "␛"


# ---------------------------------------------------------------------------- resolve

def test_r5_an_optional_parameter_left_out_is_none():
    # R1–R4 (huge integers, deep nesting, files not UTF-8 or endless) are cases of
    # tests/data/hostile/resolve_inputs.json; R5 for every procedure is the
    # "required parameters only" case of test_hostile_resolve.py. Here, the
    # issue's own command line:
    proc = cli("resolve", "resolucion_danio", "--exact", "--input", '{"d_normal":1,"m":1,"modo":"preciso"}')
    assert proc.returncode == 0, proc.stdout[-500:]
    assert json.loads(proc.stdout)["distribution"]


# ---------------------------------------------------------------------------- build faults

def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".out."))


def test_o_naming_a_file_or_a_foreign_folder_is_refused(tmp_path):
    from rulebook.compiler.pipeline import driver

    folder = rulebook_folder(tmp_path)
    afile = tmp_path / "notes.txt"
    afile.write_text("mine", encoding="utf-8")
    result = driver.build(folder, afile, site=False)
    assert errors(result) == ["the output path is a file, not a folder; it was left untouched"]
    assert afile.read_text(encoding="utf-8") == "mine" and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "rb"]
    result = driver.build(folder, tmp_path, site=False)  # the folder that holds the rulebook itself
    assert errors(result) == ["this folder holds notes.txt, rb, which a build does not write; it was left untouched"]
    assert (folder / "a.rules").exists() and afile.exists()
    assert not [p for p in tmp_path.parent.iterdir() if p.name.startswith(f".{tmp_path.name}.")]


def test_the_swap_replaces_the_output_and_leaves_nothing_behind(tmp_path):
    from rulebook.compiler.pipeline import driver

    folder, out = rulebook_folder(tmp_path), tmp_path / "out"
    assert driver.build(folder, out, site=False).ok
    (out / "json" / "stale.json").write_text("{}", encoding="utf-8")
    inode = out.stat().st_ino
    assert driver.build(folder, out, site=False).ok
    assert out.stat().st_ino != inode and not (out / "json" / "stale.json").exists()
    assert _leftovers(tmp_path) == []


def test_staging_folders_of_killed_builds_are_cleaned_and_live_ones_kept(tmp_path):
    import fcntl

    from rulebook.compiler.pipeline import driver

    folder, out = rulebook_folder(tmp_path), tmp_path / "out"
    dead = tmp_path / ".out.building-dead"
    (dead / "json").mkdir(parents=True)
    live = tmp_path / ".out.building-live"
    live.mkdir()
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # as a running build holds its staging folder
    try:
        assert driver.build(folder, out, site=False).ok
        assert _leftovers(tmp_path) == [".out.building-live"]
    finally:
        os.close(fd)
    assert driver.build(folder, out, site=False).ok
    assert _leftovers(tmp_path) == []


CRASH_BETWEEN_RENAMES = """
import os, sys
from pathlib import Path
from rulebook.compiler.pipeline import driver
driver._exchange = lambda a, b: False      # as on a system without renameat2
real_rename = os.rename
def rename(src, dst):
    real_rename(src, dst)
    if Path(src).name == "out":            # the previous output just moved away
        os._exit(9)                        # killed before the new one moves in
os.rename = rename
driver.build(Path(sys.argv[1]), Path(sys.argv[2]), site=False)
"""


def test_a_build_killed_between_the_two_renames_is_undone_by_the_next(tmp_path):
    from rulebook.compiler.pipeline import driver

    folder, out = rulebook_folder(tmp_path), tmp_path / "out"
    assert driver.build(folder, out, site=False).ok
    before = _tree(out)
    proc = subprocess.run([sys.executable, "-c", CRASH_BETWEEN_RENAMES, str(folder), str(out)], cwd=ROOT, timeout=120)
    assert proc.returncode == 9 and not out.exists()
    driver._clean_after_killed_builds(out)  # what the next build does first
    assert _tree(out) == before and _leftovers(tmp_path) == []
    assert driver.build(folder, out, site=False).ok and _leftovers(tmp_path) == []


def _children(pid: int) -> set[int]:
    found = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with open(task / "children") as f:
            found |= {int(c) for c in f.read().split()}
    return found


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc to find the mkdocs process")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_build_leaves_no_mkdocs_running_and_its_staging_is_cleaned(sig, tmp_path):
    from rulebook.compiler.pipeline import driver

    folder, out = rulebook_folder(tmp_path), tmp_path / "out"
    build = subprocess.Popen([sys.executable, "-m", "rulebook.compiler.commands.cli", "build", str(folder), "-o", str(out)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    with deadline(60, "waiting for mkdocs to start"):  # (the build's other child, the listings' worker, comes earlier)
        while not (children := {c for c in _children(build.pid) if b"-m\x00mkdocs\x00" in _cmdline(c)}):
            assert build.poll() is None, build.stderr.read()
            time.sleep(0.02)
    children = _children(build.pid)
    build.send_signal(sig)
    build.wait(30)
    assert build.returncode in (-signal.SIGKILL, 128 + signal.SIGTERM), build.returncode
    with deadline(10, "mkdocs ending with its build"):
        while any(_alive(c) for c in children):
            time.sleep(0.05)
    if sig == signal.SIGTERM:
        assert _leftovers(tmp_path) == []
    assert driver.build(folder, out, site=False).ok
    assert _leftovers(tmp_path) == []


def test_a_file_over_the_size_limit_is_a_plain_error(tmp_path):
    import resource

    folder, out = rulebook_folder(tmp_path), tmp_path / "out"
    proc = cli("build", str(folder), "-o", str(out), "--no-site", preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000)))
    assert proc.returncode == 1
    assert "cannot write the build output: File too large" in proc.stderr and str(out) in proc.stderr
    assert not out.exists() and _leftovers(tmp_path) == []


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_file_system_errors_name_the_path_and_the_cause(code, tmp_path, monkeypatch):
    from rulebook.compiler.pipeline import driver

    folder, out = rulebook_folder(tmp_path), tmp_path / "out"

    def failing_write(self, *args, **kwargs):
        raise OSError(code, os.strerror(code), str(self))

    monkeypatch.setattr(Path, "write_text", failing_write)
    result = driver.build(folder, out, site=False)
    (d,) = [d for d in result.diagnostics if d.severity == "error"]
    assert d.message == f"cannot write the build output: {os.strerror(code)}" and d.hint
    assert d.span.file.startswith(str(out) + os.sep), d.span.file  # the path as it would be in the output
    assert not out.exists() and _leftovers(tmp_path) == []


def test_an_empty_source_date_epoch_builds_the_site(tmp_path):
    folder, out = rulebook_folder(tmp_path), tmp_path / "out"
    proc = cli("build", str(folder), "-o", str(out), env={**os.environ, "SOURCE_DATE_EPOCH": ""})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (out / "site" / "index.html").exists()


def test_an_os_error_anywhere_is_a_plain_message(monkeypatch, capsys):
    from rulebook.compiler.commands import cli
    from rulebook.compiler.pipeline import driver

    def refused(path):
        raise PermissionError(errno.EACCES, "Permission denied", "/tmp/elsewhere/x.rules")

    monkeypatch.setattr(driver, "check", refused)
    assert cli.main(["check", "x.rules"]) == 1
    assert capsys.readouterr().err == "error: /tmp/elsewhere/x.rules: Permission denied\n"
