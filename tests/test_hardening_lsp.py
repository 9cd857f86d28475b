"""Issue 29, hardening of the language server and of the checker on hostile input.

Each test reproduces one item of the issue and ends in a result or a clear
error within the hang guard (:func:`guards.deadline`):

* L1 — a document at ``/`` made the whole disk its rulebook: a rulebook never lies
  above the workspace folder, a lone document is its own rulebook, listing a folder
  is bounded and the loader's limits hold in the server;
* L2 — a 5 MB document was checked at every keystroke: a document over the
  loader's per-file limit gets one diagnostic instead, and a burst of edits is
  checked once;
* L3 — ``Content-Length: 99999999999999`` ended the server: a frame over the limit
  is read past without being kept;
* L4 — one malformed frame deafened the server: it resynchronises on the next
  ``Content-Length:`` header;
* C1 — thousands of unknown ``[[links]]``: did-you-mean is remembered per set of
  candidates and name, prefiltered, and a check spends at most a budget on it
  (:class:`~rulebook.rules_dsl.diagnostics.SuggestionBudget`); the answers are
  difflib's, as before.

The tests of the running server share one ``rulebook lsp`` process (:mod:`fuzz_lsp`).
"""

from __future__ import annotations

import difflib
import io
import random
import time
import uuid

import pytest

import fuzz_lsp
from guards import deadline

# ---------------------------------------------------------------------------- the running server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    workspace = tmp_path_factory.mktemp("espacio")
    folder = workspace / "reglamento"
    folder.mkdir()
    running = fuzz_lsp.LspServer(folder, workspace)
    yield running
    running.close()


def _hover_answered(server) -> bool:
    """Does the server still answer a request (a hover in its open document) in time?"""
    params = {"textDocument": {"uri": (server.folder / "a.rules").as_uri()}, "position": {"line": 3, "character": 7}}
    answer = server.request("textDocument/hover", params)
    return answer is not None and "error" not in answer


def _open(server, uri: str, text: str) -> None:
    server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "rules", "version": 1, "text": text}})


def _published(server, uri: str) -> list[list[str]]:
    return [messages for at, messages in list(server.published) if at == uri]


# ---------------------------------------------------------------------------- L1: which files are read


def test_l1_a_rulebook_never_lies_above_the_workspace_and_a_lone_file_is_its_own(tmp_path):
    from rulebook.compiler.lsp.files import rulebook_root

    (tmp_path / "arriba.rules").write_text("", encoding="utf-8")  # .rules files above the workspace
    workspace = tmp_path / "espacio"
    book = workspace / "libro"
    (book / "anexos").mkdir(parents=True)
    for name in ("libro/a.rules", "libro/b.rules", "libro/anexos/c.rules", "suelto/solo.rules", "z.rules"):
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text("", encoding="utf-8")
    assert rulebook_root(book / "a.rules", [workspace]) == workspace, "climbs to the workspace folder, which holds .rules"
    assert rulebook_root(book / "a.rules", [book]) == book, "not above the workspace folder"
    assert rulebook_root(book / "anexos" / "c.rules", [book]) == book, "a file of a subfolder belongs to the rulebook above"
    assert rulebook_root(workspace / "suelto" / "solo.rules", [book]) == workspace / "suelto" / "solo.rules", "outside the workspace"
    assert rulebook_root(workspace / "suelto" / "solo.rules", [tmp_path / "otro"]) == workspace / "suelto" / "solo.rules"
    (workspace / "z.rules").unlink()
    assert rulebook_root(workspace / "suelto" / "solo.rules", [workspace]) == workspace / "suelto" / "solo.rules", "alone"
    assert rulebook_root(book / "a.rules", []) == book, "no workspace: its own folder, no higher"
    assert rulebook_root(tmp_path / "nada" / "x.rules", []) == tmp_path / "nada" / "x.rules"


