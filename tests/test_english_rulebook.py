"""A rulebook with ``lang "en"`` (tests/data/english/) is English throughout (issue 9 §4).

Its built site is parsed: ``<html lang="en">``, the theme in English, English
labels and no Spanish word of the interface (every Spanish phrase of the
catalogs, as visible text or as a tooltip, label or placeholder), numbers with
decimal points; a Spanish rulebook built the same way keeps decimal commas.
The English data page's snippets run and print English traces. Runtime phrases
(dice descriptions, rule errors, input errors, work limits) read in the language
of the package that raised them, with an English and a Spanish package loaded in
one process, through ``rulebook.runtime.sample``/``exact`` and ``rulebook resolve``.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from conftest import DATA, ROOT, build_rulebook

ENGLISH = DATA / "english"
SPANISH = DATA / "python" / "shooting.rules"
ATTRIBUTES = ("title", "aria-label", "placeholder", "alt")


class _Visible(HTMLParser):
    """What a reader sees or hears of a page: text outside code, scripts and styles, and
    the words of tooltips, labels and placeholders."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "code", "pre"):
            self.hidden += 1
        self.parts += [v for k, v in attrs if k in ATTRIBUTES and v]

    def handle_endtag(self, tag):
        if tag in ("script", "style", "code", "pre"):
            self.hidden = max(0, self.hidden - 1)

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def visible(page: Path) -> str:
    parser = _Visible()
    parser.feed(page.read_text(encoding="utf-8"))
    return " ".join(" ".join(parser.parts).split())


def spanish_interface_words() -> set[str]:
    """Words of the Spanish catalogs that are not English words of the English catalogs."""
    words: dict[str, set[str]] = {}
    for lang in ("es", "en"):
        found: set[str] = set()
        for po in [ROOT / "compiler" / "locale" / lang / "LC_MESSAGES" / "rulebook.po",
                   ROOT / "runtime" / "locale" / lang / "LC_MESSAGES" / "runtime.po"]:
            with open(po, "rb") as fp:
                for m in read_po(fp):
                    for s in (m.string if isinstance(m.string, tuple) else (m.string,)):
                        found |= {w.lower() for w in re.findall(r"[^\W\d_]{4,}", re.sub(r"%\(\w+\)[sd]", " ", s or ""))}
        words[lang] = found
    return words["es"] - words["en"]


@pytest.fixture(scope="module")
def english(tmp_path_factory) -> tuple[object, Path]:
    return build_rulebook(tmp_path_factory, ENGLISH, "english", site=True)


@pytest.fixture(scope="module")
def spanish(tmp_path_factory) -> Path:
    return build_rulebook(tmp_path_factory, SPANISH, "spanish", site=True)[1]


def test_every_page_is_in_english(english):
    _result, out = english
    pages = sorted((out / "site").glob("*.html"))
    assert len(pages) >= 10
    spanish_words = spanish_interface_words()
    assert {"fichas", "reglas", "probabilidad", "procedimiento", "buscar"} <= spanish_words
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert '<html lang="en"' in text[:400], page.name
        # every phrase of the theme overrides was found (config.extra.rb)
        assert "built-in method" not in text and 'title=""' not in text and 'aria-label=""' not in text, page.name
        words = {w.lower() for w in re.findall(r"[^\W\d_]{4,}", visible(page))}
        assert sorted(words & spanish_words) == [], page.name


def test_page_addresses_are_english(english):
    _result, out = english
    pages = {p.name for p in (out / "site").glob("*.html")}
    assert {"index.html", "datasheet-index.html", "special-rules-a-z.html", "quick-reference.html", "for-designers.html",
            "data-for-tools.html", "glossary.html", "datasheets-infantry.html", "source-01-units.html"} <= pages, sorted(pages)


def test_theme_and_search_are_in_english(english):
    _result, out = english
    config = (out / "mkdocs.yml").read_text(encoding="utf-8")
    assert 'language: "en"' in config
    index = (out / "site" / "index.html").read_text(encoding="utf-8")
    assert 'placeholder="Search"' in index and 'aria-label="Search the rulebook"' in index
    messages = json.loads(re.search(r"window\.rulebookMessages = (\{.*?\});", index).group(1))
    assert messages["no_results"] == "No results" and messages["n_results"] == "{n} results"
    # Material's own words follow theme.language
    assert "Back to top" in visible(out / "site" / "index.html")


