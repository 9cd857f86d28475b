"""Fuzzing the compiler: rules files made at random, and how a run on one can fail.

Takes: a ``random.Random`` (so a case is its seed and can be replayed).
Produces: :func:`make_case(rng) -> (text, how)`, one of

* :func:`generated_case` — a small rulebook written from the grammar's
  declarations with random names, titles, numbers and expressions: hostile text
  in every string and in the prose (control characters, bidirectional
  overrides, quotes and backslashes, Markdown and HTML), Python keywords as
  names, unicode digits, huge numbers;
* :func:`mutated_case` — a rules file of the repository (or a window of one)
  under one to three mutations (deletions, punctuation, hostile tokens such as
  a 5,000-digit number or 3,000 ``[[``, truncation, duplicated lines);

and :func:`failure(text, folder) -> str | None`, the class of the failure of
the compiler on a case, None when it behaved:

* :func:`rulebook.compiler.pipeline.driver.check` must return diagnostics without raising, none
  of them an internal error, each inside the file, all rendering as text with
  no control character and as JSON;
* when the file checks, the generated Python package must compile, import
  without running anything the rules wrote (a canary module that the hostile
  texts try to import must stay unimported), and every procedure must resolve
  (``rulebook.runtime.exact``) to a result or a rule error for an input of its types.

``tests/test_fuzz.py`` runs a few thousand cases through Hypothesis;
``bench/fuzz.py`` runs 100,000 and counts the failures by class.
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CANARY = "fuzz_canary_module"
SOURCES = sorted((ROOT / "content").rglob("*.rules")) + sorted((ROOT / "tests" / "data").rglob("*.rules"))
_TEXTS: dict[Path, str] = {}

# ----------------------------------------------------------------------------- hostile pieces

HOSTILE_TEXT = (
    "ñandú", "Ω≈ç", "٣٤", "\x00", "\x1b[2J\x1b[31m", "\u202eevil", "\u2066", "\\\"", "\\\\", "\\n", "\\t", "'''",
    "\\\"\\\"\\\"", "{{ x }}", "{% if %}", "<script>alert(1)</script>", "&amp;", "</summary>", "*", "**", "`",
    "[[", "]]", "|", "#", "---", "\t", f"\\nimport {CANARY}\\n", f"\\\"); import {CANARY} #", "%s%d", "\ufeff",
    "\u200b", "\x7f", "\x85", "😀", "e\u0301", "$(touch PWNED)", "${HOME}", "..", "/", "C:\\\\", "a" * 300,
)
NAME_PIECES = ("a", "b", "x", "valor", "ñu", "ß", "é", "class", "def", "None", "lambda", "ctx", "_rt", "self", "print", "import", "os", "_")
NUMBERS = ("0", "1", "2", "7", "10", "99", "1000000", "9" * 30, "9" * 100, "0.5", "3.25", "٣")
PROSE_PIECES = HOSTILE_TEXT + ("Texto", " ", "**negrita**", "*cursiva*", "`code`", "[[{ref}]]", "[[{ref}#x]]", "1. ", "> ", "- ", "### ")
DICE = ("d6", "d10", "2d6", "d3", "d6 times 2 keep highest 1")


def _name(rng: random.Random, taken: set[str]) -> str:
    while True:
        name = rng.choice(NAME_PIECES) + rng.choice(("", "_", "2", "ñ")) + rng.choice(NAME_PIECES)
        if rng.random() < 0.3:
            name = rng.choice(NAME_PIECES)
        if name not in taken and name[0] not in "0123456789":
            taken.add(name)
            return name


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(HOSTILE_TEXT) if rng.random() < 0.4 else rng.choice(("Título", "x", " ", "Daño")) for _ in range(rng.randint(0, 4)))


_LINE_BREAKS = re.compile(r"[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def _string(rng: random.Random) -> str:
    """A DSL string literal of random (hostile) text, on one line; escapes as the DSL writes them."""
    body = _LINE_BREAKS.sub("", _text(rng))
    body = re.sub(r'(?<!\\)"', '\\"', body)
    return '"' + body + '"'


def _prose(rng: random.Random, refs: list[str]) -> str:
    lines = []
    for _ in range(rng.randint(0, 4)):
        parts = [rng.choice(PROSE_PIECES).replace("{ref}", rng.choice(refs)) for _ in range(rng.randint(1, 6))]
        lines.append("".join(parts).replace("```", "``"))
    return "\n\n".join(lines)


# ----------------------------------------------------------------------------- generated rulebooks


def _int_expr(rng: random.Random, names: list[str], rolls: list[str], depth: int = 0) -> str:
    """An int expression over ``names``; ``rolls`` are the dice it may roll, each at most
    once (so that exact distributions stay small)."""
    if depth > 3 or rng.random() < 0.35:
        leaf = rng.random()
        if leaf < 0.4 or not names:
            return rng.choice(NUMBERS[:8])
        if leaf < 0.8 or not rolls:
            return rng.choice(names)
        return rolls.pop()
    kind = rng.randrange(6)
    a, b = _int_expr(rng, names, rolls, depth + 1), _int_expr(rng, names, rolls, depth + 1)
    if kind == 0:
        return f"{a} {rng.choice('+-*')} {b}"
    if kind == 1:
        return f"({a})"
    if kind == 2:
        return f"(if {a} {rng.choice(('<', '>=', '==', '!='))} {b} then {a} else {b})"
    if kind == 3:
        return f"{rng.choice(('min', 'max'))}({a}, {b})"
    if kind == 4:
        return f"floor({a} / {rng.choice(('2', '3', '7'))})"
    return f"-{a}"


def generated_rulebook(rng: random.Random) -> str:
    """A small rulebook that uses most declarations, usually checking cleanly."""
    taken: set[str] = set()
    rb, sec, enum, rec, cat, table, die, const = (_name(rng, taken) for _ in range(8))
    members = [_name(rng, taken) for _ in range(rng.randint(1, 3))]
    fields = [_name(rng, taken) for _ in range(3)]
    entries = [_name(rng, taken) for _ in range(rng.randint(1, 3))]
    procs = [_name(rng, taken) for _ in range(rng.randint(1, 3))]
    refs = [enum, rec, cat, table, const, *procs, f"{enum}#{members[0]}"]
    out = [_prose(rng, refs), "```rules", f"rulebook {rb} {_string(rng)} version {_string(rng)} lang \"es\"", f"section {sec.upper()} {_string(rng)}", "```", ""]
    out += [f"### 1. {_text(rng)}".replace("```", "``"), "", _prose(rng, refs), "", "```rules"]
    ordered = rng.choice(("ordered ", ""))
    out.append(f"enum {enum} {_string(rng)} {ordered}{{ " + ", ".join(f"{m} {_string(rng)}" for m in members) + " }")
    out.append(f"record {rec} {_string(rng)} {{ {fields[0]}: int {_string(rng)}, {fields[1]}: text?, {fields[2]}: {enum} }}")
    rows = "\n".join(f"  {e} | {rng.choice(NUMBERS[:7])} | {rng.choice((_string(rng), '-'))} | {rng.choice(members)}" for e in entries)
    out.append(f"catalog {cat} {_string(rng)} of {rec} {{\n{rows}\n}}")
    out.append(f"table {table} {_string(rng)} by k: {enum} -> v: int {_string(rng)} {{\n" + "\n".join(f"  {m} | {rng.choice(NUMBERS[:7])}" for m in members) + "\n}")
    out.append(f"die {die} {_string(rng)} = [" + ", ".join(rng.choice(("1", "2", "0", "-1", "+1")) for _ in range(rng.randint(1, 6))) + "]")
    out.append(f"const {const} {_string(rng)} = {rng.choice(NUMBERS[:10])}")
    for i, proc in enumerate(procs):
        locals_ = ["n", const, f"{table}[e]", f"e_ent.{fields[0]}"]
        rolls = [f"roll {rng.choice(DICE)}", f"roll {die}"][: rng.randint(0, 2)]
        body = [f"  step {_string(rng)} {{", f"    let a1 = {_int_expr(rng, locals_, rolls)}"]
        if rng.random() < 0.5:
            body.append(f"    require a1 > -1000000, {_string(rng)}")
        if i and rng.random() < 0.5:
            body.append(f"    let a2 = {procs[i - 1]}(n: a1, e: e, e_ent: e_ent)")
        else:
            body.append("    let a2 = 1")
        body += [f"    if e == {enum}.{members[-1]} {{ return a1 + a2 }}", "    return a1", "  }"]
        out.append(f"procedure {proc} {_string(rng)} (n: int, e_ent: ref {cat}, e: {enum} = {enum}.{members[0]}) -> int {{\n" + "\n".join(body) + "\n}")
        if rng.random() < 0.5:
            out.append(f"example {proc} {_string(rng)} {{\n  given (n: {rng.choice(NUMBERS[:5])}, e_ent: {cat}.{entries[0]})\n  expect probability(result > -100000) >= 0\n}}")
    out.append(f"odds o_{procs[0]} {_string(rng)} {{\n  procedure {procs[0]}(n: r, e: c, e_ent: {cat}.{entries[0]})\n  rows r in 0..2 {_string(rng)}\n  columns c in {enum}\n  cell probability(result > 1)\n}}")
    out += ["```", "", _prose(rng, refs), ""]
    return "\n".join(out)


ALLOW_KINDS = ("unused", "unreachable", "naming", "gap", "missing-key", "variant-spelling", "unusd", "__class__", "allow")
DISPLAY_PIECES = ("{cantidad}", "{nombre}", "{{", "}}", "{0}", "{__class__}", "{cantidad:>9}", "{nombre!r}", "{a.b}", " × ", "</script>", "${x}", "`")
ARMY_NUMBERS = ("0", "1", "7", "100", "-1", "-100", "1000000000", "9" * 40, "0.5")


def generated_new_constructs(rng: random.Random) -> str:
    """A rulebook of the constructs of issues 9, 10, 12 and 14 with random (often
    hostile) parts: ``@display`` templates, ``@allow`` kinds, chains and cycles of
    ``grants`` with ``stacking``, ``stack`` sources, ``repeat … until`` (sometimes
    impossible) and an ``army`` with random numbers."""
    wild = rng.random() < 0.4  # hostile parts everywhere; else only the texts (and the case usually checks)
    number = (lambda: rng.choice(ARMY_NUMBERS)) if wild else (lambda: rng.choice(ARMY_NUMBERS[1:4]))
    taken: set[str] = set()
    rb, rec, cat, proc_stack, proc_rep, proc_rules, combine, army = (_name(rng, taken) for _ in range(8))
    rules = [_name(rng, taken) for _ in range(rng.randint(1, 6))]
    display = "".join(rng.choice(DISPLAY_PIECES) for _ in range(rng.randint(0, 3))).replace('"', '\\"') if wild else "{cantidad} × {nombre}"
    out = ["```rules", f'rulebook {rb} {_string(rng)} lang "{rng.choice(("en", "es"))}"', f"section I {_string(rng)}"]
    if rng.random() < 0.7:
        out.append(f'@display "{display}"')
    if wild and rng.random() < 0.5:
        out.append(f'@allow {rng.choice(ALLOW_KINDS)}({rng.choice((_string(rng), chr(34) * 2))})')
    out.append(f'record {rec} {_string(rng)} {{\n  nombre: text {_string(rng)}\n  cantidad: int {_string(rng)}\n}}')
    rows = "\n".join(f"  e{i} | {_string(rng)} | {number()}" for i in range(rng.randint(1, 4)))
    out.append(f"catalog {cat} {_string(rng)} of {rec} {{\n  columns nombre | cantidad\n{rows}\n}}")
    for i, rule in enumerate(rules):
        body = [_string(rng)]
        if rng.random() < 0.6:
            body.append(f"stacking {rng.choice(('sum', 'max', 'min', 'first', chr(34) + 'texto' + chr(34)))}")
        for _ in range(rng.randint(0, 2)):
            target = rng.choice(rules if wild else rules[i + 1:] or [None])
            if target is None:
                break
            body.append(f"grants {target}" + ("(1)" if rules.index(target) % 2 == 0 else ""))
        params = " (X: int)" if i % 2 == 0 else ""
        out.append(f"rule {rule} {_string(rng)}{params} {{\n  " + "\n  ".join(body) + "\n}")
    out.append(f'procedure {proc_rules} {_string(rng)} (reglas: list[rule]) -> int {{\n  step {_string(rng)} {{\n'
               f"    let x = rule_param(reglas, {rules[0]}, X)\n    if has_rule(reglas, {rng.choice(rules)}) {{ return 1 }}\n"
               "    return if x != none then x else 0\n  }\n}")
    out.append(f'procedure {combine} {_string(rng)} (mods: list[int]) -> int {{\n  step {_string(rng)} {{\n    return sum(mods)\n  }}\n}}')
    sources = "\n".join(f"      {_string(rng) if wild else chr(34) + 'Fuente ' + str(i) + chr(34)}: {_int_expr(rng, ['n'], [])}" for i in range(rng.randint(0 if wild else 1, 5)))
    out.append(f'procedure {proc_stack} {_string(rng)} (n: int) -> int {{\n  step {_string(rng)} {{\n'
               f"    return stack {combine}() {{\n{sources}\n    }}\n  }}\n}}")
    dice = [f"      let d{i} = roll {rng.choice(DICE)}" for i in range(rng.randint(1, 3))]
    until = rng.choice(("d0 > 3", "d0 == 7", "d0 != 0", "false", f"d0 + n > {rng.choice(NUMBERS[:6])}", "n > 1") if wild else ("d0 > 1", "d0 != 2", "d0 + n > 3"))
    out.append(f'procedure {proc_rep} {_string(rng)} (n: int) -> int {{\n  step {_string(rng)} {{\n    repeat {{\n'
               + "\n".join(dice) + f"\n    }} until {until}\n    return d0\n  }}\n}}")
    limits = "\n".join(f"  limit {rng.choice(('total', 'entry: e0', 'entry: e9') if wild else ('total', 'entry: e0'))} {rng.choice(('min', 'max'))}: {number()}" for _ in range(rng.randint(0, 2)))
    out.append(f"army {army} {_string(rng)} {{\n  size s {_string(rng)} points: {number()}\n"
               + ("  agreed\n" if rng.random() < 0.5 else "")
               + f"  units {cat} cost: cantidad {{\n    option o {_string(rng)} cost: {number()} max: {number()}\n  }}\n{limits}\n}}")
    out += ["```", ""]
    return "\n".join(out)


# ----------------------------------------------------------------------------- mutated files

PUNCTUATION = ("{", "}", "(", ")", "[", "]", "|", ",", ":", ".", "..", "@", "#", '"', "<", ">", "-", "=", "+", "*", "/", "?", "`", "'", "->", "\\", "\n", "\t", "```", "```rules\n", "[[", "]]", "**")
HOSTILE_TOKENS = (
    "9" * 5000, "9" * 101, "0." + "3" * 300, '"' + "x" * 120_000 + '"', "٣", "d٦", "\x00", "\x1b[2J", "\u202e", "\r", "\r\n", "\ufeff",
    "\u2028", "#" * 3000, "[[" * 3000, "**" * 2000, "`" * 3001, "(" * 400, "[" * 400, "roll 99d6", "- " * 2000, "1. " * 100,
    "a" * 200, "ñ" * 100, " " * 5000, "\t" * 100, "@doc", "```rules\n```\n",
)


def _source_text(path: Path) -> str:
    if path not in _TEXTS:
        _TEXTS[path] = path.read_text(encoding="utf-8")
    return _TEXTS[path]


def _window(text: str, rng: random.Random) -> str:
    """A big file cut to about 120 lines from a random line (a whole small file as is)."""
    lines = text.split("\n")
    if len(lines) <= 150:
        return text
    start = rng.randrange(len(lines) - 120)
    return "\n".join(lines[start : start + 120])


def _mutate(text: str, rng: random.Random) -> tuple[str, str]:
    if not text:
        return rng.choice(HOSTILE_TOKENS), "insert into an empty file"
    i = rng.randrange(len(text) + 1)
    kind = rng.randrange(6)
    if kind == 0:
        return text[:i] + text[i + 1 :], f"delete at {i}"
    if kind == 1:
        token = rng.choice(PUNCTUATION)
        return text[:i] + token + text[i:], f"insert {token[:20]!r} at {i}"
    if kind == 2:
        token = rng.choice(HOSTILE_TOKENS)
        return text[:i] + token + text[i:], f"insert {token[:20]!r}… ({len(token)} chars) at {i}"
    if kind == 3:
        return text[:i], f"truncate at {i}"
    if kind == 4:
        lines = text.split("\n")
        k = rng.randrange(len(lines))
        lines.insert(k, lines[k])
        return "\n".join(lines), f"duplicate line {k + 1}"
    numbers = list(re.finditer(r"\d+", text))
    if not numbers:
        return text, "no number to replace"
    m = rng.choice(numbers)
    token = rng.choice(NUMBERS)
    return text[: m.start()] + token + text[m.end() :], f"number at {m.start()} -> {token[:20]}"


def generated_case(rng: random.Random) -> tuple[str, str]:
    """A generated rulebook, now and then mutated once: (rules text, how it was made)."""
    text = generated_rulebook(rng)
    if rng.random() < 0.3:
        text, what = _mutate(text, rng)
        return text, "generated rulebook, then " + what
    return text, "generated rulebook"


def mutated_case(rng: random.Random) -> tuple[str, str]:
    """A file of the repository (or a window of one) under one to three mutations."""
    src = rng.choice(SOURCES)
    text = _window(_source_text(src), rng)
    steps = []
    for _ in range(rng.randint(1, 3)):
        text, what = _mutate(text, rng)
        steps.append(what)
    return text, f"{src.relative_to(ROOT).as_posix()}: " + "; ".join(steps)


def make_case(rng: random.Random) -> tuple[str, str]:
    """One fuzz case, generated (40 %) or mutated: (rules text, how it was made)."""
    return generated_case(rng) if rng.random() < 0.4 else mutated_case(rng)


# ----------------------------------------------------------------------------- running a case

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _check_failure(path: Path, text: str):
    """(failure class or None, checked result)."""
    import json

    from rulebook.compiler.pipeline import driver
    from rulebook.rules_dsl.diagnostics import render_all

    try:
        result = driver.check(path)
    except Exception as exc:
        return f"check raised {type(exc).__name__}", None
    try:
        rendered = render_all(result.diagnostics, result.sources)
        as_json = json.loads(render_all(result.diagnostics, result.sources, "json") or "[]")
    except Exception as exc:
        return f"rendering raised {type(exc).__name__}", None
    if len(as_json) != len(result.diagnostics):
        return "JSON diagnostics lost some", None
    if _CONTROL.search(rendered):
        return "control character in rendered diagnostics", None
    n_lines = len(text.splitlines())
    shown_name = next(iter(result.sources), None)
    for d in result.diagnostics:
        if d.code == "internal" or "internal error" in d.message:
            return "internal error diagnostic", None
        if d.span.file == shown_name and not (d.span.line == 0 or 1 <= d.span.line <= n_lines + 1):
            return "diagnostic outside the file", None
    return None, result


def valid_input(desc: tuple, schema):
    """A JSON value of the type ``desc`` (a runtime type descriptor, see
    :mod:`rulebook.runtime.records`) that a procedure's input accepts; lists get one element."""
    kind = desc[0]
    if kind in ("int", "decimal"):
        return 1
    if kind in ("text", "id", "rule"):
        return "x"
    if kind == "bool":
        return False
    if kind == "enum":
        return schema.enums[desc[1]][0]
    if kind == "ref":
        return next(iter(schema.catalogs[desc[1]]), "x")
    if kind == "list":
        return [valid_input(desc[1], schema)]
    if kind == "opt":
        return valid_input(desc[1], schema)
    if kind == "map":
        return {m: valid_input(desc[2], schema) for m in schema.enums[desc[1]]}
    cls, fields = schema.records[desc[1]]
    return {name: valid_input(fdesc, schema) for name, _, fdesc in fields}