def test_l1_a_document_opened_at_the_root_of_the_disk_is_checked_alone(server):
    """``didOpen`` of ``file:///…rules`` (a document not saved, at ``/``): its diagnostics
    come within the answer bound, from its own text only (before, every .rules file
    under / was read and checked: no answer for over five minutes)."""
    uri = f"file:///hardening-{uuid.uuid4().hex}.rules"
    _open(server, uri, "```rules\nconst a = sin_definir\n```\n")
    assert server.wait_for(lambda: _published(server, uri)), "no diagnostics in time"
    (messages,) = _published(server, uri)[-1:]
    assert any("'sin_definir'" in m for m in messages), messages
    assert any("no rulebook declaration found" in m for m in messages), "checked alone, with no other file"
    assert _hover_answered(server)


def test_l1_listing_a_rulebook_folder_is_bounded(tmp_path, monkeypatch):
    from rulebook.compiler.lsp import files

    monkeypatch.setattr(files, "MAX_ENTRIES", 30)
    for i in range(40):
        (tmp_path / "sub" / f"{i:02}").mkdir(parents=True)
        (tmp_path / f"{i:02}.rules").write_text("Texto.\n", encoding="utf-8")
    paths, sources, diags = files.read_rulebook(tmp_path, {})
    assert len(paths) < 30
    (note,) = [d for d in diags if "holds over 30 files and folders" in d.message]
    assert note.code == "io"


