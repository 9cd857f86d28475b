// Every JSON Schema of one build through the tools a downstream author uses, in one Node process
// (tests/test_downstream.py runs it once per bundled rulebook):
//
//   node check_schemas.mjs <build>/schemas <out>
//
// * Ajv 2020 in strict mode (with ajv-formats), no other option: every schema is registered
//   by its $id and compiled as it is;
// * json-schema-to-typescript, without --unreachableDefinitions: <out>/json2ts/<path>.d.ts;
// * quicktype (quicktype-core), TypeScript types only, every schema at once: <out>/quicktype.ts,
//   the $ref between files resolved by $id from the schemas themselves (nothing is fetched).
//
// Prints one JSON object: {"schemas": n, "ajv": [problems], "json2ts": [problems],
// "quicktype": [problems]}; a problem is "path: message".
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;
const { compileFromFile } = require("json-schema-to-typescript");
const { quicktype, InputData, JSONSchemaInput, JSONSchemaStore } = require("quicktype-core");

const [root, out] = process.argv.slice(2);

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(path.join(dir, d.name)) : d.name.endsWith(".schema.json") ? [path.join(dir, d.name)] : []);
}

const files = walk(root).sort();
const schemas = new Map(files.map((f) => [f, JSON.parse(fs.readFileSync(f, "utf8"))]));
const byId = new Map([...schemas.values()].map((s) => [s.$id, s]));
const report = { schemas: files.length, ajv: [], json2ts: [], quicktype: [] };
const rel = (f) => path.relative(root, f);

// Ajv, strict
const ajv = new Ajv2020({ strict: true });
addFormats(ajv);
try {
  for (const s of schemas.values()) ajv.addSchema(s);
  for (const [f, s] of schemas) {
    try {
      ajv.getSchema(s.$id);
    } catch (e) {
      report.ajv.push(`${rel(f)}: ${e.message}`);
    }
  }
} catch (e) {
  report.ajv.push(`(registering): ${e.message}`);
}

// json-schema-to-typescript: relative $ref resolve against the schema's folder
for (const f of files) {
  const target = path.join(out, "json2ts", rel(f).replace(/\.schema\.json$/, ".d.ts"));
  try {
    const ts = await compileFromFile(f, { cwd: path.dirname(f), bannerComment: "", additionalProperties: false, format: false });
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, ts);
  } catch (e) {
    report.json2ts.push(`${rel(f)}: ${String(e.message).slice(0, 500)}`);
  }
}

// quicktype: one run over every schema (each a top-level type named by its title), the $ref
// between files served by $id
class Store extends JSONSchemaStore {
  async fetch(address) {
    const found = byId.get(address.split("#")[0]);
    if (found === undefined) throw new Error(`no schema has the $id ${address}`);
    return found;
  }
}
try {
  const input = new JSONSchemaInput(new Store());
  for (const s of schemas.values()) await input.addSource({ name: s.title, uris: [s.$id], schema: JSON.stringify(s) });
  const data = new InputData();
  data.addInput(input);
  const result = await quicktype({ inputData: data, lang: "typescript", rendererOptions: { "just-types": "true" } });
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, "quicktype.ts"), result.lines.join("\n"));
} catch (e) {
  report.quicktype.push(`(all schemas): ${String(e.message).slice(0, 500)}`);
}
console.log(JSON.stringify(report));
