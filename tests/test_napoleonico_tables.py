"""Issue 9: every table of the Napoleonic rules equals the JSON that the build emits.

Reads the seed (``tests/data/seeds/001_c2244587d5b963a0.txt``, a verbatim copy of
``../shared/seeds``; ``RULEBOOK_SEEDS`` overrides the folder) and the mapping
``tests/data/napoleonico_tables.toml``, builds ``content/napoleonico`` once (without
the site) and compares, table by table, the seed's lists and the values its prose
states with the JSON documents. The seed has no Markdown tables: how each of its lists
and stated values maps onto a JSON document is data (see the mapping's header).
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
CONTENT = ROOT / "content" / "napoleonico"
MAPPING_PATH = Path(__file__).resolve().parent / "data" / "napoleonico_tables.toml"
SEEDS = Path(os.environ.get("RULEBOOK_SEEDS", Path(__file__).resolve().parent / "data" / "seeds"))
SEED_PATH = SEEDS / "001_c2244587d5b963a0.txt"

ENTRIES: list[dict] = tomllib.loads(MAPPING_PATH.read_text(encoding="utf-8"))["table"]


def norm(text: str) -> str:
    """Whitespace collapsed: the only normalization of the seed's text."""
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture(scope="module")
def seed_lines() -> list[str]:
    if not SEED_PATH.exists():
        pytest.fail(f"seed not found at {SEED_PATH} (set RULEBOOK_SEEDS to the seeds folder)")
    return SEED_PATH.read_text(encoding="utf-8").split("\n")


@pytest.fixture(scope="module")
def json_dir(tmp_path_factory) -> Path:
    return build_rulebook(tmp_path_factory, CONTENT, "napoleonico_tables", site=False)[1] / "json"


def load(json_dir: Path, doc_id: str) -> dict:
    path = json_dir / f"{doc_id}.json"
    assert path.exists(), f"no JSON document {doc_id!r} in the build"
    return json.loads(path.read_text(encoding="utf-8"))


def _number(value: Any) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def key_label(key: Any) -> str:
    """A row key printed as in the DSL: an id or enum value, ``10..12``, ``..<2.5``, ``17..``."""
    if not isinstance(key, dict):
        return str(key)
    lo = "" if key["min"] is None else ("" if key["min_inclusive"] else ">") + _number(key["min"])
    hi = "" if key["max"] is None else ("" if key["max_inclusive"] else "<") + _number(key["max"])
    return f"{lo}..{hi}"


def rows_of(doc: dict, enum_titles: dict[str, dict[str, str]]) -> list[tuple[str, str | None, dict]]:
    """(label, title, fields) for each row of a table, entry of a catalog or constant."""
    if doc["kind"] == "catalog":
        return [(ident, None, fields) for ident, fields in doc["entries"].items()]
    if doc["kind"] == "constants":
        return [(name, c["title"], c) for name, c in doc["constants"].items()]
    rows = []
    for row in doc["rows"]:
        keys = [row["key"][k["name"]] for k in doc["keys"]]
        label = ", ".join(key_label(k) for k in keys)
        title = row["title"]
        enum = doc["keys"][0]["type"]
        if title is None and enum in enum_titles:
            title = enum_titles[enum].get(keys[0])
        fields = {k["name"]: row["key"][k["name"]] for k in doc["keys"]} | row["values"]
        rows.append((label, title, fields))
    return rows


@pytest.fixture(scope="module")
def enum_titles(json_dir) -> dict[str, dict[str, str]]:
    enums = load(json_dir, "enums")["enums"]
    return {name: {v["id"]: v["title"] for v in e["values"]} for name, e in enums.items()}


def compare(entry: dict, seed_lines: list[str], json_dir: Path, enum_titles) -> list[str]:
    """The problems found comparing one mapped table with its JSON document."""
    problems: list[str] = []
    doc = load(json_dir, entry["doc"])
    rows = rows_of(doc, enum_titles)
    seed = norm("\n".join(seed_lines))
    if "lines" in entry:
        first, last = entry["lines"]
        pattern = re.compile(entry["pattern"])
        items = [m for line in seed_lines[first - 1 : last] if (m := pattern.match(line))]
        if len(items) != len(rows):
            problems.append(f"{len(items)} items in the seed (lines {first}–{last}), {len(rows)} rows in the JSON")
        for n, (item, (label, title, fields)) in enumerate(zip(items, rows), 1):
            for group, text in item.groupdict().items():
                want: Any = int(text) if text.isdigit() else norm(text)
                got = norm(title or "") if group == "title" else fields.get(group)
                if got != want:
                    problems.append(f"item {n} ({label}), {group}: seed {want!r} != JSON {got!r}")
    by_label = {label: fields for label, _title, fields in rows}
    for cell in entry.get("cells", []):
        if norm(cell["quote"]) not in seed:
            problems.append(f"quote not in the seed: {cell['quote']!r}")
        fields = by_label.get(cell["row"])
        if fields is None:
            problems.append(f"no row {cell['row']!r} in {entry['doc']} (rows: {sorted(by_label)})")
            continue
        want = None if cell.get("missing") else cell["value"]
        if fields.get(cell["column"], "<absent>") != want:
            problems.append(f"row {cell['row']!r}, column {cell['column']!r}: seed {want!r} != JSON {fields.get(cell['column'], '<absent>')!r}")
    if "quote_column" in entry:
        for label, _title, fields in rows:
            if norm(fields[entry["quote_column"]]) not in seed:
                problems.append(f"row {label!r}: {entry['quote_column']} {fields[entry['quote_column']]!r} is not in the seed")
    return problems


def test_every_table_of_the_build_is_mapped(json_dir):
    mapped = [e["doc"] for e in ENTRIES]
    assert len(mapped) == len(set(mapped)), "a document is mapped twice"
    built = sorted(
        p.stem for p in json_dir.glob("*.json")
        if json.loads(p.read_text(encoding="utf-8")).get("kind") in ("table", "catalog", "constants")
    )
    assert sorted(mapped) == built, f"unmapped: {sorted(set(built) - set(mapped))}; not built: {sorted(set(mapped) - set(built))}"


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["doc"] for e in ENTRIES])
def test_seed_table_matches_json(entry, seed_lines, json_dir, enum_titles):
    problems = compare(entry, seed_lines, json_dir, enum_titles)
    assert not problems, f"{entry['doc']}:\n  " + "\n  ".join(problems)


def test_charts_missing_from_the_seed_are_not_playable(json_dir):
    """The charts the seed cites without giving them carry the status the site shows
    («No jugable»); every other table is playable."""
    for entry in ENTRIES:
        if entry["doc"] == "constants":
            continue
        status = load(json_dir, entry["doc"])["status"]
        assert status == ("not_playable" if entry.get("chart") else "active"), entry["doc"]
