// Times the exact distribution of each row (procedure, input) with a build's JavaScript
// package: best of REPEATS runs, in milliseconds, after one warm-up run.
// Usage: node js_exact_rows.mjs JS_FOLDER REPEATS < rows.json → [ms, …] (null for a row that failed)
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [folder, repeats] = [process.argv[2], Number(process.argv[3])];
const { PACKAGE } = await import(pathToFileURL(path.join(folder, "index.js")).href);
const rt = await import(pathToFileURL(path.join(folder, "runtime", "index.js")).href);
const rows = JSON.parse(readFileSync(0, "utf8"));
const times = rows.map(([name, input]) => {
  const proc = PACKAGE.procedures[name];
  try {
    const args = rt.convert(proc, input, PACKAGE.types);
    rt.exact(proc, args, { lang: PACKAGE.lang });
    let best = Infinity;
    for (let i = 0; i < repeats; i++) {
      const t = process.hrtime.bigint();
      rt.exact(proc, args, { lang: PACKAGE.lang });
      best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e6);
    }
    return best;
  } catch (err) {
    return null;
  }
});
process.stdout.write(JSON.stringify(times));
