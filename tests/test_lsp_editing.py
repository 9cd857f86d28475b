"""The language server's editing features driven by a real LSP client (pytest-lsp) over
stdio: rename (with prepareRename and its refusals), quick fixes, signature help,
semantic tokens and inlay hints (issue 30, points 2–4).

The rulebook is ``tests/data/lsp/editing/`` (three files: a catalog whose ids a table, an
example, a prose link and an army of the other files name) and, for the quick fixes, a
lone file made of ``tests/data/diagnostics/fixable.rules`` (the diagnostics whose hints
are exact rewrites) and a few guesses; both are copied to a temporary workspace. Each
case puts the cursor at the ``‸`` of a fragment of one line.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from conftest import decode_semantic_tokens

DATA = Path(__file__).resolve().parent / "data"
CURSOR = "‸"
CAPABILITIES: list[types.ServerCapabilities] = []
FOLDER: list[Path] = []

pytestmark = pytest.mark.asyncio(loop_scope="module")


def _fixes_text() -> str:
    """fixable.rules without its expectation comments, with an unused constant and two guesses."""
    text = re.sub(r"  # [EH]:.*", "", (DATA / "diagnostics" / "fixable.rules").read_text(encoding="utf-8"))
    return text.replace('procedure shot "Shot"', (
        "const unused_limit = 3\n\n"
        'procedure e "E" (q: Quality) -> int {\n'
        "  return dise[q] + (if q == veteran then 1 else 0)\n"
        "}\n\n"
        'procedure shot "Shot"'
    )).replace('record Out "Out" {', '@internl\nrecord Out "Out" {') + (
        "\n```rules\n"
        'procedure casualties_of "Casualties" (o: Out) -> int {\n'
        "  return o.casualtis\n"
        "}\n```\n"
    )


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "rulebook.compiler.commands.cli", "lsp"]), scope="module")
async def client(lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("editing")
    shutil.copytree(DATA / "lsp" / "editing", root / "edicion")
    (root / "fixes").mkdir()
    (root / "fixes" / "fixes.rules").write_text(_fixes_text(), encoding="utf-8")
    FOLDER.append(root)
    capabilities = types.ClientCapabilities(text_document=types.TextDocumentClientCapabilities(rename=types.RenameClientCapabilities(prepare_support=True)))
    result = await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities, root_uri=root.as_uri()))
    CAPABILITIES.append(result.capabilities)
    yield
    await lsp_client.shutdown_session()


class Doc:
    """A file of the workspace, opened once."""

    opened: dict[str, "Doc"] = {}

    def __init__(self, client: LanguageClient, relative: str):
        self.path = FOLDER[-1] / relative
        self.uri = self.path.as_uri()
        self.text = self.path.read_text(encoding="utf-8")
        client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(self.uri, "rules", 1, self.text)))

    @classmethod
    def open(cls, client: LanguageClient, relative: str) -> "Doc":
        key = f"{id(client)}:{relative}"
        if key not in cls.opened:
            cls.opened[key] = cls(client, relative)
        return cls.opened[key]

    def at(self, fragment: str) -> types.Position:
        """The position of ``‸`` in the one line holding ``fragment``."""
        plain = fragment.replace(CURSOR, "")
        found = [(i, line.index(plain)) for i, line in enumerate(self.text.split("\n")) if plain in line]
        assert len(found) == 1, fragment
        line, start = found[0]
        return types.Position(line, start + fragment.index(CURSOR))

    def line_of(self, fragment: str) -> int:
        return self.at(CURSOR + fragment).line


def _texts(edit: types.WorkspaceEdit) -> dict[str, list[str]]:
    """file name → the text of each line an edit changes, with the edit made (sorted)."""
    out: dict[str, list[str]] = {}
    for uri, edits in (edit.changes or {}).items():
        path = Path(uri.removeprefix("file://"))
        lines = path.read_text(encoding="utf-8").split("\n")
        for e in sorted(edits, key=lambda e: (e.range.start.line, -e.range.start.character)):
            assert e.range.start.line == e.range.end.line
            text = lines[e.range.start.line]
            lines[e.range.start.line] = text[: e.range.start.character] + e.new_text + text[e.range.end.character :]
        out[path.name] = sorted(lines[e.range.start.line].strip() for e in edits)
    return out


async def _rename(client: LanguageClient, doc: Doc, fragment: str, new: str) -> types.WorkspaceEdit:
    return await client.text_document_rename_async(types.RenameParams(types.TextDocumentIdentifier(doc.uri), doc.at(fragment), new))


# ---------------------------------------------------------------------------- rename


async def test_the_server_announces_its_editing_features(client: LanguageClient):
    caps = CAPABILITIES[-1]
    assert caps.rename_provider.prepare_provider is True
    assert types.CodeActionKind.QuickFix in caps.code_action_provider.code_action_kinds
    assert "(" in caps.signature_help_provider.trigger_characters
    assert caps.inlay_hint_provider
    legend = caps.semantic_tokens_provider.legend
    assert {"keyword", "number", "dice", "parameter", "property", "enumMember", "struct", "enum"} <= set(legend.token_types)


async def test_a_catalog_id_is_renamed_in_every_file_that_names_it(client: LanguageClient):
    """From the army's ``limit entry:``: the catalog row, the prose link, the table cell, the example."""
    army = Doc.open(client, "edicion/02-armies.rules")
    edit = await _rename(client, army, "limit entry: fusi‸leros", "tiradores")
    assert _texts(edit) == {
        "00-manual.rules": ["The [[Bando]] of each unit, and its [[tropas#tiradores]].", 'tiradores | "Riflemen" | infanteria | 4 | 5 | 30'],
        "01-tables.rules": ["given (tropa: tropas.tiradores)", 'linea  "Line"  | tiradores'],
        "02-armies.rules": ["limit entry: tiradores max: 3"],
    }


