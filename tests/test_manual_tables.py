"""Acceptance test for issue 3: every table of the 1936 manual equals the compiled JSON.

The manual (``000_dd9435684a3ed7c7.txt``) is read as it is: each table listed in the
seeds README inventory is parsed from its Markdown at the given line, and every row and
every cell is compared with the JSON document that the build emits for it. How a manual
table maps onto a JSON document (document id, key columns, column → field, the converter
that turns a printed cell into the compiled value, and the manual's own known
inconsistencies) is data: ``tests/data/manual_tables.toml``. The test is one parametrized
case per inventory table, plus a check that every inventory table has a mapping and a
count of the rows compared.

The seeds folder defaults to ``tests/data/seeds`` (a verbatim copy of the
manual and its inventory); ``RULEBOOK_SEEDS`` overrides it.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any, Callable

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content" / "1936"
MAPPING_PATH = Path(__file__).resolve().parent / "data" / "manual_tables.toml"
# A verbatim copy of the source rulebook and its table inventory lives in
# tests/data/seeds/ so CI needs nothing outside the repository.
SEEDS = Path(os.environ.get("RULEBOOK_SEEDS", Path(__file__).resolve().parent / "data" / "seeds"))
MANUAL_PATH = SEEDS / "000_dd9435684a3ed7c7.txt"
INVENTORY_PATH = SEEDS / "README.md"

MAPPING = tomllib.loads(MAPPING_PATH.read_text(encoding="utf-8"))
ENTRIES: list[dict] = MAPPING["table"]

NULL_CELLS = {"", "—"}
_MISSING = object()


# ---------------------------------------------------------------------------
# The manual: Markdown tables and the inventory
# ---------------------------------------------------------------------------

_SEPARATOR = re.compile(r"^\|(\s*:?-{3,}:?\s*\|)+$")
_INVENTORY_LINE = re.compile(r"^- line (\d+): (.*) — (\d+) columns, (\d+) rows$", re.M)


@dataclass
class ManualTable:
    """A Markdown table of the manual: its header cells and its rows (cell texts)."""

    line: int
    header: list[str]
    rows: list[list[str]]


def _split_row(text: str) -> list[str]:
    stripped = text.strip()
    assert stripped.startswith("|") and stripped.endswith("|"), f"not a table row: {text!r}"
    return [cell.strip() for cell in stripped[1:-1].split("|")]


def parse_table(lines: list[str], line: int) -> ManualTable:
    """The Markdown table whose header is at 1-based ``line``.

    A row normally fits on one line; a row whose last cell spans several lines (the
    scenery table of Section I) runs until it has as many ``|`` as a complete row. The
    table ends at the first line that is not a row, at a complete row with another
    number of columns, or at the header of a table that follows without a blank line.
    """
    i = line - 1
    header = _split_row(lines[i])
    width = len(header) + 1  # pipes in a complete row
    assert _SEPARATOR.match(lines[i + 1].strip()), f"line {line + 1}: expected a separator row"
    rows: list[list[str]] = []
    j = i + 2
    while j < len(lines) and lines[j].startswith("|"):
        if j + 1 < len(lines) and _SEPARATOR.match(lines[j + 1].strip()):
            break  # the header of the next table
        text = lines[j]
        if text.rstrip().endswith("|") and text.count("|") != width:
            break
        while text.count("|") < width:
            j += 1
            text += "\n" + lines[j]
        assert text.count("|") == width, f"line {j + 1}: row with the wrong number of cells"
        rows.append(_split_row(text))
        j += 1
    return ManualTable(line, header, rows)


@pytest.fixture(scope="module")
def manual_lines() -> list[str]:
    if not MANUAL_PATH.exists():
        pytest.fail(f"manual not found at {MANUAL_PATH} (set RULEBOOK_SEEDS to the seeds folder)")
    return MANUAL_PATH.read_text(encoding="utf-8").split("\n")


@pytest.fixture(scope="module")
def inventory() -> dict[int, tuple[str, int, int]]:
    """line → (title, columns, rows), from the seeds README."""
    found = _INVENTORY_LINE.findall(INVENTORY_PATH.read_text(encoding="utf-8"))
    return {int(ln): (title, int(cols), int(rows)) for ln, title, cols, rows in found}


# ---------------------------------------------------------------------------
# The build
# ---------------------------------------------------------------------------


class Built:
    """The compiled rulebook: JSON documents by id, enums, rule texts, the Python package."""

    def __init__(self, out: Path):
        self.out = out
        self.json_dir = out / "json"
        self._docs: dict[str, dict] = {}
        self._package = None
        enums = self.doc("enums")["enums"]
        self.enum_ids = {name: [v["id"] for v in e["values"]] for name, e in enums.items()}
        self.enum_titles = {name: {v["id"]: v["title"] for v in e["values"]} for name, e in enums.items()}

    def doc(self, doc_id: str) -> dict:
        if doc_id not in self._docs:
            path = self.json_dir / f"{doc_id}.json"
            assert path.exists(), f"no JSON document {doc_id!r} in the build"
            self._docs[doc_id] = json.loads(path.read_text(encoding="utf-8"))
        return self._docs[doc_id]

    def enum_id(self, enum: str, title: str) -> str | None:
        """The id of the value of ``enum`` whose title is ``title`` (None when none is)."""
        matches = [i for i, t in self.enum_titles[enum].items() if norm_text(t) == norm_text(title)]
        if not matches:  # a variant spelling of the title (the manual prints «Cañon» and «Cañón»)
            from rulebook.compiler.check.contract import fold

            matches = [i for i, t in self.enum_titles[enum].items() if fold(t) == fold(title)]
        return matches[0] if len(matches) == 1 else None

    @property
    def package(self):
        if self._package is None:
            from rulebook.compiler.pipeline import pyload

            self._package = pyload.load_package(self.out / "python")
        return self._package


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Built:
    from rulebook.compiler.pipeline import driver

    out = tmp_path_factory.mktemp("manual_tables") / "build"
    result = driver.build(CONTENT, out, site=False)
    assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
    return Built(out)


# ---------------------------------------------------------------------------
# Cell converters: printed cell → the value the JSON must hold
# ---------------------------------------------------------------------------


def norm_text(text: str) -> str:
    """Whitespace collapsed and Markdown bold removed: the only normalization of prose."""
    return re.sub(r"\s+", " ", text.replace("**", "")).strip()


def _int(text: str) -> int:
    text = norm_text(text).replace("−", "-")
    if not re.fullmatch(r"[+-]?\d+", text):
        raise ValueError(f"not an integer: {text!r}")
    return int(text)


def strip_nulls(value: Any) -> Any:
    """Drop null members of objects (absent optional record fields), recursively."""
    if isinstance(value, dict):
        return {k: strip_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [strip_nulls(v) for v in value]
    return value


def _rule_app(rule: str, args: dict | None = None) -> dict:
    return {"rule": rule, "args": dict(args or {})}


@dataclass
class Ctx:
    built: Built
    entry: dict


Converter = Callable[[str, Ctx, str], Any]
CONVERTERS: dict[str, Converter] = {}


def converter(name: str):
    def register(fn: Converter) -> Converter:
        CONVERTERS[name] = fn
        return fn

    return register


@converter("auto")
def conv_auto(cell: str, ctx: Ctx, arg: str) -> Any:
    """Empty or «—» → null; integers (also «+1», «−1»); true/false; JSON; otherwise text."""
    text = norm_text(cell)
    if text in NULL_CELLS:
        return None
    if re.fullmatch(r"[+\-−]?\d+", text):
        return _int(text)
    if text in ("true", "false"):
        return text == "true"
    if text[:1] in "{[":
        return strip_nulls(json.loads(text))
    return text


@converter("text")
def conv_text(cell: str, ctx: Ctx, arg: str) -> Any:
    text = norm_text(cell)
    return None if text in NULL_CELLS else text


@converter("int_unit")
def conv_int_unit(cell: str, ctx: Ctx, arg: str) -> Any:
    """«5 cm», «−1 M», «+1» → int; «—», empty or one of the entry's ``null_texts`` → null."""
    text = norm_text(cell)
    if text in NULL_CELLS or text in ctx.entry.get("null_texts", []):
        return None
    return _int(re.sub(r"\s*(cm|M)$", "", text))


