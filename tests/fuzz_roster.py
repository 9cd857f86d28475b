"""Fuzzing ``rulebook roster``: rosters made at random or mutated, through every way of reading one.

Takes: a ``random.Random`` (a case is its seed and can be replayed) and the rulebooks of
:data:`RULEBOOKS` (their army documents, made once by :func:`armies`).
Produces: :func:`make_case(rng) -> (text, rulebook, how)` — the bytes of a roster file
and the rulebook it goes with:

* a roster built from an army document: its side, role and size or points, units of
  its entries with qualities, models, options and choices, mostly legal;
* or a roster of the repository (``tests/data/rosters``, ``examples/rosters``);

then under one to three mutations: a value of the wrong type, a huge or non-finite number,
deep nesting, control characters, bidirectional overrides and lone surrogates in any
text (keys too), a huge text, a key removed or added, an option taken thousands of
times, a thousand units, the text truncated, a byte that is not UTF-8.

:func:`failure(text, rulebook, folder) -> str | None` writes the case and runs
``roster validate`` (text and ``--format json``) and ``roster print`` (HTML or Markdown)
in this process (``cli.main`` with its streams captured; the army documents of a
rulebook folder are made once, :func:`fast_armies`, a build folder is read each time);
it returns the class of the first misbehaviour, None when there is none: an exit status
other than 0, 1 or 2, a traceback or an internal error, a control character on either
stream, JSON output that is not JSON, a status 2 without a message or with output.

``tests/test_hardening_commands.py`` runs a few hundred cases; ``bench/fuzz_roster.py``
runs thousands and counts the failures by class.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import json
import random
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = {
    "skirmish": ROOT / "tests" / "data" / "armies" / "skirmish",  # every construct of an army
    "tercios": ROOT / "content" / "tercios",  # compositions, choices, options that remove and add troops
    "manual_1936": ROOT / "content" / "1936",  # 123 entries, qualities, sides and roles
}
SEEDS = sorted((ROOT / "tests" / "data" / "rosters").glob("*.json")) + sorted((ROOT / "examples" / "rosters").glob("*.json"))
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""A character that drives a terminal (newlines and tabs are let through)."""

HOSTILE = ("\x1b[2J", "\x1b]0;title\x07", "\r", "\n", "\x00", "\x7f", "\x9b31m", "\u202e", "\u2066", "\u2028", "\ud800", "\udfff",
           "\ufeff", "<script>", "{entry}", "%s", "\\", '"', "😀", "e\u0301", "Lista válida")
WRONG = (None, True, False, 0, -1, 1.5, "", "x", [], {}, [1], {"a": 1}, [[]], "9" * 50)
HUGE_NUMBERS = ("9007199254740991", "9007199254740992", "-9007199254740993", "1" + "0" * 30, "9" * 4300, "9" * 4301,
                "1e308", "1e309", "-1e400", "NaN", "Infinity", "-Infinity", "1.0", "2.5", "-0", "0.0")


# ---------------------------------------------------------------------------- army documents


@functools.lru_cache(maxsize=None)
def armies(rulebook: Path) -> tuple[dict[str, dict], dict]:
    """The army documents and roster schema of a rulebook folder, made once."""
    from rulebook.compiler.commands import roster

    return roster.load_armies(rulebook)


@contextlib.contextmanager
def fast_armies():
    """``roster.load_armies`` of a rulebook FOLDER made once per folder (what the command
    makes of it is the same each time; a build folder is still read each time), and the
    command line's parser made once (``cli.make_parser``: the same parser each time)."""
    from rulebook.compiler.commands import cli, roster

    original, make_parser = roster.load_armies, cli.make_parser
    parser = make_parser()
    cli.make_parser = lambda: parser

    def load(rulebook: Path):
        if (rulebook / "json" / "manifest.json").is_file():
            return original(rulebook)
        return armies(rulebook.resolve())

    roster.load_armies = load
    try:
        yield
    finally:
        roster.load_armies, cli.make_parser = original, make_parser


# ---------------------------------------------------------------------------- cases


