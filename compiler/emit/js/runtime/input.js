// Inputs: JSON checked against a procedure's input schema (the JSON Schema the
// build writes under schemas/procedures/, carried by the package), with the error
// Python's `rulebook resolve` gives (jsonschema's best_match: the same message and
// JSON path), then converted into resolver values (records, rule applications,
// maps) as rulebook.runtime.records.from_input converts them.
import { JsonObject, PMap, RuleApp, Frac, jsonRepr, make, textRepr } from "./core.js";
import { InputError, RuleError } from "./errors.js";

// ---------------------------------------------------------------- JSON Schema (the keywords the build writes)

const WEAK = new Set(["anyOf", "oneOf"]);

function isObject(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }

function isType(v, t) {
  switch (t) {
    case "object": return isObject(v);
    case "array": return Array.isArray(v);
    case "string": return typeof v === "string";
    case "boolean": return typeof v === "boolean";
    case "null": return v === null;
    case "integer": return typeof v === "number" && Number.isInteger(v);
    case "number": return typeof v === "number";
  }
  return false;
}

function equal(a, b) {
  if (typeof a !== typeof b) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a), kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && equal(a[k], b[k]));
  }
  return a === b;
}

function has(o, k) { return Object.prototype.hasOwnProperty.call(o, k); }

class SchemaError {
  constructor(message, keyword, instance, schema, context = []) {
    Object.assign(this, { message, keyword, instance, schema, context, path: [], parent: null });
    for (const c of context) c.parent = this;
  }
  matchesType() {
    if (!isObject(this.schema) || !has(this.schema, "type")) return false;
    const t = this.schema.type;
    return (Array.isArray(t) ? t : [t]).some((x) => isType(this.instance, x));
  }
  absolutePath() { return this.parent ? [...this.parent.absolutePath(), ...this.path] : this.path; }
}

export class Validator {
  /** docs: relative path → schema (the procedures' input schemas and the types they refer to). */
  constructor(docs) { this.docs = docs; }

  resolve(ref, doc) {
    const [file, pointer] = ref.split("#");
    const target = file ? file.split("/").pop() : doc;
    let node = this.docs[target];
    for (const part of (pointer || "").split("/").slice(1)) node = node[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    return [node, target];
  }

  *iterErrors(instance, schema, doc) {
    if (schema === true) return;
    if (schema === false) { yield new SchemaError(`False schema does not allow ${jsonRepr(instance)}`, "false", instance, schema); return; }
    for (const k of Object.keys(schema)) {
      const v = schema[k];
      const made = [];
      const own = (message, context = []) => made.push(new SchemaError(message, k, instance, schema, context));
      const descend = (value, sub, path = null, subDoc = doc) => {
        for (const e of this.iterErrors(value, sub, subDoc)) {
          if (path !== null) e.path.unshift(path);
          made.push(e);
        }
      };
      switch (k) {
        case "$ref": { const [sub, subDoc] = this.resolve(v, doc); descend(instance, sub, null, subDoc); break; }
        case "type": {
          const types = Array.isArray(v) ? v : [v];
          if (!types.some((t) => isType(instance, t))) own(`${jsonRepr(instance)} is not of type ${types.map((t) => textRepr(t)).join(", ")}`);
          break;
        }
        case "properties":
          if (isObject(instance)) for (const p of Object.keys(v)) if (has(instance, p)) descend(instance[p], v[p], p);
          break;
        case "required":
          if (isObject(instance)) for (const p of v) if (!has(instance, p)) own(`${textRepr(p)} is a required property`);
          break;
        case "additionalProperties": {
          if (!isObject(instance)) break;
          const props = schema.properties || {};
          const extras = Object.keys(instance).filter((p) => !has(props, p));
          if (isObject(v)) for (const p of extras) descend(instance[p], v, p);
          else if (v === false && extras.length) {
            const sorted = extras.slice().sort();
            own(`Additional properties are not allowed (${sorted.map(textRepr).join(", ")} ${sorted.length === 1 ? "was" : "were"} unexpected)`);
          }
          break;
        }
        case "items":
          if (Array.isArray(instance)) instance.forEach((x, i) => descend(x, v, i));
          break;
        case "const":
          if (!equal(instance, v)) own(`${jsonRepr(v)} was expected`);
          break;
        case "enum":
          if (v.every((x) => !equal(x, instance))) own(`${jsonRepr(instance)} is not one of ${jsonRepr(v)}`);
          break;
        case "anyOf": {
          const all = [];
          let ok = false;
          for (const sub of v) {
            const errs = [...this.iterErrors(instance, sub, doc)];
            if (!errs.length) { ok = true; break; }
            all.push(...errs);
          }
          if (!ok) own(`${jsonRepr(instance)} is not valid under any of the given schemas`, all);
          break;
        }
        case "allOf":
          for (const sub of v) descend(instance, sub);
          break;
        case "maxProperties":
          if (isObject(instance) && Object.keys(instance).length > v) {
            own(`${jsonRepr(instance)} ${v === 0 ? "is expected to be empty" : "has too many properties"}`);
          }
          break;
        case "propertyNames":
          if (isObject(instance)) for (const p of Object.keys(instance)) descend(p, v);
          break;
        case "minimum":
          if (typeof instance === "number" && instance < v) own(`${jsonRepr(instance)} is less than the minimum of ${jsonRepr(v)}`);
          break;
        case "maximum":
          if (typeof instance === "number" && instance > v) own(`${jsonRepr(instance)} is greater than the maximum of ${jsonRepr(v)}`);
          break;
        case "pattern":
          if (typeof instance === "string" && !new RegExp(v, "u").test(instance)) own(`${jsonRepr(instance)} does not match ${textRepr(v)}`);
          break;
      }
      yield* made;
    }
  }

  /** "invalid input at $.x: …" for the error jsonschema's best_match would pick, or null. */
  problem(instance, doc) {
    const errors = [...this.iterErrors(instance, this.docs[doc], doc)];
    if (!errors.length) return null;
    let best = errors[0];
    for (const e of errors.slice(1)) if (compareRelevance(e, best) > 0) best = e;
    while (best.context.length) {
      const ordered = best.context.slice().sort(compareRelevance); // stable: the first of equals first
      if (ordered.length >= 2 && compareRelevance(ordered[0], ordered[1]) === 0) break;
      best = ordered[0];
    }
    return `invalid input at ${jsonPath(best.absolutePath())}: ${best.message}`;
  }
}

function comparePaths(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i]) continue;
    if (typeof a[i] === typeof b[i]) return a[i] < b[i] ? -1 : 1;
    return typeof a[i] === "number" ? -1 : 1;
  }
  return a.length - b.length;
}

