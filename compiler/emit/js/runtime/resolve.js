// Resolving a procedure of a generated package: exact distributions and sampled runs,
// answered as `rulebook resolve --format json` answers them (same keys, same order,
// probabilities as "n/d" text and p as Python writes a float), and the command line
// of the package's bin/resolve.mjs.
import { Float, JsonObject, compare, dumps, key, make, numberText, toJSONable, Frac } from "./core.js";
import { RuleError, WorkLimitError } from "./errors.js";
import { Phrase } from "./messages.js";
import { ratioToFloat } from "./numbers.js";
import { DEFAULT_MAX_PATHS, DEFAULT_MAX_WORK, ExactContext, SampleContext, Session } from "./context.js";
import { convert } from "./input.js";

function inLanguage(err, lang) {
  if (err instanceof RuleError) return err.inLanguage(lang);
  if (err instanceof RangeError && /call stack/i.test(String(err.message))) {
    return new WorkLimitError("too much work: the resolution nests more procedure calls than fit (%(limit)s at most; %(where)s). Reduce the data",
      null, { limit: "the JavaScript stack", where: "" }, lang);
  }
  return err;
}

/** The exact distribution of a procedure: [[outcome, numerator (BigInt)], …] in the runtime's order, and the denominator. */
export function exact(proc, args, { maxWork = DEFAULT_MAX_WORK, maxPaths = DEFAULT_MAX_PATHS, lang = "es" } = {}) {
  try {
    const ctx = new ExactContext(new Session(maxWork, maxPaths));
    const [pairs, den] = ctx.weightedResults(proc.fn, args);
    pairs.sort((a, b) => compare(a[0], b[0]));
    return { pairs, den };
  } catch (err) {
    throw inLanguage(err, lang);
  }
}

/** One random run: the result and (with trace) its Trace. A run without trace that fails
 * with a work limit (or a rule error citing no line) is replayed with a trace, the same dice,
 * and its error, which says where the run was, is the one thrown (runtime.sample does so). */
export function sample(proc, args, { seed = null, trace = true, maxWork = DEFAULT_MAX_WORK, lang = "es" } = {}) {
  if (seed === null || seed === undefined) seed = Math.floor(Math.random() * 2 ** 52);
  try {
    const ctx = new SampleContext(seed, trace, maxWork, lang);
    const result = proc.fn(ctx, args);
    return { result, trace: ctx.trace };
  } catch (err) {
    throw inLanguage(trace ? err : located(err, proc, args, seed, maxWork, lang), lang);
  }
}

function located(failure, proc, args, seed, maxWork, lang) {
  if (!(failure instanceof RuleError) || (failure.src && !(failure instanceof WorkLimitError))) return failure;
  try {
    proc.fn(new SampleContext(seed, true, maxWork, lang), args);
  } catch (err) {
    return err instanceof RuleError ? err : failure;
  }
  return failure;
}

/** The probability n/den as "n/d" text (reduced). */
function probabilityText(n, den) { return numberText(make(n, den)); }

/** The distribution as resolve prints it: [{outcome, probability, p}]. */
export function distributionJSON({ pairs, den }) {
  return pairs.map(([o, n]) => new JsonObject([
    ["outcome", toJSONable(o)],
    ["probability", probabilityText(n, den)],
    ["p", new Float(ratioToFloat(n, den))],
  ]));
}

/** The mean of numeric outcomes (bools count 0/1), or undefined. */
export function mean({ pairs, den }) {
  let total = 0n, scale = 1n;
  for (const [o, n] of pairs) {
    let on, od;
    if (typeof o === "number" && Number.isInteger(o)) { on = BigInt(o); od = 1n; }
    else if (typeof o === "boolean") { on = o ? 1n : 0n; od = 1n; }
    else if (o instanceof Frac) { on = o.n; od = o.d; }
    else return undefined;
    total = total * od + on * n * scale;
    scale *= od;
  }
  return make(total, den * scale);
}

/** An answer that cannot be given: its message and the exit status of the command. */
export class RequestProblem extends Error {
  constructor(message, status = 1) { super(message); this.status = status; }
}

/** The answer to one request, as the JSON object (ordered) `rulebook resolve --format json` prints. */
export function answer(pkg, name, data, { seed = null, exact: isExact = false, explain = false, maxWork = DEFAULT_MAX_WORK } = {}) {
  const proc = typeof name === "string" && Object.prototype.hasOwnProperty.call(pkg.procedures, name) ? pkg.procedures[name] : null;
  if (!name) throw new RequestProblem("name a procedure (see `rulebook resolve --list`)", 2);
  if (proc === null) {
    const lower = String(name).toLowerCase();
    const guess = Object.keys(pkg.procedures).find((p) => p.toLowerCase() === lower);
    throw new RequestProblem(`unknown procedure '${name}'` + (guess ? `; did you mean '${guess}'?` : ""), 2);
  }
  if (!isExact && (seed === null || seed === undefined)) {
    throw new RequestProblem("give --seed N for a sampled resolution or --exact for the exact distribution", 2);
  }
  const problem = pkg.validator ? pkg.validator.problem(data, `${name}.input.schema.json`) : null;
  if (problem !== null) throw new RequestProblem(problem);
  try {
    let args;
    try {
      args = convert(proc, data, pkg.types);
    } catch (err) {
      throw inLanguage(err, pkg.lang);
    }
    if (isExact) {
      const dist = exact(proc, args, { maxWork, lang: pkg.lang });
      const out = [["procedure", name], ["input", data], ["distribution", distributionJSON(dist)]];
      const m = mean(dist);
      if (m !== undefined) out.push(["mean", toJSONable(m)]);
      if (explain) out.push(["steps", proc.steps]);
      return new JsonObject(out);
    }
    const { result, trace } = sample(proc, args, { seed, trace: explain, maxWork, lang: pkg.lang });
    const out = [["procedure", name], ["input", data], ["seed", seed], ["result", toJSONable(result)]];
    if (explain && trace !== null) out.push(["trace", trace.toJSON()]);
    return new JsonObject(out);
  } catch (err) {
    if (err instanceof RuleError) throw new RequestProblem(err.toString());
    throw err;
  }
}