def test_labels_are_english(english):
    _result, out = english
    site = out / "site"
    text = " ".join(visible(p) for p in sorted(site.glob("*.html")))
    for phrase in ("Datasheet index", "Special rules A–Z", "Quick reference", "For designers", "Data for tools",
                   "row in the manual's table", "Cost by Quality", "Rounding:", "Datasheets that have it",
                   "With shots: 2, cover: no → result = 2: probability 1/4 (25.0%)", "Shooting hits", "the resolution stops", "Exact probabilities computed by"):
        assert phrase in text, phrase


def test_numbers_have_decimal_points(english):
    _result, out = english
    units = visible(out / "site" / "01-units.html")
    assert "4.5" in units and "1.5" in units and "4,5" not in units
    shooting = (out / "site" / "02-shooting.html").read_text(encoding="utf-8")
    assert ">87.5%<" in shooting and 'title="7/8 (87.5%)"' in shooting
    cards = visible(out / "site" / "datasheets-infantry.html")
    assert "Veteran +25%" in cards and "62.5 → 63" in cards


def test_a_spanish_rulebook_keeps_decimal_commas(spanish):
    page = next(p for p in sorted((spanish / "site").glob("*.html")) if "rb-prob" in p.read_text(encoding="utf-8"))
    text = page.read_text(encoding="utf-8")
    assert '<html lang="es"' in text[:400]
    assert re.search(r">\d+,\d\u00a0%<", text) and not re.search(r">\d+\.\d%<", text)
    assert "Probabilidad" in visible(page)


