// Answers `resolve` requests for several JavaScript packages in one Node process, as each
// package's bin/resolve.mjs answers one: reads a JSON array of [JS_FOLDER, argv] on stdin and
// prints a JSON array of {"text": …, "status": …} (what `node JS_FOLDER/bin/resolve.mjs
// …argv` would print, and its exit status). Each package is imported once.
// Usage: node resolve_packages.mjs < requests.json
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const requests = JSON.parse(readFileSync(0, "utf8"));
const packages = new Map();
for (const [folder] of requests) {
  if (packages.has(folder)) continue;
  const { PACKAGE } = await import(pathToFileURL(path.join(folder, "index.js")).href);
  const { main } = await import(pathToFileURL(path.join(folder, "runtime", "resolve.js")).href);
  packages.set(folder, { PACKAGE, main });
}
const answers = requests.map(([folder, argv]) => {
  const { PACKAGE, main } = packages.get(folder);
  try {
    const { text, status } = main(PACKAGE, argv, (p) => readFileSync(p, "utf8"));
    return { text: text + "\n", status };
  } catch (err) {
    return { text: `uncaught ${err && err.stack ? err.stack.split("\n").slice(0, 3).join(" | ") : err}\n`, status: -1 };
  }
});
process.stdout.write(JSON.stringify(answers));
