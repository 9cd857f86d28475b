"""Hostile input for the constructs added with issues 9, 10, 12 and 14: granted
rules, ``stack``, ``repeat … until``, ``@display``, ``@allow``, ``lang``,
``army`` declarations, the army builder page and ``rulebook roster``.

Each case must end in a positioned diagnostic or a clean message (never a
traceback or an internal error), within the hang guard (:mod:`guards`), and no
text of a rules file may reach a page, a script or generated Python except
escaped. Cases marked ``xfail(strict=True)`` are faults in files other
helpers own; the reason says what is wrong and the report says how to fix it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import fuzzing
from army_data import army_data, army_data_script
from conftest import DATA, ROOT, build_rulebook
from guards import deadline

HEADER = '```rules\nrulebook t "T" lang "en"\nsection I "S"\n'
HOSTILE_ARMY = DATA / "hostile" / "army_markup"
SKIRMISH = DATA / "armies" / "skirmish"
MARKUP = "</script><script>alert(1)</script>"


def check_folder(tmp_path: Path, text: str, what: str):
    from rulebook.compiler.pipeline import driver

    folder = tmp_path / "rb"
    folder.mkdir(exist_ok=True)
    (folder / "a.rules").write_text(text, encoding="utf-8")
    with deadline(what=what):
        return driver.check(folder)


def errors(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.severity == "error"]


def cli(*args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "rulebook.compiler.commands.cli", *args], capture_output=True, text=True, cwd=ROOT, timeout=timeout)
    assert "Traceback" not in proc.stderr + proc.stdout and "internal error" not in proc.stderr + proc.stdout, proc.stderr
    return proc


# ---------------------------------------------------------------------------- granted rules


def grant_chain(n: int, cycle: bool = False) -> str:
    """Rules r0 … r(n-1), each granting the next; the last grants r0 (a cycle) or a rule with a parameter."""
    rules = "".join(f'rule r{i} "R{i}" {{\n  "t"\n  grants r{(i + 1) % n if cycle else i + 1}{"(1)" if i == n - 1 and not cycle else ""}\n}}\n' for i in range(n))
    last = "" if cycle else f'rule r{n} "Last" (X: int) {{\n  "t"\n  stacking sum\n}}\n'
    return HEADER + rules + last + "```\n"


def test_a_chain_of_10000_grants_checks_in_linear_time(tmp_path):
    # the cycle search walked the rest of the chain from every rule, copying the path at each link
    result = check_folder(tmp_path, grant_chain(10_000), "check of a chain of 10,000 grants")
    assert result.ok, errors(result)[:3]


def test_a_cycle_of_10000_grants_is_one_short_error(tmp_path):
    result = check_folder(tmp_path, grant_chain(10_000, cycle=True), "check of a cycle of 10,000 grants")
    (message,) = errors(result)
    assert message == "rule r0 grants itself: r0 → r1 → r2 → r3 → r4 → r5 → r6 → r7 → r8 → … → r9999 → r0 (10000 rules)"
    assert (result.diagnostics[0].span.line, result.diagnostics[0].span.col) == (4, 1)


def test_rules_that_grant_each_other_are_one_error_at_the_first(tmp_path):
    # a hub granting 2,000 rules that each grant it back: one knot, reported once with its shortest cycle
    leaves = range(2000)
    text = HEADER + 'rule hub "Hub" {\n  "t"\n' + "".join(f"  grants l{i}\n" for i in leaves) + "}\n"
    text += "".join(f'rule l{i} "L{i}" {{\n  "t"\n  grants hub\n}}\n' for i in leaves)
    text += 'rule solo "Solo" {\n  "t"\n  grants solo\n}\n```\n'
    result = check_folder(tmp_path, text, "check of 2,000 rules granting each other")
    assert errors(result) == ["rule hub grants itself: hub → l0 → hub", "rule solo grants itself: solo → solo"]
    assert "1999 other rules grant each other with it: l1, l2, l3, l4, l5, …" in result.diagnostics[0].hint


def test_granted_rules_are_written_without_their_closure(tmp_path):
    from rulebook.compiler.emit.python import to_python

    result = check_folder(tmp_path, grant_chain(300), "check of a chain of 300 grants")
    assert result.ok, errors(result)[:3]
    out = tmp_path / "py"
    with deadline(what="emitting a chain of 300 grants"):
        to_python.write_package(result.program, out)
    size = sum(p.stat().st_size for p in out.rglob("*.py") if "_runtime" not in p.parts)  # the vendored runtime aside
    assert size < 150_000, f"{size} bytes of Python for 301 rules"


NEW_CONSTRUCTS = settings(
    max_examples=400, derandomize=True, database=None, deadline=None, phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example], print_blob=True,
)


@pytest.fixture(scope="module")
def fuzz_folder(tmp_path_factory):
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))  # as test_fuzz.py: the checker raises it for deep expressions
    return tmp_path_factory.mktemp("fuzz-new")


@NEW_CONSTRUCTS
@given(rng=st.randoms(use_true_random=False))
def test_fuzzed_rulebooks_of_the_new_constructs_behave(rng, fuzz_folder):
    """:func:`fuzzing.generated_new_constructs` through :func:`fuzzing.failure`: diagnostics
    safe to print and inside the file, generated Python that compiles, imports and resolves."""
    text = fuzzing.generated_new_constructs(rng)
    with deadline(what="a fuzzed rulebook of the new constructs"):
        problem = fuzzing.failure(text, fuzz_folder)
    assert problem is None, f"{problem}\n--- case ---\n{text[:3000]}"


# ---------------------------------------------------------------------------- stack, repeat


def test_a_stack_of_10000_sources_checks_and_resolves(tmp_path):
    from rulebook import runtime
    from rulebook.compiler.pipeline import pyload

    sources = "".join(f'      "Fuente {i} {MARKUP} {{{{x}}}} ${{y}} `z` \\"q\\"": x + {i % 3}\n' for i in range(10_000))
    text = HEADER + (
        'procedure combine "Combine" (mods: list[int]) -> int {\n  step "s" {\n    return sum(mods)\n  }\n}\n'
        'procedure big "Big" (x: int) -> int {\n  step "s" {\n    return stack combine() {\n' + sources + "    }\n  }\n}\n```\n"
    )
    result = check_folder(tmp_path, text, "check of a stack of 10,000 sources")
    assert result.ok, errors(result)[:3]
    with deadline(what="resolving a stack of 10,000 sources"):
        package = pyload.compile_and_load(result.program)
        fn = package.PROCEDURES["big"].function
        assert runtime.exact(fn, x=1).mean() == 19_999
        value, trace = runtime.sample(fn, x=1, seed=1)
    assert value == 19_999 and trace is not None


RARE = HEADER + """procedure rare "Rare" () -> int {
  step "s" {
    repeat {
""" + "".join(f"      let d{i} = roll d6\n" for i in range(12)) + """    } until """ + " + ".join(f"d{i}" for i in range(12)) + """ == 72
    return d0
  }
}