@converter("enum")
def conv_enum(cell: str, ctx: Ctx, arg: str) -> Any:
    """A value printed by its title («Verde», «Fuego Preciso») → the enum id."""
    text = norm_text(cell)
    if text in NULL_CELLS:
        return None
    found = ctx.built.enum_id(arg, text)
    return found if found is not None else f"<no {arg} titled {text!r}>"


def enum_value_named(ctx: Ctx, enum: str, printed: str) -> str:
    """The value of ``enum`` that a code printed in the manual («Green», «Vehículo», «HE»)
    names under the naming rule of enum values (lower_snake_case ASCII, LANGUAGE.md)."""
    from rulebook.compiler.check.signatures import member_name

    name = member_name(norm_text(printed))
    return name if name in ctx.built.enum_ids[enum] else f"<no {enum} value named {printed!r}>"


@converter("enum_name")
def conv_enum_name(cell: str, ctx: Ctx, arg: str) -> Any:
    """A value printed as the manual's code («Green», «Ninguna», «Ind») → the enum id."""
    text = norm_text(cell)
    return None if text in NULL_CELLS else enum_value_named(ctx, arg, text)


@converter("armas")
def conv_armas(cell: str, ctx: Ctx, arg: str) -> Any:
    """«Fusiles (TipoArma:Normal PerfilDisparo:fusiles_seccion) / …» → list of ArmaUnidad
    (TipoArma printed by its title → the enum id)."""
    text = norm_text(cell)
    if not text:
        return []
    out = []
    for part in text.split(" / "):
        m = re.fullmatch(r"(.*) \(TipoArma:(.*) PerfilDisparo:(\S+)\)", part)
        assert m, f"unreadable weapon {part!r}"
        tipo = ctx.built.enum_id("TipoArma", m[2]) or f"<no TipoArma titled {m[2]!r}>"
        out.append({"nombre": m[1], "tipo_arma": tipo, "perfil": m[3]})
    return out


