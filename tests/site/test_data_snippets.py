"""Every snippet of every bundled rulebook's data page runs as shown (issue 9 §5).

The page "Datos para herramientas" shows commands and code for *its* rulebook
and the folders its build wrote. Each build here was made as
``rulebook build <rulebook> -o build`` would make it (``driver.build`` with
the default shown output ``build``), so every snippet runs from the folder
that holds ``build/``: Python snippets in a subprocess, shell ones with
``bash`` (``rulebook`` and ``jq`` on the PATH), the JavaScript one through
``node --check`` (it fetches from a served site, so it is only parsed).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bundled import BUNDLED, ROOT, bundled_builds  # noqa: F401 - fixture

SNIPPET = re.compile(r'<div class="language-(\w+) highlight"><pre>(.*?)</pre></div>', re.S)


def snippets(build: Path) -> list[tuple[str, str]]:
    """(language, code) of each highlighted block of the built data page, in page order."""
    page = (build / "site" / "datos.html").read_text(encoding="utf-8")
    return [(lang, html.unescape(re.sub(r"<[^>]+>", "", code))) for lang, code in SNIPPET.findall(page)]


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


@pytest.mark.parametrize("name", BUNDLED)
def test_every_snippet_of_the_data_page_runs(name, bundled_builds):  # noqa: F811 - fixture
    build = bundled_builds[name]
    found = snippets(build)
    langs = [lang for lang, _code in found]
    assert langs.count("python") == 2 and langs.count("bash") == 3 and langs.count("javascript") == 1, langs
    package = next(p.name for p in (build / "python").iterdir() if p.is_dir() and not p.name.startswith("_"))
    for lang, code in found:
        assert "content/1936" not in code or name == "1936", code
        if lang == "bash" and code.startswith("rulebook build "):
            assert code.strip() == f"rulebook build {ROOT / 'content' / name} -o build"
            continue
        if lang == "python":
            proc = run([sys.executable, "-c", code], build.parent)
        elif lang == "bash":
            proc = run(["bash", "-euo", "pipefail", "-c", code], build.parent)
        else:
            if shutil.which("node") is None:
                continue
            script = build.parent / "snippet.mjs"
            script.write_text(code, encoding="utf-8")
            proc = run(["node", "--check", str(script)], build.parent)
        assert proc.returncode == 0, f"{lang} snippet failed:\n{code}\n{proc.stderr[-2000:]}"
        assert "Traceback" not in proc.stderr
        if lang == "python" and "PROCEDURES" in code:
            assert f"from {package} import runtime\n" in code
            assert "⇒ resultado: " in proc.stdout  # the trace, in the rulebook's language
        if lang == "bash" and code.startswith("rulebook resolve"):
            assert json.loads(proc.stdout)["distribution"], proc.stdout[:500]


def test_the_build_command_of_the_data_page_builds(tmp_path):
    """The page's first command, run as shown (the smallest bundled rulebook), writes the
    folders the other snippets read."""
    name = min(BUNDLED, key=lambda n: sum(p.stat().st_size for p in (ROOT / "content" / n).glob("*.rules")))
    proc = run(["rulebook", "build", str(ROOT / "content" / name), "-o", "build"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    build = tmp_path / "build"
    assert (build / "site" / "datos" / "json").is_dir() and (build / "python").is_dir()
    assert snippets(build)[0] == ("bash", f"rulebook build {ROOT / 'content' / name} -o build")