procedure never "Never" () -> int {
  step "s" {
    repeat {
      let a = roll d6
    } until a == 7
    return a
  }
}
```
"""


@pytest.mark.parametrize("procedure,exact", [("rare", True), ("rare", False), ("never", True), ("never", False)])
def test_a_repeat_that_almost_never_or_never_stops_is_a_clean_error(procedure, exact, tmp_path):
    from rulebook import runtime
    from rulebook.compiler.pipeline import pyload

    result = check_folder(tmp_path, RARE, "check of rare repeats")
    assert result.ok, errors(result)
    package = pyload.compile_and_load(result.program)
    fn = package.PROCEDURES[procedure].function
    with deadline(what=f"{procedure}, {'exact' if exact else 'sampled'}"):
        try:
            if exact:
                dist = runtime.exact(fn, max_work=2_000_000)
            else:
                runtime.sample(fn, seed=1, trace=False, max_work=200_000)
                dist = None
        except runtime.RuleError as exc:
            message = str(exc)
            assert re.search(r"rb/a\.rules:\d+", message), message
        else:
            assert procedure == "rare" and exact and dist.outcomes() == [6], "a repeat that cannot stop returned"


def test_a_repeat_that_never_stops_keeps_a_bounded_trace(tmp_path):
    from rulebook import runtime
    from rulebook.compiler.pipeline import pyload

    result = check_folder(tmp_path, RARE, "check of rare repeats")
    package = pyload.compile_and_load(result.program)
    fn = package.PROCEDURES["never"].function
    tracemalloc.start()
    try:
        with deadline(what="a sampled repeat that never stops"), pytest.raises(runtime.RuleError):
            runtime.sample(fn, seed=1, trace=True, max_work=300_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4_000_000, f"{peak} bytes for 42,857 runs of one die"


# ---------------------------------------------------------------------------- @display, @allow, lang

DISPLAY_RECORD = HEADER + '@display "{template}"\nrecord R "R" {\n  x: int "X"\n  y: text "Y"\n}\n' \
    'record P "P" { rs: list[R] "Rs" }\ncatalog c "C" of P {\n  e1 | [(2, "a<b> {{ 7*7 }} | *z* ${HOME}")]\n}\n```\n'