@converter("reglas")
def conv_reglas(cell: str, ctx: Ctx, arg: str) -> Any:
    """«rule_id:lmg parametros:{"X":1} / rule_id:casco» → rule applications."""
    text = norm_text(cell)
    if not text:
        return []
    out = []
    for part in text.split(" / "):
        m = re.fullmatch(r"rule_id:(\w+)(?: parametros:(\{.*\}))?", part)
        assert m, f"unreadable rule application {part!r}"
        out.append(_rule_app(m[1], json.loads(m[2]) if m[2] else {}))
    return out


@converter("rule_list")
def conv_rule_list(cell: str, ctx: Ctx, arg: str) -> Any:
    """«tren_ligero/tren_mediano/tren_pesado» → rule applications without arguments."""
    text = norm_text(cell)
    return None if text in NULL_CELLS else [_rule_app(r.strip()) for r in text.split("/")]


@converter("kv_list")
def conv_kv_list(cell: str, ctx: Ctx, arg: str) -> Any:
    """«tokens_min:1 tokens_max:2 nombre:Cobertura 1 / tokens_min:3 …» → list of objects."""
    text = norm_text(cell)
    if text in NULL_CELLS:
        return None
    out = []
    for part in text.split(" / "):
        pieces = re.split(r"(?:^|\s+)(\w+):", part)
        assert pieces[0] == "", f"unreadable key:value list {part!r}"
        record = {}
        for key, value in zip(pieces[1::2], pieces[2::2]):
            value = value.strip()
            record[key] = int(value) if re.fullmatch(r"-?\d+", value) else value
        out.append(record)
    return out


@converter("tiro_tenso")
def conv_tiro_tenso(cell: str, ctx: Ctx, arg: str) -> Any:
    """«[municion:HE ]i_preciso:7, 5, 4 i_area:9, 8, 6 d:[…] / …» → list of FuegoDirecto."""
    text = norm_text(cell)
    if not text:
        return []
    bands = ctx.built.enum_ids["Banda"]
    out = []
    for part in text.split(" / "):
        m = re.fullmatch(r"(?:municion:(\w+) )?i_preciso:(.*?) ?i_area:(.*?) ?d:(\[.*\])", part)
        assert m, f"unreadable direct-fire profile {part!r}"

        def by_band(values: list) -> dict:
            assert len(values) == len(bands), f"{len(values)} values for {len(bands)} bands in {part!r}"
            return dict(zip(bands, values))

        def ints(csv: str) -> list:
            return [int(v) if v.strip() else None for v in csv.split(",")]

        out.append(
            {
                "municion": enum_value_named(ctx, "Municion", m[1]) if m[1] else None,
                "i_preciso": by_band(ints(m[2])),
                "i_area": by_band(ints(m[3])),
                "d": by_band(json.loads(m[4])),
            }
        )
    return out


