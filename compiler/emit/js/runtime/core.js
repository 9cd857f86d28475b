// Values resolvers produce, and how to compare, key, order, show and serialise them.
// Imports nothing: every other runtime module builds on it.
//
// Representation: whole numbers are JS numbers, other exact decimals Frac (BigInt
// numerator and denominator); text and enum members are strings; true/false are
// booleans; none is null; lists are frozen arrays; records are frozen objects whose
// prototype names their RecordType; Counts (how many of each kind) and PMap (a map
// keyed by enum members) and RuleApp (a special rule applied) are classes below.
// Orders and keys follow the Python runtime (rulebook.runtime.values.sort_key), so
// that both backends list a distribution's outcomes in the same order.

export class Frac {
  constructor(n, d) {
    this.n = n;
    this.d = d;
    Object.freeze(this);
  }
}

export function gcd(a, b) {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b) [a, b] = [b, a % b];
  return a;
}

/** The rules number n/d (BigInts, d != 0): a number when whole, else a Frac. */
export function make(n, d) {
  if (d < 0n) { n = -n; d = -d; }
  const g = gcd(n, d);
  if (g > 1n) { n /= g; d /= g; }
  return d === 1n ? Number(n) : new Frac(n, d);
}

/** An exact number as text: "7", "-1/3". */
export function numberText(x) {
  if (typeof x === "number" || typeof x === "bigint") return String(x);
  if (typeof x === "boolean") return x ? "1" : "0";
  return `${x.n}/${x.d}`;
}

/** A record type: its name, the group it sorts in, its fields (JS property names) and their names in the rules. */
export class RecordType {
  constructor(name, group, fields, names) {
    this.name = name;
    this.group = "7:dc:" + group;
    this.fields = Object.freeze(fields.slice());
    this.names = Object.freeze(names.slice());
    this.proto = Object.create(null);
    Object.defineProperty(this.proto, "$type", { value: this, enumerable: false });
    Object.freeze(this.proto);
    Object.freeze(this);
  }
  /** A record of this type from its field values, in order. */
  make(...values) {
    const r = Object.create(this.proto);
    const fields = this.fields;
    for (let i = 0; i < fields.length; i++) r[fields[i]] = values[i];
    return Object.freeze(r);
  }
}

export function isRecord(v) {
  return v !== null && typeof v === "object" && Object.getPrototypeOf(v) !== null && v.$type instanceof RecordType;
}

/** How many of each kind (a draw from a bag, a roll of named faces), in order. */
export class Counts {
  constructor(kinds, counts) {
    this.kinds = Object.freeze(kinds.slice());
    this.counts = Object.freeze(counts.slice());
    Object.freeze(this);
  }
  get(kind) {
    const i = this.kinds.indexOf(kind);
    if (i < 0) throw new TypeError("no count of " + kind);
    return this.counts[i];
  }
}

/** A map keyed by the members of an enum (every member present), in order. */
export class PMap {
  constructor(keys, values) {
    this.keys = Object.freeze(keys.slice());
    this.values = Object.freeze(values.slice());
    Object.freeze(this);
  }
  has(key) { return this.keys.indexOf(key) >= 0; }
  get(key) { return this.values[this.keys.indexOf(key)]; }
}

/** A special rule applied with arguments: lmg(X=2) is new RuleApp("lmg", [["X", 2]]). */
export class RuleApp {
  constructor(rule, args = []) {
    this.rule = rule;
    this.args = Object.freeze(args.map((a) => Object.freeze(a.slice())));
    Object.freeze(this);
  }
  arg(name) {
    for (const [k, v] of this.args) if (k === name) return v;
    return undefined;
  }
}

export function freezeList(items) { return Object.freeze(items); }

// ---------------------------------------------------------------- keys and equality

const KEYS = new WeakMap();

/** A string equal for equal values only: what exact enumeration merges on. */
export function key(v) {
  switch (typeof v) {
    case "number": return "#" + v;
    case "string": return JSON.stringify(v);
    case "boolean": return v ? "T" : "F";
    case "bigint": return "#" + v;
  }
  if (v === null || v === undefined) return "N";
  let k = KEYS.get(v);
  if (k !== undefined) return k;
  if (v instanceof Frac) k = "#" + v.n + "/" + v.d;
  else if (Array.isArray(v)) k = "[" + v.map(key).join(",") + "]";
  else if (v instanceof Counts) k = "C(" + v.kinds.map((kind, i) => JSON.stringify(kind) + ":" + v.counts[i]).join(",") + ")";
  else if (v instanceof PMap) k = "M(" + v.keys.map((kk, i) => JSON.stringify(kk) + ":" + key(v.values[i])).join(",") + ")";
  else if (v instanceof RuleApp) k = "R(" + JSON.stringify(v.rule) + ":" + key(v.args) + ")";
  else if (isRecord(v)) {
    const t = v.$type;
    k = "{" + JSON.stringify(t.group) + ":" + t.fields.map((f) => key(v[f])).join(",") + "}";
  } else k = "?" + JSON.stringify(v);
  KEYS.set(v, k);
  return k;
}

export function eq(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return key(a) === key(b);
}