@pytest.mark.parametrize("template", ["{__class__}", "{0}", "{a.b}", "{x.__class__.__mro__}", "{x[0]}", "{x:>99999999}", "{x!r}", "{}", "{% x %}{x}", "{{", "{x", "no field"])
def test_display_templates_name_fields_only(template, tmp_path):
    result = check_folder(tmp_path, DISPLAY_RECORD.replace("{template}", template), f"@display {template}")
    (d,) = [d for d in result.diagnostics if d.severity == "error"]
    assert d.message.startswith("@display"), d.message
    assert (d.span.line, d.span.col) == (4, 10) and d.hint == "fields: x, y"


def test_display_text_reaches_the_pages_escaped(tmp_path):
    from rulebook.compiler.pipeline import driver

    folder = tmp_path / "rb"
    folder.mkdir()
    (folder / "a.rules").write_text(DISPLAY_RECORD.replace("{template}", MARKUP.replace("(1)", "({y})") + " ${x} `{y}` {{x}}"), encoding="utf-8")
    result = driver.build(folder, tmp_path / "out", site=False)
    assert result.ok, errors(result)
    page = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "out" / "docs").glob("*.md"))
    (row,) = [line for line in page.splitlines() if 'id="c--e1"' in line]
    assert "<script" not in row and "<b>" not in row and "&lt;/script&gt;" in row and "a&lt;b&gt;" in row, row


def test_allow_with_an_unknown_kind_suggests_the_kind(tmp_path):
    text = HEADER + '@allow unusd("x")\nconst a = 1\n@allow unused("a", "b")\nconst b = 2\n```\n'
    result = check_folder(tmp_path, text, "@allow")
    by_line = {d.span.line: d for d in result.diagnostics}
    assert by_line[4].message == "@allow unusd silences no warning here" and "did you mean 'unused'?" in by_line[4].hint
    assert by_line[6].severity == "error" and by_line[6].message == "@allow unused takes one reason, not 2"


def test_an_annotation_given_twice_is_an_error_not_a_silent_choice(tmp_path):
    text = HEADER + '@display "{x}"\n@display "{y}"\nrecord R "R" { x: int "X", y: int "Y" }\n@doc "a"\n@doc "b"\n' \
        '@allow unused("a")\n@allow unreachable("b")\nconst a = 1\n```\n'
    result = check_folder(tmp_path, text, "annotations given twice")
    twice = [(d.span.line, d.message, d.hint) for d in result.diagnostics if d.severity == "error"]
    assert twice == [(5, "@display is given twice on this declaration", "keep one (the first is at line 4)"),
                     (8, "@doc is given twice on this declaration", "keep one (the first is at line 7)")]


@pytest.mark.parametrize("lang", ["../../etc", "xx", "EN", 'es\\" onload=\\"x', "en_US.UTF-8/../../x"])
def test_an_unknown_lang_is_a_positioned_error(lang, tmp_path):
    result = check_folder(tmp_path, f'```rules\nrulebook t "T" lang "{lang}"\n```\n', f"lang {lang}")
    (d,) = result.diagnostics
    assert d.message.startswith("unknown language") and (d.span.line, d.span.col) == (2, 21) and d.hint == "supported languages: en, es"


def test_an_empty_lang_is_an_error(tmp_path):
    result = check_folder(tmp_path, '```rules\nrulebook t "T" lang ""\n```\n', 'lang ""')
    assert [m for m in errors(result) if "language" in m], result.diagnostics