async def test_a_declaration_a_field_and_an_enum_value_are_renamed_across_files(client: LanguageClient):
    manual = Doc.open(client, "edicion/00-manual.rules")
    catalog = _texts(await _rename(client, manual, "catalog tro‸pas", "unidades"))
    assert catalog["02-armies.rules"] == ["units unidades side: azul cost: coste"]
    assert sorted(catalog["01-tables.rules"]) == ["-> escolta: ref unidades \"Escort\"", "given (tropa: unidades.fusileros)", "procedure alcance \"Reach\" (tropa: ref unidades, bonus: int = 0) -> int {"]
    field = _texts(await _rename(client, manual, "  cos‸te: int", "puntos"))
    assert field == {"00-manual.rules": ['puntos: int "Points"'], "02-armies.rules": ["units tropas side: azul cost: puntos"]}
    value = _texts(await _rename(client, manual, "  az‸ul \"Blue\"", "celeste"))
    assert value == {"00-manual.rules": ['celeste "Blue"'], "02-armies.rules": ["units tropas side: celeste cost: coste"]}
    term = _texts(await _rename(client, manual, "term g_fu‸ego", "g_disparo"))
    assert term == {"00-manual.rules": ['term g_disparo "Fire" "A unit that shoots."'], "01-tables.rules": ["See [[g_disparo]]."]}


async def test_a_parameter_is_renamed_in_its_procedure_and_in_the_examples(client: LanguageClient):
    tables = Doc.open(client, "edicion/01-tables.rules")
    edit = _texts(await _rename(client, tables, "let base = tro‸pa.movimiento", "unidad"))
    assert edit == {"01-tables.rules": [
        "given (unidad: tropas.fusileros)", "let base = unidad.movimiento + bonus",
        "procedure alcance \"Reach\" (unidad: ref tropas, bonus: int = 0) -> int {",
    ]}