// ---------------------------------------------------------------- order

function group(v) {
  if (v === null || v === undefined) return "0:none";
  switch (typeof v) {
    case "boolean": return "1:bool";
    case "number": case "bigint": return "2:number";
    case "string": return "3:str";
  }
  if (v instanceof Frac) return "2:number";
  if (v instanceof Counts) return "5:counts";
  if (Array.isArray(v)) return "6:seq";
  if (isRecord(v)) return v.$type.group;
  if (v instanceof RuleApp) return "7:dc:rulebook.runtime.records.RuleApp";
  if (v instanceof PMap) return "9:map";
  return "z:" + typeof v;
}

function cmpNumber(a, b) {
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  const an = a instanceof Frac ? a.n : BigInt(a), ad = a instanceof Frac ? a.d : 1n;
  const bn = b instanceof Frac ? b.n : BigInt(b), bd = b instanceof Frac ? b.d : 1n;
  const l = an * bd, r = bn * ad;
  return l < r ? -1 : l > r ? 1 : 0;
}

/** Strings by code point, as Python compares them. */
export function cmpText(a, b) {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i), y = b.codePointAt(i);
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function cmpSeq(xs, ys, each) {
  const n = Math.min(xs.length, ys.length);
  for (let i = 0; i < n; i++) {
    const c = each(xs[i], ys[i]);
    if (c) return c;
  }
  return xs.length < ys.length ? -1 : xs.length > ys.length ? 1 : 0;
}

/** The total order of Python's sort_key over mixed values: -1, 0 or 1. */
export function compare(a, b) {
  const ga = group(a), gb = group(b);
  if (ga !== gb) return ga < gb ? -1 : 1;
  switch (ga) {
    case "0:none": return 0;
    case "1:bool": return a === b ? 0 : a ? 1 : -1;
    case "2:number": return cmpNumber(a, b);
    case "3:str": return cmpText(a, b);
    case "5:counts":
      return cmpSeq(a.kinds.map((k, i) => [k, a.counts[i]]), b.kinds.map((k, i) => [k, b.counts[i]]),
        (x, y) => cmpText(x[0], y[0]) || cmpNumber(x[1], y[1]));
    case "6:seq": return cmpSeq(a, b, compare);
    case "9:map":
      return cmpSeq(a.keys.map((k, i) => [k, a.values[i]]), b.keys.map((k, i) => [k, b.values[i]]),
        (x, y) => compare(x[0], y[0]) || compare(x[1], y[1]));
  }
  if (a instanceof RuleApp) return compare(a.rule, b.rule) || compare(a.args, b.args);
  if (isRecord(a)) {
    const fields = a.$type.fields;
    for (const f of fields) {
      const c = compare(a[f], b[f]);
      if (c) return c;
    }
    return 0;
  }
  return 0;
}

// ---------------------------------------------------------------- JSON and text

/** An ordered JSON object: [key, value] pairs (JS objects would reorder keys that look like integers). */
export class JsonObject {
  constructor(pairs) { this.pairs = pairs; }
}

/** A resolver value as JSON data (Frac as "n/d", records as objects of their fields by their names in the rules). */
export function toJSONable(v) {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case "number": case "string": case "boolean": return v;
    case "bigint": return Number(v);
  }
  if (v instanceof Frac) return numberText(v);
  if (Array.isArray(v)) return v.map(toJSONable);
  if (v instanceof Counts) return new JsonObject(v.kinds.map((k, i) => [k, v.counts[i]]));
  if (v instanceof PMap) return new JsonObject(v.keys.map((k, i) => [k, toJSONable(v.values[i])]));
  if (v instanceof RuleApp) return new JsonObject([["rule", v.rule], ["args", toJSONable(v.args)]]);
  if (isRecord(v)) {
    const t = v.$type;
    return new JsonObject(t.fields.map((f, i) => [t.names[i], toJSONable(v[f])]));
  }
  return String(v);
}

/** A short text for a value, as traces show it (Python's format_value). */
export function formatValue(v) {
  if (v === null || v === undefined) return "-";
  switch (typeof v) {
    case "boolean": return v ? "true" : "false";
    case "number": case "bigint": return String(v);
    case "string": return v;
  }
  if (v instanceof Frac) return numberText(v);
  if (v instanceof Counts) return "(" + v.kinds.map((k, i) => `${k}: ${v.counts[i]}`).join(", ") + ")";
  if (v instanceof PMap) return "(" + v.keys.map((k, i) => `${k}: ${formatValue(v.values[i])}`).join(", ") + ")";
  if (v instanceof RuleApp) return `RuleApp(rule: ${v.rule}, args: ${formatValue(v.args)})`;
  if (isRecord(v)) {
    const t = v.$type;
    return `${t.name}(` + t.fields.map((f, i) => `${t.names[i]}: ${formatValue(v[f])}`).join(", ") + ")";
  }
  if (Array.isArray(v)) return "[" + v.map(formatValue).join(", ") + "]";
  return String(v);
}

const NOT_PRINTABLE = /[\x00-\x1f\x7f-\xa0\xad\u034f\u061c\u115f\u1160\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u2066-\u206f\u3000\u3164\ufeff\ufff9-\ufffb\ud800-\udfff]/;

