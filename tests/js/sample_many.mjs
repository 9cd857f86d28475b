// Samples procedures of JavaScript packages many times in one Node process: reads a JSON array
// of [JS_FOLDER, procedure, input, runs] on stdin and prints a JSON array of {result JSON: times},
// one per request, each run with its own seed (1 … runs).
// Usage: node sample_many.mjs < requests.json
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const requests = JSON.parse(readFileSync(0, "utf8"));
const out = [];
for (const [folder, name, input, runs] of requests) {
  const pkg = await import(pathToFileURL(path.join(folder, "index.js")).href);
  const counts = {};
  for (let seed = 1; seed <= runs; seed++) {
    const k = JSON.stringify(pkg.resolve(name, input, { seed }).result);
    counts[k] = (counts[k] || 0) + 1;
  }
  out.push(counts);
}
process.stdout.write(JSON.stringify(out));
