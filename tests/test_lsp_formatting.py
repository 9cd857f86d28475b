"""``textDocument/formatting`` and ``rangeFormatting`` from a real LSP client (pytest-lsp).

Opens a badly laid-out file of the cookbook, asks for formatting (the whole file, then a
range covering one fence) and applies the edits: the result is ``rulebook fmt``'s.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from rulebook.compiler.format import fences, format_source

ROOT = Path(__file__).resolve().parent.parent
FILE = ROOT / "content" / "cookbook" / "03-morale.rules"

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "rulebook.compiler.commands.cli", "lsp"]), scope="module")
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=ROOT.as_uri()))
    yield
    await lsp_client.shutdown_session()


def apply(text: str, edits: list[types.TextEdit]) -> str:
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start = offsets[e.range.start.line] + e.range.start.character
        end = offsets[min(e.range.end.line, len(lines))] + e.range.end.character
        text = text[:start] + e.new_text + text[end:]
    return text


def messy() -> str:
    return FILE.read_text(encoding="utf-8").replace("\n  ", "\n     ")


async def test_formatting_and_range_formatting(client: LanguageClient):
    text = messy()
    uri = FILE.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=uri, language_id="rules", version=1, text=text)))
    edits = await client.text_document_formatting_async(types.DocumentFormattingParams(
        text_document=types.TextDocumentIdentifier(uri=uri), options=types.FormattingOptions(tab_size=2, insert_spaces=True)))
    assert edits
    assert apply(text, edits) == format_source(text).text

    first, second = fences(text)[:2]
    edits = await client.text_document_range_formatting_async(types.DocumentRangeFormattingParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=second[0] + 1, character=0), end=types.Position(line=second[0] + 1, character=0)),
        options=types.FormattingOptions(tab_size=2, insert_spaces=True)))
    once = apply(text, edits)
    assert once == format_source(text, lambda a, b: a == second[0]).text
    assert once.splitlines()[first[0]:first[1] + 1] == text.splitlines()[first[0]:first[1] + 1]  # the other fence untouched
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
