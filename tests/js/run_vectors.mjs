// Runs every test vector of a build (json/examples.json) through the build's JavaScript
// package (js/index.js) and prints one JSON line: {"total": n, "passed": n, "failures": [...]}.
// Usage: node run_vectors.mjs BUILD_FOLDER
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";
import path from "node:path";

const build = process.argv[2];
const pkg = await import(pathToFileURL(path.join(build, "js", "index.js")).href);
const rt = await import(pathToFileURL(path.join(build, "js", "runtime", "index.js")).href);
const { vectors } = JSON.parse(readFileSync(path.join(build, "json", "examples.json"), "utf8"));

function canonical(v) {
  if (Array.isArray(v)) return "[" + v.map(canonical).join(",") + "]";
  if (v !== null && typeof v === "object") {
    return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + canonical(v[k])).join(",") + "}";
  }
  return JSON.stringify(v);
}

function digest(items) {
  const ordered = items.map(({ result, probability }) => [canonical(result), probability]).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const text = "[" + ordered.map(([r, p]) => `{"probability":"${p}","result":${r}}`).join(",") + "]";
  return "sha256:" + createHash("sha256").update(text, "utf8").digest("hex");
}

const failures = [];
let passed = 0;
for (const v of vectors) {
  const proc = pkg.PACKAGE.procedures[v.procedure];
  try {
    const args = rt.convert(proc, v.input, pkg.PACKAGE.types);
    const dist = rt.exact(proc, args, { lang: pkg.LANG });
    if (v.error !== null) {
      failures.push({ id: v.id, expected: `error containing ${v.error}`, got: "a distribution" });
      continue;
    }
    let items = dist.pairs.map(([o, n]) => {
      const p = rt.numberText(rt.F(n, dist.den));
      return { outcome: o, result: rt.plain(rt.toJSONable(o)), probability: p.includes("/") ? p : p + "/1" };
    });
    if (proc.resultOrder) {
      const pos = (o) => (o === null ? -1 : proc.resultOrder.includes(o) ? proc.resultOrder.indexOf(o) : proc.resultOrder.length);
      items = items.slice().sort((a, b) => pos(a.outcome) - pos(b.outcome));
    }
    const got = items.map(({ result, probability }) => ({ result, probability }));
    const ok = v.distribution !== null
      ? JSON.stringify(got) === JSON.stringify(v.distribution)
      : got.length === v.results && digest(got) === v.digest;
    if (ok) passed++;
    else failures.push({ id: v.id, expected: v.distribution ?? `${v.results} results, ${v.digest}`, got: got.length > 20 ? `${got.length} results, ${digest(got)}` : got });
  } catch (err) {
    if (v.error !== null && err instanceof rt.RuleError && err.toString().includes(v.error)) { passed++; continue; }
    failures.push({ id: v.id, expected: v.error ?? "a distribution", got: String(err && err.stack ? err.stack.split("\n").slice(0, 4).join(" | ") : err) });
  }
}
process.stdout.write(JSON.stringify({ total: vectors.length, passed, failures }) + "\n");