function compareRelevance(a, b) {
  const keys = (e) => [-e.path.length, e.path, !WEAK.has(e.keyword), false, !e.matchesType()];
  const [x, y] = [keys(a), keys(b)];
  if (x[0] !== y[0]) return x[0] < y[0] ? -1 : 1;
  const c = comparePaths(x[1], y[1]);
  if (c) return c < 0 ? -1 : 1;
  for (const i of [2, 3, 4]) if (x[i] !== y[i]) return x[i] ? 1 : -1;
  return 0;
}

function jsonPath(path) {
  return "$" + path.map((p) => (typeof p === "number" ? `[${p}]` : `.${p}`)).join("");
}

// ---------------------------------------------------------------- conversion into resolver values

const DECIMAL_TEXT = /^[+-]?\d{1,100}(?:\.\d{1,100})?(?:\/\d{1,100})?$/;

/** Python's repr of an input cut short (a few levels, a few items, 60 characters of text), as reprlib shows it. */
export function shown(value, level = 3) {
  if (typeof value === "string") {
    const chars = [...value];
    if (chars.length <= 60) return textRepr(value);
    const cut = textRepr(chars.slice(0, 28).join("")).slice(0, -1) + "..." + textRepr(chars.slice(-29).join("")).slice(1);
    return cut;
  }
  if (Array.isArray(value)) {
    if (!value.length) return "[]";
    if (level <= 0) return "[...]";
    const items = value.slice(0, 6).map((x) => shown(x, level - 1));
    return "[" + items.join(", ") + (value.length > 6 ? ", ..." : "") + "]";
  }
  if (isObject(value)) {
    const keys = Object.keys(value);
    if (!keys.length) return "{}";
    if (level <= 0) return "{...}";
    const items = keys.slice().sort().slice(0, 6).map((k) => `${shown(k, level - 1)}: ${shown(value[k], level - 1)}`);
    return "{" + items.join(", ") + (keys.length > 6 ? ", ..." : "") + "}";
  }
  return jsonRepr(value);
}

function decimalFromText(text) {
  let [whole, den] = text.split("/");
  let sign = 1n;
  if (whole[0] === "+" || whole[0] === "-") { if (whole[0] === "-") sign = -1n; whole = whole.slice(1); }
  const [ip, fp = ""] = whole.split(".");
  let n = BigInt(ip + fp) * sign, d = 10n ** BigInt(fp.length);
  if (den !== undefined) d *= BigInt(den);
  if (d === 0n) return null;
  return make(n, d);
}

function decimalFromNumber(x) {
  if (Number.isInteger(x)) return x;
  const text = String(x);
  if (/e/i.test(text)) {
    const [m, e] = text.toLowerCase().split("e");
    const v = decimalFromText(m);
    const exp = BigInt(e);
    const n = v instanceof Frac ? v.n : BigInt(v), d = v instanceof Frac ? v.d : 1n;
    return exp >= 0n ? make(n * 10n ** exp, d) : make(n, d * 10n ** -exp);
  }
  return decimalFromText(text);
}

