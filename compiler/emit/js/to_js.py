"""Checked program (:class:`rulebook.compiler.ir.Program`) → a JavaScript package of resolvers.

Reads only the typed IR (and, for the inputs' JSON Schemas, :func:`rulebook.compiler.emit.data.to_json.all_schemas`
of the same program, unless given). Entry point: :func:`generate(program) -> dict[str, str]`
(path in the package → text); :func:`write_package(program, folder)` writes it.

The package (``build/<rb>/js/``), usable with no build step in Node ≥ 18 and in browsers:

* ``package.json`` — name from the rulebook id, version from the rulebook, ``"type": "module"``;
* ``index.js`` — an ES module: the data (enums, records, constants, catalogs, tables,
  dice, bags) built through the runtime, one resolver function ``$P_<procedure>(ctx, {…})``
  per procedure (the IR walked by :mod:`.expressions` and :mod:`.statements`, as the
  Python emitter walks it), and the public API: one exported function per procedure
  (``fn(input, options)``: the answer ``rulebook resolve --format json`` gives, the exact
  distribution unless ``options.seed`` is given), ``resolve``/``resolveText``, and the
  rulebook's ``ENUMS``, ``CONSTANTS``, ``CATALOGS`` and ``TABLES`` as frozen JSON data;
* ``schemas.js`` — the procedures' input schemas (validation as ``rulebook resolve`` does it);
* ``index.d.ts`` — its types (:mod:`.typescript`);
* ``runtime/*.js`` — the generic runtime (:mod:`.bundle`);
* ``bin/resolve.mjs`` — ``node bin/resolve.mjs NAME --input JSON --exact`` prints what
  ``rulebook resolve NAME --input JSON --exact`` prints;
* ``browser.js`` — the same modules as one classic script assigning ``globalThis.rulebook_<id>``.

Everything from the rules reaches the code through :mod:`.names` (names mangled, texts as
JSON string literals, comments escaped). The output is deterministic.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from rulebook.compiler import ir
from rulebook.compiler.analysis import liveness
from rulebook.compiler.emit.js import bundle
from rulebook.compiler.emit.js.declarations import DeclarationWriter, type_desc
from rulebook.compiler.emit.js.expressions import ExpressionWriter
from rulebook.compiler.emit.js.names import comment, js_json, js_name, js_string
from rulebook.compiler.emit.js.statements import ProcedureWriter
from rulebook.compiler.emit.js.typescript import declarations_dts
from rulebook.compiler.emit.js.writer import Module, Writer
from rulebook.compiler.ir.sources import content_hash

_DROPPED = frozenset({"title", "description", "default", "examples", "$comment"})
"""Schema keywords that never change a verdict or a message: left out of ``schemas.js``."""


def rulebook_id(program: ir.Program) -> str:
    return program.rulebook.name if program.rulebook else "rulebook"


def global_name(program: ir.Program) -> str:
    """The global ``browser.js`` assigns: ``rulebook_<id>``."""
    return "rulebook_" + js_name(rulebook_id(program))


def npm_version(version: str) -> str:
    """A semantic version for package.json: ``1.0`` → ``1.0.0``; other texts → ``0.0.0-<letters and digits>``."""
    m = re.fullmatch(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?", version)
    if m:
        return ".".join(part or "0" for part in m.groups())
    label = re.sub(r"[^0-9A-Za-z]+", ".", version).strip(".") or "0"
    return f"0.0.0-{label}"


def _grants(program: ir.Program) -> dict[str, tuple]:
    return {r.name: tuple(r.grants) for r in sorted(program.of(ir.Rule), key=lambda r: r.name) if r.grants}


def _stripped(schema):
    if isinstance(schema, dict):
        return {k: (_stripped(v) if k not in ("const", "enum") else v) for k, v in schema.items() if k not in _DROPPED}
    if isinstance(schema, list):
        return [_stripped(x) for x in schema]
    return schema


def schemas_js(program: ir.Program, schemas: dict[str, dict]) -> str:
    """``schemas.js``: each procedure's input schema and the types they refer to, by file name."""
    docs = {"types.schema.json": _stripped(schemas["types.schema.json"])} if "types.schema.json" in schemas else {}
    for d in program.of(ir.Procedure):
        rel = f"procedures/{d.name}.input.schema.json"
        if rel in schemas:
            docs[f"{d.name}.input.schema.json"] = _stripped(schemas[rel])
    lines = ["// The procedures' input schemas (as the build writes them under schemas/, titles and descriptions",
             "// left out) and the types they refer to: inputs are checked against them as `rulebook resolve` checks them.",
             "export const SCHEMAS = JSON.parse(" + js_string(json.dumps(docs, ensure_ascii=False, separators=(",", ":"))) + ");"]
    return "\n".join(lines) + "\n"


