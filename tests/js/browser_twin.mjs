// Loads a build's browser.js as a classic script (in a fresh V8 context, as a page opened
// from file:// would) and answers one request with its global; prints what the ES module
// answers and what the classic script answers, as JSON.
// Usage: node browser_twin.mjs JS_FOLDER GLOBAL NAME INPUT_JSON
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";
import vm from "node:vm";

const [folder, globalName, name, input] = process.argv.slice(2);
const context = vm.createContext({});
new vm.Script(readFileSync(path.join(folder, "browser.js"), "utf8"), { filename: "browser.js" }).runInContext(context);
const classic = context[globalName].resolveText(name, input, { exact: true });
const module = await import(pathToFileURL(path.join(folder, "index.js")).href);
process.stdout.write(JSON.stringify({ module: module.resolveText(name, input, { exact: true }), classic: { text: classic.text, status: classic.status } }));