@converter("tiro_indirecto")
def conv_tiro_indirecto(cell: str, ctx: Ctx, arg: str) -> Any:
    """The JSON profile; bands are printed by title («Corta») and compiled as Banda ids,
    the angle, the ammunition and the zones by their code («Alto», «HE», «Z0»)."""
    value = json.loads(norm_text(cell))
    for key, enum in (("angulo", "AnguloTiro"), ("municion", "Municion")):
        if isinstance(value.get(key), str):
            value[key] = enum_value_named(ctx, enum, value[key])
    for v in value["valores"]:
        if isinstance(v.get("zona"), str):
            v["zona"] = enum_value_named(ctx, "ZonaTiroIndirecto", v["zona"])
        if "banda" in v:
            v["banda"] = ctx.built.enum_id("Banda", v["banda"]) or v["banda"]
    return strip_nulls(value)


# Fields of ReglaEfectos whose DSL type is ReglaCantidad: the manual prints either a fixed
# integer or {"parametro", "factor"}; the DSL record holds the integer as {"valor": n}.
_REGLA_CANTIDAD = {"asalto_d_base", "capacidad_municion", "tokens_por_ejecucion", "modificador_chequeo_moral_objetivo"}
# Fields of ReglaEfectos whose DSL type is `rule`: the manual prints a rule id or
# {"rule_id", "parametros"}; the DSL holds a rule application {"rule", "args"}.
_REGLA_RULE = {"regla_concedida", "rule_id_objetivo_requerido", "rule_id_concedido"}
# Fields of ReglaEfectos whose DSL type is Calidad: the manual prints the code («Elite»).
_REGLA_CALIDAD = {"maximo", "maximo_calidad"}


@converter("regla_efectos")
def conv_regla_efectos(cell: str, ctx: Ctx, arg: str) -> Any:
    text = norm_text(cell)
    if text in NULL_CELLS:
        return None
    value = json.loads(text)
    for key in _REGLA_CANTIDAD & value.keys():
        if isinstance(value[key], int):
            value[key] = {"valor": value[key]}
    for key in _REGLA_RULE & value.keys():
        v = value[key]
        value[key] = _rule_app(v) if isinstance(v, str) else _rule_app(v["rule_id"], v.get("parametros"))
    for key in _REGLA_CALIDAD & value.keys():
        if isinstance(value[key], str):
            value[key] = enum_value_named(ctx, "Calidad", value[key])
    return strip_nulls(value)


@converter("efectos_por_nivel")
def conv_efectos_por_nivel(cell: str, ctx: Ctx, arg: str) -> Any:
    """{"1": {…}, "2": {…}} → [{"nivel": 1, …}, …] (the level key becomes a field)."""
    text = norm_text(cell)
    if text in NULL_CELLS:
        return None
    return [{"nivel": int(level), **effects} for level, effects in json.loads(text).items()]


@converter("sectores")
def conv_sectores(cell: str, ctx: Ctx, arg: str) -> Any:
    """The multi-line scenery cell: «**Sector**» headings, then «Elemento: min-max» lines.

    Elements are printed by name and compiled as ids of the catalog named by ``arg``.
    """
    by_name = {norm_text(e["nombre"]): i for i, e in ctx.built.doc(arg)["entries"].items()}
    sectors: list[dict] = []
    for raw in cell.split("\n"):
        line = raw.strip()
        if not line:
            continue
        heading = re.fullmatch(r"\*\*(.+)\*\*", line)
        if heading:
            sectors.append({"nombre": heading[1].strip(), "elementos": []})
            continue
        m = re.fullmatch(r"(.+?):\s*(\d+)-(\d+)", line)
        assert m and sectors, f"unreadable scenery line {line!r}"
        element = by_name.get(norm_text(m[1]), f"<no element named {m[1]!r}>")
        sectors[-1]["elementos"].append({"elemento": element, "minimo": int(m[2]), "maximo": int(m[3])})
    return sectors


def convert(cell: str, spec: str, ctx: Ctx) -> Any:
    name, _, arg = spec.partition(":")
    assert name in CONVERTERS, f"unknown converter {name!r}"
    return CONVERTERS[name](cell, ctx, arg)


def comparable(value: Any, spec: str) -> Any:
    """The compiled value in the form the converter produces (text normalized, nulls of
    optional record fields dropped for structured converters)."""
    name = spec.partition(":")[0]
    if isinstance(value, str):
        return norm_text(value)
    if name in ("auto", "tiro_indirecto", "regla_efectos", "kv_list", "efectos_por_nivel") and isinstance(value, (dict, list)):
        return strip_nulls(value)
    return value


