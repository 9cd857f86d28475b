"""Every snippet of every bundled rulebook's data page runs once its placeholders are filled in (issue 9 §5).

The page "Datos para herramientas" shows commands and code for *its* rulebook, naming the
rulebook's folder and the output folder by placeholders (never a path of the machine that
built it). Each build here is a ``build/`` folder; with the placeholders filled in (the
rulebook's folder, ``build``), every snippet runs from the folder that holds ``build/``:
Python snippets in a subprocess, with the generated package importable as ``pip install``
leaves it (tests/test_wheel.py installs it for real), shell ones with ``bash`` (``rulebook``
and ``jq`` on the PATH), the JavaScript one through ``node --check`` (it fetches from a
served site, so it is only parsed), the TypeScript one type-checked by ``tsc --strict`` against the
generated ``index.d.ts``/``armies.d.ts`` and then run with ``node`` (tests/codegen holds tsc).
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
from conftest import filled_in

TSC = ROOT / "tests" / "codegen" / "node_modules" / ".bin" / "tsc"


def run_typescript(code: str, folder: Path) -> subprocess.CompletedProcess:
    """``code`` saved as ``snippet.mts`` in ``folder``, type-checked with ``tsc --strict`` (which
    writes ``snippet.mjs``), then run with node; the first failing step's result."""
    script = folder / "snippet.mts"
    script.write_text(code, encoding="utf-8")
    checked = run([str(TSC), "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022",
                   "--lib", "es2022,dom", "--skipLibCheck", "false", script.name], folder)
    if checked.returncode != 0:
        return checked
    return run(["node", "snippet.mjs"], folder)

SNIPPET = re.compile(r'<div class="language-(\w+) highlight"><pre>(.*?)</pre></div>', re.S)


def data_page(build: Path) -> Path:
    """The built data page: ``datos.html``, or ``data-for-tools.html`` in an English rulebook."""
    english = build / "site" / "data-for-tools.html"
    return english if english.is_file() else build / "site" / "datos.html"


def snippets(build: Path) -> list[tuple[str, str]]:
    """(language, code) of each highlighted block of the built data page, in page order."""
    page = data_page(build).read_text(encoding="utf-8")
    return [(lang, html.unescape(re.sub(r"<[^>]+>", "", code))) for lang, code in SNIPPET.findall(page)]


def page_language(build: Path) -> str:
    return re.search(r'<html lang="(\w+)"', data_page(build).read_text(encoding="utf-8")).group(1)


def run(cmd: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""), **env)
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


@pytest.mark.parametrize("name", BUNDLED)
def test_every_snippet_of_the_data_page_runs(name, bundled_builds):  # noqa: F811 - fixture
    build = bundled_builds[name]
    found = snippets(build)
    langs = [lang for lang, _code in found]
    assert langs.count("python") == 2 and langs.count("bash") == 4 and langs.count("javascript") == 1 and langs.count("typescript") == 1, langs
    package = next(p.name for p in (build / "python").iterdir() if p.is_dir() and not p.name.startswith("_"))
    page_lang = page_language(build)
    for lang, shown in found:
        assert str(ROOT) not in shown and "content/" not in shown and "build/" not in shown, shown  # no folder of this build
        code = filled_in(shown, page_lang, ROOT / "content" / name, build.name)
        if lang == "bash" and code.startswith("rulebook build "):
            assert code.strip() == f"rulebook build {ROOT / 'content' / name} -o {build.name}" != shown.strip()
            continue
        if lang == "bash" and code.startswith("pip install "):  # the generated project, which pip installs alone
            project = build.parent / code.split()[2]
            assert project == build / "python" / package and (project / "pyproject.toml").is_file(), code
            continue
        if lang == "python":  # the package importable as pip installs it
            proc = run([sys.executable, "-c", code], build.parent, PYTHONPATH=str(build / "python"))
        elif lang == "bash":
            proc = run(["bash", "-euo", "pipefail", "-c", code], build.parent)
        elif lang == "typescript":
            if shutil.which("node") is None or not TSC.exists():
                continue
            proc = run_typescript(code, build.parent)
            assert f'from "./{build.name}/js/index.js"' in code
        else:
            if shutil.which("node") is None:
                continue
            script = build.parent / "snippet.mjs"
            script.write_text(code, encoding="utf-8")
            proc = run(["node", "--check", str(script)], build.parent)
        assert proc.returncode == 0, f"{lang} snippet failed:\n{code}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        assert "Traceback" not in proc.stderr
        if lang == "typescript":  # the distribution's outcomes, then (with armies) the roster report
            assert proc.stdout.strip() and ("false [" in proc.stdout) == bool(list((build / "json").glob("armies/*.json"))), proc.stdout[-1000:]
        if lang == "python" and "PROCEDURES" in code:
            assert code.startswith(f"import json\n\nimport {package}\nfrom {package} import runtime")  # as installed: no path to add
            assert "sys.path" not in code
            assert ("⇒ result: " if page_lang == "en" else "⇒ resultado: ") in proc.stdout  # the trace, in the rulebook's language
        if lang == "bash" and code.startswith("rulebook resolve"):
            assert json.loads(proc.stdout)["distribution"], proc.stdout[:500]


def test_the_build_command_of_the_data_page_builds(tmp_path):
    """The page's first command, with its placeholders filled in (the smallest bundled rulebook),
    writes the folders the other snippets read."""
    name = min(BUNDLED, key=lambda n: sum(p.stat().st_size for p in (ROOT / "content" / n).glob("*.rules")))
    proc = run(["rulebook", "build", str(ROOT / "content" / name), "-o", "salida"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    build = tmp_path / "salida"
    data = "data" if page_language(build) == "en" else "datos"  # the site's file names follow the rulebook's language
    assert (build / "site" / data / "json").is_dir() and (build / "python").is_dir()
    lang, command = snippets(build)[0]
    assert lang == "bash" and filled_in(command, page_language(build), ROOT / "content" / name, "salida") == \
        f"rulebook build {ROOT / 'content' / name} -o salida"