async def test_prepare_rename_gives_the_name_or_refuses_what_the_language_owns(client: LanguageClient):
    tables = Doc.open(client, "edicion/01-tables.rules")
    found = await client.text_document_prepare_rename_async(types.PrepareRenameParams(types.TextDocumentIdentifier(tables.uri), tables.at("let ti‸rada")))
    assert found.placeholder == "tirada" and found.range.start == tables.at("let ‸tirada")
    for fragment, why in (("  st‸ep \"Roll\"", "no name here"), ("See [[g_fuego]]‸.", "no name here")):
        with pytest.raises(JsonRpcException, match=why):
            await client.text_document_prepare_rename_async(types.PrepareRenameParams(types.TextDocumentIdentifier(tables.uri), tables.at(fragment)))
    army = Doc.open(client, "edicion/02-armies.rules")
    with pytest.raises(JsonRpcException, match="clause word of the language"):
        await client.text_document_prepare_rename_async(types.PrepareRenameParams(types.TextDocumentIdentifier(army.uri), army.at("  li‸mit entry")))


@pytest.mark.parametrize("fragment, new, why", [
    ("limit entry: fusi‸leros", "tanquetas", r"'tanquetas' is already an id of tropas \(at .*00-manual.rules:\d+:3\); renaming 'fusileros' to it would clash"),
    ("sides Ban‸do", "Clase", "'Clase' is already a declaration"),
    ("units tropas side: az‸ul", "rojo", "'rojo' is already a value of Bando"),
    ("units tropas side: azul cost: cos‸te", "disparo", "'disparo' is already a field of Tropa"),
    ("sides Ban‸do", "roll", "'roll' is a reserved word"),
    ("sides Ban‸do", "2bandos", "'2bandos' is not a name"),
    ("sides Ban‸do", "max", "a name of the language"),
])
async def test_a_rename_that_would_clash_is_refused_with_why(client: LanguageClient, fragment, new, why):
    army = Doc.open(client, "edicion/02-armies.rules")
    with pytest.raises(JsonRpcException, match=why):
        await _rename(client, army, fragment, new)


async def test_a_rename_the_checker_would_refuse_is_refused(client: LanguageClient):
    """A local renamed to the name of a parameter: the name clash is caught before any edit."""
    tables = Doc.open(client, "edicion/01-tables.rules")
    with pytest.raises(JsonRpcException, match="'bonus' is already a name in alcance"):
        await _rename(client, tables, "let ba‸se", "bonus")


# ---------------------------------------------------------------------------- quick fixes


async def _actions(client: LanguageClient, doc: Doc, fragment: str, only=None) -> list[types.CodeAction]:
    at = doc.at(fragment)
    params = types.CodeActionParams(types.TextDocumentIdentifier(doc.uri), types.Range(at, at), types.CodeActionContext(diagnostics=[], only=only))
    return await client.text_document_code_action_async(params) or []


def _applied(doc: Doc, action: types.CodeAction) -> str:
    """The document's text with the action's edits made."""
    from rulebook.rules_dsl.diagnostics import Edit, Span, rewrite

    edits = [Edit(Span("f", e.range.start.line + 1, e.range.start.character + 1, e.range.end.line + 1, e.range.end.character + 1), e.new_text) for e in action.edit.changes[doc.uri]]
    return rewrite(doc.text, edits)


@pytest.mark.parametrize("fragment, title, before, after", [
    ("  Gr‸een | 1", "Write 'green'", "  Green | 1", "  green | 1"),  # an enum value spelt as before the naming rule
    ("  Quality.Vet‸eran | 2", "Write 'Quality.veteran'", "Quality.Veteran | 2", "Quality.veteran | 2"),
    ("expect result.h‸it == 1/3", "Write 'probability(result.hit) == 1/3'", "expect result.hit == 1/3", "expect probability(result.hit) == 1/3"),
    ("odds hit_‸odds", "Rewrite: write it as", "  of shot(n: x)\n", "odds hit_odds \"Hit odds\" {\n  procedure shot(n: x)\n  rows x in 2..6 \"Target\"\n  cell probability(result.hit)\n}"),
])
async def test_each_exact_rewrite_is_the_preferred_quick_fix(client: LanguageClient, fragment, title, before, after):
    doc = Doc.open(client, "fixes/fixes.rules")
    actions = [a for a in await _actions(client, doc, fragment) if a.is_preferred]
    assert [a.title for a in actions if a.title.startswith(title)], [a.title for a in actions]
    action = next(a for a in actions if a.title.startswith(title))
    assert action.kind == types.CodeActionKind.QuickFix and action.diagnostics
    fixed = _applied(doc, action)
    assert before in doc.text and after in fixed and before not in fixed.replace(after, "")