# ---------------------------------------------------------------------------- army declarations


ARMY = HEADER + """record Squad "Squad" {
  name: text "Name"
  points: int "Points"
}

catalog squads "Squads" of Squad {
  columns name | points
  riflemen | "Riflemen" | -50
  captain | "Captain" | 21
}

army patrol "Patrol" {
  size small "Small" points: 100
  units squads cost: points
  limit entry: captain max: -1
  limit total min: 0 max: 1000000000000000000000000000000
}
```
"""


def test_army_numbers_out_of_range_are_one_clear_error_each(tmp_path):
    result = check_folder(tmp_path, ARMY, "army with a negative cost")
    assert errors(result) == ["entry riflemen costs -50 in 'points'; a cost is 0 or more", "'max:' must be at least 0, got -1"]
    cost, limit = [d for d in result.diagnostics if d.severity == "error"]
    assert (cost.span.line, cost.span.col) == (11, 3) and (limit.span.line, limit.span.col) == (18, 29)


def big_army(entries: int, options: int, limits: int) -> str:
    rows = "".join(f'  e{i} | "E{i}" | {i % 50}\n' for i in range(entries))
    opts = "".join(f'    option o{i} "O{i}" cost: {i} max: 1000000000\n' for i in range(options))
    lims = "".join(f"  limit entry: e{i} max: 3\n" for i in range(0, 2 * limits, 2))
    return HEADER + 'record Squad "Squad" {\n  name: text "Name"\n  points: int "Points"\n}\n' \
        f'catalog squads "Squads" of Squad {{\n  columns name | points\n{rows}}}\n' \
        f'army patrol "Patrol" {{\n  size small "Small" points: 100\n  units squads cost: points {{\n{opts}  }}\n{lims}}}\n```\n'


def test_an_army_of_10000_entries_and_5000_limits_checks_in_linear_time(tmp_path):
    # the clauses were ordered with list.index (comparing whole clauses), the entries and limits searched linearly
    result = check_folder(tmp_path, big_army(10_000, 3, 5_000), "an army of 10,000 entries and 5,000 limits")
    assert result.ok, errors(result)[:3]
    (army,) = result.program.armies.values() if isinstance(result.program.armies, dict) else result.program.armies
    assert len(army.entries) == 10_000 and len(army.limits) == 5_000


def test_an_army_offering_every_option_to_every_entry_is_bounded(tmp_path):
    # 10,000 entries × 1,000 options would write ten million option ids into the army document and its page
    result = check_folder(tmp_path, big_army(10_000, 1_000, 0), "an army offering ten million options")
    (d,) = [d for d in result.diagnostics if d.severity == "error"]
    assert d.message == "army patrol offers more than 100,000 options to its units (entry e100 reaches it)"
    assert d.span.line == 10_013 and "entries: [...]" in d.hint


@pytest.fixture(scope="module")
def hostile_build(tmp_path_factory):
    return build_rulebook(tmp_path_factory, HOSTILE_ARMY, "hostile-army", site=True)[1]


def test_army_texts_reach_the_builder_page_only_escaped(hostile_build):
    html_pages = {p.name: p.read_text(encoding="utf-8") for p in (hostile_build / "site").rglob("*.html")}
    for name, text in html_pages.items():
        assert "<script>alert" not in text and "<b>x</b>" not in text and "<!-- \"" not in text, name
    (built,) = [p for p in (hostile_build / "site").rglob("army-builder.html")]  # an English rulebook: English addresses
    script = army_data_script(built)
    assert "<" not in script and ">" not in script and "&" not in script
    army = army_data(built)["army"]  # the script is one assignment of a JSON literal: no text ends it
    assert army["title"] == 'Patrol </script><script>alert(1)</script> {{ 7*7 }} ${alert(2)} `x` "q" {% raw %} &amp; <!-- '
    assert army["entries"][1]["id"] == "</script><b>x</b>"
    shown = built.read_text(encoding="utf-8")
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; {{ 7*7 }} ${alert(2)}" in shown  # shown as written, not run


