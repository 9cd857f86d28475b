"""The data contract of a build (issue 12): references enforced in the rules and in
the schemas, one shape for rule arguments, a versioned manifest with a content
hash that does not depend on the folder, ``$schema`` = ``$id`` by one rule,
defaults in input schemas, the glossary as JSON, odds in every band,
categories as enums, variant spellings warned, and the ``@changelog`` page."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from conftest import CONTENT, ROOT, loosely


def _json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def _plain_validator(build: Path) -> Draft202012Validator:
    """What a downstream tool does: register the shipped schemas by $id, nothing else."""
    schemas = [_json(p) for p in (build / "schemas").rglob("*.schema.json")]
    registry = Registry().with_resources((s["$id"], Resource(contents=s, specification=DRAFT202012)) for s in schemas)
    return Draft202012Validator({}, registry=registry)


def _errors(validator: Draft202012Validator, doc: dict) -> list:
    return list(validator.evolve(schema={"$ref": doc["$schema"]}).iter_errors(doc))


def _copy_rulebook(tmp_path: Path, source: Path = CONTENT, name: str = "copia") -> Path:
    dest = tmp_path / name
    shutil.copytree(source, dest)
    return dest


def _edit(path: Path, old: str, new: str) -> int:
    """Replace the first ``old`` in a file; returns the (1-based) line where it was."""
    text = path.read_text(encoding="utf-8")
    at = text.index(old)
    path.write_text(text[:at] + new + text[at + len(old):], encoding="utf-8")
    return text.count("\n", 0, at) + 1


# ---------------------------------------------------------------------------- references


def test_a_dangling_reference_in_a_copy_of_the_content_fails_the_build_with_a_positioned_error(tmp_path, capsys):
    from rulebook.compiler.commands import cli

    rb = _copy_rulebook(tmp_path)
    written = '  n_milicia_falange | "Sección Milicia de la Falange" | 70 | inf | 5 | 12 | seccion | 15 | 0 | 0 | 0 | ninguna | [("Fusiles", normal, '
    row = loosely(written).search((rb / "02-costes-listas.rules").read_text(encoding="utf-8")).group()  # as rulebook fmt aligned it
    line = _edit(rb / "02-costes-listas.rules", row + "fusiles_seccion)]", row + "perfil_que_no_existe)]")
    out = tmp_path / "out"
    assert cli.main(["build", str(rb), "-o", str(out), "--no-site"]) == 1
    err = capsys.readouterr().err
    where = f"02-costes-listas.rules:{line}:{len(row) + 1}: error: "
    assert where in err, err[-2000:]
    message = err[err.index(where):]
    assert "'perfil_que_no_existe' is not an entry of catalog perfiles_armas" in message.splitlines()[0]
    caret = message.splitlines()[2]  # the source line, then the caret under the id
    assert caret.split("|")[1].strip() == "^" * len("perfil_que_no_existe")
    assert message.splitlines()[1][caret.index("^"):].startswith("perfil_que_no_existe")
    assert "hint: " in message and "@as_printed" in message
    assert not out.exists()


def test_ids_the_manual_prints_without_an_entry_need_as_printed_with_a_reason(tmp_path, capsys):
    from rulebook.compiler.commands import cli

    rb = _copy_rulebook(tmp_path)
    text = (rb / "04-movimiento.rules").read_text(encoding="utf-8")
    marker = next(line for line in text.splitlines() if line.startswith("@as_printed("))
    _edit(rb / "04-movimiento.rules", marker + "\n", "")
    assert cli.main(["check", str(rb)]) == 1
    err = "".join(capsys.readouterr())
    for ident in ("n_infanteria_nacional_1937", "n_infanteria_nacional_1937_bien_equipada", "r_infanteria_erp_1937", "r_infanteria_erp_1937_bien_equipada"):
        assert f"error: distancias_movimiento key: '{ident}' is not an entry of" in err
    # an id listed that does resolve is an error too
    _edit(rb / "04-movimiento.rules", "table distancias_movimiento", marker.replace("ids: [", "ids: [n_camion, ") + "\ntable distancias_movimiento")
    assert cli.main(["check", str(rb)]) == 1
    assert "@as_printed on distancias_movimiento lists 'n_camion'" in "".join(capsys.readouterr())


def test_the_same_dangling_id_fails_plain_schema_validation(built):
    validator = _plain_validator(built)
    doc = _json(built / "json" / "infanteria_nacional.json")
    assert _errors(validator, doc) == []
    bad = copy.deepcopy(doc)
    bad["entries"]["n_milicia_falange"]["armas"][0]["perfil"] = "perfil_que_no_existe"
    errors = _errors(validator, bad)
    assert errors and any("perfil" in e.json_path or "perfil_que_no_existe" in str(e.instance) for e in errors)
    # a rule's arguments are typed: lmg(X) takes a whole number X, nothing else
    bad = copy.deepcopy(doc)
    lmg = next(app for app in bad["entries"]["n_milicia_requetes"]["reglas"] if app["rule"] == "lmg")
    assert lmg["args"] == {"X": 1}
    lmg["args"] = {"Y": "tres"}
    assert _errors(validator, bad)
    # the as-printed ids are allowed where they are listed, and only there
    movement = _json(built / "json" / "distancias_movimiento.json")
    assert movement["as_printed"]["ids"] == ["n_infanteria_nacional_1937", "n_infanteria_nacional_1937_bien_equipada", "r_infanteria_erp_1937", "r_infanteria_erp_1937_bien_equipada"]
    assert movement["as_printed"]["reason"]
    assert _errors(validator, movement) == []
    movement["rows"][0]["key"]["unidad"] = "unidad_que_no_existe"
    assert _errors(validator, movement)


def test_rule_applications_have_one_shape_in_catalogs_and_in_grants(built):
    rules = _json(built / "json" / "rules.json")["rules"]
    grants = [g for r in rules.values() for g in r["grants"]]
    assert grants and all(set(g) == {"rule", "args"} and isinstance(g["args"], dict) for g in grants)
    assert {"rule": "desplegar", "args": {"X": 3}} in grants
    names = {r: [p["name"] for p in rule["params"]] for r, rule in rules.items()}
    assert all(set(g["args"]) <= set(names[g["rule"]]) for g in grants)


# ---------------------------------------------------------------------------- manifest and ids


def test_the_manifest_is_versioned_validated_and_maps_every_id_to_its_file(built):
    manifest = _json(built / "json" / "manifest.json")
    schema = _json(built / "schemas" / "manifest.schema.json")
    assert manifest["$schema"] == schema["$id"]
    assert _errors(_plain_validator(built), manifest) == []
    assert manifest["format_version"] == "2.1" and manifest["compiler_version"]
    assert (manifest["version"], manifest["declared_version"]) == ("1.0.0", "1.0")  # built into an empty folder: the declared version
    assert manifest["bundle_hash"] == "sha256:" + hashlib.sha256((built / "json" / "rulebook.json").read_bytes()).hexdigest()
    assert manifest["sources"] == sorted(p.name for p in CONTENT.glob("*.rules"))
    base = manifest["base_uri"]
    assert base == "https://rulebook.invalid/manual_1936/1.0.0/"
    assert len(manifest["schemas"]) == len(list((built / "schemas").rglob("*.schema.json")))
    for schema_id, rel in manifest["schemas"].items():
        assert schema_id == base + rel  # the documented rule: $id = base_uri + path in the build
        assert _json(built / rel)["$id"] == schema_id
    for doc_path in (built / "json").rglob("*.json"):
        assert _json(doc_path)["$schema"] in manifest["schemas"], doc_path.name


def test_the_content_hash_depends_on_the_content_not_on_the_folder(tmp_path):
    from rulebook.compiler.pipeline import driver

    source = ROOT / "content" / "tercios"
    elsewhere = _copy_rulebook(tmp_path / "otra" / "carpeta", source, "tercios_copia")
    a, b = tmp_path / "a", tmp_path / "b"
    assert driver.build(source, a, site=False).ok and driver.build(elsewhere, b, site=False).ok
    hash_a = _json(a / "json" / "manifest.json")["content_hash"]
    assert hash_a == _json(b / "json" / "manifest.json")["content_hash"]
    for sub in ("json", "schemas"):
        files = sorted(p.relative_to(a).as_posix() for p in (a / sub).rglob("*") if p.is_file())
        assert files == sorted(p.relative_to(b).as_posix() for p in (b / sub).rglob("*") if p.is_file())
        different = [f for f in files if (a / f).read_bytes() != (b / f).read_bytes()]
        assert not different, different[:5]
    rules = sorted(elsewhere.glob("*.rules"))[-1]
    rules.write_text(rules.read_text(encoding="utf-8") + "\nUn párrafo más.\n", encoding="utf-8")
    assert driver.build(elsewhere, b, site=False).ok
    assert _json(b / "json" / "manifest.json")["content_hash"] != hash_a


# ---------------------------------------------------------------------------- documents


def test_input_schemas_carry_the_rulebooks_defaults(built, program):
    from rulebook.compiler import ir

    checked = 0
    for proc in program.of(ir.Procedure):
        schema = _json(built / "schemas" / "procedures" / f"{proc.name}.input.schema.json")
        for param in proc.params:
            if isinstance(param.default, ir.Literal) and not isinstance(param.default.value, str):
                assert schema["properties"][param.name]["default"] == param.default.value, (proc.name, param.name)
                checked += 1
            elif isinstance(param.default, ir.EnumValue):
                prop = schema["properties"][param.name]
                assert prop == {
                    "allOf": [{"$ref": f"../types.schema.json#/$defs/{param.default.enum}"}], "default": param.default.member,
                    "description": prop["description"],
                } and param.name in prop["description"]
                checked += 1
            if param.name not in schema["required"]:
                assert "default" in schema["properties"][param.name], (proc.name, param.name)
    assert checked > 20
    bombardeo = _json(built / "schemas" / "procedures" / "ataque_bombardeo.input.schema.json")["properties"]
    assert {k: v for k, v in bombardeo["municion_disponible"].items() if k != "description"} == {"type": "integer", "default": 12}
    assert bombardeo["zona_bateria"]["default"] == "tablero"


def test_the_glossary_is_a_json_document_with_a_schema(built, program):
    from rulebook.compiler import ir

    glossary = _json(built / "json" / "glossary.json")
    assert _errors(_plain_validator(built), glossary) == []
    assert [t["id"] for t in glossary["terms"]] == [t.name for t in program.of(ir.Term)]
    assert all(t["term"] and t["definition"] for t in glossary["terms"])


def test_odds_cover_every_band_of_direct_fire(built, package):
    from rulebook import runtime

    odds = _json(built / "json" / "odds.json")["tables"]
    band = package.PROCEDURES["banda_distancia"]
    bands = set()
    for name in ("impacto_por_perfil_y_banda", "impacto_area_por_perfil_y_banda"):
        table = odds[name]
        assert table["columns"]["variable"] == "distancia"
        covered = {next(iter(runtime.exact(band.function, **band.convert({"distancia": d})))) for d in table["columns"]["values"]}
        bands |= {str(b.value if hasattr(b, "value") else b) for b in covered}
        assert len(table["groups"]["values"]) == len(_json(built / "json" / "perfiles_armas.json")["entries"])
    assert bands == {"corta", "media", "larga"}


def test_categories_are_enums_with_the_printed_spelling_as_title(built):
    types = _json(built / "schemas" / "types.schema.json")["$defs"]
    # a field of an enum type refers to the enum (inside allOf, beside the field's printed title)
    assert types["UnidadPieza"]["properties"]["tipo"]["allOf"] == [{"$ref": "#/$defs/TipoPieza"}]
    assert types["UnidadVehiculo"]["properties"]["tipo"]["allOf"] == [{"$ref": "#/$defs/TipoVehiculo"}]
    assert types["ArmaUnidad"]["properties"]["tipo_arma"]["allOf"] == [{"$ref": "#/$defs/TipoArma"}]
    enums = _json(built / "json" / "enums.json")["enums"]
    assert {"id": "canon_aa_ligero", "title": "Cañón AA ligero"} in enums["TipoPieza"]["values"]
    assert {"id": "canon_ligero", "title": "Cañon Ligero"} in enums["TipoArma"]["values"]  # as the manual prints it
    pieces = _json(built / "json" / "antiaereos_republicanos.json")["entries"]
    assert {e["tipo"] for e in pieces.values()} <= set(types["TipoPieza"]["enum"])


# ---------------------------------------------------------------------------- lints and the changelog

RULEBOOK = 'Prueba.\n\n```rules\nrulebook prueba "Prueba" version "2.0" lang "es"\nsection I "Unidades"\n```\n\n'


def _write(tmp_path: Path, body: str) -> Path:
    rb = tmp_path / "rb"
    rb.mkdir()
    (rb / "00-prueba.rules").write_text(RULEBOOK + body, encoding="utf-8")
    return rb


def test_variant_spellings_of_a_category_are_warned(tmp_path):
    from rulebook.compiler.pipeline import driver

    rb = _write(tmp_path, '''```rules
record Pieza "Pieza" {
  nombre: text "Nombre"
  tipo: text "Tipo"
}

catalog piezas "Piezas" of Pieza {
  a | "A" | "Cañón AA ligero"
  b | "B" | "Cañón AA ligero"
  c | "C" | "Cañon AA  ligero"
}

enum Clase "Clase" {
  ligera "Artillería ligera"
  pesada "Artillería pesada"
  otra "artilleria Ligera"
}
```
''')
    result = driver.check(rb)
    variants = [d for d in result.diagnostics if d.code == "variant-spelling"]
    assert len(variants) == 2 and all(d.severity == "warning" for d in variants)
    by_text = {d.message: d for d in variants}
    row = next(d for m, d in by_text.items() if "Pieza.tipo" in m)
    assert "'Cañon AA  ligero' (1×) is written 'Cañón AA ligero' elsewhere (2×)" in row.message
    assert row.span.line == RULEBOOK.count("\n") + 10  # the row of c
    assert any("enum Clase: the titles of ligera and otra" in m for m in by_text)


def test_the_changelog_catalog_gives_the_site_a_changelog_page(tmp_path):
    from rulebook.compiler.pipeline import driver

    rb = _write(tmp_path, '''## Historial

Las versiones de la prueba.

```rules
@changelog
@doc
catalog versiones "Historial de versiones" of Version {
  v2_0 | "2.0" | "2026-11" | ["Nuevo: la regla <b>de las 3</b>.", "Corregido: el coste de *A*."]
  v1_0 | "1.0" | - | ["Primera edición."]
}

record Version "Versión" {
  version: text "Versión"
  date: text? "Fecha"
  changes: list[text] "Cambios"
}
```
''')
    out = tmp_path / "out"
    result = driver.build(rb, out, site=True)
    assert result.ok, [d.message for d in result.diagnostics]
    assert not [d for d in result.diagnostics if d.code == "changelog"]
    page = (out / "docs" / "cambios.md").read_text(encoding="utf-8")
    assert page.startswith("# Historial de versiones\n")
    assert "Las versiones de la prueba" in page
    assert page.index("## 2\\.0 (2026\\-11)") < page.index("## 1\\.0\n")
    assert "&lt;b&gt;de las 3&lt;/b&gt;" in page and "\\*A\\*" in page  # rules text is escaped
    assert '"Historial de versiones": "cambios.md"' in (out / "mkdocs.yml").read_text(encoding="utf-8")
    html = (out / "site" / "cambios.html").read_text(encoding="utf-8")
    assert "Primera edición." in html and "<b>de las 3</b>" not in html
    # the rulebook's version must be in the history; the record must have the fields
    (rb / "00-prueba.rules").write_text((rb / "00-prueba.rules").read_text(encoding="utf-8").replace('version "2.0"', 'version "3.0"'), encoding="utf-8")
    warnings = [d for d in driver.check(rb).diagnostics if d.code == "changelog"]
    assert len(warnings) == 1 and "'3.0'" in warnings[0].message
    (rb / "00-prueba.rules").write_text((rb / "00-prueba.rules").read_text(encoding="utf-8").replace("changes: list[text]", "cambios: list[text]"), encoding="utf-8")
    errors = [d for d in driver.check(rb).diagnostics if d.severity == "error"]
    assert any("@changelog: record Version must have the fields version: text and changes: list[text]" in d.message for d in errors)


@pytest.mark.parametrize("rulebook", ["tercios", "napoleonico"])
def test_rulebooks_without_a_changelog_get_no_changelog_page(rulebook):
    from rulebook.compiler.pipeline import driver
    from rulebook.compiler.emit.site import to_changelog_page

    program = driver.check(ROOT / "content" / rulebook).program
    assert to_changelog_page.changelog(program) is None


def test_declarations_that_would_share_a_type_name_are_errors_naming_both(tmp_path):
    from rulebook.compiler.pipeline import driver

    rb = _write(tmp_path, '''```rules
enum foo_bar "A" {
  x "X"
}

record FooBar "B" {
  v: foo_bar "V"
}

record Manifest "M" {
  v: int "V"
}

catalog cosas "Cosas" of FooBar {
  a | x
}

catalog otras "Otras" of Manifest {
  b | 1
}
```
''')
    checked = driver.check(rb)  # check refuses what build would: one error at each later declaration
    errors = sorted((d.span.line, d.message, d.hint) for d in checked.diagnostics if d.severity == "error")
    assert [(line, message) for line, message, _ in errors] == [
        (13, "record FooBar would be named FooBar in the JSON Schemas, and so would enum foo_bar"),
        (17, "record Manifest would be named Manifest in the JSON Schemas, and so would the fixed type Manifest, which every build defines"),
    ], errors
    assert errors[0][2].startswith("enum foo_bar is declared at ")
    result = driver.build(rb, tmp_path / "out", site=False)
    assert [d.message for d in result.diagnostics if d.severity == "error"] == [m for _, m, _ in errors]
    assert not (tmp_path / "out").exists()
    from rulebook.compiler.emit.data import schemas  # the build's own guard says the same

    assert len(schemas.name_clashes(checked.program)) == 2


def test_the_fixed_type_names_are_the_names_of_the_fixed_schemas(built):
    from rulebook.compiler.emit.data.to_json import FIXED_TYPE_NAMES

    fixed = ("rules", "enums", "constants", "procedures", "odds", "randomness", "glossary", "examples", "rulebook", "manifest",
             "logic", "changelog", "diff", "balance")
    names = set()
    for stem in fixed:
        doc = _json(built / "schemas" / f"{stem}.schema.json")
        names |= {doc["title"], *doc.get("$defs", {})}
    names.add(_json(built / "schemas" / "types.schema.json")["title"])
    assert names == set(FIXED_TYPE_NAMES)


def test_inline_types_of_any_emitted_schema_get_names_of_their_own():
    from rulebook.compiler.emit.data.schemas import named_types

    doc = {"title": "Doc", "type": "object", "properties": {
        "budget": {"type": "object", "properties": {"points": {"type": "integer", "title": "Puntos"}}},
        "kind": {"enum": ["a", "b"], "default": "a"},
        "items": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string"}}}},
        "either": {"anyOf": [{"type": "object", "properties": {"t": {"const": 1}}}, {"type": "object", "properties": {"t": {"const": 2}}}]},
        "taken": {"type": "object", "properties": {"z": {"type": "integer"}}},
    }, "$defs": {"DocTaken": {"type": "string"}}}
    out = named_types(doc)
    assert out["properties"]["budget"] == {"$ref": "#/$defs/DocBudget"}
    assert out["$defs"]["DocBudget"]["properties"]["points"] == {"type": "integer", "description": "Puntos"}  # no alias-making title
    assert out["properties"]["kind"] == {"allOf": [{"$ref": "#/$defs/DocKind"}], "default": "a"}
    assert out["properties"]["items"]["items"] == {"$ref": "#/$defs/DocItemsItem"}
    assert [m["$ref"] for m in out["properties"]["either"]["anyOf"]] == ["#/$defs/DocEitherVariantA", "#/$defs/DocEitherVariantB"]
    assert out["properties"]["taken"] == doc["properties"]["taken"]  # the name is another type's: left inline
    assert all(d["title"] == name for name, d in out["$defs"].items() if name != "DocTaken")
    assert named_types(out) == out


# ---------------------------------------------------------------------------- data, not prose (issue 25 §5)


def test_dice_bags_and_rolls_are_data_with_a_schema(built):
    randomness = _json(built / "json" / "randomness.json")
    assert _errors(_plain_validator(built), randomness) == []
    shooting = randomness["dice"]["DadoDisparo"]
    assert shooting["values"] == [1, 1, 0, 0, -1, -1] and shooting["sides"] == 6 and shooting["face_enum"] is None
    assert shooting["faces"][0] == {"index": 1, "value": 1, "title": None}
    orders = randomness["dice"]["DadoOrden"]
    assert orders["face_enum"] == "CaraOrden" and orders["faces"][0]["title"]  # named faces carry their titles
    bag = randomness["bags"]["BolsaInteligencia"]
    assert bag["total"] == 24 and {"kind": "en_blanco", "count": 12} in bag["tokens"]
    kept = [r for r in randomness["rolls"] if r["procedure"] == "tirada_calidad" and r["keep"]]
    assert {(r["die"], r["keep"]["which"], r["keep"]["count"]) for r in kept} == {("DadoDisparo", "lowest", 2), ("DadoDisparo", "highest", 2)}
    bundle = _json(built / "json" / "rulebook.json")
    assert bundle["randomness"] == randomness
    manifest = _json(built / "json" / "manifest.json")
    assert "json/randomness.json" in manifest["documents"] and any(p == "schemas/randomness.schema.json" for p in manifest["schemas"].values())


def test_odds_are_fractions_and_constants_are_typed(built):
    odds = _json(built / "json" / "odds.json")
    assert odds["format"] == 2
    cells = [c for t in odds["tables"].values() for c in _flat(t["cells"])]
    assert cells and all(c is None or (isinstance(c, str) and "/" in c) for c in cells)
    assert "0/1" in cells
    schema = _json(built / "schemas" / "constants.schema.json")
    assert "type" not in schema["$defs"]["ConstantEntry"]  # one typed definition per type, no union type
    constants = _json(built / "json" / "constants.json")["constants"]
    assert constants["tope_bonificaciones"]["type"] == "int" and constants["tope_bonificaciones"]["value"] == 4


def test_army_documents_say_how_costs_are_worked_out(built):
    army = next((built / "json" / "armies").glob("*.json"))
    costing = _json(army)["costing"]
    assert costing["rounding"] == "half_up" and costing["quality_percent_of"] == "own_cost" and costing["options_take_quality"] is False
    assert "round_half_up" in costing["formulas"]["quality_cost"]


def _flat(cells):
    for c in cells:
        if isinstance(c, list):
            yield from _flat(c)
        else:
            yield c