@pytest.mark.parametrize("fragment, title, after", [
    ("return di‸se[q]", "Change 'dise' to 'dice'", "return dice[q] + (if q == veteran"),
    ("if q == vet‸eran", "Change 'veteran' to 'Quality.veteran'", "if q == Quality.veteran then"),
    ("return o.casu‸altis", "Change 'casualtis' to 'casualties'", "return o.casualties\n"),  # any hint 'did you mean' with the name in the span
    ("@inter‸nl", "Change 'internl' to 'internal'", "@internal\nrecord Out"),
])
async def test_a_did_you_mean_is_offered_not_preferred(client: LanguageClient, fragment, title, after):
    doc = Doc.open(client, "fixes/fixes.rules")
    actions = {a.title: a for a in await _actions(client, doc, fragment)}
    assert title in actions, list(actions)
    assert not actions[title].is_preferred
    assert after in _applied(doc, actions[title])


async def test_an_unused_declaration_can_be_removed(client: LanguageClient):
    doc = Doc.open(client, "fixes/fixes.rules")
    actions = {a.title: a for a in await _actions(client, doc, "const unused_‸limit")}
    action = actions["Remove it: const 'unused_limit' is never used"]
    fixed = _applied(doc, action)
    assert "unused_limit" not in fixed and 'record Out "Out" {' in fixed
    assert fixed == doc.text.replace("const unused_limit = 3\n\n", "")


async def test_fix_all_makes_every_exact_rewrite_of_the_file_as_check_fix_does(client: LanguageClient):
    doc = Doc.open(client, "fixes/fixes.rules")
    actions = await _actions(client, doc, "rulebook ‸fixable", only=[types.CodeActionKind.SourceFixAll])
    assert [a.kind for a in actions] == ["source.fixAll.rulebook"]
    fixed = _applied(doc, actions[0])
    assert "Quality.veteran | 2" in fixed and "  green | 1" in fixed and "q == Quality.veteran" in fixed and "probability(result.hit) == 1/3" in fixed
    assert "return dise[q]" in fixed, "a guess is never made by fix-all"


# ---------------------------------------------------------------------------- signature help


async def _signature(client: LanguageClient, doc: Doc, line: int, typed: str) -> types.SignatureHelp | None:
    """Signature help after typing ``typed`` on a new line inserted after ``line``."""
    lines = doc.text.split("\n")
    text = "\n".join(lines[: line + 1] + ["    " + typed] + lines[line + 1 :])
    doc.version = getattr(doc, "version", 1) + 1
    change = types.TextDocumentContentChangeWholeDocument(text=text)
    client.text_document_did_change(types.DidChangeTextDocumentParams(types.VersionedTextDocumentIdentifier(doc.version, doc.uri), [change]))
    try:
        return await client.text_document_signature_help_async(types.SignatureHelpParams(types.TextDocumentIdentifier(doc.uri), types.Position(line + 1, 4 + len(typed))))
    finally:
        doc.version += 1
        client.text_document_did_change(types.DidChangeTextDocumentParams(types.VersionedTextDocumentIdentifier(doc.version, doc.uri), [types.TextDocumentContentChangeWholeDocument(text=doc.text)]))


def _active(help_: types.SignatureHelp) -> str:
    s = help_.signatures[0]
    start, end = s.parameters[help_.active_parameter].label
    return s.label[start:end]


