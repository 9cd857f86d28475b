"""The language server for ``.rules`` files (``rulebook lsp``).

Reads: LSP messages and the rulebook folder of the open documents (checked by
:mod:`rulebook.compiler.check`). Produces: diagnostics, hovers, completions and the
other answers of the protocol.

Modules, from the text to the editor:

==============  ==============================================================
files           which files make a document's rulebook (never above the
                workspace folder) and their texts, within the loader's limits
workspace       a rulebook folder with the editor's texts → :class:`Analysis`
                (parses cached by text, the checker run on every change)
index           every name written in the rulebook and what it stands for
hover           Markdown for a declaration, value, field, entry or local
docs            what annotations, kinds of warning and army clauses do
snippets        declaration templates (completions; editors/ snippets)
positions       spans ↔ LSP positions (the client's position encoding)
features        one function per LSP request, over an analysis
transport       stdin bytes → checked, capped frames for pygls (resynchronised
                after a malformed frame)
server          the pygls server: documents, debounced diagnostics, requests
==============  ==============================================================
"""