class JsEmitter:
    """``index.js`` of one program: data, resolvers and the public API."""

    def __init__(self, program: ir.Program) -> None:
        self.p = program
        self.module = Module()
        self.facts = liveness.analyse(program)
        self.grants = _grants(program)
        granted = {a.rule for apps in self.grants.values() for a in apps}
        self.exprs = ExpressionWriter(program, self.module, self.facts, granted)
        self.procedures = ProcedureWriter(program, self.exprs)
        self.package = re.sub(r"\W", "_", rulebook_id(program).lower())

    def sources(self) -> list[str]:
        return sorted({d.file for d in self.p.decls.values()})

    def index_js(self) -> str:
        p = self.p
        rb = p.rulebook
        title = rb.title if rb else rulebook_id(p)
        body = Writer()
        for d in p.of(ir.Procedure):
            self.procedures.procedure(body, d)
        data = Writer()
        DeclarationWriter(p, self.package, self.grants).write(data)

        w = Writer()
        w.line("// " + comment("Generated by rulebook from " + (", ".join(self.sources()) or "no files") + "."))
        w.line("// Do not edit: change the .rules files and rebuild.")
        w.line("/**")
        w.line(f" * Resolvers of «{comment(title)}», generated by rulebook.")
        w.line(" *")
        w.line(" *     import { PROCEDURES, resolve } from \"./index.js\";")
        w.line(" *     resolve(\"<procedure>\", { …input… }, { exact: true });  // or { seed: 1 }")
        w.line(" *")
        w.line(" * or call a procedure's function: <procedure>({ …input… }). Inputs use the JSON shapes of schemas/.")
        w.line(" */")
        w.line('import * as $rt from "./runtime/index.js";')
        w.line('import { SCHEMAS as $SCHEMAS } from "./schemas.js";')
        w.line()
        w.line(f"export const RULEBOOK = {js_string(rulebook_id(p))};")
        w.line(f"export const TITLE = {js_string(title)};")
        w.line(f"export const VERSION = {js_string(rb.version if rb else '')};")
        w.line(f"export const LANG = {js_string(_language(p))};")
        w.line(f"export const CONTENT_HASH = {js_string(content_hash(p))};")
        w.line()
        self.module.sources_table(w)
        w.lines.extend(data.lines)
        w.line()
        self.module.hoisted_table(w)
        w.line()
        w.line("// ------------------------------------------------------------------ procedures")
        w.lines.extend(body.lines)
        w.line()
        w.line("// ------------------------------------------------------------------ the package")
        self.public(w)
        return w.text() + "\n"

    def public(self, w: Writer) -> None:
        p = self.p
        w.line("const $TYPES = Object.freeze({")
        w.indent()
        w.line("enums: Object.freeze({")
        w.indent()
        for e in p.of(ir.Enum):
            w.line(f"{js_string(e.name)}: $E_{js_name(e.name)}.values,")
        w.outdent()
        w.line("}),")
        w.line("records: Object.freeze({")
        w.indent()
        for r in p.of(ir.Record):
            fields = [[f.name, js_name(f.name), type_desc(f.type)] for f in r.fields]
            w.line(f"{js_string(r.name)}: [$R_{js_name(r.name)}, {js_json(fields)}],")
        w.outdent()
        w.line("}),")
        w.line("catalogs: Object.freeze({")
        w.indent()
        for c in p.of(ir.Catalog):
            w.line(f"{js_string(c.name)}: $CAT_{js_name(c.name)},")
        for t in p.of(ir.Table):
            if t.keyed_by_id:
                w.line(f"{js_string(t.name)}: $T_{js_name(t.name)},")
        w.outdent()
        w.line("}),")
        w.outdent()
        w.line("});")
        w.line()
        w.line("const $PROCEDURES = Object.freeze({")
        w.indent()
        for d in p.of(ir.Procedure):
            params = [{"name": prm.name, "js": js_name(prm.name), "type": type_desc(prm.type), "typeText": str(prm.type),
                       "hasDefault": prm.default is not None} for prm in d.params]
            result = p.get(d.result.inner.name, ir.Enum) if d.result.inner.kind == "enum" else None
            order = js_json([m.name for m in result.members]) if result is not None and result.ordered else "null"
            w.line(f"{js_string(d.name)}: Object.freeze({{")
            w.indent()
            w.line(f"name: {js_string(d.name)}, title: {js_string(d.title)}, ref: {js_string(d.ref)}, src: {js_string(d.span.src)},")
            w.line(f"fn: $P_{js_name(d.name)}, params: {js_json(params)}, result: {js_string(str(d.result))}, resultOrder: {order},")
            w.line(f"steps: {js_json([s.label for s in d.steps])},")
            w.outdent()
            w.line("}),")
        w.outdent()
        w.line("});")
        w.line()
        w.line("/** What the runtime resolves requests against (bin/resolve.mjs reads it). */")
        w.line("export const PACKAGE = Object.freeze({ procedures: $PROCEDURES, types: $TYPES, lang: LANG, "
               "validator: new $rt.Validator($SCHEMAS) });")
        w.line()
        w.line("/** Each procedure: name, title, section, source line, parameters and result type (and its resolver, fn). */")
        w.line("export const PROCEDURES = $PROCEDURES;")
        w.line()
        w.line("/** The answer `rulebook resolve --format json` gives: the exact distribution ({ exact: true }) or a sampled run ({ seed }). */")
        w.line("export function resolve(name, input, options = {}) {")
        w.line("  return $rt.plain($rt.answer(PACKAGE, name, input, options));")
        w.line("}")
        w.line()
        w.line("/** The text `rulebook resolve NAME --input TEXT --format json` prints, and its exit status. */")
        w.line("export function resolveText(name, inputText, options = {}) {")
        w.line("  return $rt.resolveText(PACKAGE, name, inputText, options);")
        w.line("}")
        for d in p.of(ir.Procedure):
            w.line()
            w.line("/**")
            w.line(f" * {comment(d.title)}{f' ({comment(d.ref)})' if d.ref else ''}: the exact distribution of its result, or with")
            w.line(" * { seed } one sampled run (with { seed, explain: true } its trace).")
            w.line(f" * Generated from {comment(d.span.src)}.")
            w.line(" */")
            w.line(f"export function {js_name(d.name)}(input = {{}}, options = {{}}) {{")
            w.line(f"  return resolve({js_string(d.name)}, input, {{ exact: options.seed === undefined, ...options }});")
            w.line("}")
        w.line()
        w.line("/** The rulebook's data as frozen JSON values: enums (members in order), constants, catalogs (entries by id), tables (rows). */")
        enums = ", ".join(f"{js_string(e.name)}: $E_{js_name(e.name)}.values" for e in p.of(ir.Enum))
        w.line(f"export const ENUMS = Object.freeze({{ {enums} }});")
        consts = ", ".join(f"{js_string(k.name)}: $C_{js_name(k.name)}" for k in p.of(ir.Const))
        w.line(f"export const CONSTANTS = $rt.frozenJSON(new Map([{', '.join(f'[{js_string(k.name)}, $C_{js_name(k.name)}]' for k in p.of(ir.Const))}]));")
        del consts
        catalogs = ", ".join(f"[{js_string(c.name)}, $CAT_{js_name(c.name)}]" for c in p.of(ir.Catalog))
        w.line(f"export const CATALOGS = $rt.frozenJSON(new Map([{catalogs}]));")
        tables = ", ".join(f"[{js_string(t.name)}, $T_{js_name(t.name)}]" for t in p.of(ir.Table))
        w.line(f"export const TABLES = $rt.frozenJSON(new Map([{tables}]));")


