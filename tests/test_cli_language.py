"""The tool in the user's language (issue 25, point 7).

The command line's own words (``--help`` of every command, argparse's headings and errors,
messages, summaries) follow the user's locale with gettext's precedence — English by default
and with ``LANG=C``, Spanish with ``es_*`` — while what a rulebook publishes (site, JSON
descriptions, generated docstrings, the site's file names) follows its ``lang``: an English
rulebook publishes no Spanish tool text.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DATA, ROOT, build_rulebook

ENGLISH = DATA / "english"
COMMANDS = [[], ["check"], ["build"], ["resolve"], ["test"], ["diff"], ["lsp"], ["serve"], ["roster"], ["roster", "validate"], ["roster", "print"]]
SPANISH_TOOL_WORDS = {
    "fila", "tabla", "catálogo", "catalogo", "entradas", "entrada", "datos", "ejercito", "ejército", "glosario", "cambios",
    "resultado", "procedimiento", "parámetros", "reglamento", "valores", "regla", "reglas", "esquema", "clave", "claves",
    "según", "número", "ruta", "archivo", "fichero", "término", "términos", "tipo", "tipos", "definición", "versión",
}
"""Words the tool wrote in Spanish before issue 25 (schema descriptions, docstrings, file names)."""


def run(*args, lang: str | None = "C.UTF-8", **env_vars):
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    if lang is not None:
        env["LANG"] = lang
    env.update(env_vars)
    proc = subprocess.run([sys.executable, "-m", "rulebook.compiler.commands.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.mark.parametrize("cmd", COMMANDS, ids=lambda c: " ".join(c) or "rulebook")
def test_help_is_english_by_default_and_spanish_for_a_spanish_locale(cmd):
    english = run(*cmd, "--help")
    assert english.returncode == 0 and english.stdout.startswith("usage: rulebook")
    assert "options:" in english.stdout and "show this help message and exit" in english.stdout
    spanish = run(*cmd, "--help", lang="es_ES.UTF-8")
    assert spanish.returncode == 0 and spanish.stdout.startswith("uso: rulebook")
    assert "opciones:" in spanish.stdout and "muestra esta ayuda y termina" in spanish.stdout
    assert "show this help" not in spanish.stdout and "default" not in spanish.stdout


def test_top_level_help_in_both_languages():
    assert "Rulebook compiler: checks the rules" in run("--help").stdout
    assert "Compilador de reglamentos: comprueba las reglas" in run("--help", lang="es_ES.UTF-8").stdout
    assert "check a rulebook and show its diagnostics" in run("--help", lang=None).stdout  # no locale at all: English


@pytest.mark.parametrize("env, spanish", [
    ({"LANG": "C"}, False), ({"LANG": "es_ES.UTF-8"}, True), ({"LANG": "es_AR.UTF-8"}, True),
    ({"LANG": "en_US.UTF-8", "LC_ALL": "es_ES.UTF-8"}, True), ({"LANG": "es_ES.UTF-8", "LC_ALL": "C"}, False),
    ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "es_ES.UTF-8"}, True), ({"LANG": "es_ES.UTF-8", "LANGUAGE": "en"}, False),
    ({"LANG": "C", "LANGUAGE": "es"}, False), ({"LANG": "fr_FR.UTF-8"}, False), ({"LANG": "fr_FR.UTF-8", "LANGUAGE": "fr:es"}, True),
])
def test_the_user_language_follows_gettext_precedence(env, spanish):
    from rulebook.compiler.support import i18n

    assert i18n.user_language(env) == ("es" if spanish else "en")


def test_check_summary_in_the_user_language():
    english = run("check", "content/1936")
    assert english.stdout.rstrip().endswith("0 errors, 1 warning"), english.stdout[-200:]
    spanish = run("check", "content/1936", lang="es_ES.UTF-8")
    assert spanish.stdout.rstrip().endswith("0 errores, 1 aviso"), spanish.stdout[-200:]


def test_plurals_in_both_languages(monkeypatch):
    from rulebook.compiler.support import i18n
    from rulebook.compiler.commands import test_command

    class D:
        def __init__(self, severity):
            self.severity = severity

    cases = {"C.UTF-8": ["1 error, 0 warnings", "2 errors, 1 warning"], "es_ES.UTF-8": ["1 error, 0 avisos", "2 errores, 1 aviso"]}
    for lang, (one, two) in cases.items():
        monkeypatch.setenv("LANG", lang)
        assert i18n.diagnostics_summary([D("error")]) == one
        assert i18n.diagnostics_summary([D("error"), D("error"), D("warning")]) == two
    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    assert test_command.summary(1, 2) == "1 correcto, 2 fallidos"
    monkeypatch.setenv("LANG", "C")
    assert test_command.summary(1, 2) == "1 passed, 2 failed"


def test_messages_and_argparse_errors_in_the_user_language():
    english = run("resolve", "no_such_procedure", "--seed", "1", "--format", "text")
    assert english.returncode == 2 and "error: unknown procedure 'no_such_procedure'" in english.stderr
    spanish = run("resolve", "no_such_procedure", "--seed", "1", "--format", "text", lang="es_ES.UTF-8")
    assert spanish.returncode == 2 and "error: procedimiento desconocido 'no_such_procedure'" in spanish.stderr
    bad = run("check", "--bogus", lang="es_ES.UTF-8")
    assert bad.returncode == 2 and "argumentos no reconocidos: --bogus" in bad.stderr


# ------------------------------------------------------------------ what a rulebook publishes


@pytest.fixture(scope="module")
def english_build(tmp_path_factory) -> Path:
    return build_rulebook(tmp_path_factory, ENGLISH, "english_tool_text", site=True)[1]


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[^\W\d_]+", text)}


def _descriptions(value, found: list[str]) -> list[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "description" and isinstance(v, str):
                found.append(v)
            else:
                _descriptions(v, found)
    elif isinstance(value, list):
        for v in value:
            _descriptions(v, found)
    return found


def test_an_english_rulebook_publishes_no_spanish_tool_text(english_build):
    out = english_build
    descriptions = []
    for path in sorted((out / "schemas").rglob("*.json")) + sorted((out / "json").rglob("*.json")):
        _descriptions(json.loads(path.read_text(encoding="utf-8")), descriptions)
    assert len(descriptions) > 20
    spanish = {d for d in descriptions if _words(d) & SPANISH_TOOL_WORDS}
    assert spanish == set()
    assert any(d.startswith("Status of the declaration") for d in descriptions)
    package = next((out / "python").glob("*/types.py")) if list((out / "python").glob("*/types.py")) else next((out / "python").rglob("types.py"))
    docstrings = re.findall(r'"""(.*?)"""', package.read_text(encoding="utf-8"), flags=re.S)
    assert docstrings and not [d for d in docstrings if _words(d) & SPANISH_TOOL_WORDS]
    names = [p.relative_to(out / "site") for p in (out / "site").rglob("*") if "assets" not in p.parts and "search" not in p.parts]
    spanish_names = [n for n in names if _words(" ".join(n.parts).replace("-", " ").replace(".", " ")) & SPANISH_TOOL_WORDS]
    assert spanish_names == []
    assert (out / "site" / "data" / "glossary.json").is_file() and (out / "docs" / "includes" / "glossary.md").is_file()
    page = (out / "site" / "data-for-tools.html").read_text(encoding="utf-8")
    assert 'href="data/json/rulebook.json"' in page and "datos/" not in page


def test_a_spanish_rulebook_keeps_its_addresses(tmp_path_factory):
    _result, out = build_rulebook(tmp_path_factory, DATA / "python" / "shooting.rules", "spanish_names", site=True)
    assert (out / "site" / "datos" / "glosario.json").is_file() and (out / "docs" / "includes" / "glosario.md").is_file()
    schema = json.loads((out / "schemas" / "types.schema.json").read_text(encoding="utf-8"))
    assert schema["$defs"]["Status"]["description"] == "Estado de la declaración: activa, aplazada o no jugable."
