"""A build does not depend on where it is written.

The smallest bundled rulebook is built, with its site, by ``rulebook build <rulebook> -o
<folder>`` into two folders whose paths differ in length, depth and names (one with a space
and an accent); every file of the two builds is the same, byte for byte (the data page used
to repeat the output folder in its commands), and no file of either build holds the
absolute path of its output folder, of the temporary folder above them, of the rulebook's
folder or of the repository.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from conftest import ROOT


def _smallest_bundled_rulebook() -> Path:
    folders = [p for p in (ROOT / "content").iterdir() if p.is_dir() and any(p.glob("*.rules"))]
    return min(folders, key=lambda p: sum(f.stat().st_size for f in p.glob("*.rules")))


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _first_difference(a: bytes, b: bytes) -> str:
    """Line number and both lines where ``a`` and ``b`` first differ."""
    lines_a, lines_b = a.splitlines(), b.splitlines()
    for number, (x, y) in enumerate(zip(lines_a, lines_b), 1):
        if x != y:
            return f"line {number}:\n  {x[:300]!r}\n  {y[:300]!r}"
    return f"line {min(len(lines_a), len(lines_b)) + 1}: one file ends there"


def test_two_builds_in_different_folders_are_the_same_bytes(tmp_path, monkeypatch, capsys):
    from rulebook.compiler.commands import cli

    rulebook = _smallest_bundled_rulebook()
    near = tmp_path / "a"
    far = tmp_path / "una carpeta mucho más larga" / "y otra dentro" / "salida"
    monkeypatch.chdir(tmp_path)  # as typed: one output folder relative to the working folder, one absolute
    for out in (near.relative_to(tmp_path), far):
        assert cli.main(["build", str(rulebook), "-o", str(out)]) == 0, capsys.readouterr().err[-3000:]
    built_near, built_far = _tree(near), _tree(far)
    assert (near / "site" / "index.html").is_file() and (near / "docs").is_dir()
    assert sorted(built_near) == sorted(built_far)
    for name in sorted(built_near):
        if built_near[name] != built_far[name]:
            raise AssertionError(f"{name} differs between the two builds, first at {_first_difference(built_near[name], built_far[name])}")

    for out, built in ((near, built_near), (far, built_far)):
        paths = {str(out), str(out.resolve()), str(tmp_path.resolve()), str(rulebook.resolve()), str(ROOT.resolve())}
        needles = {form for path in paths for form in (path, quote(path), path.replace(" ", "%20"))}
        holding = sorted(name for name, data in built.items() if any(needle.encode("utf-8") in data for needle in needles))
        assert holding == [], f"files of {out} that hold an absolute path of the machine: {holding[:10]}"