def _language(program: ir.Program) -> str:
    rb = program.rulebook
    return rb.lang if rb is not None and rb.lang in bundle.LANGUAGES else "es"


def package_json(program: ir.Program) -> str:
    rb = program.rulebook
    name = re.sub(r"[^a-z0-9._-]+", "-", rulebook_id(program).lower()).strip("-._") or "rulebook"
    doc = {
        "name": name,
        "version": npm_version(rb.version if rb else ""),
        "description": f"Resolvers of «{rb.title if rb else name}», generated by rulebook",
        "type": "module",
        "main": "./index.js",
        "types": "./index.d.ts",
        "exports": {".": {"types": "./index.d.ts", "import": "./index.js"}, "./browser.js": "./browser.js",
                    "./armies": {"types": "./armies.d.ts", "import": "./armies.js"}, "./armies.browser.js": "./armies.browser.js",
                    "./runtime/*": "./runtime/*", "./package.json": "./package.json"},
        "bin": {f"{name}-resolve": "./bin/resolve.mjs"},
        "engines": {"node": ">=18"},
        "sideEffects": False,
    }
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


BIN_RESOLVE = """#!/usr/bin/env node
// node bin/resolve.mjs NAME --input JSON|@file (--exact | --seed N) [--explain] [--max-work N] [--list]
// prints what `rulebook resolve NAME --input JSON --exact` prints, with the same exit status.
import { readFileSync } from "node:fs";
import { PACKAGE } from "../index.js";
import { main } from "../runtime/resolve.js";

const { text, status } = main(PACKAGE, process.argv.slice(2), (path) => readFileSync(path, "utf8"));
process.stdout.write(text + "\\n");
process.exitCode = status;
"""