def built_roster(rng: random.Random, army: dict) -> dict:
    """A roster of ``army``'s entries, mostly legal."""
    roster: dict = {"format": 1, "rulebook": army["rulebook"], "army": army["id"]}
    if rng.random() < 0.3:
        roster["content_hash"] = army["content_hash"] if rng.random() < 0.7 else "sha256:" + "0" * 64
    for key in ("sides", "roles"):
        if army[key] and rng.random() < 0.95:
            roster[key[:-1]] = rng.choice(army[key])["id"]
    sizes = army["budget"]["sizes"]
    if sizes and (rng.random() < 0.8 or not army["budget"]["agreed"]):
        roster["size"] = rng.choice(sizes)["id"]
    else:
        roster["points"] = rng.choice((0, 1, army["budget"]["agreed_min"], 500, 1500, 100_000))
    if rng.random() < 0.5:
        roster["name"] = rng.choice(("Fuerza", "", "Ejército de prueba"))
    entries = [e for e in army["entries"] if e["side"] in (None, roster.get("side"))] or army["entries"]
    units = []
    for _ in range(rng.choice((0, 1, 2, 3, 5, 8, 20))):
        if not entries:
            break
        e = rng.choice(entries)
        unit: dict = {"entry": e["id"]}
        if army["quality"] and rng.random() < 0.9:
            unit["quality"] = rng.choice(army["quality"]["values"])["id"]
        if e["models"] and rng.random() < 0.9:
            unit["models"] = rng.randint(e["models"]["min"], e["models"]["max"] + 1)
        offered = [army["options"][k]["id"] for k in e["options"]]
        if offered and rng.random() < 0.6:
            unit["options"] = [rng.choice(offered) for _ in range(rng.randint(1, 3))]
        choosing = [s for s in e["composition"] if len(s["alternatives"]) > 1]
        if choosing:
            unit["choices"] = [rng.choice(s["alternatives"]) for s in choosing]
        if rng.random() < 0.2:
            unit["name"] = "Unidad"
        units.append(unit)
    roster["units"] = units
    return roster


def _seed_roster(path: Path) -> tuple[dict, str]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    roster = doc["roster"] if "roster" in doc and "format" not in doc else doc
    return roster, path.name


