"""README.md starts with the two set-up commands, and .ci/run runs the test one."""

from __future__ import annotations

import re

from conftest import ROOT


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