def test_army_texts_reach_generated_python_only_as_literals(hostile_build):
    for path in (hostile_build / "python").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        compile(text, str(path), "exec")
        for line in text.splitlines():
            if "alert(1)" in line:
                assert line.lstrip().startswith(("'", '"', "#")) or re.search(r"""[=:(,]\s*['"]|«""", line), line


def test_a_roster_of_the_hostile_army_prints_escaped(hostile_build, tmp_path):
    roster = {"format": 1, "rulebook": "hostile", "army": "patrol", "side": "red", "size": "small", "name": MARKUP,
              "units": [{"entry": "</script><b>x</b>", "name": "<img src=x onerror=alert(3)>"}, {"entry": "riflemen", "quality": "vet"}]}
    path = tmp_path / "roster.json"
    path.write_text(json.dumps(roster), encoding="utf-8")
    proc = cli("roster", "print", str(path), "--rulebook", str(hostile_build))
    assert proc.returncode == 0, proc.stderr
    assert "<script>" not in proc.stdout and "<img" not in proc.stdout and "<b>x" not in proc.stdout
    assert "&lt;img src=x onerror=alert(3)&gt;" in proc.stdout


# ---------------------------------------------------------------------------- rosters

ROSTER = {"format": 1, "rulebook": "skirmish", "army": "patrol", "side": "red", "role": "attacker", "size": "small"}


def test_a_roster_number_of_5000_digits_is_a_clean_error(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(ROSTER)[:-1] + ', "points": ' + "9" * 5000 + ', "units": []}', encoding="utf-8")
    proc = cli("roster", "validate", str(path), "--rulebook", str(SKIRMISH))
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"{path}: error: not JSON this program reads: Exceeds the limit (4300 digits)"), proc.stderr


def test_roster_text_cannot_drive_the_terminal(tmp_path):
    path = tmp_path / "r.json"
    units = [{"entry": "\x1b[2J\x1b[31mX", "name": "\u202eabc\x1b]0;title\x07\nfake line"}]
    path.write_text(json.dumps({**ROSTER, "units": units}), encoding="utf-8")
    proc = cli("roster", "validate", str(path), "--rulebook", str(SKIRMISH))
    assert proc.returncode == 1
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", proc.stdout), proc.stdout
    assert "␛[2J" in proc.stdout and "\nfake line" not in proc.stdout


@pytest.mark.parametrize("rulebook", [[], {"a": 1}, 7, None])
def test_a_roster_whose_rulebook_is_not_a_text_is_a_clean_error(rulebook, tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({**ROSTER, "rulebook": rulebook, "units": []}), encoding="utf-8")
    proc = cli("roster", "validate", str(path))
    assert proc.returncode == 2 and "$.rulebook" in proc.stderr, proc.stderr


def test_a_deeply_nested_or_huge_roster_is_refused_quickly(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text(json.dumps(ROSTER)[:-1] + ', "units": [{"entry": "riflemen", "name": ' + "[" * 5000 + "]" * 5000 + "}]}", encoding="utf-8")
    huge = tmp_path / "huge.json"
    huge.write_text(json.dumps({**ROSTER, "units": [{"entry": "riflemen", "options": ["grenades"]}] * 200_000}), encoding="utf-8")
    with deadline(what="two hostile rosters"):
        for path in (deep, huge):
            proc = cli("roster", "validate", str(path), "--rulebook", str(SKIRMISH))
            assert proc.returncode == 2 and proc.stderr.startswith(f"{path}: error: "), proc.stderr


# ---------------------------------------------------------------------------- resolve cache (report only: compiler/pipeline/cache.py)


def test_the_cache_key_of_a_huge_rules_file_costs_little_memory(tmp_path):
    from rulebook.compiler.pipeline import cache

    folder = tmp_path / "rb"
    folder.mkdir()
    (folder / "a.rules").write_text(HEADER + "```\n", encoding="utf-8")
    with open(folder / "z.rules", "wb") as f:
        f.truncate(64 * 1024 * 1024)  # sparse: no disk used
    cache.key(folder)  # the compiler's own files, read once outside the measurement
    tracemalloc.start()
    try:
        with deadline(what="the cache key of a 64 MB file"):
            cache.key(folder)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024, f"{peak} bytes to hash a 64 MB file"
