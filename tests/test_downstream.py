"""The data contract as a downstream tool author meets it, for each bundled rulebook:

* every schema as it is through Ajv 2020 in strict mode, json-schema-to-typescript
  (without ``--unreachableDefinitions``) and quicktype (npm, one Node process per
  rulebook: ``tests/codegen/check_schemas.mjs``; then ``tsc --strict``) and
  datamodel-code-generator (pip): types named as the schemas name them (ASCII
  PascalCase, nothing mangled from a Spanish title, nothing numbered: ``Nombre1``,
  ``Schema_12``), every type the schemas define written;
* every schema property has a description, the tool's in the rulebook's language;
* the worked examples, exported as test vectors (``json/examples.json``), all
  pass when run through the generated package from the JSON alone, in a
  separate Python process, in a folder holding only the build's ``python/`` and
  ``json/``.

The npm tools live in ``tests/codegen`` (``npm ci`` there; ``.ci/run`` does it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, build_rulebook

RULEBOOKS = ("1936", "tercios", "napoleonico")
CODEGEN = Path(__file__).resolve().parent / "codegen"
NODE_BIN = CODEGEN / "node_modules" / ".bin"
PASCAL = re.compile(r"[A-Z][A-Za-z0-9]*\Z")


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> dict[str, Path]:
    return {name: build_rulebook(tmp_path_factory, ROOT / "content" / name, f"downstream_{name}", site=False)[1] for name in RULEBOOKS}


def _schema_names(schemas: Path) -> set[str]:
    """The type names the schemas give: each file's title and its ``$defs`` names."""
    names = set()
    for path in schemas.rglob("*.schema.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        names.add(doc["title"])
        names |= set(doc.get("$defs", {}))
    return names


def _numbered(names: set[str]) -> list[str]:
    """Names a generator numbered to tell copies apart: ``X1`` beside ``X``, ``X_2``, ``Schema…``."""
    out = []
    for name in names:
        stem = re.sub(r"_?\d+\Z", "", name)
        if stem != name and (stem in names or "_" in name) or name.startswith("Schema"):
            out.append(name)
    return sorted(out)


def _check_names(generated: set[str], schemas: Path, tool: str) -> None:
    expected = _schema_names(schemas)
    assert all(PASCAL.match(n) for n in expected), sorted(n for n in expected if not PASCAL.match(n))
    assert generated, f"{tool} generated no types"
    assert not _numbered(generated), f"{tool} numbered types: {_numbered(generated)[:10]}"
    invented = sorted(generated - expected)
    assert not invented, f"{tool} named types the schemas do not name (mangled or invented): {invented[:10]}"


def _run(cmd: list[str], cwd: Path) -> str:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{' '.join(cmd[:3])}…: {proc.stdout[-2000:]}{proc.stderr[-2000:]}"
    return proc.stdout


def _has_node_tools() -> bool:
    return all((NODE_BIN / tool).exists() for tool in ("tsc",)) and (CODEGEN / "node_modules" / "ajv").is_dir() \
        and (CODEGEN / "node_modules" / "quicktype-core").is_dir() and (CODEGEN / "node_modules" / "json-schema-to-typescript").is_dir()


@pytest.mark.parametrize("rulebook", RULEBOOKS)
def test_every_schema_passes_ajv_strict_json2ts_and_quicktype_as_it_is(builds, rulebook, tmp_path):
    """One Node process (tests/codegen/check_schemas.mjs) takes every schema of the build as
    it is: Ajv 2020 in strict mode (no allowUnionTypes or other option) compiles each,
    json-schema-to-typescript (no --unreachableDefinitions) and quicktype write types; the
    types then compile with ``tsc --strict``. json2ts names only what the schemas name
    and, without --unreachableDefinitions, still writes every type they define."""
    if not _has_node_tools():
        pytest.skip("the npm code generators are not installed: run `npm ci` in tests/codegen (.ci/run does)")
    schemas = builds[rulebook] / "schemas"
    out = tmp_path / "ts"
    report = json.loads(_run(["node", str(CODEGEN / "check_schemas.mjs"), str(schemas), str(out)], CODEGEN))
    assert report["schemas"] == len(list(schemas.rglob("*.schema.json"))) > 10
    assert report["ajv"] == [], report["ajv"][:5]
    assert report["json2ts"] == [], report["json2ts"][:5]
    assert report["quicktype"] == [], report["quicktype"][:5]
    files = sorted((out / "json2ts").rglob("*.d.ts"))
    assert len(files) == report["schemas"]
    (out / "tsconfig.json").write_text(json.dumps({
        "compilerOptions": {"strict": True, "noEmit": True, "target": "es2020", "skipLibCheck": False},
        "include": ["json2ts/**/*.ts", "quicktype.ts"],
    }), encoding="utf-8")
    _run([str(NODE_BIN / "tsc"), "-p", str(out)], out)
    generated = set()
    for path in files:
        generated |= set(re.findall(r"^export (?:type|interface|enum) (\w+)", path.read_text(encoding="utf-8"), re.M))
    _check_names(generated, schemas, "json-schema-to-typescript")
    assert not sorted(_schema_names(schemas) - generated), "json2ts left out types the schemas define (unreachable from a root?)"
    # quicktype names its own way (Id → ID, const values as enums), but every document's type is there
    quick = set(re.findall(r"^export (?:type|interface|enum) (\w+)", (out / "quicktype.ts").read_text(encoding="utf-8"), re.M))
    roots = {json.loads(p.read_text(encoding="utf-8"))["title"] for p in schemas.rglob("*.schema.json")
             if json.loads(p.read_text(encoding="utf-8")).get("type") == "object"}
    assert roots and not sorted(roots - quick), sorted(roots - quick)[:10]


def _described_through(docs: dict[str, dict], rel: str, ref: str) -> bool:
    """Whether the schema a bare ``$ref`` (from the file ``rel``) names has a description."""
    file, _, pointer = ref.partition("#")
    node = docs[os.path.normpath(os.path.join(os.path.dirname(rel), file))] if file else docs[rel]
    for part in pointer.split("/")[1:]:
        node = node[part]
    return "description" in node


def _undescribed(docs: dict[str, dict]) -> list[str]:
    """Every property of every schema without a description: its own, or (a bare ``$ref``)
    that of the one named type it is."""
    missing = []

    def visit(rel: str, node, path: str) -> None:
        if isinstance(node, dict):
            props = node.get("properties")
            for name, prop in (props.items() if isinstance(props, dict) and path.split("/")[-1] != "properties" else ()):
                if "description" not in prop and not ("$ref" in prop and _described_through(docs, rel, prop["$ref"])):
                    missing.append(f"schemas/{rel} {path}/properties/{name}")
            for key, value in node.items():
                visit(rel, value, f"{path}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                visit(rel, value, f"{path}/{i}")

    for rel, doc in docs.items():
        visit(rel, doc, "#")
    return missing


@pytest.mark.parametrize("rulebook", RULEBOOKS)
def test_every_schema_property_has_a_description(builds, rulebook):
    schemas = builds[rulebook] / "schemas"
    docs = {p.relative_to(schemas).as_posix(): json.loads(p.read_text(encoding="utf-8")) for p in schemas.rglob("*.schema.json")}
    assert _undescribed(docs) == []
    army = docs.get("armies/army.schema.json")
    if army is not None:  # how costs are worked out is data the army documents carry, documented
        costing = army["$defs"]["ArmyDocumentCosting"]
        assert costing["description"] and set(costing["properties"]) >= {"rounding", "quality_percent_of", "options_take_quality", "formulas"}


def test_the_descriptions_the_tool_writes_follow_the_rulebooks_language():
    from rulebook.compiler.emit.data.to_json import all_schemas
    from rulebook.compiler.pipeline import driver

    english = all_schemas(driver.check(ROOT / "tests" / "data" / "english").program)
    spanish = all_schemas(driver.check(ROOT / "content" / "tercios").program)
    assert english["types.schema.json"]["$defs"]["Status"]["description"].startswith("Status of the declaration")
    assert spanish["types.schema.json"]["$defs"]["Status"]["description"].startswith("Estado de la declaración")
    assert english["odds.schema.json"]["properties"]["tables"]["description"] == "Each odds table by its name."
    assert spanish["odds.schema.json"]["properties"]["tables"]["description"] == "Cada tabla de probabilidades por su nombre."
    assert _undescribed(english) == []


@pytest.mark.parametrize("rulebook", RULEBOOKS)
def test_pydantic_models_from_the_schemas_import_with_clean_names(builds, rulebook, tmp_path):
    schemas = builds[rulebook] / "schemas"
    out = tmp_path / "models"
    _run([
        sys.executable, "-m", "datamodel_code_generator", "--input", ".", "--input-file-type", "jsonschema",
        "--output", str(out), "--output-model-type", "pydantic_v2.BaseModel", "--use-title-as-name",
        "--formatters", "builtin", "--disable-timestamp",
    ], schemas)
    modules = sorted(p for p in out.rglob("*.py") if p.name != "__init__.py")
    assert modules
    generated = set()
    for path in modules:
        generated |= set(re.findall(r"^class (\w+)", path.read_text(encoding="utf-8"), re.M))
    _check_names(generated, schemas, "datamodel-code-generator")
    # the generated models import (pydantic builds every model on import)
    _run([sys.executable, "-c", "import importlib, pathlib, sys; sys.path.insert(0, sys.argv[1]); "
          "[importlib.import_module('models.' + p.stem) for p in sorted(pathlib.Path(sys.argv[1], 'models').glob('*.py'))]", str(tmp_path)], tmp_path)


RUN_VECTORS = r'''
"""Check a generated package against its test vectors, knowing nothing but the JSON."""
import hashlib, importlib, json, sys

doc = json.load(open("json/examples.json", encoding="utf-8"))
sys.path.insert(0, "python")
package = importlib.import_module(doc["rulebook"])
procedures = package.PROCEDURES
runtime = importlib.import_module(type(next(iter(procedures.values()))).__module__.rsplit(".", 1)[0])


def canonical(value):
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


failures, distributions = [], 0
for vector in doc["vectors"]:
    proc = procedures[vector["procedure"]]
    try:
        dist = runtime.exact(proc.function, **proc.convert(vector["input"]))
    except runtime.RuleError as exc:
        if vector["error"] is None or vector["error"] not in exc.message:
            failures.append(f"{vector['id']}: unexpected error {exc.message}")
        continue
    if vector["error"] is not None:
        failures.append(f"{vector['id']}: expected an error containing {vector['error']!r}")
        continue
    got = [{"result": runtime.to_jsonable(o), "probability": f"{p.numerator}/{p.denominator}"} for o, p in proc.in_outcome_order(dist)]
    ordered = sorted(got, key=lambda item: canonical(item["result"]))
    if vector["distribution"] is not None and got != vector["distribution"]:
        failures.append(f"{vector['id']}: distribution differs")
    elif len(got) != vector["results"] or "sha256:" + hashlib.sha256(canonical(ordered).encode()).hexdigest() != vector["digest"]:
        failures.append(f"{vector['id']}: digest differs")
    distributions += 1
print(json.dumps({"vectors": len(doc["vectors"]), "distributions": distributions, "failures": failures}))
'''


@pytest.mark.parametrize("rulebook", RULEBOOKS)
def test_every_worked_example_passes_as_a_test_vector_from_the_json_alone(builds, rulebook, tmp_path):
    from jsonschema import Draft202012Validator

    build = builds[rulebook]
    vectors = json.loads((build / "json" / "examples.json").read_text(encoding="utf-8"))
    schema = json.loads((build / "schemas" / "examples.schema.json").read_text(encoding="utf-8"))
    assert vectors["$schema"] == schema["$id"]
    assert not list(Draft202012Validator(schema).iter_errors(vectors))
    # the vectors are all the examples of the rulebook
    from rulebook.compiler.pipeline import driver

    program = driver.check(ROOT / "content" / rulebook).program
    assert len(vectors["vectors"]) == len(program.examples) > 0
    # a folder with only what a downstream tool receives: the generated package and the JSON
    alone = tmp_path / "alone"
    shutil.copytree(build / "python", alone / "python")
    shutil.copytree(build / "json", alone / "json")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", RUN_VECTORS], cwd=alone, capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["failures"] == []
    assert report["vectors"] == len(vectors["vectors"])
    expected_errors = sum(1 for v in vectors["vectors"] if v["error"] is not None)
    assert report["distributions"] == report["vectors"] - expected_errors


def test_a_tampered_vector_fails(builds, tmp_path):
    """The runner can fail: one probability changed in a copy of the vectors is reported."""
    build = builds["tercios"]
    alone = tmp_path / "alone"
    shutil.copytree(build / "python", alone / "python")
    shutil.copytree(build / "json", alone / "json")
    path = alone / "json" / "examples.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    victim = next(v for v in doc["vectors"] if v["distribution"] and len(v["distribution"]) > 1)
    victim["distribution"][0]["probability"] = "1/7919"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", RUN_VECTORS], cwd=alone, capture_output=True, text=True, timeout=600)
    assert json.loads(proc.stdout)["failures"] == [f"{victim['id']}: distribution differs"]