# ---------------------------------------------------------------------------
# Keys: which JSON row or entry a manual row is
# ---------------------------------------------------------------------------


def parse_range_label(label: str) -> dict:
    """A printed interval («0–10 cm», «más de 20–50 cm», «Más de 20 y menos de 30 cm»,
    «30 cm o más», «<0», «3+», «1–2», «2») → {min, min_inclusive, max, max_inclusive}."""
    text = norm_text(label).lower().replace("−", "-")
    text = re.sub(r"\s*cm\b", "", text)
    n = r"(-?\d+)"
    patterns = [
        (rf"<\s*{n}", lambda a: (None, None, a, False)),
        (rf"{n}\+", lambda a: (a, True, None, None)),
        (rf"{n} o más", lambda a: (a, True, None, None)),
        (rf"más de {n} y hasta {n}", lambda a, b: (a, False, b, True)),
        (rf"más de {n} y menos de {n}", lambda a, b: (a, False, b, False)),
        (rf"más de {n}\s*[–-]\s*{n}", lambda a, b: (a, False, b, True)),
        (rf"{n}\s*[–]\s*{n}", lambda a, b: (a, True, b, True)),
        (rf"{n}", lambda a: (a, True, a, True)),
    ]
    for pattern, make in patterns:
        m = re.fullmatch(pattern, text)
        if m:
            lo, lo_inc, hi, hi_inc = make(*(int(g) for g in m.groups()))
            return {"min": lo, "min_inclusive": lo_inc, "max": hi, "max_inclusive": hi_inc}
    raise AssertionError(f"unreadable interval {label!r}")


def _range_of(key: dict) -> dict:
    """A compiled range key, with the inclusivity of an open bound ignored."""
    return {
        "min": key["min"],
        "min_inclusive": key["min_inclusive"] if key["min"] is not None else None,
        "max": key["max"],
        "max_inclusive": key["max_inclusive"] if key["max"] is not None else None,
    }


def manual_key(row: dict[str, str], spec: dict, ctx: Ctx) -> Any:
    conv = spec.get("conv", "id")
    if conv == "range_cols":
        lo, hi = (_int(row[c]) for c in spec["cols"])
        return {"min": lo, "min_inclusive": True, "max": hi, "max_inclusive": True}
    cell = row[spec["col"]]
    if conv == "id":
        return norm_text(cell)
    if conv == "title":
        return norm_text(cell)
    if conv == "int":
        return _int(cell)
    if conv == "range":
        return parse_range_label(cell)
    return convert(cell, conv, ctx)


def json_key(item: dict, spec: dict, entry_id: str | None) -> Any:
    conv = spec.get("conv", "id")
    if entry_id is not None:  # catalog
        return entry_id
    if conv == "title":
        return norm_text(item["title"] or "")
    value = item["key"][spec["name"]]
    return _range_of(value) if conv in ("range", "range_cols") else value


# ---------------------------------------------------------------------------
# Comparison of one manual table
# ---------------------------------------------------------------------------


@dataclass
class Outcome:
    rows: int = 0
    cells: int = 0
    problems: list[str] = field(default_factory=list)
    exceptions_used: set[int] = field(default_factory=set)


def _target(spec: str) -> tuple[str, str]:
    """«field» or «field:converter» (converter may carry «:arg»)."""
    target, _, conv = spec.partition(":")
    return target, conv or "auto"


