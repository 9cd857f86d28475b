"""Every table of *Tercios – Brevis Editio* equals the JSON that the build emits.

Reads the seed (``tests/data/seeds/002_18cc0dc0e52b3f0c.txt``, text extracted from the
reglamento's PDF) and ``tests/data/tercios_tables.toml``, which says for each table where
its excerpt lies in the seed and how to read its values; builds ``content/tercios`` once
(without the site) and compares, table by table, the numbers and texts read from the seed
with ``json/<doc>.json``. The seed is never retyped: the mapping holds anchors, keys and
field names, and declared exceptions where the extraction lost characters or the content
keeps one reading of a contradiction. ``RULEBOOK_SEEDS`` overrides the seeds folder.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from conftest import build_rulebook

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content" / "tercios"
MAPPING = tomllib.loads((Path(__file__).parent / "data" / "tercios_tables.toml").read_text(encoding="utf-8"))
SEEDS = Path(os.environ.get("RULEBOOK_SEEDS", Path(__file__).resolve().parent / "data" / "seeds"))
SEED_PATH = SEEDS / "002_18cc0dc0e52b3f0c.txt"
TABLES: list[dict] = MAPPING["table"]
INT = re.compile(r"(?<![\d-])\d+(?![\d-])")
RANGE = re.compile(r"\b(\d+)-(\d+)\b")


def collapse(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def seed() -> str:
    return collapse(SEED_PATH.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def json_dir(tmp_path_factory) -> Path:
    return build_rulebook(tmp_path_factory, CONTENT, "tercios", site=False)[1] / "json"


class Doc:
    """A table or catalog document, with rows addressable by key and values by path."""

    def __init__(self, json_dir: Path, doc_id: str):
        self.data = json.loads((json_dir / f"{doc_id}.json").read_text(encoding="utf-8"))
        enums = json.loads((json_dir / "enums.json").read_text(encoding="utf-8"))["enums"]
        self.titles = {name: {v["id"]: v["title"] for v in e["values"]} for name, e in enums.items()}
        if "entries" in self.data:
            self.types = {}  # catalog formats print text fields only
            self.rows = {key: (None, entry) for key, entry in self.data["entries"].items()}
        else:
            (key_spec,) = self.data["keys"]
            self.key_type = key_spec["type"]
            self.types = {c["name"]: c["type"] for c in self.data["columns"]}
            self.rows = {}
            for row in self.data["rows"]:
                key = row["key"][key_spec["name"]]
                key = key["min"] if isinstance(key, dict) else key
                title = row["title"] or self.titles.get(self.key_type, {}).get(key)
                self.rows[key] = (title, row["values"])

    def value(self, key: Any, path: str) -> Any:
        value = self.rows[key][1]
        for part in path.split("."):
            value = value[int(part)] if isinstance(value, list) else value[part]
        return value

    def render(self, field: str, value: Any) -> str:
        if isinstance(value, list):
            return ", ".join(self.render(field, v) for v in value)
        type_name = re.sub(r"^list\[(.*)\]\??$|\?$", r"\1", self.types.get(field, ""))
        return self.titles.get(type_name, {}).get(value, str(value))

    def format(self, template: str, key: Any) -> str | None:
        """The template filled in for a row; None when a field it names is none."""
        title, values = self.rows[key]
        if any(values.get(name, "") is None for name in re.findall(r"\{(\w+)\}", template)):
            return None
        return re.sub(
            r"\{(\w+)\}",
            lambda m: str(title) if m[1] == "title" else str(key) if m[1] == "key" else self.render(m[1], values[m[1]]),
            template,
        )


def excerpt(seed: str, table: dict) -> str:
    start = seed.index(collapse(table["after"])) if "after" in table else 0
    begin = seed.find(collapse(table["from"]), start)
    assert begin >= 0, f"{table['from']!r} is not in the seed"
    end = seed.find(collapse(table["to"]), begin)
    assert end >= 0, f"{table['to']!r} does not follow {table['from']!r} in the seed"
    return seed[begin : end + len(collapse(table["to"]))]


def compare_series(text: str, doc: Doc, table: dict) -> list[str]:
    problems = []
    for series in table.get("series", []):
        at = text.find(collapse(series["find"]))
        assert at >= 0, f"{series['find']!r} is not in the excerpt"
        rest = text[at + len(collapse(series["find"])) :]
        if series.get("ranges"):
            found = [(int(a), int(b)) for a, b in RANGE.findall(rest)]
        else:
            found = [int(n) for n in INT.findall(rest)][series.get("skip", 0) :]
        targets = series["targets"]
        assert len(found) >= len(targets), f"after {series['find']!r}: {len(found)} values for {len(targets)} targets"
        for (key, path), printed in zip(targets, found):
            if path == "@key":
                actual = key if key in doc.rows else None
            elif path == "@range":
                actual = (doc.value(key, "minimo"), doc.value(key, "maximo"))
            else:
                actual = doc.value(key, path)
            if actual != printed:
                problems.append(f"{key}.{path}: the seed prints {printed!r} after {series['find']!r}, the JSON has {actual!r}")
    return problems


def compare_formats(text: str, doc: Doc, table: dict) -> list[str]:
    problems = []
    exceptions = {(e["key"], e["format"]): e for e in table.get("exceptions", [])}
    for key in doc.rows:
        for template in table.get("formats", []):
            filled = doc.format(template, key)
            if filled is None:
                continue
            printed = collapse(filled)
            exception = exceptions.pop((key, template), None)
            if exception is not None:
                if printed in text:
                    problems.append(f"{key}: the exception for {template!r} is no longer needed ({printed!r} is printed)")
                if collapse(exception["seed"]) not in text:
                    problems.append(f"{key}: the exception's seed text {exception['seed']!r} is not in the excerpt")
            elif printed not in text:
                problems.append(f"{key}: {template!r} gives {printed!r}, which the seed does not print")
    problems += [f"exception for a row or format that does not exist: {k}" for k in exceptions]
    return problems


def compare_components(text: str, doc: Doc, table: dict) -> list[str]:
    problems = []
    expected: dict[str, list] = {}
    for key, printed, troops in table.get("components", []):
        if collapse(printed) not in text:
            problems.append(f"{key}: {printed!r} is not in the excerpt")
        expected.setdefault(key, []).append({"cantidad": int(INT.match(printed)[0]), "tropas": troops})
    for key, components in expected.items():
        if doc.value(key, "composicion") != components:
            problems.append(f"{key}: composition {doc.value(key, 'composicion')} != the printed {components}")
    return problems


def compare_cards(text: str, doc: Doc, table: dict, json_dir: Path) -> list[str]:
    if not table.get("cards"):
        return []
    problems = []
    armas = json.loads((json_dir / "armas.json").read_text(encoding="utf-8"))["entries"]
    values = re.findall(r"VALORES Velocidad (\d+) Combate (\d+) Fuego (\d+) Disciplina (\d+) Coraje (\d+) Aguante (\d+)", text)
    weapons = re.findall(r"Armas: (.*?)(?= DEFENSA| Reglas:| cm\b| \d|$)", text)
    keys = table["rows"]
    assert len(values) == len(keys), f"{len(values)} VALORES lines for {len(keys)} cards"
    assert len(weapons) == len(keys), f"{len(weapons)} Armas lines for {len(keys)} cards: {weapons}"
    fields = ["velocidad", "combate", "fuego", "disciplina", "coraje", "aguante"]
    for key, printed, printed_weapons in zip(keys, values, weapons):
        for field, number in zip(fields, printed):
            if doc.value(key, field) != int(number):
                problems.append(f"{key}.{field}: the card prints {number}, the JSON has {doc.value(key, field)}")
        names = " ".join(armas[a]["nombre"] for a in doc.value(key, "armas")) or "-"
        if names != printed_weapons.strip():
            problems.append(f"{key}.armas: the card prints {printed_weapons.strip()!r}, the JSON gives {names!r}")
    return problems


def compare_summary(text: str, doc: Doc, table: dict, json_dir: Path) -> list[str]:
    if "summary_rows" not in table:
        return []
    problems = []
    rows, columns = table["summary_rows"], table["summary_columns"]
    after = text[text.index(table["summary_find"]) + len(table["summary_find"]) :]
    numbers = [int(n) for n in INT.findall(after)]
    assert len(numbers) == len(rows) * len(columns), f"{len(numbers)} numbers for {len(rows)} × {len(columns)}"
    for c, column in enumerate(columns):
        for r, keys in enumerate(rows):
            for key in keys:
                if doc.value(key, column) != numbers[c * len(rows) + r]:
                    problems.append(f"{key}.{column}: the summary prints {numbers[c * len(rows) + r]}, the JSON has {doc.value(key, column)}")
    rules = json.loads((json_dir / "rules.json").read_text(encoding="utf-8"))["rules"]
    printed_rules = table["summary_rules"]
    tail = collapse(after[after.rindex(str(numbers[-1])) + 1 :])
    if collapse(" ".join(r for r in printed_rules if r)) != tail:
        problems.append(f"the Reglas column split in the mapping does not give the printed {tail!r}")
    for keys, printed in zip(rows, printed_rules):
        names = {table["abbreviations"].get(n, n) for n in printed.split(", ") if n}
        for key in keys:
            actual = {rules[app["rule"]]["title"] for app in doc.value(key, "reglas")}
            if actual != names:
                problems.append(f"{key}.reglas: the summary prints {sorted(names)}, the JSON has {sorted(actual)}")
    return problems


def compare_reduced(doc: Doc, table: dict) -> list[str]:
    spec = table.get("reduced_values")
    if spec is None:
        return []
    problems = []
    exceptions = {e["key"]: e for e in table.get("reduced_exceptions", [])}
    for key in doc.rows:
        text = doc.value(key, spec["text"])
        named = [v for v, title in doc.titles["Valor"].items() if re.search(rf"\b{title}-", text)]
        actual = [v for field in spec["fields"] for v in doc.value(key, field)]
        if key in exceptions:
            if actual != exceptions[key]["json"] or sorted(actual) == sorted(named):
                problems.append(f"{key}: the declared reading {exceptions[key]['json']} no longer holds (JSON {actual}, text {named})")
        elif sorted(actual) != sorted(named):
            problems.append(f"{key}: {spec['fields']} give {actual}, the text {text!r} names {named}")
    return problems


def compare_missing(doc: Doc, table: dict) -> list[str]:
    problems = []
    for field in table.get("missing", []):
        if doc.data["status"] not in ("not_playable", "deferred"):
            problems.append(f"{field} is missing from the seed but {table['doc']} is {doc.data['status']}")
        filled = [key for key in doc.rows if doc.value(key, field) is not None]
        if filled:
            problems.append(f"{field} is missing from the seed but filled in for {filled}")
    return problems


@pytest.mark.parametrize("table", TABLES, ids=[f"p{t['page']}-{t['doc']}" for t in TABLES])
def test_table_matches_seed(table, seed, json_dir):
    text = excerpt(seed, table)
    doc = Doc(json_dir, table["doc"])
    assert list(doc.rows) == table["rows"], f"{table['doc']} has rows {list(doc.rows)}"
    problems = (
        compare_series(text, doc, table)
        + compare_formats(text, doc, table)
        + compare_components(text, doc, table)
        + compare_cards(text, doc, table, json_dir)
        + compare_summary(text, doc, table, json_dir)
        + compare_reduced(doc, table)
        + compare_missing(doc, table)
    )
    assert not problems, f"{table['name']} (page {table['page']}):\n  " + "\n  ".join(problems)


def test_every_table_document_is_compared(json_dir):
    """Each table and catalog the build emits is compared with the seed, or is one of the
    documents the content derives (typed translations of printed tables)."""
    derived = {"clases_tropa", "modificadores_orden", "reglas_por_tipo"}
    emitted = {p.stem for p in json_dir.glob("*.json")} - {"enums", "rules", "constants", "manifest", "odds", "procedures", "rulebook", "glossary", "examples", "logic", "changelog", "randomness"}
    compared = {t["doc"] for t in TABLES}
    assert emitted - derived == compared, f"not compared: {sorted(emitted - derived - compared)}; unknown: {sorted(compared - emitted)}"
