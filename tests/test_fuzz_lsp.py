"""A bounded fuzz run of the language server's input in CI: batches of random and
broken LSP frames (:mod:`fuzz_lsp`) sent to one ``rulebook lsp`` process, which
must stay alive, answer a request after each batch, answer every well-formed
request, never write a traceback, and end cleanly on ``shutdown`` and ``exit``.
Seeded, so every run sends the same bytes; ``bench/fuzz_lsp.py`` sends thousands.
"""

from __future__ import annotations

import random

import fuzz_lsp

BATCHES = 60  # about 270 frames, some seconds on one core


def test_random_and_broken_frames_never_silence_the_server(tmp_path):
    folder = tmp_path / "reglamento"
    folder.mkdir()
    server = fuzz_lsp.LspServer(folder)
    try:
        for seed in range(BATCHES):
            frames, how = fuzz_lsp.make_batch(random.Random(seed), folder, server.next_id)
            problem = fuzz_lsp.failure(server, frames)
            assert problem is None, f"{problem} after batch {seed}: {how}\n--- stderr ---\n{server.stderr.decode(errors='replace')[-3000:]}"
        assert fuzz_lsp.ends_cleanly(server) is None
    finally:
        server.close()
