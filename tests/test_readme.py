"""README.md starts with the two set-up commands, and .ci/run runs the test one.

The first command's ``rulebook build`` (no argument) builds every bundled
rulebook into its own folder and an index page linking their sites; it is run
here as written, from a scratch folder.
"""

from __future__ import annotations

import os
import re
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