/** Python's repr of a str. */
export function textRepr(s) {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (ch === quote || ch === "\\") out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (NOT_PRINTABLE.test(ch)) {
      out += c < 0x100 ? "\\x" + c.toString(16).padStart(2, "0") : "\\u" + c.toString(16).padStart(4, "0");
    } else out += ch;
  }
  return out + quote;
}

/** Python's repr of a resolver value (lists are tuples there). */
export function pyRepr(v) {
  if (v === null || v === undefined) return "None";
  switch (typeof v) {
    case "boolean": return v ? "True" : "False";
    case "number": case "bigint": return String(v);
    case "string": return textRepr(v);
  }
  if (v instanceof Frac) return `Fraction(${v.n}, ${v.d})`;
  if (Array.isArray(v)) return v.length === 1 ? `(${pyRepr(v[0])},)` : "(" + v.map(pyRepr).join(", ") + ")";
  if (v instanceof Counts) return "Counts(" + v.kinds.map((k, i) => `${k}=${v.counts[i]}`).join(", ") + ")";
  if (v instanceof PMap) return "{" + v.keys.map((k, i) => `${textRepr(k)}: ${pyRepr(v.values[i])}`).join(", ") + "}";
  if (v instanceof RuleApp) return `RuleApp(rule=${textRepr(v.rule)}, args=${pyRepr(v.args)})`;
  if (isRecord(v)) {
    const t = v.$type;
    return `${t.name}(` + t.fields.map((f) => `${f}=${pyRepr(v[f])}`).join(", ") + ")";
  }
  return String(v);
}

/** Python's str() of a value in a message. */
export function pyStr(v) {
  if (typeof v === "string") return v;
  if (v instanceof Frac) return numberText(v);
  return pyRepr(v);
}

/** Python's repr of a float (shortest round trip; "1e-05", "0.5", "1.0"). */
export function floatRepr(x) {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mantissa, exp] = x.toExponential().split("e");
  const e = Number(exp);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  let out;
  if (e >= -4 && e < 16) {
    if (e < 0) out = "0." + "0".repeat(-e - 1) + digits;
    else if (digits.length <= e + 1) out = digits + "0".repeat(e + 1 - digits.length) + ".0";
    else out = digits.slice(0, e + 1) + "." + digits.slice(e + 1);
  } else {
    const m = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
    out = m + "e" + (e < 0 ? "-" : "+") + String(Math.abs(e)).padStart(2, "0");
  }
  return (negative ? "-" : "") + out;
}

/** Python's repr of JSON data (an input quoted in a message): lists and dicts as Python writes them. */
export function jsonRepr(v) {
  if (v === null || v === undefined) return "None";
  switch (typeof v) {
    case "boolean": return v ? "True" : "False";
    case "number": return Number.isInteger(v) ? String(v) : floatRepr(v);
    case "string": return textRepr(v);
  }
  if (Array.isArray(v)) return "[" + v.map(jsonRepr).join(", ") + "]";
  if (v instanceof JsonObject) return "{" + v.pairs.map(([k, x]) => `${textRepr(k)}: ${jsonRepr(x)}`).join(", ") + "}";
  return "{" + Object.keys(v).map((k) => `${textRepr(k)}: ${jsonRepr(v[k])}`).join(", ") + "}";
}

/** A float for dumps(): written as Python writes a float ("1.0", "1e-05"). */
export class Float {
  constructor(x) { this.x = x; }
}

/** Python's json.dumps(value, ensure_ascii=False, indent): JsonObject and plain objects keep their order. */
export function dumps(value, indent = 2) {
  const step = indent === null ? null : " ".repeat(indent);
  const write = (v, depth) => {
    if (v === null || v === undefined) return "null";
    switch (typeof v) {
      case "boolean": return v ? "true" : "false";
      case "number": return Number.isInteger(v) && Math.abs(v) < 1e21 ? String(v) : floatRepr(v);
      case "bigint": return String(v);
      case "string": return jsonText(v);
    }
    if (v instanceof Float) return floatRepr(v.x);
    let pairs = null;
    if (Array.isArray(v)) {
      if (v.length === 0) return "[]";
      const items = v.map((x) => write(x, depth + 1));
      return wrap("[", items, "]", depth);
    }
    if (v instanceof JsonObject) pairs = v.pairs;
    else pairs = Object.keys(v).map((k) => [k, v[k]]);
    if (pairs.length === 0) return "{}";
    return wrap("{", pairs.map(([k, x]) => jsonText(k) + ": " + write(x, depth + 1)), "}", depth);
  };
  const wrap = (open, items, close, depth) => {
    if (step === null) return open + items.join(", ") + close;
    const inner = "\n" + step.repeat(depth + 1);
    return open + inner + items.join("," + inner) + "\n" + step.repeat(depth) + close;
  };
  return write(value, 0);
}

/** A JSON string as Python's json.dumps(ensure_ascii=False) writes it. */
export function jsonText(s) {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const c = s.charCodeAt(i);
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20) out += "\\u" + c.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}