async def test_signature_help_for_procedures_builtins_and_dice(client: LanguageClient):
    doc = Doc.open(client, "edicion/01-tables.rules")
    line = doc.line_of("let tirada = roll 2d6")
    call = await _signature(client, doc, line, "let x = alcance(tropas.fusileros, ")
    assert call.signatures[0].label == "alcance(tropa: ref tropas, bonus: int = 0) -> int" and _active(call) == "bonus: int = 0"
    named = await _signature(client, doc, line, "let x = alcance(bonus: 1, tropa: ")
    assert _active(named) == "tropa: ref tropas"
    builtin = await _signature(client, doc, line, "let x = clamp(tirada, 2, ")
    assert builtin.signatures[0].label == "clamp(x, lo, hi)" and _active(builtin) == "hi"
    assert "within" in builtin.signatures[0].documentation.value
    dice = await _signature(client, doc, line, "let x = roll 3d6 reroll 1 ke")
    assert dice.signatures[0].label.startswith("roll NdS [times n] [reroll test]") and _active(dice) == "reroll test"
    assert await _signature(client, doc, line, "let x = tirada + ") is None


# ---------------------------------------------------------------------------- semantic tokens and inlay hints


async def test_semantic_tokens_colour_names_keywords_numbers_and_dice(client: LanguageClient):
    legend = CAPABILITIES[-1].semantic_tokens_provider.legend
    doc = Doc.open(client, "edicion/01-tables.rules")
    result = await client.text_document_semantic_tokens_full_async(types.SemanticTokensParams(types.TextDocumentIdentifier(doc.uri)))
    tokens = decode_semantic_tokens(result.data, legend, doc.text)
    head = doc.line_of('procedure alcance "Reach"')
    assert tokens[(head, "procedure")] == ("keyword", [])
    assert tokens[(head, "alcance")] == ("function", ["declaration"])
    assert tokens[(head, "tropa")] == ("parameter", ["declaration"])
    assert tokens[(head, "tropas")][0] == "type"
    assert tokens[(head, "0")] == ("number", [])
    roll = doc.line_of("let tirada = roll 2d6")
    assert tokens[(roll, "2d6")] == ("dice", []) and tokens[(roll, "roll")] == ("keyword", [])
    assert tokens[(roll, "tirada")] == ("variable", ["declaration"])
    assert tokens[(doc.line_of("let base = tropa.movimiento"), "movimiento")] == ("property", [])
    assert tokens[(doc.line_of('linea  "Line"'), "fusileros")] == ("enumMember", [])
    assert not any(text == "Reach" or text.startswith('"') for _, text in tokens), "strings are the grammar's"


async def test_inlay_hints_give_let_types_and_the_fields_of_positional_cells(client: LanguageClient):
    tables = Doc.open(client, "edicion/01-tables.rules")
    whole = types.Range(types.Position(0, 0), types.Position(len(tables.text.split("\n")), 0))
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(types.TextDocumentIdentifier(tables.uri), whole))
    shown = {(h.position.line, h.position.character): h.label for h in hints}
    assert shown[(tables.at("let base‸ =").line, tables.at("let base‸ =").character)] == ": int"
    assert shown[(tables.at("let tirada‸ =").line, tables.at("let tirada‸ =").character)] == ": int"
    manual = Doc.open(client, "edicion/00-manual.rules")
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(types.TextDocumentIdentifier(manual.uri), types.Range(manual.at("‸  tanquetas |"), manual.at("‸  tanquetas |"))))
    row = manual.line_of("  tanquetas |")
    cells = [(h.position.character, h.label) for h in hints if h.position.line == row]
    text = manual.text.split("\n")[row]
    assert [label for _, label in cells] == ["nombre:", "clase:", "movimiento:", "disparo:", "coste:"]
    assert [text[at:].split(" |")[0] for at, _ in cells] == ['"Tankettes"', "carro", "8", "4", "60"]