def generate(program: ir.Program, schemas: dict[str, dict] | None = None) -> dict[str, str]:
    """Every file of the package by relative path. ``schemas``: the build's JSON Schemas by
    relative path (:func:`rulebook.compiler.emit.data.to_json.all_schemas`), computed when not given."""
    if schemas is None:
        from rulebook.compiler.emit.data import to_json

        schemas = to_json.all_schemas(program)
    emitter = JsEmitter(program)
    files = {"package.json": package_json(program), "index.js": emitter.index_js(),
             "schemas.js": schemas_js(program, schemas), **bundle.runtime_files()}
    files["index.d.ts"] = declarations_dts(program)
    files["bin/resolve.mjs"] = BIN_RESOLVE
    modules = {path: text for path, text in files.items() if path.endswith(".js")}
    header = ("// Generated by rulebook: index.js and its runtime as one classic script (for pages opened from file://,\n"
              f"// where browsers refuse ES modules). It assigns globalThis.{global_name(program)}.")
    files["browser.js"] = bundle.classic_script(modules, "index.js", global_name(program), header)
    return dict(sorted(files.items()))


def schemas_in(folder: Path) -> dict[str, dict]:
    """The schemas a build wrote under ``folder`` (``schemas/``) that the package carries: the
    procedures' input schemas and the types they refer to (what :func:`generate` reads)."""
    found = {"types.schema.json": json.loads((folder / "types.schema.json").read_text(encoding="utf-8"))}
    for path in sorted((folder / "procedures").glob("*.input.schema.json")):
        found[f"procedures/{path.name}"] = json.loads(path.read_text(encoding="utf-8"))
    return found


def write_package(program: ir.Program, folder: Path, generated: dict[str, str] | None = None) -> list[Path]:
    """Write the package under ``folder`` (created); returns the files written."""
    files = generate(program) if generated is None else generated
    written = []
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        written.append(path)
    return written
