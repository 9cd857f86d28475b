"""The whole build: outputs, determinism, atomicity, JSON against schemas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import CONTENT, DATA


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_build_produces_every_output(built):
    for sub in ("json/manifest.json", "json/rulebook.json", "schemas/types.schema.json", "mkdocs.yml", "docs/index.md", "site/index.html"):
        assert (built / sub).exists(), sub
    pkg = [p for p in (built / "python").iterdir() if p.is_dir()]
    assert len(pkg) == 1 and (pkg[0] / "procedures.py").exists()


def test_two_builds_are_byte_identical(built, tmp_path):
    from rulebook.compiler.pipeline import driver

    again = tmp_path / "again"
    result = driver.build(CONTENT, again, site=True)
    assert result.ok
    first, second = _tree(built), _tree(again)
    assert sorted(first) == sorted(second)
    different = [k for k in first if first[k] != second[k]]
    assert not different, different[:10]


def test_every_json_document_validates_against_its_schema(built):
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    # a document's $schema is its schema's $id; the manifest maps every $id to its file
    manifest = json.loads((built / "json" / "manifest.json").read_text(encoding="utf-8"))
    schemas = {s["$id"]: s for s in (json.loads((built / rel).read_text(encoding="utf-8")) for rel in manifest["schemas"].values())}
    assert len(schemas) == len(list((built / "schemas").rglob("*.json")))
    registry = Registry().with_resources((s["$id"], Resource(contents=s, specification=DRAFT202012)) for s in schemas.values())
    docs = sorted((built / "json").glob("*.json"))
    assert len(docs) > 50
    for doc_path in docs:
        doc = json.loads(doc_path.read_text(encoding="utf-8"))
        schema = schemas[doc["$schema"]]
        Draft202012Validator.check_schema(schema)
        errors = list(Draft202012Validator(schema, registry=registry).iter_errors(doc))
        assert not errors, (doc_path.name, errors[0].json_path, errors[0].message[:200])


def test_schemas_have_ids_titles_and_descriptions(built):
    for p in (built / "schemas").rglob("*.json"):
        s = json.loads(p.read_text(encoding="utf-8"))
        assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert s["$id"].endswith(p.relative_to(built / "schemas").as_posix())
        assert s.get("title") and s.get("description"), p.name


def test_manifest_lists_every_document_with_hashes(built):
    import hashlib

    manifest = json.loads((built / "json" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["rulebook"] == "manual_1936" and manifest["content_hash"].startswith("sha256:")
    for rel, digest in manifest["documents"].items():
        assert digest == "sha256:" + hashlib.sha256((built / rel).read_bytes()).hexdigest()


def test_failed_build_leaves_previous_output_intact(tmp_path):
    from rulebook.compiler.pipeline import driver

    src = tmp_path / "rb"
    src.mkdir()
    good = (DATA / "python" / "shooting.rules").read_text(encoding="utf-8")
    (src / "a.rules").write_text(good, encoding="utf-8")
    out = tmp_path / "out"
    assert driver.build(src, out, site=False).ok
    before = _tree(out)
    (src / "a.rules").write_text(good.replace("return Resultado(impacto: true", "return Resultado(impacto: 3"), encoding="utf-8")
    result = driver.build(src, out, site=False)
    assert not result.ok
    assert _tree(out) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.")], "no staging folder left behind"


def test_site_shows_section_vi(built):
    html = next(built.glob("site/*iniciativa-y-disparos.html")).read_text(encoding="utf-8")
    for needle in ("Perfiles de armas", "pistola", "Resolución del impacto", "rb-steps", "rb-example", 'class="kd"'):
        assert needle in html, needle


def test_a_warning_of_mkdocs_fails_the_site(tmp_path):
    """``--strict`` counts MkDocs' warnings: a page linking to an anchor no page has (a
    mistake of the page generator; rules text cannot write a raw link) fails the site
    with MkDocs' message, instead of being dropped by a quiet log."""
    from rulebook.compiler.pipeline import driver
    from rulebook.compiler.emit.site import to_pages

    rules = tmp_path / "r.rules"
    rules.write_text('```rules\nrulebook prueba "Prueba" version "1.0" lang "es"\nsection I "Todo"\n```\n\nTexto.\n', encoding="utf-8")
    out = tmp_path / "out"
    assert driver.build(rules, out, site=False).ok
    assert to_pages.run_mkdocs(out) is None
    page = next((out / "docs").glob("01-*.md"))
    page.write_text(page.read_text(encoding="utf-8") + "\n[roto](datos.md#no-existe)\n", encoding="utf-8")
    error = to_pages.run_mkdocs(out)
    assert error is not None and "no-existe" in error
