"""The JavaScript package's army module, the army builder and ``rulebook roster validate``
agree on every roster (issue 14 §4, issue 24 point 3).

For every army of every bundled rulebook, :data:`ROSTERS` rosters are generated (seeded,
tests/army_rosters.py): random lists built from the army document, most of them then broken
on purpose, plus units made of more troops than a roster may hold (just under and just over).
All of them go, in one Node process per army, through the generated ``armies.js``
(``rosterProblems``, then ``validateRoster``; the random ones also through its classic-script
twin ``armies.browser.js``, what the site's builder loads), and through
:mod:`rulebook.compiler.commands.roster` (jsonschema, then ``validate``); the results must be
equal: each unit's cost, troops and options, the total, the budget and every error and
warning (code, path, message, params, rule, did-you-mean) in order; a roster that does not
follow the roster schema refused by both at the same JSON paths; one made of too many
troops refused by both (``RosterTooLarge``, with the same message).

Then, where headless Chromium is installed, a sample goes through the built site's builder
page (``window.rbArmies``, the army module it loads) and, as a tool would call it, through
the command line (``--format json``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT / "tests" / "site"))

from army_rosters import Generator, possible_codes, schema_keywords, too_large  # noqa: E402
from bundled import bundled_builds  # noqa: E402,F401 - the fixture
from chromium import ARMY_BOOKS, AVAILABLE, BUILDER_PAGE, SKIP_REASON, chromium, open_builder, served  # noqa: E402

ROSTERS = 1200  # per army, through Node
BROWSER_ROSTERS = 150  # per rulebook, through the builder page
CLI_EVERY = 10  # every n-th of those also through `rulebook roster validate --format json`
SEED = 14
NODE = shutil.which("node")

RUNNER = r"""
const fs = require("fs"), path = require("path"), vm = require("vm"), url = require("url");
const dir = process.argv[1], twinCount = Number(process.argv[2]);
(async () => {
  const esm = await import(url.pathToFileURL(path.join(dir, "armies.js")).href);
  const context = vm.createContext({ TextEncoder, TextDecoder, btoa, atob });
  vm.runInContext(fs.readFileSync(path.join(dir, "armies.browser.js"), "utf8"), context);
  const twin = context.rbArmies;
  const check = (m, roster) => {
    const problems = m.rosterProblems(roster);
    if (problems.length) return { schema: problems.map((p) => p.path).sort() };
    try {
      return m.validateRoster(roster);
    } catch (err) {
      if (err instanceof m.RosterTooLarge) return { too_large: err.message };
      throw err;
    }
  };
  const rosters = JSON.parse(fs.readFileSync(0, "utf8"));
  const results = rosters.map((r) => check(esm, r));
  const twinDiffers = rosters.slice(0, twinCount).flatMap((r, i) => (JSON.stringify(check(twin, r)) === JSON.stringify(results[i]) ? [] : [i]));
  process.stdout.write(JSON.stringify({ results, twinDiffers, exports: [Object.keys(esm).sort(), Object.keys(twin).sort()] }));
})().catch((err) => { process.stderr.write(String(err && err.stack || err)); process.exit(1); });
"""


def _bundled_armies() -> list[tuple[str, str]]:
    """(rulebook folder, army id) of every army of every bundled rulebook (from the army
    documents' file names in the rules: each ``army`` declaration is one)."""
    import re

    out = []
    for folder in sorted(p for p in (ROOT / "content").iterdir() if p.is_dir() and any(p.glob("*.rules"))):
        for f in sorted(folder.rglob("*.rules")):
            out += [(folder.name, m) for m in re.findall(r"^army\s+(\w+)", f.read_text(encoding="utf-8"), re.M)]
    return out


ARMIES = _bundled_armies()


@pytest.fixture(scope="module")
def checked_armies() -> dict[str, tuple[dict, dict]]:
    """Rulebook folder → (its army documents by id, its roster schema), from its sources."""
    from rulebook.compiler.commands import roster as rosters

    return {name: rosters.load_armies(ROOT / "content" / name) for name in sorted({rb for rb, _ in ARMIES})}


def expected(cases: list, army: dict, schema: dict) -> list[dict]:
    """What ``rulebook.compiler.commands.roster`` says of each roster (the shape the Node runner writes)."""
    from jsonschema import Draft202012Validator

    from rulebook.compiler.commands import roster as rosters

    from rulebook.compiler.support.untrusted_json import fast_valid

    validator = Draft202012Validator(schema)
    out = []
    for case in cases:
        problems = [] if fast_valid(case, schema) else sorted(e.json_path for e in validator.iter_errors(case))  # as roster.schema_problems
        if problems:
            out.append({"schema": problems})
            continue
        try:
            out.append(rosters.validate(army, case))
        except rosters.RosterTooLarge as exc:
            out.append({"too_large": str(exc)})
    return out


def test_the_bundled_rulebooks_have_armies_to_compare():
    assert {rb for rb, _ in ARMIES} >= set(ARMY_BOOKS), ARMIES


@pytest.mark.skipif(NODE is None, reason="needs Node.js")
@pytest.mark.parametrize(("rulebook", "army_id"), ARMIES)
def test_the_js_module_and_the_validator_agree_on_random_rosters(checked_armies, tmp_path, rulebook, army_id):
    from rulebook.compiler.commands import roster as rosters
    from rulebook.compiler.emit.js import armies as js_armies

    docs, schema = checked_armies[rulebook]
    army = docs[army_id]
    js = tmp_path / "js"
    js_armies.write_armies_module(js, docs, None, schema)
    (js / "package.json").write_text('{"type": "module"}\n', encoding="utf-8")  # the JS package's own says so too
    generator = Generator(army, SEED)
    cases = [generator.roster() for _ in range(ROSTERS)]
    cases += [r for r in (too_large(army, over, rosters.MAX_TROOPS) for over in (False, True)) if r is not None]

    want = expected(cases, army, schema)
    proc = subprocess.run([NODE, "-e", RUNNER, str(js), str(ROSTERS)], input=json.dumps(cases, ensure_ascii=False), capture_output=True,
                          text=True, encoding="utf-8", timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    got = out["results"]
    assert len(got) == len(cases)
    mismatches = [(i, cases[i], e, g) for i, (e, g) in enumerate(zip(want, got)) if e != g]
    assert not mismatches, f"{len(mismatches)} of {len(cases)} differ:\n" + json.dumps(mismatches[:2], ensure_ascii=False, indent=1)[:6000]
    assert out["twinDiffers"] == [], "armies.browser.js must give what armies.js gives"
    esm_names, twin_names = out["exports"]
    assert set(twin_names) == set(esm_names) - {"default"}, "the classic script exposes what the module exports"

    # the mix is real: legal lists, illegal ones, refused files, and every error the army can produce
    legal = sum(1 for e in want if e.get("legal"))
    refused = sum(1 for e in want if "schema" in e)
    assert legal >= ROSTERS // 10 and refused >= ROSTERS // 50 and ROSTERS - legal - refused >= ROSTERS // 2, (legal, refused)
    reports = [e for e in want if "legal" in e]
    seen = {x["code"] for e in reports for x in e["errors"] + e["warnings"]}
    assert possible_codes(army) <= seen, sorted(possible_codes(army) - seen)
    assert any(x["suggestion"] for e in reports for x in e["errors"]), "no did-you-mean was exercised"
    if any(o["add"] or o["remove"] for o in army["options"].values()):
        assert [e.get("too_large") is not None for e in want[-2:]] == [False, True], "the troop limit, just under and just over"


@pytest.mark.skipif(NODE is None, reason="needs Node.js")
def test_the_module_is_the_same_bytes_for_the_same_documents(checked_armies, tmp_path):
    """Deterministic: generated twice (and with the documents' keys in another order), the same files."""
    from rulebook.compiler.emit.js import armies as js_armies

    docs, schema = checked_armies[ARMIES[0][0]]
    first = js_armies.generate(docs, roster_schema=schema)
    again = js_armies.generate(dict(reversed(list(docs.items()))), roster_schema=schema)
    assert first == again and set(first) == set(js_armies.FILES)
    assert first["runtime/roster.js"] == (ROOT / "compiler" / "emit" / "js" / "runtime" / "roster.js").read_text(encoding="utf-8")


DIFFLIB = r"""
const path = require("path"), url = require("url"), fs = require("fs");
import(url.pathToFileURL(path.join(process.argv[1], "runtime", "roster.js")).href).then((m) => {
  const { pairs, lists } = JSON.parse(fs.readFileSync(0, "utf8"));
  process.stdout.write(JSON.stringify([pairs.map(([a, b]) => m.ratio(a, b)), lists.map(([w, c]) => m.suggest(w, c))]));
});
"""


@pytest.mark.skipif(NODE is None, reason="needs Node.js")
def test_did_you_mean_is_difflibs(tmp_path):
    """ratio and suggest against difflib on random texts: long ones (autojunk drops the
    characters of over 1 % of a text of 200 or more), small alphabets (ties between
    candidates, broken as heapq.nlargest breaks them: the greatest text), code points
    outside the Basic Multilingual Plane, case variants."""
    import difflib
    import random

    from rulebook.compiler.commands import roster as rosters
    from rulebook.compiler.emit.js import armies as js_armies

    rng = random.Random(SEED)
    alphabet = ["a", "b", "c", "_", "é", "😀", "𝔘", "A", "ß", "İ"]

    def text(n: int) -> str:
        return "".join(rng.choice(alphabet[: rng.randint(2, len(alphabet))]) for _ in range(n))

    pairs = [(text(rng.choice([0, 1, 3, 8, 30, 199, 200, 201, 260, 400])), text(rng.choice([0, 2, 5, 8, 30, 199, 200, 250, 400])))
             for _ in range(600)]
    lists = []
    for _ in range(1500):
        size = rng.choice([3, 4, 5, 6, 8])
        candidates = [text(size) for _ in range(rng.randint(1, 12))]
        word = rng.choice([text(size), rng.choice(candidates)[1:] + rng.choice(alphabet), rng.choice(candidates).upper()])
        lists.append((word, candidates))
    (tmp_path / "package.json").write_text('{"type": "module"}\n', encoding="utf-8")
    for name, content in js_armies.generate({}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(content, encoding="utf-8")
    proc = subprocess.run([NODE, "-e", DIFFLIB, str(tmp_path)], input=json.dumps({"pairs": pairs, "lists": lists}, ensure_ascii=False),
                          capture_output=True, text=True, encoding="utf-8", timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ratios, suggestions = json.loads(proc.stdout)
    assert ratios == [difflib.SequenceMatcher(None, a, b).ratio() for a, b in pairs]
    want = [rosters.suggest(w, c) for w, c in lists]
    assert suggestions == want
    ties = sum(1 for w, c in lists if len({difflib.SequenceMatcher(None, x, w).ratio() for x in c if difflib.SequenceMatcher(None, x, w).ratio() >= 0.6}) < len([x for x in c if difflib.SequenceMatcher(None, x, w).ratio() >= 0.6]))
    assert ties >= 50 and sum(1 for x in want if x) >= 300, (ties, sum(1 for x in want if x))


# ---------------------------------------------------------------------- the site's builder page

JS_CHECK = """
const m = window.rbArmies;
return arguments[0].map(r => {
  const problems = m.rosterProblems(r);
  if (problems.length) return {schema: problems.map(p => p.path).sort()};
  try { return m.validateRoster(r); } catch (e) { if (e instanceof m.RosterTooLarge) return {too_large: e.message}; throw e; }
});
"""


@pytest.mark.skipif(not AVAILABLE, reason=SKIP_REASON)
@pytest.mark.parametrize("rulebook", ARMY_BOOKS)
def test_the_builder_page_and_the_command_line_agree(bundled_builds, tmp_path, rulebook):
    pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
    build = bundled_builds[rulebook]
    (army_file,) = sorted((build / "json" / "armies").glob("*.json"))
    army = json.loads(army_file.read_text(encoding="utf-8"))
    schema = json.loads((build / "schemas" / "roster.schema.json").read_text(encoding="utf-8"))
    generator = Generator(army, SEED + 1)
    cases = [generator.roster() for _ in range(BROWSER_ROSTERS)]
    want = expected(cases, army, schema)
    with served(build / "site") as url, chromium() as driver:
        open_builder(driver, url + BUILDER_PAGE)
        assert driver.execute_script("return window.rbArmies.ARMIES[window.rbArmyData.army_id]") == army, \
            "the page must run the army document the command line reads"
        assert driver.execute_script("return typeof window.rbArmyCore") == "undefined"
        supported = set(driver.execute_script("return window.rbArmies.SCHEMA_KEYWORDS"))
        assert schema_keywords(schema) <= supported, "the roster schema uses keywords the page cannot check"
        got = driver.execute_script(JS_CHECK, cases)
    mismatches = [(i, cases[i], e, g) for i, (e, g) in enumerate(zip(want, got)) if e != g]
    assert not mismatches, json.dumps(mismatches[:3], ensure_ascii=False, indent=1)[:6000]

    # a sample through the command line, as a tool would call it
    for i in range(0, BROWSER_ROSTERS, CLI_EVERY):
        path = tmp_path / f"roster-{i}.json"
        path.write_text(json.dumps(cases[i], ensure_ascii=False), encoding="utf-8")
        proc = subprocess.run([sys.executable, "-m", "rulebook.compiler.commands.cli", "roster", "validate", str(path), "--rulebook", str(build), "--format", "json"],
                              capture_output=True, text=True, cwd=ROOT)
        if "schema" in got[i]:
            assert proc.returncode == 2 and "Traceback" not in proc.stderr, (i, proc.returncode, proc.stderr[-500:])
            continue
        assert proc.returncode == (0 if got[i]["legal"] else 1), (i, proc.stderr[-500:])
        cli = json.loads(proc.stdout)
        assert cli.pop("file") == str(path)
        assert cli == got[i], i
