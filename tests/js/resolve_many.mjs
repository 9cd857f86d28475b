// Answers many `resolve` requests with a build's JavaScript package in one process, as
// bin/resolve.mjs answers one: reads a JSON array of [argv, …] on stdin and prints a
// JSON array of {"text": …, "status": …} (what bin/resolve.mjs would print, and its exit status).
// Usage: node resolve_many.mjs JS_FOLDER < requests.json
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const folder = process.argv[2];
const { PACKAGE } = await import(pathToFileURL(path.join(folder, "index.js")).href);
const { main } = await import(pathToFileURL(path.join(folder, "runtime", "resolve.js")).href);
const requests = JSON.parse(readFileSync(0, "utf8"));
const answers = requests.map((argv) => {
  const { text, status } = main(PACKAGE, argv, (p) => readFileSync(p, "utf8"));
  return { text: text + "\n", status };
});
process.stdout.write(JSON.stringify(answers));