def _emit_failure(program) -> str | None:
    """Generate, compile and import the Python package; resolve every procedure once."""
    import tempfile

    from rulebook import runtime
    from rulebook.compiler.pipeline import pyload
    from rulebook.compiler.emit.python import to_python

    with tempfile.TemporaryDirectory(prefix="fuzz-py-") as tmp:
        try:
            to_python.write_package(program, Path(tmp))
        except Exception as exc:
            return f"Python emitter raised {type(exc).__name__}"
        for py in sorted(Path(tmp).rglob("*.py")):
            try:
                compile(py.read_text(encoding="utf-8"), str(py), "exec")
            except SyntaxError:
                return "generated Python does not compile"
        before = set(sys.modules)
        try:
            package = pyload.load_package(Path(tmp))
        except Exception as exc:
            return f"generated package raised {type(exc).__name__} on import"
        finally:
            for name in set(sys.modules) - before:
                if name.startswith("_rulebook_generated_") or name == CANARY:
                    del sys.modules[name]
        if CANARY in before or CANARY in sys.modules:
            return "rules text ran as code"
        for proc in package.PROCEDURES.values():
            try:
                inputs = proc.convert({p.name: valid_input(p.type, proc.schema) for p in proc.params})
                runtime.exact(proc.function, **inputs)
            except runtime.RuleError:
                pass
            except Exception as exc:
                return f"resolver raised {type(exc).__name__}"
    return None


def failure(text: str, folder: Path) -> str | None:
    """The class of the failure of the compiler on ``text`` (written to ``folder``), or None."""
    path = folder / "fuzz.rules"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    problem, result = _check_failure(path, text)
    if problem or result is None or not result.ok or result.program is None:
        return problem
    return _emit_failure(result.program)
