"""The loader's folder listing is bounded (``rulebook check /`` walked the whole disk):
past ``loader.MAX_ENTRIES`` files and folders the rulebook folder is not read, and
``rulebook check`` says so in one diagnostic naming the folder and the bound, with a
hint. The bound is lowered here so that the folders stay small.
"""

from __future__ import annotations

from guards import deadline


def _folder(tmp_path, files: int, folders: int):
    book = tmp_path / "disco"
    for i in range(folders):
        (book / "sub" / f"{i:02}").mkdir(parents=True)
    for i in range(files):
        (book / f"{i:02}.rules").write_text("Texto.\n", encoding="utf-8")
    return book


def test_check_of_a_folder_over_the_bound_is_refused_with_one_diagnostic(tmp_path, monkeypatch, capsys):
    from rulebook.compiler.check import loader
    from rulebook.compiler.commands import cli

    monkeypatch.setattr(loader, "MAX_ENTRIES", 30)
    book = _folder(tmp_path, files=40, folders=40)
    with deadline(what="check of a folder over the bound"):
        status = cli.main(["check", str(book)])
    out = capsys.readouterr()
    text = out.out + out.err
    assert status == 1
    assert "Traceback" not in text
    assert f"{book}: error: the rulebook folder {book} holds over 30 files and folders; it is not read" in text, text
    assert "hint: check the rulebook's own folder" in text
    assert "1 error, 0 warnings" in text, "one diagnostic, no file of the folder read"
    assert "no rulebook declaration found" not in text


def test_the_loader_reads_a_folder_within_the_bound(tmp_path, monkeypatch):
    from rulebook.compiler.check import loader

    book = _folder(tmp_path, files=10, folders=5)  # 10 files + "sub" + 5 folders = 16 entries
    monkeypatch.setattr(loader, "MAX_ENTRIES", 16)
    modules, sources, diags = loader.load(book, parse=lambda text, name: (None, []))
    assert len(sources) == 10 and diags == []
    monkeypatch.setattr(loader, "MAX_ENTRIES", 15)
    modules, sources, diags = loader.load(book, parse=lambda text, name: (None, []))
    assert sources == {} and [d.message for d in diags] == [f"the rulebook folder {book} holds over 15 files and folders; it is not read"]
    assert diags[0].code == "io" and diags[0].span.file == str(book) and diags[0].hint