def _fmt(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _first_difference(expected: Any, actual: Any, path: str = "") -> str:
    """Where two structures first differ, as «path: manual … != JSON …»."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for k in list(expected) + [k for k in actual if k not in expected]:
            if expected.get(k, _MISSING) != actual.get(k, _MISSING):
                if k not in expected or k not in actual:
                    side = "JSON only" if k not in expected else "manual only"
                    return f"{path}.{k} ({side}): manual {_fmt(expected.get(k))} != JSON {_fmt(actual.get(k))}"
                return _first_difference(expected[k], actual[k], f"{path}.{k}")
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return f"{path}: {len(expected)} items in the manual, {len(actual)} in the JSON"
        for i, (e, a) in enumerate(zip(expected, actual)):
            if e != a:
                return _first_difference(e, a, f"{path}[{i}]")
    return f"{path or 'value'}: manual {_fmt(expected)} != JSON {_fmt(actual)}"


def compare_table(entry: dict, table: ManualTable, built: Built, lines: list[str]) -> Outcome:
    """Compare one manual table with its JSON document; the problems found are listed."""
    if entry.get("kind") == "keyvalue":
        return compare_keyvalue(entry, table, built, lines)
    out = Outcome()
    ctx = Ctx(built, entry)
    doc = built.doc(entry["doc"])
    header = table.header
    keys: list[dict] = entry.get("keys", [{"col": "id"}])
    columns = entry.get("columns", {})
    if isinstance(columns, str):
        columns = MAPPING["columns"][columns]
    key_cols = {c for k in keys for c in (k.get("cols") or [k["col"]])}
    unmapped = [h for h in header if h not in columns and h not in key_cols]
    assert not unmapped, f"manual columns without a mapping: {unmapped}"
    assert not set(columns) - set(header), f"mapped columns not in the manual: {sorted(set(columns) - set(header))}"

    catalog = doc["kind"] == "catalog"
    if catalog:
        items = list(doc["entries"].items())
    else:
        items = [(None, row) for row in doc["rows"]]
    index: dict[str, int] = {}
    for pos, (entry_id, item) in enumerate(items):
        k = _fmt([json_key(item, spec, entry_id) for spec in keys])
        assert k not in index, f"{entry['doc']}: two rows with the key {k}"
        index[k] = pos

    exceptions = entry.get("exceptions", [])
    matched: list[int] = []
    for cells in table.rows:
        row = dict(zip(header, cells))
        out.rows += 1
        label = norm_text(row[keys[0]["cols"][0] if "cols" in keys[0] else keys[0]["col"]])
        k = _fmt([manual_key(row, spec, ctx) for spec in keys])
        if k not in index:
            out.problems.append(f"row {label!r}: no row with key {k} in {entry['doc']}")
            continue
        pos = index[k]
        matched.append(pos)
        entry_id, item = items[pos]
        for col, spec in columns.items():
            target, conv = _target(spec)
            expected = convert(row[col], conv, ctx)
            if target == "@title":
                actual = item.get("title")
            elif target == "@rule_text":
                rule = built.doc("rules")["rules"].get(entry_id)
                if rule is None:
                    out.problems.append(f"row {label!r}: no rule {entry_id!r} in rules.json")
                    continue
                actual = " ".join(rule["text"])
            else:
                fields = item if catalog else item["values"]
                actual = fields.get(target, _MISSING)
                if actual is _MISSING:
                    out.problems.append(f"row {label!r}, column {col!r}: {entry['doc']} has no field {target!r}")
                    continue
            actual = comparable(actual, conv)
            out.cells += 1
            exc = [i for i, e in enumerate(exceptions) if e["row"] == label and e["column"] == col]
            if exc:
                e = exceptions[exc[0]]
                out.exceptions_used.add(exc[0])
                if norm_text(row[col]) != e["manual"] or actual != comparable(e["json"], conv):
                    out.problems.append(
                        f"row {label!r}, column {col!r}: declared exception no longer holds "
                        f"(manual {norm_text(row[col])!r}, JSON {_fmt(actual)}; declared manual {e['manual']!r}, JSON {_fmt(e['json'])})"
                    )
                continue
            if expected != actual:
                out.problems.append(
                    f"row {label!r}, column {col!r} → {entry['doc']}.{target}: {_first_difference(expected, actual)}"
                )

    if any(_target(spec)[0] == "@rule_text" for spec in columns.values()):
        rules = set(built.doc("rules")["rules"])
        if rules != set(doc["entries"]):
            out.problems.append(f"rules.json and {entry['doc']} differ: {sorted(rules ^ set(doc['entries']))}")
    extra = sorted(set(range(len(items))) - set(matched))
    if extra:
        names = [items[p][0] or _fmt(items[p][1]["key"]) for p in extra]
        out.problems.append(f"{entry['doc']} has rows the manual table does not: {names}")
    if len(set(matched)) != len(matched):
        out.problems.append(f"several manual rows match the same row of {entry['doc']}")
    if matched != sorted(matched):
        out.problems.append(f"{entry['doc']} lists the rows in another order than the manual")
    unused = [e for i, e in enumerate(exceptions) if i not in out.exceptions_used]
    if unused:
        out.problems.append(f"declared exceptions that match no cell: {unused}")
    return out


# --- The key/value table «Moral por tamaño» (XI.3, repeated in XVI.5) ------------------


def _eval_formula(expr: Any, env: dict[str, int]) -> int:
    """The manual's JSON formula ({"operacion": "restar" | "multiplicar", …})."""
    if isinstance(expr, str):
        return env[expr]
    if isinstance(expr, int):
        return expr
    op = expr["operacion"]
    if op == "restar":
        return _eval_formula(expr["minuendo"], env) - _eval_formula(expr["sustraendo"], env)
    if op == "multiplicar":
        result = 1
        for factor in expr["factores"]:
            result *= _eval_formula(factor, env)
        return result
    raise AssertionError(f"unknown operation {op!r}")


def compare_keyvalue(entry: dict, table: ManualTable, built: Built, lines: list[str]) -> Outcome:
    """Rows «Key | Value»: each key is checked by the handler the mapping names for it.

    ``doc_id``: the value is the JSON document id. ``kv_rows``: a «k:v k:v / …» list
    compared with the rows of the document (``id`` the key, ``nombre`` the key's enum
    title, other keys the columns). ``formula``: the JSON formula gives the same Margen
    Base as the generated procedure for every row and a range of inputs. ``variation``:
    the generated Moral check has the distribution obtained from the manual's own Tabla de
    Moral and Moral por Calidad with that many variation dice.
    """
    from rulebook import runtime

    out = Outcome()
    ctx = Ctx(built, entry)
    doc = built.doc(entry["doc"])
    handlers: dict[str, str] = entry["rows"]
    seen = []
    key_name = doc["keys"][0]["name"]
    enum = doc["keys"][0]["type"]
    for key, value in table.rows:
        out.rows += 1
        seen.append(key)
        handler = handlers.get(key)
        if handler is None:
            out.problems.append(f"key {key!r}: no handler in the mapping")
            continue
        out.cells += 1
        if handler == "doc_id":
            if norm_text(value) != doc["id"]:
                out.problems.append(f"id: manual {value!r} != document id {doc['id']!r}")
        elif handler == "kv_rows":
            expected = conv_kv_list(value, ctx, "")
            actual = [
                {"id": r["key"][key_name], "nombre": built.enum_titles[enum][r["key"][key_name]], **r["values"]}
                for r in doc["rows"]
            ]
            if expected != actual:
                out.problems.append(f"{key}: {_first_difference(expected, actual)}")
        elif handler == "formula":
            formula = json.loads(value)
            proc = built.package.PROCEDURES[entry["formula_procedure"]]
            for r, bajas, moral in product(doc["rows"], range(13), range(2, 6)):
                tipo = r["key"][key_name]
                env = {"bajas": bajas, "moral": moral, **r["values"]}
                want = _eval_formula(formula, env)
                kwargs = proc.convert({"bajas": bajas, "tipo": tipo, "moral": moral})
                got, _ = runtime.sample(proc.function, seed=0, trace=False, **kwargs)
                if got != want:
                    out.problems.append(f"{key}: {tipo}, bajas {bajas}, moral {moral}: manual {want} != procedure {got}")
                    break
        elif handler == "variation":
            out.problems.extend(_check_variation(entry, json.loads(value), table, built, lines))
        else:
            raise AssertionError(f"unknown key/value handler {handler!r}")
    if seen != list(handlers):
        out.problems.append(f"keys {seen} != mapped keys {list(handlers)}")
    return out


def _check_variation(entry: dict, variacion: dict, table: ManualTable, built: Built, lines: list[str]) -> list[str]:
    from rulebook import runtime

    v = entry["variation"]
    assert variacion.get("tipo") == "variacion", variacion
    dice = variacion["dados"]
    faces = v["faces"]
    moral_table = parse_table(lines, v["moral_por_calidad_line"])
    moral = {built.enum_id("Calidad", q): _int(m) for q, m in moral_table.rows}
    outcome_table = parse_table(lines, v["tabla_moral_line"])
    hdr = outcome_table.header
    bands = []
    for cells in outcome_table.rows:
        r = dict(zip(hdr, cells))
        lo = _int(r["min_margen"]) if r["min_margen"] else None
        hi = _int(r["max_margen"]) if r["max_margen"] else None
        bands.append((lo, hi, _int(r["supresion"])))

    def supresion(margen: int) -> int:
        (s,) = [s for lo, hi, s in bands if (lo is None or margen >= lo) and (hi is None or margen <= hi)]
        return s

    multiplicador = {r["key"]["tipo"]: r["values"]["multiplicador_bajas"] for r in built.doc(entry["doc"])["rows"]}
    formula_row = dict(table.rows)["formula_margen_base"]
    formula = json.loads(formula_row)
    proc = built.package.PROCEDURES[entry["variation_procedure"]]
    problems = []
    for tipo, calidad, bajas in product(multiplicador, moral, range(6)):
        base = _eval_formula(formula, {"bajas": bajas, "multiplicador_bajas": multiplicador[tipo], "moral": moral[calidad]})
        want: dict[int, Fraction] = {}
        for roll in product(faces, repeat=dice):
            s = supresion(base + sum(roll))
            want[s] = want.get(s, Fraction(0)) + Fraction(1, len(faces) ** dice)
        kwargs = proc.convert({"bajas": bajas, "tipo": tipo, "calidad": calidad})
        got = dict(runtime.exact(proc.function, **kwargs).items())
        if got != want:
            problems.append(f"variacion: {tipo}, {calidad}, bajas {bajas}: manual {want} != procedure {got}")
            break
    return problems


# ---------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def outcomes(manual_lines, built) -> dict[int, Outcome]:
    """Every mapped table compared once (the count test reuses the results)."""
    results = {}
    for entry in ENTRIES:
        try:
            table = parse_table(manual_lines, entry["line"])
            results[entry["line"]] = compare_table(entry, table, built, manual_lines)
        except Exception as exc:  # reported by this table's own test case
            results[entry["line"]] = Outcome(problems=[f"{type(exc).__name__}: {exc}"])
    return results


def check_summary_header(entry: dict, summary: ManualTable, original: ManualTable) -> None:
    """A summary table rendered with `show` prints the original's header: each column
    must be named as in the original table, unless a header exception declares it."""
    declared = {e["column"]: e for e in entry.get("header_exceptions", [])}
    assert len(summary.header) == len(original.header), "the summary and the original table have different widths"
    assert len(summary.rows) == len(original.rows), "the summary and the original table have different numbers of rows"
    differing = {s: o for s, o in zip(summary.header, original.header) if s != o}
    for column, original_name in differing.items():
        assert column in declared, f"summary column {column!r} is {original_name!r} in the original (line {original.line})"
        assert declared[column]["original"] == original_name, f"header exception for {column!r} no longer holds"
    stale = set(declared) - set(differing)
    assert not stale, f"header exceptions that no longer differ: {sorted(stale)}"


def test_every_inventory_table_is_mapped(inventory):
    lines = [e["line"] for e in ENTRIES]
    assert len(lines) == len(set(lines)), "a manual table is mapped twice"
    assert sorted(lines) == sorted(inventory), (
        f"inventory tables without a mapping: {sorted(set(inventory) - set(lines))}; "
        f"mappings of no inventory table: {sorted(set(lines) - set(inventory))}"
    )


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"L{e['line']}-{e['doc']}" for e in ENTRIES])
def test_manual_table_matches_json(entry, manual_lines, inventory, outcomes):
    title, n_cols, n_rows = inventory[entry["line"]]
    table = parse_table(manual_lines, entry["line"])
    assert (len(table.header), len(table.rows)) == (n_cols, n_rows), f"parsed {title!r} differs from the inventory"
    if entry.get("show"):
        shown = re.findall(r"^show (\w+)\s*$", "\n".join(p.read_text(encoding="utf-8") for p in sorted(CONTENT.glob("*.rules"))), re.M)
        assert entry["doc"] in shown, f"the summary table is expected to be rendered with `show {entry['doc']}`"
        check_summary_header(entry, table, parse_table(manual_lines, entry["original"]))
    outcome = outcomes[entry["line"]]
    assert not outcome.problems, f"{title!r} (line {entry['line']}):\n  " + "\n  ".join(outcome.problems)


def test_rows_compared(inventory, outcomes, capsys):
    rows = sum(o.rows for o in outcomes.values())
    cells = sum(o.cells for o in outcomes.values())
    exceptions = sum(len(o.exceptions_used) for o in outcomes.values())
    with capsys.disabled():
        print(f"\nmanual tables: {len(outcomes)} compared, {rows} rows, {cells} values, {exceptions} declared cell exceptions")
    assert rows == sum(n_rows for _, _, n_rows in inventory.values())
    assert cells > rows