/** Ordered JSON (JsonObject) as plain JavaScript data. */
export function plain(v) {
  if (v instanceof JsonObject) {
    const o = {};
    for (const [k, x] of v.pairs) Object.defineProperty(o, k, { value: plain(x), enumerable: true, writable: true, configurable: true });
    return o;
  }
  if (v instanceof Float) return v.x;
  if (Array.isArray(v)) return v.map(plain);
  return v;
}

const MAX_MESSAGE = 600;
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\n\t]/g;

function shorten(message) {
  const chars = [...message];
  return chars.length <= MAX_MESSAGE ? message : chars.slice(0, MAX_MESSAGE - 160).join("") + " … " + chars.slice(-150).join("");
}

/** A message on one line, control characters written as Python escapes. */
export function escaped(text) {
  return text.replace(CONTROL, (ch) => {
    if (ch === "\n") return "\\n";
    if (ch === "\t") return "\\t";
    const c = ch.charCodeAt(0);
    return c < 0x100 ? "\\x" + c.toString(16).padStart(2, "0") : "\\u" + c.toString(16).padStart(4, "0");
  });
}

/** The text `rulebook resolve --format json` prints for a request, and its exit status. */
export function resolveText(pkg, name, inputText, options = {}) {
  try {
    if (!name) throw new RequestProblem("name a procedure (see `rulebook resolve --list`)", 2);
    if (typeof name !== "string" || !Object.prototype.hasOwnProperty.call(pkg.procedures, name)) answer(pkg, name, {}, { exact: true });
    if (!options.exact && (options.seed === null || options.seed === undefined)) {
      throw new RequestProblem("give --seed N for a sampled resolution or --exact for the exact distribution", 2);
    }
    let data;
    try {
      data = JSON.parse(inputText);
    } catch (err) {
      throw new RequestProblem(`--input is not valid JSON: ${err.message}`, 2);
    }
    return { text: dumps(answer(pkg, name, data, options)), status: 0 };
  } catch (err) {
    if (!(err instanceof RequestProblem)) throw err;
    return { text: dumps(new JsonObject([["error", escaped(shorten(err.message))]])), status: err.status };
  }
}

/** The command line of bin/resolve.mjs: NAME --input JSON|@file (--exact | --seed N) [--explain] [--max-work N] [--list]. */
export function main(pkg, argv, readFile) {
  const options = { exact: false, seed: null, explain: false, maxWork: DEFAULT_MAX_WORK };
  let name = null, input = "{}", list = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--exact") options.exact = true;
    else if (a === "--explain") options.explain = true;
    else if (a === "--list") list = true;
    else if (a === "--seed") options.seed = Number(argv[++i]);
    else if (a === "--max-work") options.maxWork = Number(argv[++i]);
    else if (a === "--input") input = argv[++i];
    else if (a === "--format") { if (argv[++i] !== "json") return { text: "only --format json is supported", status: 2 }; }
    else if (a.startsWith("--")) return { text: `unknown option ${a}`, status: 2 };
    else name = a;
  }
  if (list) {
    const items = Object.values(pkg.procedures).map((p) => new JsonObject([
      ["name", p.name], ["title", p.title], ["source", p.ref],
      ["params", p.params.map((q) => new JsonObject([["name", q.name], ["type", q.typeText], ["required", !q.hasDefault && q.type[0] !== "opt"]]))],
      ["result", p.result], ["defined_at", p.src],
    ]));
    return { text: dumps(items), status: 0 };
  }
  if (input.startsWith("@")) {
    try {
      input = readFile(input.slice(1));
    } catch (err) {
      return { text: dumps(new JsonObject([["error", `cannot read --input file ${input.slice(1)}: ${err.message}`]])), status: 2 };
    }
  }
  return resolveText(pkg, name, input, options);
}

/** Runtime values as deeply frozen JSON data: a Map of names → an object; a catalog (a table
 * keyed by ids) → an object by id; another table → its rows, [key, value] (a key of several
 * values an array; a range row [lo, lo_inclusive, hi, hi_inclusive, value]). */
export function frozenJSON(value, depth = 0) {
  const freeze = (v) => {
    if (v instanceof Map && depth === 0) {
      const o = Object.create(null);
      for (const [k, x] of v) o[k] = frozenJSON(x, 1);
      return Object.freeze(o);
    }
    if (v instanceof Map && v.rows && v.rows.every(([k]) => typeof k === "string")) {
      const o = Object.create(null);
      for (const [k, x] of v.rows) o[k] = frozenJSON(x, 2);
      return Object.freeze(o);
    }
    if (v instanceof Map && v.rows) return deepFreeze(v.rows.map(([k, x]) => [plain(toJSONable(k)), frozenJSON(x, 2)]));
    const j = plain(toJSONable(v));
    return deepFreeze(j);
  };
  return freeze(value);
}

function deepFreeze(v) {
  if (v !== null && typeof v === "object") {
    for (const k of Object.keys(v)) deepFreeze(v[k]);
    Object.freeze(v);
  }
  return v;
}
