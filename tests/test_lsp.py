"""The language server driven by a real LSP client (pytest-lsp) over stdio.

`rulebook lsp` runs as a child process, one per test module (and xdist worker).
The data files ``tests/data/lsp/{hover,definition,references,completion}.txt``
hold the cases of the bundled rulebook, one parametrized test per request
kind; the other tests open a file, break it, watch the diagnostics, and fuzz
the server with a seeded sequence of edits and requests.
"""

from __future__ import annotations

import asyncio
import random
import re
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from conftest import decode_semantic_tokens, loosely

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content" / "1936"
DATA = Path(__file__).resolve().parent / "data" / "lsp"
CURSOR = "‸"
SERVER_CAPABILITIES: list[types.ServerCapabilities] = []  # what the server said at initialize (the semantic tokens legend)

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "rulebook.compiler.commands.cli", "lsp"]), scope="module")
async def client(lsp_client: LanguageClient):
    SERVER_CAPABILITIES.append((await lsp_client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=ROOT.as_uri()))).capabilities)
    yield
    await lsp_client.shutdown_session()


# ---------------------------------------------------------------------------- helpers


def read_cases(kind: str) -> list[dict]:
    """The cases of ``tests/data/lsp/<kind>.txt``: ``## title`` then ``key: value`` lines."""
    cases: list[dict] = []
    for line in (DATA / f"{kind}.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            cases.append({"title": line[3:], "expect": [], "absent": []})
        elif cases and ": " in line and not line.startswith("#"):
            key, value = line.split(": ", 1)
            if key in ("expect", "absent"):
                cases[-1][key].append(value)
            else:
                cases[-1][key] = value
    return cases


def cases(kind: str):
    return [pytest.param(c, id=c["title"]) for c in read_cases(kind)]


class Document:
    """A file of the bundled rulebook, opened once in the client."""

    opened: dict[str, "Document"] = {}

    def __init__(self, client: LanguageClient, name: str):
        self.client = client
        self.path = CONTENT / name
        self.uri = self.path.as_uri()
        self.text = self.path.read_text(encoding="utf-8")
        self.version = 1

    @classmethod
    def open(cls, client: LanguageClient, name: str) -> "Document":
        key = f"{id(client)}:{name}"
        if key not in cls.opened:
            doc = cls.opened[key] = cls(client, name)
            client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(doc.uri, "rules", 1, doc.text)))
        return cls.opened[key]

    def position(self, fragment: str) -> types.Position:
        """Where ``‸`` is in the one line that contains ``fragment`` (a run of spaces in it
        matches any run of spaces: the padding of columns aligned by ``rulebook fmt``)."""
        before, after = fragment.split(CURSOR)
        pattern = re.compile(loosely(before).pattern + "(?P<cursor>)" + loosely(after).pattern)
        lines = self.text.splitlines()
        found = [(i, m) for i, line in enumerate(lines) if (m := pattern.search(line))]
        assert len(found) == 1, f"{fragment!r} is on {len(found)} lines of {self.path.name}"
        line, match = found[0]
        prefix = lines[line][: match.start("cursor")]
        return types.Position(line, len(prefix.encode("utf-16-le")) // 2)

    def replace(self, start: types.Position, end: types.Position, text: str) -> None:
        """Edit the document in the editor (incremental change)."""
        self.version += 1
        lines = self.text.split("\n")
        offset = lambda p: sum(len(l) + 1 for l in lines[: p.line]) + len(lines[p.line].encode("utf-16-le")[: 2 * p.character].decode("utf-16-le"))  # noqa: E731
        self.text = self.text[: offset(start)] + text + self.text[offset(end) :]
        change = types.TextDocumentContentChangePartial(range=types.Range(start, end), text=text)
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(types.VersionedTextDocumentIdentifier(self.version, self.uri), [change]))

    def set_text(self, text: str) -> None:
        self.version += 1
        self.text = text
        change = types.TextDocumentContentChangeWholeDocument(text=text)
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(types.VersionedTextDocumentIdentifier(self.version, self.uri), [change]))

    def end_of(self, start: types.Position, inserted: str) -> types.Position:
        lines = inserted.split("\n")
        if len(lines) == 1:
            return types.Position(start.line, start.character + len(inserted.encode("utf-16-le")) // 2)
        return types.Position(start.line + len(lines) - 1, len(lines[-1].encode("utf-16-le")) // 2)


def where(location: types.Location) -> str:
    """``content/1936/x.rules:line:col`` (1-based) of a location."""
    path = Path(location.uri.removeprefix("file://"))
    return f"{path.relative_to(ROOT).as_posix()}:{location.range.start.line + 1}:{location.range.start.character + 1}"


async def wait_for(condition, timeout: float = 30.0) -> None:
    """Wait until ``condition()`` holds (the server publishes diagnostics on its own time)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "timed out waiting for the server"
        await asyncio.sleep(0.05)


# ---------------------------------------------------------------------------- requests on the bundled rulebook


@pytest.mark.parametrize("case", cases("hover"))
async def test_hover(client: LanguageClient, case):
    doc = Document.open(client, case["file"])
    result = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(doc.uri), doc.position(case["at"])))
    assert result is not None, "no hover"
    text = result.contents.value
    for wanted in case["expect"]:
        assert wanted in text, f"{wanted!r} not in:\n{text}"
    for unwanted in case["absent"]:
        assert unwanted not in text


@pytest.mark.parametrize("case", cases("definition"))
async def test_definition(client: LanguageClient, case):
    doc = Document.open(client, case["file"])
    result = await client.text_document_definition_async(types.DefinitionParams(types.TextDocumentIdentifier(doc.uri), doc.position(case["at"])))
    found = [where(loc) for loc in result or []]
    for wanted in case["expect"]:
        assert wanted in found, found


@pytest.mark.parametrize("case", cases("references"))
async def test_references(client: LanguageClient, case):
    doc = Document.open(client, case["file"])
    params = types.ReferenceParams(
        text_document=types.TextDocumentIdentifier(doc.uri), position=doc.position(case["at"]), context=types.ReferenceContext(include_declaration=True),
    )
    found = [where(loc) for loc in await client.text_document_references_async(params) or []]
    for wanted in case["expect"]:
        assert wanted in found, found
    assert len(found) >= int(case.get("count", 1)), found
    assert len(found) == len(set(found)), "a reference is listed twice"


@pytest.mark.parametrize("case", cases("completion"))
async def test_completion(client: LanguageClient, case):
    doc = Document.open(client, case["file"])
    original = doc.text
    start = doc.position(case["at"])
    inserted = case["insert"].replace("\\n", "\n")
    doc.replace(start, start, inserted)
    try:
        result = await client.text_document_completion_async(types.CompletionParams(types.TextDocumentIdentifier(doc.uri), doc.end_of(start, inserted)))
    finally:
        doc.set_text(original)
    labels = {item.label for item in (result.items if isinstance(result, types.CompletionList) else result or [])}
    for wanted in case["expect"]:
        assert wanted in labels, sorted(labels)
    for unwanted in case["absent"]:
        assert unwanted not in labels


async def test_document_and_workspace_symbols(client: LanguageClient):
    doc = Document.open(client, "06-disparo.rules")
    outline = await client.text_document_document_symbol_async(types.DocumentSymbolParams(types.TextDocumentIdentifier(doc.uri)))
    (section,) = outline
    assert section.name == "VI Iniciativa y disparos"
    headings = {h.name: h for h in section.children}
    assert "4. Distancias" in headings
    in_distances = {c.name: c for c in headings["4. Distancias"].children}
    assert {"Banda", "bandas_distancia"} <= set(in_distances)
    assert [m.name for m in in_distances["Banda"].children] == ["corta", "media", "larga"]
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="n_legion"))
    assert [s.name for s in found][:1] == ["n_legion"]
    assert where(found[0].location).startswith("content/1936/02-costes-listas.rules:")


async def test_an_army_in_the_outline_with_its_clauses_and_blocks(client: LanguageClient):
    doc = Document.open(client, "02-costes-listas.rules")
    outline = await client.text_document_document_symbol_async(types.DocumentSymbolParams(types.TextDocumentIdentifier(doc.uri)))

    def find(symbols, name):
        for s in symbols:
            if s.name == name:
                return s
            if (found := find(s.children or [], name)) is not None:
                return found
        return None

    army = find(outline, "listas_genericas")
    assert army is not None and army.kind == types.SymbolKind.Object and army.detail == "Listas genéricas (Early War)"
    clauses = {c.name: c for c in army.children}
    assert {"side nacional", "side republicano", "roles Bando", "agreed", "units infanteria_nacional", "units transportes_republicanos"} <= set(clauses)
    assert clauses["side nacional"].detail == "Bando Nacional"
    assert [c.name for c in clauses["units infanteria_nacional"].children] == ["options mejoras_nacionales"]
    assert not clauses["units transportes_nacionales"].children
    line = doc.position("  units infanteria_nacional‸ side: nacional").line
    assert clauses["units infanteria_nacional"].range.start.line == line and clauses["units infanteria_nacional"].range.end.line == line + 2


async def test_semantic_tokens_colour_names_by_what_they_stand_for(client: LanguageClient):
    """The tokens of an army block and an annotation, decoded with the legend the server announced."""
    legend = SERVER_CAPABILITIES[-1].semantic_tokens_provider.legend
    doc = Document.open(client, "02-costes-listas.rules")
    result = await client.text_document_semantic_tokens_full_async(types.SemanticTokensParams(types.TextDocumentIdentifier(doc.uri)))
    tokens = decode_semantic_tokens(result.data, legend, doc.text)
    army = doc.position("army ‸listas_genericas").line
    assert tokens[(army, "listas_genericas")] == ("namespace", ["declaration"])
    assert tokens[(army + 1, "side")] == ("keyword", [])
    assert tokens[(army + 1, "nacional")] == ("enumMember", ["declaration"])
    assert tokens[(army + 2 + 1, "Bando")][0] == "enum"
    units = doc.position("  units infanteria_nacional‸ side: nacional").line
    assert tokens[(units, "infanteria_nacional")][0] == "type"
    assert tokens[(units, "coste")][0] == "property"
    assert tokens[(army - 1, "@doc")][0] == "decorator"
    assert len(tokens) > 1000


# ---------------------------------------------------------------------------- diagnostics as you type


async def test_an_error_appears_as_typed_and_goes_when_fixed(client: LanguageClient):
    doc = Document.open(client, "06-disparo.rules")
    await wait_for(lambda: doc.uri in client.diagnostics)
    original = doc.text
    start = doc.position("return bandas_distancia[‸distancia]")
    doc.replace(start, start, "x")

    def broken():
        return any("unknown name 'xdistancia'" in d.message for d in client.diagnostics.get(doc.uri, []))

    await wait_for(broken)
    (d,) = [d for d in client.diagnostics[doc.uri] if "xdistancia" in d.message]
    assert d.message == "unknown name 'xdistancia'\nhint: did you mean 'distancia'?"
    assert (d.range.start.line, d.range.start.character, d.range.end.character) == (start.line, start.character, start.character + len("xdistancia"))
    assert d.severity == types.DiagnosticSeverity.Error and d.source == "rulebook"
    doc.set_text(original)
    await wait_for(lambda: not broken())


async def test_an_edit_in_one_file_reports_in_the_files_that_use_it(client: LanguageClient):
    """Renaming an enum value breaks its uses in other files: their diagnostics are published too."""
    doc = Document.open(client, "00-manual.rules")
    original = doc.text
    start = doc.position("‸veteran \"Veterano\"")
    doc.replace(start, types.Position(start.line, start.character + len("veteran")), "veterano")
    other = (CONTENT / "02-costes-listas.rules").as_uri()
    await wait_for(lambda: any("veteran" in d.message for d in client.diagnostics.get(other, [])))
    doc.set_text(original)
    await wait_for(lambda: not any("veteran" in d.message for d in client.diagnostics.get(other, [])))


# ---------------------------------------------------------------------------- robustness


REQUESTS = ("hover", "definition", "references", "completion", "symbols", "highlight", "tokens", "rename", "actions", "signature", "hints", "format")
RENAME_REFUSED = -32803  # the LSP error a refused rename is answered with (an answer, not a failure)
NEW_NAMES = ("alcance_x", "distancia", "roll", "1x", "")
PIECES = ["{", "}", "(", ")", "[", "]", ".", ",", "|", ":", "=", "\n", " ", "let ", "if ", "roll ", "x", "1", '"', "```", "```rules\n", "->", "@", "..", "[[", "Calidad.", "enum ", "😀", "—"]


async def test_fuzzed_edits_never_crash_the_server(client: LanguageClient):
    """A seeded sequence of random edits (half-typed text, unclosed blocks,
    astral characters), each followed by requests at random places: every
    request is answered (an LSP error would raise here) and the server is
    still checking at the end."""
    doc = Document.open(client, "09-asalto.rules")
    original = doc.text
    rng = random.Random(1936)
    for step in range(24):
        lines = doc.text.split("\n")
        line = rng.randrange(len(lines))
        col = rng.randrange(len(lines[line]) + 1)
        start = types.Position(line, len(lines[line][:col].encode("utf-16-le")) // 2)
        if rng.random() < 0.4 and col < len(lines[line]):
            end_col = min(len(lines[line]), col + rng.randint(1, 12))
            doc.replace(start, types.Position(line, len(lines[line][:end_col].encode("utf-16-le")) // 2), "")
        else:
            doc.replace(start, start, rng.choice(PIECES))
        lines = doc.text.split("\n")
        at_line = rng.randrange(len(lines))
        at = types.Position(at_line, rng.randint(0, len(lines[at_line].encode("utf-16-le")) // 2 + 3))
        ident = types.TextDocumentIdentifier(doc.uri)
        kind = REQUESTS[step % len(REQUESTS)]
        if kind == "hover":
            await client.text_document_hover_async(types.HoverParams(ident, at))
        elif kind == "definition":
            await client.text_document_definition_async(types.DefinitionParams(ident, at))
        elif kind == "references":
            await client.text_document_references_async(types.ReferenceParams(text_document=ident, position=at, context=types.ReferenceContext(include_declaration=False)))
        elif kind == "completion":
            await client.text_document_completion_async(types.CompletionParams(ident, at))
        elif kind == "symbols":
            await client.text_document_document_symbol_async(types.DocumentSymbolParams(ident))
        elif kind == "tokens":
            await client.text_document_semantic_tokens_full_async(types.SemanticTokensParams(ident))
        elif kind == "rename":
            try:
                await client.text_document_rename_async(types.RenameParams(ident, at, rng.choice(NEW_NAMES)))
            except JsonRpcException as refused:
                assert refused.code == RENAME_REFUSED, refused
        elif kind == "actions":
            whole = types.Range(types.Position(max(at_line - 3, 0), 0), at)
            await client.text_document_code_action_async(types.CodeActionParams(ident, whole, types.CodeActionContext(diagnostics=[])))
        elif kind == "signature":
            await client.text_document_signature_help_async(types.SignatureHelpParams(ident, at))
        elif kind == "hints":
            await client.text_document_inlay_hint_async(types.InlayHintParams(ident, types.Range(types.Position(max(at_line - 20, 0), 0), at)))
        elif kind == "format":
            await client.text_document_formatting_async(types.DocumentFormattingParams(ident, types.FormattingOptions(tab_size=2, insert_spaces=True)))
        else:
            await client.text_document_document_highlight_async(types.DocumentHighlightParams(ident, at))
    doc.set_text(original)
    await wait_for(lambda: not [d for d in client.diagnostics.get(doc.uri, []) if d.severity == types.DiagnosticSeverity.Error])
    assert not [m for m in client.log_messages if m.type == types.MessageType.Error], client.log_messages