def _places(value, path=()) -> list[tuple]:
    """Every place in a JSON value (paths of keys and indexes), the value itself first."""
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _places(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _places(v, path + (i,))
    return out


def _get(value, path):
    for p in path:
        value = value[p]
    return value


def _put(root, path, new):
    if not path:
        return new
    _get(root, path[:-1])[path[-1]] = new
    return root


def _wrong(rng: random.Random):
    """A value of a random type (a fresh copy: later mutations may change it)."""
    return copy.deepcopy(rng.choice(WRONG))


def _hostile_text(rng: random.Random) -> str:
    return "".join(rng.choice(HOSTILE) if rng.random() < 0.5 else rng.choice(("a", "riflemen", " ", "ñ")) for _ in range(rng.randint(1, 6)))


def mutate_value(rng: random.Random, roster) -> tuple[object, str]:
    """One mutation of the roster as a value."""
    places = _places(roster)
    place = rng.choice(places)
    kind = rng.choice(("wrong", "wrong", "text", "text", "key", "drop", "add", "huge-text", "repeat", "units", "swap"))
    target = _get(roster, place)
    if kind == "wrong":
        return _put(roster, place, _wrong(rng)), f"wrong type at {place}"
    if kind == "text":
        if isinstance(target, str) or rng.random() < 0.3:
            return _put(roster, place, (target if isinstance(target, str) else "") + _hostile_text(rng)), f"hostile text at {place}"
        kind = "key"
    if kind == "key" and isinstance(target, dict) and target:
        k = rng.choice(list(target))
        target[k + _hostile_text(rng)] = target.pop(k)
        return roster, f"hostile key at {place}"
    if kind == "drop" and isinstance(target, dict) and target:
        target.pop(rng.choice(list(target)))
        return roster, f"key dropped at {place}"
    if kind == "add" and isinstance(target, dict):
        target[rng.choice(("color", "units", "extra", "$schema", "format"))] = _wrong(rng)
        return roster, f"key added at {place}"
    if kind == "huge-text":
        return _put(roster, place, rng.choice("aé\x1b") * rng.choice((10_000, 300_000, 990_000))), f"huge text at {place}"
    if kind == "repeat" and isinstance(roster, dict) and isinstance(roster.get("units"), list) and roster["units"]:
        unit = rng.choice(roster["units"])
        if isinstance(unit, dict):
            option = (unit.get("options") or ["x"])[0]
            unit["options"] = [option] * rng.choice((100, 2_000, 10_000))  # 40,000: tests/test_hardening_commands.py
            return roster, "an option repeated"
    if kind == "units" and isinstance(roster, dict) and isinstance(roster.get("units"), list) and roster["units"]:
        first = json.dumps(roster["units"][0])  # copies: a later mutation changes one unit, not all
        roster["units"] = [json.loads(first) for _ in range(rng.choice((200, 1000, 1001)))]
        return roster, "many units"
    if kind == "swap" and isinstance(roster, dict):
        other = rng.choice(list(RULEBOOKS))
        roster["rulebook"] = other if rng.random() < 0.7 else other.upper()
        return roster, f"rulebook {roster['rulebook']}"
    return _put(roster, place, _wrong(rng)), f"wrong type at {place}"


def mutate_text(rng: random.Random, text: str) -> tuple[bytes, str]:
    """One mutation of the roster as text (bytes)."""
    kind = rng.choice(("truncate", "number", "number", "deep", "raw-control", "byte", "bom", "garbage", "surrogate"))
    if kind == "truncate":
        return text[: rng.randint(0, len(text))].encode(), "truncated"
    if kind == "number":
        numbers = list(re.finditer(r"(?<![\w\"])-?\d+(\.\d+)?", text))
        number = rng.choice(HUGE_NUMBERS)
        if numbers:
            m = rng.choice(numbers)
            return (text[: m.start()] + number + text[m.end():]).encode(), f"number {number[:12]}"
        return text.replace('"units"', f'"points": {number}, "units"', 1).encode(), f"points {number[:12]}"
    if kind == "deep":
        n = rng.choice((60, 500, 5_000, 100_000))
        return text.replace('"units"', f'"name": {"[" * n}{"]" * n}, "units"', 1).encode(), f"nested {n}"
    if kind == "raw-control":
        i = text.find('"', rng.randint(0, max(0, len(text) - 1)))
        return (text[: i + 1] + rng.choice("\x00\x1b\n\x7f\x9b") + text[i + 1:] if i >= 0 else text).encode(), "raw control character in a string"
    if kind == "byte":
        data = bytearray(text.encode())
        if data:
            data[rng.randrange(len(data))] = rng.choice((0xFF, 0xC3, 0x80, 0xED))
        return bytes(data), "a byte that is not UTF-8"
    if kind == "bom":
        return b"\xef\xbb\xbf" + text.encode(), "byte order mark"
    if kind == "garbage":
        return (text + rng.choice(("}", " x", "\x00", "{}"))).encode(), "trailing garbage"
    escapes = ("\\ud800", "\\udfff", "\\udc00\\ud800", "\\u0000", "\\u001b[2J", "\\u009b")
    return text.replace('"', '"' + rng.choice(escapes), rng.randint(1, 8)).encode(), "JSON escapes of surrogates and controls"


def make_case(rng: random.Random) -> tuple[bytes, str, str]:
    """(the bytes of a roster file, the rulebook it goes with, how it was made)."""
    if rng.random() < 0.7:
        name = rng.choice(list(RULEBOOKS))
        docs, _ = armies(RULEBOOKS[name])
        army = docs[rng.choice(sorted(docs))]
        roster, how = built_roster(rng, army), f"built for {name}"
    else:
        roster, how = _seed_roster(rng.choice(SEEDS))
        name = roster.get("rulebook") if roster.get("rulebook") in RULEBOOKS else "skirmish"
    hows = [how]
    for _ in range(rng.randint(0 if rng.random() < 0.1 else 1, 3)):
        if rng.random() < 0.7:
            roster, h = mutate_value(rng, roster)
            hows.append(h)
    text = json.dumps(roster, ensure_ascii=rng.random() < 0.5, indent=rng.choice((None, 2)))
    data = text.encode("utf-8", "surrogatepass") if not rng.random() < 0.5 else text.encode("utf-8", "replace")
    if rng.random() < 0.4:
        data, h = mutate_text(rng, text.encode("utf-8", "replace").decode("utf-8"))
        hows.append(h)
    return data, name, "; ".join(hows)


# ---------------------------------------------------------------------------- running a case


def _run(argv: list[str]) -> tuple[int, str, str]:
    from rulebook.compiler.commands.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def failure(data: bytes, rulebook: str, folder: Path, build: Path | None = None, rng: random.Random | None = None) -> str | None:
    """The class of the first misbehaviour of ``roster validate``/``print`` on the case
    (see the module docstring), None when every command behaved. ``build``: a build folder
    of that rulebook, given as ``--rulebook`` instead of its sources in some runs."""
    rng = rng or random.Random(len(data))
    path = folder / "roster.json"
    path.write_bytes(data)
    given = [] if rng.random() < 0.3 else ["--rulebook", str(build if build is not None and rng.random() < 0.5 else RULEBOOKS[rulebook])]
    commands = (["validate"], ["validate", "--format", "json"], ["print", "--format", rng.choice(("html", "markdown"))])
    with fast_armies():
        for command in commands:
            try:
                code, out, err = _run(["roster", *command, str(path), *given])
            except BaseException as exc:  # noqa: BLE001 - main must not let anything out
                return f"{' '.join(command)}: raised {type(exc).__name__}"
            what = " ".join(command[:1] + command[2:3])
            if "Traceback" in out + err or "internal error" in out + err:
                return f"{what}: " + (re.search(r"internal error: \w+", err) or re.search(r"\w+Error", out + err) or ["traceback"])[0]
            if code not in (0, 1, 2):
                return f"{what}: exit {code}"
            if RAW.search(out + err):
                return f"{what}: raw control character {RAW.search(out + err).group()!r}"
            if code == 2 and (out or "error" not in err):
                return f"{what}: exit 2 " + ("with output" if out else "without a message")
            if command[-1] == "json" and code in (0, 1):
                try:
                    json.loads(out)
                except ValueError:
                    return f"{what}: output not JSON"
            if command[0] == "print" and code == 0 and not out:
                return f"{what}: no sheet"
    return None
