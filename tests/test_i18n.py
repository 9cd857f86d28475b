"""The players' language (issue 9 §4): message catalogs, number notation, ``lang`` checks.

The catalogs are gettext ``.po`` files extracted with Babel (``compiler/locale/babel.cfg``):
every marked phrase must be in every catalog, translated, and its compiled
``.mo`` must be the one committed. The runtime and a generated package read
their ``.mo`` with the standard library only (no Babel at run time).
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from conftest import ROOT

# (folder the phrases are extracted from, its catalogs' folder, gettext domain)
DOMAINS = [
    (("compiler", "site"), ROOT / "compiler" / "locale", "rulebook"),
    (("runtime",), ROOT / "runtime" / "locale", "runtime"),
]
LANGUAGES = ("en", "es")
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w+\}")
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None}


def _method_map() -> tuple[list, dict]:
    """babel.cfg, read the way ``pybabel extract -F compiler/locale/babel.cfg`` reads it."""
    from babel.messages.frontend import parse_mapping_cfg

    with open(ROOT / "compiler" / "locale" / "babel.cfg", encoding="utf-8") as fp:
        return parse_mapping_cfg(fp)


def _extracted(folders: tuple[str, ...]) -> set[str]:
    method_map, options_map = _method_map()
    found = set()
    for folder in folders:
        for _file, _line, message, _comments, _context in extract_from_dir(
            ROOT / folder, method_map, options_map, keywords=KEYWORDS
        ):
            found.add(message[0] if isinstance(message, tuple) else message)
    return found


def _catalog(folder: Path, lang: str, domain: str):
    with open(folder / lang / "LC_MESSAGES" / f"{domain}.po", "rb") as fp:
        return read_po(fp, locale=lang, domain=domain)


@pytest.mark.parametrize("folders, locale_dir, domain", DOMAINS, ids=[d[2] for d in DOMAINS])
def test_every_marked_phrase_is_in_every_catalog(folders, locale_dir, domain):
    marked = _extracted(folders)
    assert len(marked) > 3, "nothing was extracted: is babel.cfg read?"
    for lang in LANGUAGES:
        catalog = _catalog(locale_dir, lang, domain)
        ids = {m.id[0] if isinstance(m.id, tuple) else m.id for m in catalog if m.id}
        assert sorted(marked - ids) == [], f"{lang}: phrases missing from {domain}.po (run pybabel extract/update)"
        assert sorted(ids - marked) == [], f"{lang}: {domain}.po has phrases no code uses any more"


@pytest.mark.parametrize("folders, locale_dir, domain", DOMAINS, ids=[d[2] for d in DOMAINS])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_catalogs_are_fully_translated_and_compiled(folders, locale_dir, domain, lang):
    catalog = _catalog(locale_dir, lang, domain)
    for m in catalog:
        if not m.id:
            continue
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        assert all(strings), f"{lang}: untranslated {m.id!r}"
        assert not m.fuzzy, f"{lang}: fuzzy {m.id!r}"
        placeholders = sorted(set(PLACEHOLDER.findall(m.id[0] if isinstance(m.id, tuple) else m.id)))
        for s in strings:
            assert sorted(set(PLACEHOLDER.findall(s))) == placeholders, f"{lang}: {m.id!r} → {s!r}"
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    committed = (locale_dir / lang / "LC_MESSAGES" / f"{domain}.mo").read_bytes()
    assert compiled.getvalue() == committed, f"{lang}/{domain}.mo does not match its .po: run pybabel compile"


def test_numbers_follow_the_language():
    from rulebook.compiler.support import i18n
    from rulebook.compiler.emit.site.markdown import exact_probability, number, percent, percent_sign

    with i18n.using("es"):
        assert number(Fraction(-3, 2)) == "−1,5"
        assert percent_sign(percent(Fraction(3, 8))) == "37,5\u00a0%"
        assert exact_probability(Fraction(1, 3)) == "1/3 (33,3\u00a0%)"
    with i18n.using("en"):
        assert number(Fraction(-3, 2)) == "−1.5"
        assert percent_sign(percent(Fraction(3, 8))) == "37.5%"
        assert exact_probability(Fraction(1, 3)) == "1/3 (33.3%)"
        assert i18n._("Special rules A–Z") == "Special rules A–Z"
    with i18n.using("es"):
        assert i18n._("Special rules A–Z") == "Reglas especiales A–Z"
        assert i18n.ngettext("%(num)d datasheet", "%(num)d datasheets", 2) % {"num": 2} == "2 fichas"


def test_an_unknown_language_is_a_positioned_error_with_the_supported_ones(tmp_path):
    book = tmp_path / "libro.rules"
    book.write_text('```rules\nrulebook libro "Libro" version "1" lang "fr"\n```\n', encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "rulebook.compiler.commands.cli", "check", str(book)], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 1
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out
    assert "libro.rules:2:41: error: unknown language 'fr'" in out, out
    assert "^^^^" in out and "hint: supported languages: en, es" in out, out


def test_a_rulebook_without_lang_is_in_the_default_language(tmp_path):
    from rulebook.compiler.pipeline import driver
    from rulebook.compiler.support import i18n

    book = tmp_path / "libro.rules"
    book.write_text('```rules\nrulebook libro "Libro"\n```\n', encoding="utf-8")
    result = driver.check(book)
    assert result.ok and i18n.of_rulebook(result.program) == i18n.DEFAULT


def test_trace_phrases_follow_the_language():
    from rulebook import runtime

    trace = runtime.Trace()
    trace.enter("doble", "Double", None, None, {"n": 2})
    trace.step(1, "Roll", None, None)
    trace.roll("", "1d6", 4)
    trace.leave(8)
    english, spanish = trace.render_text(lang="en"), trace.render_text(lang="es")
    assert "data: n = 2" in english and "roll: 1d6 → 4" in english and "⇒ result: 8" in english
    assert "datos: n = 2" in spanish and "tirada: 1d6 → 4" in spanish and "⇒ resultado: 8" in spanish


def test_runtime_needs_no_babel():
    """The runtime (and so every generated package) reads its catalogs with the standard library."""
    code = (
        "import sys; sys.modules['babel'] = None\n"
        "import runtime\n"
        "t = runtime.Trace(); t.enter('p', 'P', None, None, {}); t.leave(1)\n"
        "print(t.render_text(lang='en'))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "⇒ result: 1" in proc.stdout