def test_l1_the_loaders_limits_hold_for_files_on_disk(tmp_path):
    """A file over the per-file limit and a rulebook over the total: the loader's diagnostics
    (the files before the total are read, the rest not)."""
    from rulebook.compiler.check.loader import MAX_FILE_BYTES, MAX_RULEBOOK_BYTES, load
    from rulebook.compiler.lsp.files import read_rulebook

    (tmp_path / "a.rules").write_bytes(b"\n" * (MAX_FILE_BYTES + 1))
    for name in "bcdef":
        (tmp_path / f"{name}.rules").write_bytes(b"\n" * (MAX_RULEBOOK_BYTES // 4))
    paths, sources, diags = read_rulebook(tmp_path, {})
    problems = sorted((d.span.file, d.message) for d in diags)
    _, loaded, loader_diags = load(tmp_path, parse=lambda text, name: (None, []))
    assert problems == sorted((d.span.file, d.message) for d in loader_diags)
    assert [m for _, m in problems] == [
        f"this file has {MAX_FILE_BYTES + 1} bytes; a .rules file may have at most {MAX_FILE_BYTES}",
        f"the rulebook is over {MAX_RULEBOOK_BYTES} bytes at this file; the rest is not read",
    ]
    assert sorted(sources) == sorted(loaded) and len(sources) == 4


# ---------------------------------------------------------------------------- L2: large documents, bursts of edits


def test_l2_an_open_document_over_the_limit_gets_one_diagnostic_and_is_not_parsed(tmp_path):
    from rulebook.compiler.check.loader import MAX_FILE_BYTES
    from rulebook.compiler.lsp.workspace import Rulebook

    path = tmp_path / "grande.rules"
    rulebook = Rulebook(path)
    rulebook.set_text(path, "```rules\nconst a = 1\n```\n" + "ñ" * (MAX_FILE_BYTES // 2))  # over the limit in UTF-8 bytes only
    with deadline(what="a document over the limit"):
        analysis = rulebook.analyze()
    (d,) = analysis.diagnostics
    assert d.message.startswith(f"this file has {MAX_FILE_BYTES + 25} bytes; a .rules file may have at most {MAX_FILE_BYTES}")
    assert rulebook.parse_count == 0 and analysis.sources == {}


def test_l2_a_5_mb_document_is_answered_at_once_and_its_edits_too(server):
    """Opening a 5 MB document and typing ten characters into it (before: 30 s to open,
    23–27 s per character): one diagnostic, at once; the server answers between edits."""
    from rulebook.compiler.check.loader import MAX_FILE_BYTES

    uri = (server.folder / "grande.rules").as_uri()
    line = "Una línea de prosa con [[alcance]] y más texto para llenar.\n"
    text = line * (5 * 1024 * 1024 // len(line.encode()))
    start = time.monotonic()
    _open(server, uri, text)
    assert server.wait_for(lambda: _published(server, uri)), "no diagnostic in time"
    (messages,) = _published(server, uri)[-1:]
    assert messages == [f"this file has {len(text.encode())} bytes; a .rules file may have at most {MAX_FILE_BYTES}\nhint: split it into several files"]
    for i in range(10):
        change = {"range": {"start": {"line": 5, "character": i}, "end": {"line": 5, "character": i}}, "text": "x"}
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2 + i}, "contentChanges": [change]})
    assert _hover_answered(server)
    size = len(text.encode()) + 10
    assert server.wait_for(lambda: any(str(size) in m for ms in _published(server, uri) for m in ms)), "the edits are seen"
    assert time.monotonic() - start < 3 * fuzz_lsp.ANSWER_SECONDS


def test_l2_a_burst_of_edits_is_checked_once(server):
    """Ten whole-document edits written at once, each a different size over the limit: only
    the last is checked (a check of each would publish each size)."""
    uri = (server.folder / "rafaga.rules").as_uri()
    _open(server, uri, "Texto.\n")
    assert server.wait_for(lambda: _published(server, uri))
    before = len(_published(server, uri))
    sizes = [3 * 1024 * 1024 + 1000 * i for i in range(10)]
    burst = b"".join(
        fuzz_lsp.frame(fuzz_lsp.encode({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": 2 + i}, "contentChanges": [{"text": "x" * size}]}}))
        for i, size in enumerate(sizes)
    )
    server.send(burst)
    assert server.wait_for(lambda: any(str(sizes[-1]) in m for ms in _published(server, uri) for m in ms))
    after = _published(server, uri)[before:]
    assert len(after) == 1, [m[0][:40] for m in after]


def test_c1_l2_a_file_with_thousands_of_problems_publishes_a_bounded_number(server):
    """1,200 broken links in an open document: the server publishes the first 500 and one
    diagnostic saying how many more there are (before: all of them at each keystroke,
    megabytes of JSON and seconds to place them)."""
    from rulebook.compiler.lsp.server import DIAGNOSTICS_PER_FILE

    uri = (server.folder / "enlaces.rules").as_uri()
    text = "".join(f"[[roto_{i}]]" + (" " if i % 20 < 19 else "\n\n") for i in range(1200))
    _open(server, uri, text)
    assert server.wait_for(lambda: _published(server, uri)), "no diagnostics in time"
    messages = _published(server, uri)[-1]
    assert len(messages) == DIAGNOSTICS_PER_FILE + 1
    assert messages[0] == f"{1200 - DIAGNOSTICS_PER_FILE} more problems in this file are not shown here; rulebook check lists them all"
    assert messages[1].startswith("unknown link target 'roto_0'"), "the first of the file, in order"


# ---------------------------------------------------------------------------- L3, L4: frames


def _frames_of(stream: bytes) -> list[tuple[str, str | None]]:
    """What a FrameReader makes of ``stream``: ("body", text) or ("problem", what)."""
    from rulebook.compiler.lsp.transport import FrameReader

    source = io.BytesIO(stream)
    reader = FrameReader(lambda n: source.read(min(n, 7)))  # a few bytes at a time: every boundary is crossed
    out = []
    while (frame := reader.next_frame()) is not None:
        out.append(("body", frame.body.decode()) if frame.body is not None else ("problem", frame.problem))
    return out


GOOD = fuzz_lsp.frame(b'{"jsonrpc": "2.0", "method": "initialized", "params": {}}')
BODY = b'{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}'
MALFORMED = {
    "no header": b"\r\n" + BODY,
    "no Content-Length": b"Content-Type: x\r\n\r\n" + BODY,
    "misspelt": b"Content-Lenght: %d\r\n\r\n" % len(BODY) + BODY,
    "not a number": b"Content-Length: abc\r\n\r\n" + BODY,
    "negative": b"Content-Length: -5\r\n\r\n" + BODY,
    "empty": b"Content-Length: \r\n\r\n" + BODY,
    "two lengths": b"Content-Length: 3\r\nContent-Length: 4\r\n\r\n" + BODY,
    "shorter": b"Content-Length: %d\r\n\r\n" % (len(BODY) - 9) + BODY,
    "longer": b"Content-Length: %d\r\n\r\n" % (len(BODY) + 9) + BODY,
    "much longer": b"Content-Length: 5000\r\n\r\n" + BODY,
    "huge": b"Content-Length: 99999999999999\r\n\r\n" + BODY,
    "5,000 digits": b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n" + BODY,
    "bare line feeds": b"Content-Length: %d\n\n" % len(BODY) + BODY,
    "a header cut short": b"Content-Le",
    "bytes between frames": bytes(range(256)) * 3,
    "a header line without end": b"X" * 20_000,
}


@pytest.mark.parametrize("kind", MALFORMED)
def test_l4_a_malformed_frame_costs_only_itself(kind):
    """A malformed frame, then a well-formed one: the reader reports what it skipped and
    reads the next frame whole (before, pygls never read another)."""
    read = _frames_of(MALFORMED[kind] + GOOD + GOOD)
    bodies = [text for what, text in read if what == "body"]
    assert bodies[-2:] == [GOOD.split(b"\r\n\r\n", 1)[1].decode()] * 2, read
    assert any(what == "problem" for what, _ in read) or kind == "longer" and bodies[0] != bodies[-1], read


def test_l4_well_formed_frames_are_read_whole():
    read = _frames_of(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n" % len(BODY) + BODY + GOOD)
    assert read == [("body", BODY.decode()), ("body", GOOD.split(b"\r\n\r\n", 1)[1].decode())]


def test_l3_a_huge_length_is_read_past_in_bounded_memory():
    """``Content-Length: 99999999999999`` then 32 MB: the reader drops the bytes as they come
    (holding a chunk at most) and reads the next frame (before: MemoryError, exit 70)."""
    from rulebook.compiler.lsp.transport import CHUNK_BYTES, MAX_HEADER_BYTES, FrameReader

    pieces = [b"Content-Length: 99999999999999\r\n\r\n"] + [b"x" * CHUNK_BYTES] * 512 + [GOOD]
    held = []

    def read_some(n: int) -> bytes:
        held.append(reader.buffered)
        return pieces.pop(0) if pieces else b""

    reader = FrameReader(read_some)
    with deadline(what="32 MB past a huge length"):
        first, second = reader.next_frame(), reader.next_frame()
    assert first.body is None and "over the limit" in first.problem
    assert second.body == GOOD.split(b"\r\n\r\n", 1)[1]
    assert max(held) <= CHUNK_BYTES + MAX_HEADER_BYTES


def test_l3_l4_the_server_answers_after_a_huge_length_and_malformed_frames(server):
    """The running server, sent a huge length, then each malformed frame, answers the next
    request every time; it logs one line for what it skipped and writes no traceback."""
    for kind, data in [("huge", MALFORMED["huge"])] + [(k, v) for k, v in MALFORMED.items() if k != "huge"]:
        server.send(data)
        assert _hover_answered(server), f"no answer after: {kind}"
    assert server.process.poll() is None
    assert not server.traceback
    log = server.stderr.decode(errors="replace")
    assert "skipped input: a message of 99999999999999 bytes, over the limit" in log


def test_l4_a_request_that_cannot_be_read_is_answered_with_an_error(server):
    """A request whose params have the wrong shape, or that names a notification, gets an
    LSP error with its id (before: no answer, the editor waited for ever)."""
    wrong = server.request("textDocument/hover", {"textDocument": 5})
    assert wrong is not None and wrong["error"]["code"] == -32602
    notification = server.request("textDocument/didSave", {"textDocument": {"uri": "file:///x.rules"}})
    assert notification is not None and notification["error"]["code"] == -32600


# ---------------------------------------------------------------------------- C1: did-you-mean


def _difflib_answer(name: str, candidates) -> str | None:
    """What did-you-mean answered before it was remembered and bounded: a candidate
    differing only in case, else difflib's closest over the sorted candidates."""
    pool = sorted({c for c in candidates if isinstance(c, str) and len(c) <= 100})
    lowered = {c.lower(): c for c in pool}
    if name.lower() in lowered and lowered[name.lower()] != name:
        return lowered[name.lower()]
    match = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    return match[0] if match else None


def test_c1_did_you_mean_answers_as_difflib_does():
    """Random names over random sets (short and long names, case variants, repeats, numbers,
    the separator the suggester joins names with): the remembered, prefiltered answer is
    difflib's answer, asked again or not, with a budget that suffices or none."""
    from rulebook.rules_dsl.diagnostics import SuggestionBudget, did_you_mean

    rng = random.Random(29)
    letters = "abcdeAB_ñ\x00"

    def word() -> str:
        return "".join(rng.choice(letters) for _ in range(rng.choice((0, 1, 2, 3, 5, 8, 13, 30))))

    for _ in range(1500):
        pool = [word() for _ in range(rng.randint(0, 40))] + rng.sample([1, 2.5, None, "x" * 150], 2)
        words = [c for c in pool if isinstance(c, str)]
        name = rng.choice([word(), rng.choice(words) if words else "", word().upper()])
        expected = _difflib_answer(name, pool)
        assert did_you_mean(name, pool) == expected, (name, pool)
        assert did_you_mean(name, list(reversed(pool)), SuggestionBudget()) == expected, "asked again, in another order"


def test_c1_a_budget_gives_the_same_hints_whether_answers_were_remembered_or_not():
    """Misspelt names over 300 alike names until the budget is spent: the same hints the
    first time (computed) and the second (remembered), and no hint once it is spent."""
    from rulebook.rules_dsl import diagnostics

    names = [f"valor_{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}_{i}" for i in range(300)]
    misspelt = [names[i % 300][:-1] + f"x{i}" for i in range(1000)]
    diagnostics._remembered.clear()
    runs = []
    for _ in range(2):
        budget = diagnostics.SuggestionBudget(200_000)
        runs.append([diagnostics.did_you_mean(name, names, budget) for name in misspelt])
        assert budget.left == 0
    assert runs[0] == runs[1]
    hinted = [guess for guess in runs[0] if guess]
    assert 0 < len(hinted) < len(misspelt) and runs[0][: len(hinted)] == hinted, "hints until the budget is spent"
    assert hinted == [_difflib_answer(name, names) for name in misspelt[: len(hinted)]]


def _rulebook_with_broken_links(folder, links: int):
    """A rulebook of 300 constants whose prose links ``links`` names that do not exist
    (each a constant's name with one letter changed, so that most have a close match)."""
    names = [f"valor_{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}_{i}" for i in range(300)]
    decls = "\n".join(f"const {name} = {i}" for i, name in enumerate(names))
    prose = "".join(f"[[{names[i % 300][:-1]}x{i}]]" + (" " if i % 20 < 19 else "\n\n") for i in range(links))
    folder.mkdir()
    (folder / "a.rules").write_text(
        f'```rules\nrulebook prueba "Prueba" version "1.0" lang "es"\n{decls}\n```\n\n{prose}\n', encoding="utf-8",
    )
    return folder


def test_c1_thousands_of_unknown_links_check_in_bounded_time(tmp_path, monkeypatch):
    """1,000 distinct unknown links, each close to some of 300 names: the check gives hints
    until its budget is spent (before, difflib ran over every name for each, tens of
    seconds); a second check of the same text (the language server after a keystroke)
    compares nothing and gives the same hints."""
    from rulebook.compiler.pipeline import driver
    from rulebook.rules_dsl import diagnostics

    folder = _rulebook_with_broken_links(tmp_path / "reglamento", 1000)
    diagnostics._remembered.clear()
    with deadline(what="1,000 unknown links"):
        checked = driver.check(folder)
    unknown = [d for d in checked.diagnostics if d.message.startswith("unknown link target")]
    assert len(unknown) == 1000
    hinted = [d for d in unknown if d.hint and d.hint.startswith("did you mean")]
    assert 0 < len(hinted) < len(unknown)
    first = sorted(unknown, key=lambda d: (d.span.line, d.span.col))[0]
    assert first.hint.startswith("did you mean 'valor_aa_0'?"), first.hint
    compared = []
    real = difflib.SequenceMatcher.quick_ratio
    monkeypatch.setattr(difflib.SequenceMatcher, "quick_ratio", lambda self: compared.append(1) or real(self))
    again = driver.check(folder)
    assert compared == [], "the second check compares nothing"
    assert [d.hint for d in again.diagnostics] == [d.hint for d in checked.diagnostics]
