// What generated resolvers call besides dice: table and catalog lookups, list
// indexing, ordered enums, special rules and the built-in functions of the rules
// language. Failures are RuleErrors citing the .rules line (src).
import { Frac, PMap, RuleApp, compare, formatValue, key } from "./core.js";
import { RuleError } from "./errors.js";
import { add, cmp } from "./numbers.js";

/** A table or catalog: [key, value] pairs (a key of several values is an array) → a Map by key(). */
export function table(rows) {
  const m = new Map();
  for (const [k, v] of rows) m.set(key(k), v);
  Object.defineProperty(m, "rows", { value: rows });
  return m;
}

/** An enum's members in order, with their positions (ord). */
export function enumType(values) {
  const ord = Object.create(null);
  values.forEach((v, i) => { ord[v] = i; });
  return Object.freeze({ values: Object.freeze(values.slice()), ord: Object.freeze(ord) });
}

export function lookup(mapping, k, tableName, src) {
  if (mapping instanceof PMap) {
    if (mapping.has(k)) return mapping.get(k);
  } else {
    const found = mapping.get(key(k));
    if (found !== undefined) return found;
  }
  throw new RuleError("there is no row for %(key)r in the table %(table)s", src, { key: k, table: tableName });
}

/** `mapping[k]` in the one of `mappings` that has `k` (their keys are unique among them). */
export function lookupAmong(mappings, k, tableNames, src) {
  for (const mapping of mappings) {
    const found = mapping instanceof PMap ? (mapping.has(k) ? mapping.get(k) : undefined) : mapping.get(key(k));
    if (found !== undefined) return found;
  }
  throw new RuleError("there is no row for %(key)r in the table %(table)s", src, { key: k, table: tableNames });
}

export function lookupRange(rows, k, tableName, src) {
  if (!(typeof k === "number" || k instanceof Frac || typeof k === "boolean")) {
    throw new RuleError("the table %(table)s needs a number, not %(key)r", src, { table: tableName, key: k });
  }
  for (const [lo, loIn, hi, hiIn, value] of rows) {
    if (lo !== null) {
      const c = cmp(k, lo);
      if (c < 0 || (c === 0 && !loIn)) continue;
    }
    if (hi !== null) {
      const c = cmp(k, hi);
      if (c > 0 || (c === 0 && !hiIn)) continue;
    }
    return value;
  }
  throw new RuleError("there is no row for %(key)r in the table %(table)s", src, { key: k, table: tableName });
}

export function index(seq, i, src) {
  if (typeof i === "number" && Number.isInteger(i) && i >= 0 && i < seq.length) return seq[i];
  if (typeof i !== "number" || !Number.isInteger(i)) {
    throw new RuleError("the index must be an integer, not %(value)s", src, { value: formatValue(i) });
  }
  throw new RuleError("index %(i)s out of range: the list has %(n)s elements", src, { i, n: seq.length });
}

/** obj.field for an optional obj: a RuleError when it is none. */
export function field(obj, name, ruleName, src) {
  if (obj === null || obj === undefined) {
    throw new RuleError("there is no value to read '%(name)s' from", src, { name: ruleName });
  }
  return obj[name];
}

export function ordinal(values, current, src = null) {
  const i = values.indexOf(current);
  if (i < 0) throw new RuleError("%(value)r is not one of %(values)s", src, { value: current, values: values.join(", ") });
  return i;
}

export function shift(values, current, n, src = null) {
  if (typeof n !== "number" || !Number.isInteger(n)) {
    throw new RuleError("shift needs an integer offset, not %(value)s", src, { value: formatValue(n) });
  }
  const position = ordinal(values, current, src);
  return values[Math.min(Math.max(position + n, 0), values.length - 1)];
}

// ---------------------------------------------------------------- built-in functions

function numeric(values) { return values.length === 1 && Array.isArray(values[0]) ? values[0] : values; }

export function min(...values) {
  let best;
  for (const v of numeric(values)) if (best === undefined || compare(v, best) < 0) best = v;
  return best;
}
export function max(...values) {
  let best;
  for (const v of numeric(values)) if (best === undefined || compare(v, best) > 0) best = v;
  return best;
}
export function smallest(values, src = null) {
  if (values.length === 0) throw new RuleError("min() of an empty list: there is no value", src, {});
  return min(...values);
}
export function largest(values, src = null) {
  if (values.length === 0) throw new RuleError("max() of an empty list: there is no value", src, {});
  return max(...values);
}
export function sum(values) { let total = 0; for (const v of values) total = add(total, v); return total; }
export function len(values) { return values.length; }
export function any(values) { return values.some((v) => v); }
export function all(values) { return values.every((v) => v); }
export function contains(values, v) { const k = key(v); return values.some((x) => key(x) === k); }

/** The values of a stack that apply (not 0), in order. */
export function applied(values) { return Object.freeze(values.filter((v) => !(typeof v === "number" ? v === 0 : cmp(v, 0) === 0))); }

// ---------------------------------------------------------------- special rules

export function hasRule(rules, rule) { return rules.some((r) => r.rule === rule); }

export function ruleParam(rules, rule, param) {
  for (const r of rules) {
    if (r.rule === rule) {
      const v = r.arg(param);
      return v === undefined ? null : v;
    }
  }
  return null;
}

/** rules followed by the applications they grant, down the chain, each rule once per rule listed. */
export function granted(rules, grants) {
  const found = rules.slice();
  for (const r of rules) {
    const seen = new Set([r.rule]);
    const pending = (grants.get(r.rule) || []).slice().reverse();
    while (pending.length) {
      const app = pending.pop();
      if (seen.has(app.rule)) continue;
      seen.add(app.rule);
      found.push(app);
      pending.push(...(grants.get(app.rule) || []).slice().reverse());
    }
  }
  return Object.freeze(found);
}

/** A parameter of a rule applied several times, combined as the rule declares (sum, max, min). */
export function stackedParam(rules, rule, param, how) {
  const values = rules.filter((r) => r.rule === rule).map((r) => r.arg(param)).filter((v) => v !== undefined && v !== null);
  if (!values.length) return null;
  if (how === "sum") return sum(values);
  return how === "max" ? max(...values) : min(...values);
}


/** A list of the rules: a frozen array. */
export function list(...items) { return Object.freeze(items); }
export const EMPTY = Object.freeze([]);

/** xs + ys (+ …): one list of the items of each, in order. */
export function concat(...lists) {
  const out = [];
  for (const xs of lists) for (const x of xs) out.push(x);
  return Object.freeze(out);
}

/** lo..hi: the whole numbers from lo to hi, both included (none when hi < lo), as Python's
 * range(lo, hi + 1): not built as an array, so that ctx.loop sees its length (and refuses
 * a range past the work limit) before a single number is made. */
export class IntRange {
  constructor(lo, hi) {
    this.lo = lo;
    this.length = Math.max(0, hi - lo + 1);
    Object.freeze(this);
  }
  *[Symbol.iterator]() {
    for (let i = 0; i < this.length; i++) yield this.lo + i;
  }
}

export function range(lo, hi) { return new IntRange(lo, hi); }

/** [body(x) for x in items if cond(x)], each element's condition then body in turn. */
export function comprehend(items, cond, body) {
  const out = [];
  for (const x of items) if (cond === null || cond(x)) out.push(body(x));
  return Object.freeze(out);
}
