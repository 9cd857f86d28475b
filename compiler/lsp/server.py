"""``rulebook lsp``: the language server for ``.rules`` files, over stdio.

Entry point: :func:`serve()` (also :func:`make_server()` for tests that drive it
in-process). Reads LSP messages on stdin, answers on stdout (logs go to stderr,
one line each and never a traceback, and to the client's log).

The documents an editor opens are grouped by rulebook
(:func:`~rulebook.compiler.lsp.files.rulebook_root`: a folder, never above the
editor's workspace folder, or a lone file); each is a
:class:`~rulebook.compiler.lsp.workspace.Rulebook`, read within the loader's limits
(an open document over the largest ``.rules`` file is not checked: it gets one
diagnostic saying so). After an edit the rulebook is checked again once the typing
pauses (``DEBOUNCE`` seconds without another edit: of a burst of edits only the
last is checked) and the diagnostics of every file of it are published, as
``rulebook check`` prints them (the first ``DIAGNOSTICS_PER_FILE`` of a file, and how
many more). A request (hover, definition…) checks the
rulebook first if an edit is still waiting, so it answers for the text on screen.
Every request gets an answer or an LSP error; nothing the rules contain stops the
server.

Nor does anything the input contains (:mod:`~rulebook.compiler.lsp.transport`
reads it): a frame too large is read past without being kept, and after a
malformed frame (a bad or missing ``Content-Length``, a wrong length, bytes that
are not a frame) the server resynchronises on the next ``Content-Length:`` header
and goes on, logging one line about what it skipped; a request it could not read
is answered with an LSP error when its id can be read. It resynchronises rather
than exit: exiting would lose the open documents and their state until the editor
noticed and restarted it (not every editor does), while a broken frame costs
only that message. It ends when its input ends or the client says exit.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import itertools
import logging
import sys
import threading
import traceback
from importlib import metadata
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import FeatureRequestError
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from rulebook.rules_dsl import parser
from rulebook.rules_dsl.diagnostics import Diagnostic, Span

from rulebook.compiler.lsp import code_actions, features, inlay_hints, rename, signature_help, transport
from rulebook.compiler.lsp.files import file_key, rulebook_root
from rulebook.compiler.lsp.positions import Locator
from rulebook.compiler.lsp.workspace import Analysis, Rulebook

DEBOUNCE = 0.02  # seconds of quiet after a keystroke before the rulebook is checked again (more input already on its way is waited for)


class RulesLanguageServer(LanguageServer):
    """The server's state: one :class:`Rulebook` per folder with open documents."""

    def __init__(self) -> None:
        try:
            version = metadata.version("rulebook")
        except metadata.PackageNotFoundError:
            version = "0"
        super().__init__("rulebook", version, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.rulebooks: dict[Path, Rulebook] = {}
        self.debounce = DEBOUNCE
        self._pending: dict[Path, asyncio.Task] = {}
        self._published: dict[str, list[types.Diagnostic]] = {}
        self._failures: set[str] = set()
        self._input_problems = 0
        self.connection: transport.Connection | None = None  # the stdio input, once serving

    # ------------------------------------------------------------------ documents
    def workspace_folders(self) -> list[Path]:
        """The editor's workspace folders (``workspaceFolders``, else ``rootUri``), resolved."""
        try:
            workspace = self.workspace
        except RuntimeError:  # not initialized yet
            return []
        uris = [folder.uri for folder in workspace.folders.values()] or ([workspace.root_uri] if workspace.root_uri else [])
        folders = []
        for uri in uris:
            fs_path = to_fs_path(uri) if uri.startswith("file:") else None
            if fs_path:
                folders.append(Path(fs_path).resolve())
        return folders

    def rulebook_of(self, uri: str) -> tuple[Rulebook, Path] | None:
        """The rulebook of a document (None for a document that is not a ``.rules`` file)."""
        fs_path = to_fs_path(uri) if uri.startswith("file:") else None
        if not fs_path or not fs_path.endswith(".rules") or "\x00" in fs_path:
            return None
        try:
            path = file_key(Path(fs_path))
            root = rulebook_root(path, self.workspace_folders())
        except (OSError, RuntimeError):  # a path the system refuses (too long, a loop of links)
            return None
        if root not in self.rulebooks:
            self.rulebooks[root] = Rulebook(root)
        return self.rulebooks[root], path

    def sync(self, uri: str, closed: bool = False) -> Rulebook | None:
        """Give the rulebook the editor's text of ``uri`` (or none, once closed)."""
        found = self.rulebook_of(uri)
        if found is None:
            return None
        rulebook, path = found
        rulebook.set_text(path, None if closed else self.workspace.get_text_document(uri).source)
        return rulebook

    def locate(self, uri: str) -> tuple[Analysis, Locator, str] | None:
        """The up-to-date analysis of a document's rulebook, a locator and the document's name in it."""
        found = self.rulebook_of(uri)
        if found is None:
            return None
        rulebook, path = found
        analysis = rulebook.analyze()
        self._report_failure(analysis)
        name = analysis.name_of(path)
        if name is None:
            return None
        return analysis, Locator(analysis, self.workspace.position_codec), name

    # ------------------------------------------------------------------ diagnostics
    DEBOUNCE_WAITS = 20
    """How many more ``debounce`` waits a check may wait for input still on its way (a
    client that never pauses gets its diagnostics after a second all the same)."""

    def schedule(self, rulebook: Rulebook | None, delay: float | None = None) -> None:
        """Check ``rulebook`` again after ``delay`` seconds without another edit."""
        if rulebook is None:
            return
        pending = self._pending.pop(rulebook.root, None)
        if pending is not None:
            pending.cancel()
        self._pending[rulebook.root] = asyncio.get_running_loop().create_task(self._publish_later(rulebook, self.debounce if delay is None else delay))

    async def _publish_later(self, rulebook: Rulebook, delay: float) -> None:
        await asyncio.sleep(delay)
        for _ in range(self.DEBOUNCE_WAITS):  # more input on its way (the rest of a burst of edits): wait for it
            if self.connection is None or not self.connection.waiting():
                break
            await asyncio.sleep(self.debounce)
        self._pending.pop(rulebook.root, None)
        try:
            self.publish(rulebook)
        except Exception:  # a bug must not end the server: tell the client's log
            self.log(types.MessageType.Error, "rulebook: checking failed\n" + traceback.format_exc())

    def publish(self, rulebook: Rulebook) -> None:
        """Publish the diagnostics of every file of the rulebook that changed since last time
        (at most :data:`DIAGNOSTICS_PER_FILE` of a file)."""
        analysis = rulebook.analyze()
        self._report_failure(analysis)
        locator = Locator(analysis, self.workspace.position_codec)
        for uri, diags in features.diagnostics(_at_most_per_file(analysis, DIAGNOSTICS_PER_FILE), locator).items():
            if self._published.get(uri) != diags:
                self._published[uri] = diags
                self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diags))

    def _report_failure(self, analysis: Analysis) -> None:
        if analysis.failure and analysis.failure not in self._failures:
            self._failures.add(analysis.failure)
            self.log(types.MessageType.Error, f"rulebook: the checker failed on this text ({analysis.failure}); please report it with the file")

    def log(self, kind: types.MessageType, message: str) -> None:
        logging.getLogger(__name__).error(message)
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def report_server_error(self, error: Exception, source) -> None:
        """A handler failed on a notification (e.g. an edit of a document never opened):
        a line in the logs, not a message box for each keystroke as pygls would show (a
        request that failed was answered with the error already)."""
        if source is not FeatureRequestError:
            self.log(types.MessageType.Error, f"rulebook: {type(error).__name__}: {str(error)[:200]}")

    INPUT_PROBLEMS_TO_CLIENT = 20
    """The problems of the input also told to the client's log (stderr gets them all)."""

    def report_input_problem(self, problem: str) -> None:
        """A piece of the input that was not a message, or not one the server could read."""
        self._input_problems += 1
        message = f"rulebook: skipped input: {problem}"
        if self._input_problems > self.INPUT_PROBLEMS_TO_CLIENT:
            logging.getLogger(__name__).error(message)
        else:
            self.log(types.MessageType.Warning, message)

    # ------------------------------------------------------------------ input
    def start_io(self, stdin=None, stdout=None) -> int:
        """Serve over stdio until the input ends or the client says exit; the exit status
        (0, or 1 for an exit without shutdown, as the protocol says).

        pygls' own loop (``pygls.io_.run_async``) trusts the input: a length it
        cannot allocate ends the server, a malformed frame leaves it deaf.
        :mod:`~rulebook.compiler.lsp.transport` reads the frames instead."""
        self._stop_event = threading.Event()  # pygls' shutdown() sets it
        out = StdoutWriter(stdout or sys.stdout.buffer)
        self.protocol.set_writer(out)
        reader = transport.stdin_reader(stdin or sys.stdin.buffer)

        async def run() -> None:
            self.connection = transport.Connection(reader, self.protocol, out.write, self.report_input_problem)
            await self.connection.run(self._stop_event)

        try:
            asyncio.run(run())
        except BrokenPipeError:
            logging.getLogger(__name__).error("the client closed the connection")
        except SystemExit as exc:  # pygls' exit handler
            return exc.code if isinstance(exc.code, int) else 0
        finally:
            self.shutdown()
        return 0