def test_the_generated_package_speaks_english(english, tmp_path):
    """The data page's Python snippet, run as shown: English trace phrases; an
    example that fails a ``require`` shows the rulebook's own (English) message."""
    result, out = english
    page = (out / "site" / "data-for-tools.html").read_text(encoding="utf-8")
    snippets = [html.unescape(re.sub(r"<[^>]+>", "", m)) for m in
                re.findall(r'<div class="language-python highlight"><pre>(.*?)</pre></div>', page, flags=re.S)]
    assert snippets
    installed = dict(os.environ, PYTHONPATH=str(out / "python"))  # the generated package, as pip installs it
    proc = subprocess.run([sys.executable, "-c", snippets[0]], capture_output=True, text=True, cwd=out.parent, env=installed, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "data: " in proc.stdout and "⇒ result: " in proc.stdout, proc.stdout
    assert "resultado" not in proc.stdout and "datos:" not in proc.stdout
    shooting = visible(out / "site" / "02-shooting.html")
    assert "the resolution stops: “a unit cannot fire a negative number of shots”" in shooting
    # a runtime error (not the rulebook's own words) reads in the rulebook's language too
    assert "the resolution stops: “index 3 out of range: the list has 3 elements”" in shooting


# ---------------------------------------------------------------- runtime phrases in each package's language

REPEAT = '''```rules
rulebook r "R" lang "{lang}"
section I "S"
procedure patience "Patience" () -> int {{
  step "Roll until a hundred" {{
    repeat {{
      let d = roll d100
    }} until d == 100
    return d
  }}
}}
```
'''


def _loaded(content: Path):
    from rulebook.compiler.pipeline import driver, pyload

    result = driver.check(content)
    assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
    return pyload.compile_and_load(result.program)


@pytest.fixture(scope="module")
def packages() -> dict:
    """The English test rulebook and a Spanish one, loaded side by side in one process."""
    return {"en": _loaded(ENGLISH), "es": _loaded(SPANISH)}


def test_rolls_and_rule_errors_read_in_each_package_language(packages):
    from rulebook import runtime

    en, es = packages["en"], packages["es"]
    assert (en.LANG, es.LANG) == ("en", "es")
    pinned = en.PROCEDURES["pinned"]
    varios = es.PROCEDURES["varios"]
    spanish_inputs = varios.convert({"cm": 5, "perfil": "pistola", "n": 2})
    # interleaved: a phrase of one package never leaks into the other
    for _ in range(2):
        _result, trace = runtime.sample(pinned.function, seed=3, **pinned.convert({"morale": 1}))
        text = trace.render_text()
        assert "roll d6 times 2 count >= 4: 2d6, count ≥ 4 → " in text and "⇒ result: " in text, text
        assert "cuenta" not in text and "resultado" not in text
        _result, trace = runtime.sample(varios.function, seed=3, **spanish_inputs)
        text = trace.render_text()
        assert "2d6, cuenta ≥ 5 → " in text and "saca 2 de " in text and "⇒ resultado: " in text, text
        assert "count ≥" not in text and "draw 2" not in text
        for trace_it in (True, False):
            with pytest.raises(runtime.RuleError) as english_error:
                runtime.sample(pinned.function, seed=3, trace=trace_it, morale=3)
            assert str(english_error.value).endswith(
                "english/02-shooting.rules:56: error: index 3 out of range: the list has 3 elements")
        with pytest.raises(runtime.RuleError) as english_error:
            runtime.exact(pinned.function, morale=3)
        assert english_error.value.message == "index 3 out of range: the list has 3 elements"
        with pytest.raises(runtime.WorkLimitError) as english_limit:
            runtime.exact(pinned.function, max_work=2, morale=1)
        assert str(english_limit.value).endswith(
            "error: too much work: 3 results of 2d6, count ≥ 4 exceed the limit of 2 units of work "
            "(in pinned, step 1 «Roll for pinning»; roll d6 times 2 count >= 4; data of pinned: morale = 1). "
            "Reduce the data or raise the limit (max_work; on the command line, --max-work)")
        with pytest.raises(runtime.WorkLimitError) as spanish_limit:
            runtime.exact(varios.function, max_work=2, **spanish_inputs)
        message = spanish_limit.value.message
        assert message.startswith("trabajo excesivo: ") and "unidades de trabajo" in message and "en varios, paso 1" in message
    with pytest.raises(runtime.InputError) as english_input:
        pinned.convert({})
    assert english_input.value.message == "$.morale: the parameter is missing"
    with pytest.raises(runtime.InputError) as spanish_input:
        varios.convert({"cm": 5, "perfil": "pistola"})
    assert spanish_input.value.message == "$.n: falta el parámetro"


def test_resolve_explains_in_the_rulebook_language(tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": str(Path(sys.executable).parent)}
    command = [sys.executable, "-m", "rulebook.compiler.commands.cli", "resolve", "--rulebook", str(ENGLISH), "pinned", "--format", "text"]
    for attempt in ("cold", "warm"):  # compiled, then from the cache
        shown = subprocess.run(command + ["--input", '{"morale": 1}', "--seed", "3", "--explain"],
                               capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
        assert shown.returncode == 0, (attempt, shown.stderr)
        assert shown.stdout.startswith("Pinned models [II.2]: morale = 1\n") and ": 2d6, count ≥ 4 → " in shown.stdout, shown.stdout
        assert "⇒ result: " in shown.stdout and "datos" not in shown.stdout
        refused = subprocess.run(command + ["--input", '{"morale": 3}', "--seed", "3", "--explain"],
                                 capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
        assert refused.returncode == 1 and "error: index 3 out of range: the list has 3 elements" in refused.stderr, refused.stderr


def test_resolve_reads_the_driver_default_rulebook():
    from rulebook.compiler.pipeline import driver
    from rulebook.compiler.commands import resolve

    assert resolve.default_rulebook() == driver.DEFAULT_RULEBOOK


@pytest.mark.parametrize("lang, summary", [("en", "runs of the repeat not shown"), ("es", "repeticiones no mostradas")])
def test_a_long_repeat_traces_a_hundred_runs_and_counts_the_rest(tmp_path, lang, summary):
    from rulebook import runtime

    folder = tmp_path / "rb"
    folder.mkdir()
    (folder / "a.rules").write_text(REPEAT.format(lang=lang), encoding="utf-8")
    fn = _loaded(folder).PROCEDURES["patience"].function
    seed = next(s for s in range(1000) if _runs(fn, s) > 150)  # a repeat that ran long (deterministic)
    result, trace = runtime.sample(fn, seed=seed)
    assert result == 100
    step = trace.root.steps[0]
    untils = [e for e in step.events if isinstance(e, runtime.LetEvent) and e.name.startswith("until ")]
    rolls = [e for e in step.events if isinstance(e, runtime.RollEvent)]
    assert len(untils) == len(rolls) == runtime.context.TRACED_RUNS
    (counted,) = [e for e in step.events if isinstance(e, runtime.LetEvent) and e.name == summary]
    assert counted.value == _runs(fn, seed) - runtime.context.TRACED_RUNS
    assert f"{summary} = {counted.value}" in trace.render_text()


def _runs(fn, seed: int) -> int:
    """How many runs the repeat of ``fn`` makes with ``seed`` (the rolls of d100 until a 100)."""
    import random

    rng, runs = random.Random(seed), 1
    while rng.randrange(1, 101) != 100:
        runs += 1
    return runs
