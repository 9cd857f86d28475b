"""README.md starts with the two set-up commands, and .ci/run runs the test one.

The first command's ``rulebook build`` (no argument) builds every bundled
rulebook into its own folder and an index page linking their sites; it is run
here as written, from a scratch folder.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser

from conftest import ROOT

BUNDLED = sorted(p.name for p in (ROOT / "content").iterdir() if p.is_dir() and any(p.glob("*.rules")))


def _commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```bash\n(.+?)\n```", text, flags=re.S)


def test_readme_starts_with_two_setup_commands():
    cmds = _commands()
    assert "rulebook build" in cmds[0] and "pip install -e ." in cmds[0]
    assert "pytest" in cmds[1] and "[test]" in cmds[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert _commands()[1] in ci.splitlines()


def test_the_first_command_builds_every_bundled_rulebook():
    first = _commands()[0]
    assert first == "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && rulebook build"
    intro = (ROOT / "README.md").read_text(encoding="utf-8").split("```bash")[0]
    assert "build/index.html" in intro
    for name in BUNDLED:
        assert f"build/{name}/" in intro, name


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.lang = ""

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.hrefs += [v for k, v in attrs if k == "href" and v]
        if tag == "html":
            self.lang = dict(attrs).get("lang", "")


def test_rulebook_build_without_argument_builds_all_and_an_index(tmp_path):
    """``rulebook build`` as the README writes it, run in an empty folder: ``build/<folder>/``
    for each bundled rulebook (with its site, JSON, schemas and resolvers) and ``build/index.html``."""
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    proc = subprocess.run(["rulebook", "build"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    build = tmp_path / "build"
    assert sorted(p.name for p in build.iterdir() if p.is_dir()) == BUNDLED
    for name in BUNDLED:
        for sub in ("site/index.html", "json/rulebook.json", "schemas", "python"):
            assert (build / name / sub).exists(), (name, sub)
    links = _Links()
    links.feed((build / "index.html").read_text(encoding="utf-8"))
    assert links.lang
    assert sorted(links.hrefs) == sorted(f"{name}/site/index.html" for name in BUNDLED)
    assert all((build / href).is_file() for href in links.hrefs)
    # each data page names its own package, and no folder of the machine that built it
    for name in BUNDLED:
        english = 'language: "en"' in (build / name / "mkdocs.yml").read_text(encoding="utf-8")
        page = (build / name / "site" / ("data-for-tools.html" if english else "datos.html")).read_text(encoding="utf-8")
        package = next(p.name for p in (build / name / "python").iterdir() if p.is_dir())
        assert f"python/{package}" in page and f"import {package}" in re.sub(r"<[^>]+>", "", page), name
        assert f"content/{name}" not in page and str(tmp_path) not in page, name


# ---------------------------------------------------------------------------- using the outputs (issue 25 §8)

TSC = ROOT / "tests" / "codegen" / "node_modules" / ".bin" / "tsc"


def _outputs_snippets() -> dict[str, str]:
    """The first ``python``, ``ts`` and ``sh`` blocks of the README's section on using the outputs
    (the second ``python`` one, the typed direct calls, is run and type-checked by tests/test_wheel.py)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Using the outputs from other programs"):]
    section = section[:section.index("\n## ", 3)]
    blocks = re.findall(r"```(\w+)\n(.*?)```", section, flags=re.S)
    first: dict[str, str] = {}
    for lang, code in blocks:
        if lang in ("python", "ts", "sh"):
            first.setdefault(lang, code)
    return first


def _beside_build(built, tmp_path):
    """A folder holding ``build/``: the session's build of content/1936, as the README names it."""
    (tmp_path / "build").symlink_to(built, target_is_directory=True)
    return tmp_path


def test_the_readme_python_snippet_runs_with_the_package_as_pip_installs_it(built, tmp_path):
    snippets = _outputs_snippets()
    assert snippets["sh"].strip() == "pip install build/python/manual_1936"
    code = snippets["python"]
    assert "sys.path" not in code and code.startswith("import json\n\nimport manual_1936\n")
    folder = _beside_build(built, tmp_path)
    env = dict(os.environ, PYTHONPATH=str(built / "python"))  # where pip would put it: tests/test_wheel.py installs it for real
    proc = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[1] == "1/3" and lines[2].startswith("ResultadoImpacto ") and "⇒ resultado: " in proc.stdout
    assert json.loads(lines[-2])["i_efectivo"] == 6 and lines[-1].startswith('{"events": ')


def test_the_readme_typescript_snippet_type_checks_and_runs(built, tmp_path):
    if shutil.which("node") is None or not TSC.exists():
        import pytest

        pytest.skip("tsc is not installed: run `npm ci` in tests/codegen (.ci/run does)")
    code = _outputs_snippets()["ts"]
    assert 'from "./build/js/index.js"' in code and 'from "./build/js/armies.js"' in code
    folder = _beside_build(built, tmp_path)
    (folder / "snippet.mts").write_text(code, encoding="utf-8")
    checked = subprocess.run([str(TSC), "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022",
                              "--lib", "es2022,dom", "--skipLibCheck", "false", "snippet.mts"], cwd=folder, capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-3000:]
    proc = subprocess.run(["node", "snippet.mjs"], cwd=folder, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[0] == "[ '1/3' ]" and lines[1] == "false 6" and lines[-1].startswith("false [") and "'no-units'" in proc.stdout