DIAGNOSTICS_PER_FILE = 500
"""The most diagnostics published for one file, in the order of the file; a last one says
how many more ``rulebook check`` lists. Prose with thousands of broken links would
otherwise send megabytes at each keystroke (and take seconds to place them)."""


def _at_most_per_file(analysis: Analysis, most: int) -> Analysis:
    """``analysis`` with at most ``most`` diagnostics per file, then one saying how many more."""
    counts = collections.Counter(d.span.file for d in analysis.diagnostics)
    if not counts or max(counts.values()) <= most:
        return analysis
    seen: collections.Counter[str] = collections.Counter()
    kept = []
    for d in sorted(analysis.diagnostics, key=lambda d: (d.span.file, d.span.line, d.span.col, d.message)):
        seen[d.span.file] += 1
        if seen[d.span.file] <= most:
            kept.append(d)
    for file, count in counts.items():
        if count > most:
            kept.append(Diagnostic("warning", f"{count - most} more problems in this file are not shown here; rulebook check lists them all", Span(file, 0, 0, 0, 0), None, "limit"))
    return dataclasses.replace(analysis, diagnostics=kept)


PARSES_REMEMBERED = 4096
"""Declarations whose parse trees the server keeps (an edit re-parses only what changed)."""


def make_server() -> RulesLanguageServer:
    """A server with every feature registered."""
    parser.remember_parses(PARSES_REMEMBERED)
    server = RulesLanguageServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: RulesLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(ls.sync(params.text_document.uri), delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: RulesLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(ls.sync(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: RulesLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.schedule(ls.sync(params.text_document.uri, closed=True), delay=0)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_files(ls: RulesLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
        for change in params.changes:
            found = ls.rulebook_of(change.uri)
            if found is not None:
                ls.schedule(found[0], delay=0)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: RulesLanguageServer, params: types.HoverParams) -> types.Hover | None:
        return _at(ls, params, features.hover)

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: RulesLanguageServer, params: types.DefinitionParams) -> list[types.Location] | None:
        return _at(ls, params, features.definition)

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    def references(ls: RulesLanguageServer, params: types.ReferenceParams) -> list[types.Location] | None:
        return _at(ls, params, features.references, params.context.include_declaration)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
    def highlight(ls: RulesLanguageServer, params: types.DocumentHighlightParams) -> list[types.DocumentHighlight] | None:
        return _at(ls, params, features.highlights)

    @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[".", "@", "|", "["]))
    def completion(ls: RulesLanguageServer, params: types.CompletionParams) -> types.CompletionList | None:
        located = ls.locate(params.text_document.uri)
        if located is None:
            return None
        analysis, locator, name = located
        line, col = locator.span_position(name, params.position)
        items = features.completion(analysis, analysis.sources.get(name, ""), line, col)
        return types.CompletionList(is_incomplete=False, items=items)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(ls: RulesLanguageServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol] | None:
        located = ls.locate(params.text_document.uri)
        return features.document_symbols(located[0], located[1], located[2]) if located else None

    @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, types.SemanticTokensLegend(token_types=list(features.TOKEN_TYPES), token_modifiers=list(features.TOKEN_MODIFIERS)))
    def semantic_tokens(ls: RulesLanguageServer, params: types.SemanticTokensParams) -> types.SemanticTokens | None:
        located = ls.locate(params.text_document.uri)
        return types.SemanticTokens(data=features.semantic_tokens(located[0], located[1], located[2])) if located else None

    @server.feature(types.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls: RulesLanguageServer, params: types.DocumentFormattingParams) -> list[types.TextEdit]:
        from rulebook.compiler.lsp.formatting import format_document

        doc = ls.workspace.get_text_document(params.text_document.uri)
        return format_document(doc.source, doc.path)

    @server.feature(types.TEXT_DOCUMENT_RANGE_FORMATTING)
    def range_formatting(ls: RulesLanguageServer, params: types.DocumentRangeFormattingParams) -> list[types.TextEdit]:
        from rulebook.compiler.lsp.formatting import format_document

        doc = ls.workspace.get_text_document(params.text_document.uri)
        return format_document(doc.source, doc.path, params.range.start.line, params.range.end.line)

    @server.feature(types.WORKSPACE_SYMBOL)
    def workspace_symbol(ls: RulesLanguageServer, params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
        analyses = [rb.analyze() for rb in ls.rulebooks.values()]
        return features.workspace_symbols([(a, Locator(a, ls.workspace.position_codec)) for a in analyses], params.query)

    _register_editing_features(server)
    return server


def _register_editing_features(server: RulesLanguageServer) -> None:
    """Rename, quick fixes, signature help and inlay hints (issue 30; one module each)."""

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    def prepare_rename(ls: RulesLanguageServer, params: types.PrepareRenameParams) -> types.PrepareRenameResult | None:
        return _at(ls, params, rename.prepare_rename)

    @server.feature(types.TEXT_DOCUMENT_RENAME)  # pygls announces prepareRename to the clients that support it
    def rename_symbol(ls: RulesLanguageServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
        return _at(ls, params, rename.rename, params.new_name)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=code_actions.KINDS))
    def code_action(ls: RulesLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        located = ls.locate(params.text_document.uri)
        if located is None:
            return None
        return code_actions.code_actions(*located, params.range, params.context.only)

    @server.feature(types.TEXT_DOCUMENT_SIGNATURE_HELP, types.SignatureHelpOptions(trigger_characters=signature_help.TRIGGERS, retrigger_characters=signature_help.RETRIGGERS))
    def signature(ls: RulesLanguageServer, params: types.SignatureHelpParams) -> types.SignatureHelp | None:
        return _at(ls, params, lambda analysis, _locator, name, line, col: signature_help.signature_help(analysis, analysis.sources.get(name, ""), line, col))

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT)
    def inlay_hint(ls: RulesLanguageServer, params: types.InlayHintParams) -> list[types.InlayHint] | None:
        located = ls.locate(params.text_document.uri)
        return inlay_hints.inlay_hints(*located, params.range) if located else None



def _at(ls: RulesLanguageServer, params, feature, *extra):
    """Run a feature at the position of a request (None outside a rulebook)."""
    located = ls.locate(params.text_document.uri)
    if located is None:
        return None
    analysis, locator, name = located
    line, col = locator.span_position(name, params.position)
    return feature(analysis, locator, name, line, col, *extra)


class OneLineFormatter(logging.Formatter):
    """Log records as one line each: the message up to any traceback pygls put in it,
    and the exception's type and message instead of its traceback."""

    def format(self, record: logging.LogRecord) -> str:
        lines = record.getMessage().split("\n")
        message = " ".join(itertools.takewhile(lambda line: "Traceback (most recent call last)" not in line, lines)).strip()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            message += f" ({type(exc).__name__}: {str(exc)[:200]})"
        return "rulebook lsp: " + message[:2000]


def serve() -> int:
    """Run the server on stdin/stdout until the input ends or the client says exit."""
    handler = logging.StreamHandler()
    handler.setFormatter(OneLineFormatter())
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    return make_server().start_io()