/** JSON input → a resolver value of the type descriptor desc; InputError names the JSON path. */
export function fromInput(value, desc, types, path = "$") {
  const kind = desc[0];
  if (kind === "opt") return value === null || value === undefined ? null : fromInput(value, desc[1], types, path);
  if (value === null || value === undefined) throw new InputError("%(path)s: a value is missing", null, { path });
  switch (kind) {
    case "int":
      if (typeof value !== "number" || !Number.isInteger(value)) throw new InputError("%(path)s: an integer was expected, not %(value)s", null, { path, value: shown(value) });
      return value;
    case "decimal": {
      let v = null;
      if (typeof value === "number") v = decimalFromNumber(value);
      else if (typeof value === "string" && DECIMAL_TEXT.test(value)) v = decimalFromText(value);
      if (v === null) throw new InputError("%(path)s: a number was expected, not %(value)s", null, { path, value: shown(value) });
      return v;
    }
    case "text": case "id":
      if (typeof value !== "string") throw new InputError("%(path)s: a text was expected, not %(value)s", null, { path, value: shown(value) });
      return value;
    case "bool":
      if (typeof value !== "boolean") throw new InputError("%(path)s: true or false was expected, not %(value)s", null, { path, value: shown(value) });
      return value;
    case "enum": {
      const values = types.enums[desc[1]];
      if (typeof value !== "string" || !values.includes(value)) {
        throw new InputError("%(path)s: %(value)s is not a value of %(enum)s (%(values)s)", null, { path, value: shown(value), enum: desc[1], values: values.join(", ") });
      }
      return value;
    }
    case "ref": {
      const rows = types.catalogs[desc[1]];
      if (typeof value !== "string" || !rows.has(JSON.stringify(value))) {
        throw new InputError("%(path)s: %(value)s is not in the catalog %(catalog)s", null, { path, value: shown(value), catalog: desc[1] });
      }
      return value;
    }
    case "rule": {
      if (typeof value === "string") return new RuleApp(value);
      const args = isObject(value) ? (value.args === undefined || value.args === null || value.args === false || value.args === 0 || value.args === "" ? {} : value.args) : null;
      if (isObject(value) && typeof value.rule === "string" && isObject(args)) {
        const pairs = Object.keys(args).sort().map((k) => [k, args[k]]);
        return new RuleApp(value.rule, pairs);
      }
      throw new InputError("%(path)s: a special rule was expected, not %(value)s", null, { path, value: shown(value) });
    }
    case "list":
      if (!Array.isArray(value)) throw new InputError("%(path)s: a list was expected", null, { path });
      return Object.freeze(value.map((x, i) => fromInput(x, desc[1], types, `${path}[${i}]`)));
    case "map": {
      if (!isObject(value)) throw new InputError("%(path)s: an object with keys of %(enum)s was expected", null, { path, enum: desc[1] });
      const keys = types.enums[desc[1]];
      return new PMap(keys, keys.map((k) => fromInput(has(value, k) ? value[k] : null, desc[2], types, `${path}.${k}`)));
    }
    case "record": {
      const [type, fields] = types.records[desc[1]];
      if (!isObject(value)) throw new InputError("%(path)s: an object %(record)s was expected", null, { path, record: desc[1] });
      const unknown = Object.keys(value).filter((k) => !fields.some((f) => f[0] === k)).sort();
      if (unknown.length) throw new InputError("%(path)s: unknown field %(field)s in %(record)s", null, { path, field: shown(unknown[0]), record: desc[1] });
      return type.make(...fields.map(([name, , fdesc]) => {
        let v = has(value, name) ? value[name] : null;
        if (v === null && fdesc[0] === "list") v = [];
        return fromInput(v, fdesc, types, `${path}.${name}`);
      }));
    }
  }
  throw new RuleError("unknown type %(type)r", null, { type: desc });
}

/** JSON inputs (an object by parameter name) → the resolver's arguments by JS name. */
export function convert(proc, inputs, types) {
  if (!isObject(inputs)) throw new InputError("$: a JSON object with the parameters was expected", null, {});
  for (const k of Object.keys(inputs)) {
    if (!proc.params.some((p) => p.name === k)) throw new InputError("$: %(key)s is not a parameter of %(procedure)s", null, { key: shown(k), procedure: proc.name });
  }
  const args = {};
  for (const p of proc.params) {
    if (has(inputs, p.name)) args[p.js] = fromInput(inputs[p.name], p.type, types, `$.${p.name}`);
    else if (!p.hasDefault && p.type[0] !== "opt") throw new InputError("$.%(param)s: the parameter is missing", null, { param: p.name });
    else if (!p.hasDefault) args[p.js] = null;
  }
  return args;
}

