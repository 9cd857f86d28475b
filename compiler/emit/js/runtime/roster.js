/*
 * Rosters against army documents: the JavaScript twin of compiler/commands/roster.py.
 *
 * Generic: it knows no game. It reads an army document (json/armies/<army>.json, as
 * compiler/emit/data/to_armies.py writes it; the generated armies.js holds them) and a
 * roster (the format of schemas/roster.schema.json), and gives exactly the result of
 * rulebook.compiler.commands.roster.validate(army, roster): the same errors and
 * warnings in the same order (code, JSON path, filled message, params as texts, rule,
 * did-you-mean), each unit's cost, troops and options, the total and the budget; a
 * roster whose units are made of more than MAX_TROOPS troops throws RosterTooLarge
 * (the command line's exit 2). tests/test_army_agreement.py compares both on
 * thousands of random rosters of every bundled army.
 *
 * Also: schemaProblems(schema, roster), where a roster breaks the (small, generic)
 * subset of JSON Schema roster schemas use, at jsonschema's JSON paths; and the
 * URL-fragment encoding of a roster (JSON → UTF-8 → base64url) the site's army builder
 * shares lists with.
 *
 * An ES module with no imports; compiler/emit/js/armies.py also wraps it, with the
 * army documents, as a classic script (armies.browser.js): every export is written
 * `export function|const|class NAME` at the start of a line, and nothing else says
 * `export`. Integers beyond 2^53 are not exact here (rosters may not hold them).
 */

/** The most troops the units of a roster may be made of, counting each troop placed by a
 * composition or an option and each taken away (roster.py's MAX_TROOPS). */
export const MAX_TROOPS = 100000;

/** The units of a roster are made of more than MAX_TROOPS troops (roster.py's RosterTooLarge). */
export class RosterTooLarge extends Error {
  constructor(message) {
    super(message);
    this.name = "RosterTooLarge";
  }
}

const PLACEHOLDER = /\{(\w+)\}/g;
const hasOwn = (obj, key) => obj !== null && typeof obj === "object" && Object.prototype.hasOwnProperty.call(obj, key);
const ownValue = (obj, key) => (hasOwn(obj, key) ? obj[key] : undefined);

/** `{name}` → params[name]; unknown names stay as written. */
export function fill(template, params) {
  return template.replace(PLACEHOLDER, (m, k) => (hasOwn(params, k) ? params[k] : m));
}

// ---- difflib.SequenceMatcher(None, a, b).ratio(), code point by code point, autojunk on

/** difflib.SequenceMatcher(None, a, b).ratio(). */
export function ratio(aText, bText) {
  const a = Array.from(aText), b = Array.from(bText);
  const b2j = new Map();
  b.forEach((elt, i) => {
    if (!b2j.has(elt)) b2j.set(elt, []);
    b2j.get(elt).push(i);
  });
  if (b.length >= 200) {
    const ntest = Math.floor(b.length / 100) + 1;
    for (const [elt, idxs] of [...b2j]) if (idxs.length > ntest) b2j.delete(elt);
  }
  const nothing = [];
  function longest(alo, ahi, blo, bhi) {
    let besti = alo, bestj = blo, bestsize = 0;
    let j2len = new Map();
    for (let i = alo; i < ahi; i++) {
      const next = new Map();
      for (const j of b2j.get(a[i]) || nothing) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = (j2len.get(j - 1) || 0) + 1;
        next.set(j, k);
        if (k > bestsize) { besti = i - k + 1; bestj = j - k + 1; bestsize = k; }
      }
      j2len = next;
    }
    // no junk elements: only the first two of difflib's four extensions apply
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) { besti--; bestj--; bestsize++; }
    while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) bestsize++;
    return [besti, bestj, bestsize];
  }
  let matches = 0;
  const queue = [[0, a.length, 0, b.length]];
  while (queue.length) {
    const [alo, ahi, blo, bhi] = queue.pop();
    const [i, j, k] = longest(alo, ahi, blo, bhi);
    if (k) {
      matches += k;
      if (alo < i && blo < j) queue.push([alo, i, blo, j]);
      if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
    }
  }
  const length = a.length + b.length;
  return length ? (2.0 * matches) / length : 1.0;
}

function compareCodePoints(x, y) {
  const a = Array.from(x, (c) => c.codePointAt(0)), b = Array.from(y, (c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)[0], or null. */
export function closeMatch(word, candidates) {
  let best = null, bestScore = -1;
  for (const x of candidates) {
    const score = ratio(x, word);
    if (score < 0.6) continue;
    // heapq.nlargest over (score, x): the highest score, then the greatest string
    if (score > bestScore || (score === bestScore && compareCodePoints(x, best) > 0)) { best = x; bestScore = score; }
  }
  return best;
}

/** The did-you-mean for an unknown id: a candidate equal but for case, else the closest match (or null). */
export function suggest(value, candidates) {
  if (typeof value !== "string") return null;
  const low = value.toLowerCase();
  for (const c of candidates) if (c.toLowerCase() === low) return c;
  return closeMatch(value, candidates);
}

/** n / d to the nearest integer, halves up (n ≥ 0, d > 0): floor((2n + d) / 2d). */
export function roundHalfUp(n, d) {
  return Math.floor((2 * n + d) / (2 * d));
}

// ---- the validator

const byId = (items) => new Map(items.map((x) => [x.id, x]));

class Run {
  constructor(army) {
    this.army = army;
    this.errors = [];
    this.warnings = [];
    this.troopSteps = 0; // troops placed in and taken from the units' compositions (at most MAX_TROOPS)
  }

  add(code, path, rule, suggestion, params, severity) {
    const shown = {};
    for (const [k, v] of Object.entries(params || {})) shown[k] = String(v);
    const item = {
      severity: severity || "error", code, path,
      message: fill(hasOwn(this.army.messages, code) ? this.army.messages[code] : code, shown), params: shown,
      rule: rule || this.army.rule, suggestion: suggestion === undefined ? null : suggestion,
    };
    (item.severity === "warning" ? this.warnings : this.errors).push(item);
  }
}

/** A unit's troops in order, as list.extend and list.remove (the first one) leave them, each step in constant time. */
class Troops {
  constructor(run) {
    this.run = run;
    this.items = []; // null: taken away
    this.where = new Map(); // troop → [places, index of the first not taken]
  }

  room(count) {
    this.run.troopSteps += count;
    if (this.run.troopSteps > MAX_TROOPS) throw new RosterTooLarge(`the units are made of more than ${MAX_TROOPS.toLocaleString("en-US")} troops`);
  }

  place(troop, count) {
    this.room(count); // before anything is made: a count may be huge
    for (let n = 0; n < count; n++) this.push(troop);
  }

  extend(troops) {
    this.room(troops.length);
    for (const t of troops) this.push(t);
  }

  push(troop) {
    if (!this.where.has(troop)) this.where.set(troop, [[], 0]);
    this.where.get(troop)[0].push(this.items.length);
    this.items.push(troop);
  }

  /** Take the first `troop` away; false when there is none. */
  remove(troop) {
    this.room(1);
    const places = this.where.get(troop);
    if (places === undefined || places[1] >= places[0].length) return false;
    this.items[places[0][places[1]]] = null;
    places[1] += 1;
    return true;
  }

  listed() {
    return this.items.filter((t) => t !== null);
  }
}

function choice(run, roster, key, items, codes) {
  const [required, unknown, notAllowed] = codes;
  const value = ownValue(roster, key);
  const ids = items.map((x) => x.id);
  if (!ids.length) {
    if (value !== undefined && value !== null) run.add(notAllowed, "$." + key, null, null, {});
    return null;
  }
  if (value === undefined || value === null) {
    run.add(required, "$", null, null, { choices: ids.join(", ") });
    return null;
  }
  if (!ids.includes(value)) {
    run.add(unknown, "$." + key, null, suggest(value, ids), { value, choices: ids.join(", ") });
    return null;
  }
  return value;
}

function budgetOf(run, roster, role) {
  const b = run.army.budget;
  const sizes = byId(b.sizes);
  const sizeIds = [...sizes.keys()];
  const sizeRule = b.sizes_rule || run.army.rule;
  const hasSize = hasOwn(roster, "size"), hasPoints = hasOwn(roster, "points");
  if (hasSize && hasPoints) {
    run.add("budget-both", "$", sizeRule, null, {});
    return [null, sizeRule];
  }
  if (hasSize) {
    const size = sizes.get(roster.size);
    if (size === undefined) {
      run.add("unknown-size", "$.size", sizeRule, suggest(roster.size, sizeIds), { value: roster.size, choices: sizeIds.join(", ") });
      return [null, sizeRule];
    }
    const points = size.points;
    if (points !== null && typeof points === "object") {
      const forRole = role !== null ? ownValue(points, role) : undefined;
      return [forRole === undefined ? null : forRole, sizeRule];
    }
    return [points, sizeRule];
  }
  if (hasPoints) {
    const points = roster.points;
    if (!b.agreed) {
      run.add("agreed-not-allowed", "$.points", sizeRule, null, { choices: sizeIds.join(", ") });
      return [null, sizeRule];
    }
    if (points < b.agreed_min) {
      run.add("points-too-low", "$.points", run.army.rule, null, { min: b.agreed_min, value: points });
      return [null, run.army.rule];
    }
    const bonus = role !== null && hasOwn(b.bonus_percent, role) ? b.bonus_percent[role] : 0;
    return [points + roundHalfUp(points * bonus, 100), run.army.rule];
  }
  run.add("budget-required", "$", sizeRule, null, { choices: sizeIds.join(", ") });
  return [null, sizeRule];
}

function troopName(army, t) {
  return hasOwn(army.troops, t) && hasOwn(army.troops[t], "name") ? army.troops[t].name : t;
}

function checkUnit(run, i, unit, entries, side) {
  const army = run.army;
  const path = `$.units[${i}]`;
  const entry = entries.get(unit.entry);
  const name = ownValue(unit, "name");
  const line = {
    path, entry: entry !== undefined ? unit.entry : null, name: name === undefined ? null : name, known: entry !== undefined,
    cost: { base: 0, quality: 0, options: 0, total: 0 }, troops: [], options: [],
  };
  if (entry === undefined) {
    run.add("unknown-entry", path + ".entry", null, suggest(unit.entry, [...entries.keys()]), { value: unit.entry });
    return line;
  }
  const rule = entry.rule;
  const sides = new Map(army.sides.map((s) => [s.id, s.title]));
  if (entry.side !== null && side !== null && entry.side !== side) {
    run.add("entry-wrong-side", path + ".entry", null, null, {
      entry: entry.name, entry_side: sides.has(entry.side) ? sides.get(entry.side) : entry.side, side: sides.has(side) ? sides.get(side) : side,
    });
  }
  // quality
  let percent = 0;
  const quality = army.quality;
  if (quality !== null) {
    const values = byId(quality.values);
    const ids = [...values.keys()];
    const q = ownValue(unit, "quality");
    if (q === undefined || q === null) {
      run.add("quality-required", path, quality.rule, null, { entry: entry.name, quality: quality.title, choices: ids.join(", ") });
    } else if (!values.has(q)) {
      run.add("unknown-quality", path + ".quality", quality.rule, suggest(q, ids), { entry: entry.name, quality: quality.title, value: q, choices: ids.join(", ") });
    } else {
      percent = values.get(q).percent;
    }
  } else if (hasOwn(unit, "quality")) {
    run.add("quality-not-allowed", path + ".quality", null, null, { entry: entry.name });
  }
  // models
  let extra = 0;
  const models = entry.models;
  if (models !== null) {
    const m = ownValue(unit, "models");
    if (m === undefined || m === null) {
      run.add("models-required", path, rule, null, { entry: entry.name, min: models.min, max: models.max });
    } else if (!(models.min <= m && m <= models.max)) {
      run.add("models-range", path + ".models", rule, null, { entry: entry.name, min: models.min, max: models.max, value: m });
    } else {
      extra = m - models.min;
    }
  } else if (hasOwn(unit, "models")) {
    run.add("models-not-allowed", path + ".models", rule, null, { entry: entry.name });
  }
  // options
  const allowed = new Map(entry.options.map((k) => [army.options[k].id, army.options[k]]));
  const every = new Map(Object.values(army.options).map((o) => [o.id, o]));
  const taken = [];
  const counts = new Map();
  const unitOptions = ownValue(unit, "options") || [];
  let totals = null; // option id → times written, counted once for the first option-max
  unitOptions.forEach((oid, j) => {
    const option = allowed.get(oid);
    if (option === undefined) {
      if (every.has(oid)) {
        run.add("option-not-allowed", `${path}.options[${j}]`, null, null, { entry: entry.name, option: every.get(oid).title });
      } else {
        run.add("unknown-option", `${path}.options[${j}]`, rule, suggest(oid, [...allowed.keys()]), { entry: entry.name, value: oid });
      }
      return;
    }
    counts.set(oid, (counts.get(oid) || 0) + 1);
    if (counts.get(oid) === option.max + 1) {
      if (totals === null) {
        totals = new Map();
        for (const x of unitOptions) totals.set(x, (totals.get(x) || 0) + 1);
      }
      run.add("option-max", `${path}.options[${j}]`, option.rule, null, { entry: entry.name, option: option.title, count: totals.get(oid), max: option.max });
    }
    taken.push([j, option]);
  });
  // choices and composition
  const choosing = entry.composition.filter((s) => s.alternatives.length > 1);
  const choices = ownValue(unit, "choices") || [];
  if (choices.length !== choosing.length) {
    run.add("choices-count", hasOwn(unit, "choices") ? path + ".choices" : path, rule, null, { entry: entry.name, expected: choosing.length, count: choices.length });
  }
  const troops = new Troops(run);
  let k = 0;
  for (const slot of entry.composition) {
    let chosen = slot.alternatives[0];
    if (slot.alternatives.length > 1) {
      chosen = k < choices.length ? choices[k] : null;
      if (chosen !== null && !slot.alternatives.includes(chosen)) {
        run.add("choice-not-allowed", `${path}.choices[${k}]`, rule, suggest(chosen, slot.alternatives), {
          entry: entry.name, value: chosen, choices: slot.alternatives.map((t) => troopName(army, t)).join(", "),
        });
        chosen = null;
      }
      k += 1;
    }
    if (chosen !== null) troops.place(chosen, slot.count);
  }
  for (const [j, option] of taken) {
    for (const t of option.remove) {
      if (!troops.remove(t)) {
        run.add("option-remove-missing", `${path}.options[${j}]`, option.rule, null, { entry: entry.name, option: option.title, troop: troopName(army, t) });
      }
    }
    troops.extend(option.add);
  }
  // cost
  const own = entry.cost + entry.per_model * extra;
  const withQuality = quality !== null ? roundHalfUp(own * (100 + percent), 100) : own;
  const optionsCost = taken.reduce((sum, [, o]) => sum + o.cost, 0);
  line.cost = { base: own, quality: withQuality, options: optionsCost, total: withQuality + optionsCost };
  line.troops = troops.listed();
  line.options = taken.map(([, o]) => o.key);
  return line;
}

function checkLimits(run, lines, entries) {
  const army = run.army;
  const known = lines.filter((x) => x.known).map((x) => entries.get(x.entry));
  const categories = new Map(army.categories.map((c) => [c.id, c.title]));
  for (const limit of army.limits) {
    const kind = limit.kind, target = limit.target;
    let count, params;
    if (kind === "units") {
      count = known.length; params = {};
    } else if (kind === "category") {
      count = known.filter((e) => e.category === target).reduce((s, e) => s + e.weight, 0);
      params = { category: categories.has(target) ? categories.get(target) : target };
    } else {
      count = known.filter((e) => e.id === target).length;
      params = { entry: entries.has(target) ? entries.get(target).name : target };
    }
    if (limit.min !== null && count < limit.min) run.add(kind + "-min", "$.units", limit.rule, null, { count, min: limit.min, ...params });
    if (limit.max !== null && count > limit.max) run.add(kind + "-max", "$.units", limit.rule, null, { count, max: limit.max, ...params });
  }
}

/**
 * rulebook.compiler.commands.roster.validate(army, roster), for a roster that follows the
 * roster schema: {legal, army, errors, warnings, units, total, budget}. Throws
 * RosterTooLarge when its units are made of more than MAX_TROOPS troops.
 */
export function validate(army, roster) {
  const run = new Run(army);
  const wanted = ownValue(roster, "rulebook");
  if (wanted !== army.rulebook) {
    run.add("rulebook-mismatch", "$.rulebook", null, null, { roster: wanted === undefined || wanted === null ? "None" : wanted, rulebook: army.rulebook });
  }
  if (hasOwn(roster, "content_hash") && roster.content_hash !== army.content_hash) run.add("stale-rulebook", "$.content_hash", null, null, {}, "warning");
  const side = choice(run, roster, "side", army.sides, ["side-required", "unknown-side", "side-not-allowed"]);
  const role = choice(run, roster, "role", army.roles, ["role-required", "unknown-role", "role-not-allowed"]);
  const [budget, budgetRule] = budgetOf(run, roster, role);
  const entries = byId(army.entries);
  const lines = (ownValue(roster, "units") || []).map((unit, i) => checkUnit(run, i, unit, entries, side));
  if (!lines.length) run.add("no-units", "$.units", null, null, {});
  checkLimits(run, lines, entries);
  const total = lines.reduce((s, x) => s + x.cost.total, 0);
  if (budget !== null && total > budget) run.add("over-budget", "$", budgetRule, null, { total, budget, excess: total - budget });
  return { legal: !run.errors.length, army: army.id, errors: run.errors, warnings: run.warnings, units: lines, total, budget };
}

// ---- the roster schema (the keywords roster schemas use), as jsonschema reports paths

function typeOk(type, v) {
  switch (type) {
    case "object": return v !== null && typeof v === "object" && !Array.isArray(v);
    case "array": return Array.isArray(v);
    case "string": return typeof v === "string";
    case "integer": return typeof v === "number" && Number.isInteger(v);
    case "number": return typeof v === "number";
    case "boolean": return typeof v === "boolean";
    case "null": return v === null;
    default: return true;
  }
}

function equal(x, y) {
  if (Array.isArray(x) || Array.isArray(y)) {
    return Array.isArray(x) && Array.isArray(y) && x.length === y.length && x.every((v, i) => equal(v, y[i]));
  }
  if (x !== null && y !== null && typeof x === "object" && typeof y === "object") {
    const kx = Object.keys(x), ky = Object.keys(y);
    return kx.length === ky.length && kx.every((k) => hasOwn(y, k) && equal(x[k], y[k]));
  }
  return x === y;
}

function jsonPath(parts) {
  return "$" + parts.map((p) => (typeof p === "number" ? `[${p}]` : "." + p)).join("");
}

/** The keywords schemaProblems understands (checks, or annotations it may ignore). */
export const SCHEMA_KEYWORDS = Object.freeze(["type", "const", "enum", "minimum", "maximum", "minLength", "maxLength", "required", "properties",
  "additionalProperties", "items", "$ref", "$defs", "$id", "$schema", "title", "description"]);

function resolveRef(rootSchema, ref) {
  if (!ref.startsWith("#")) throw new Error("unsupported $ref " + ref);
  let node = rootSchema;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!hasOwn(node, key)) throw new Error("unresolvable $ref " + ref);
    node = node[key];
  }
  return node;
}

/** Where `value` breaks `schema`: [{path, keyword}], in document order ($ref: local "#/…" only). */
export function schemaProblems(schema, value, parts, rootSchema) {
  parts = parts || [];
  rootSchema = rootSchema || schema;
  const out = [];
  const here = (keyword) => out.push({ path: jsonPath(parts), keyword });
  if (schema === false) { here("false"); return out; }
  if (schema === true || schema === undefined) return out;
  if (hasOwn(schema, "$ref")) out.push(...schemaProblems(resolveRef(rootSchema, schema.$ref), value, parts, rootSchema));
  if (hasOwn(schema, "type") && !(Array.isArray(schema.type) ? schema.type : [schema.type]).some((t) => typeOk(t, value))) here("type");
  if (hasOwn(schema, "const") && !equal(schema.const, value)) here("const");
  if (hasOwn(schema, "enum") && !schema.enum.some((e) => equal(e, value))) here("enum");
  if (typeof value === "number") {
    if (hasOwn(schema, "minimum") && value < schema.minimum) here("minimum");
    if (hasOwn(schema, "maximum") && value > schema.maximum) here("maximum");
  }
  if (typeof value === "string") {
    const n = Array.from(value).length;
    if (hasOwn(schema, "minLength") && n < schema.minLength) here("minLength");
    if (hasOwn(schema, "maxLength") && n > schema.maxLength) here("maxLength");
  }
  if (typeOk("object", value)) {
    for (const key of schema.required || []) if (!hasOwn(value, key)) here("required");
    const props = schema.properties || {};
    let extra = false;
    for (const [key, v] of Object.entries(value)) {
      if (hasOwn(props, key)) out.push(...schemaProblems(props[key], v, parts.concat([key]), rootSchema));
      else if (schema.additionalProperties === false) extra = true;
      else if (hasOwn(schema, "additionalProperties")) out.push(...schemaProblems(schema.additionalProperties, v, parts.concat([key]), rootSchema));
    }
    if (extra) here("additionalProperties"); // one problem for all of an object's extra keys, as jsonschema says it
  }
  if (Array.isArray(value) && hasOwn(schema, "items")) value.forEach((v, i) => out.push(...schemaProblems(schema.items, v, parts.concat([i]), rootSchema)));
  return out;
}

// ---- a roster in a URL fragment

/** The roster as base64url of its JSON's UTF-8 (no padding). */
export function encodeRoster(roster) {
  const bytes = new TextEncoder().encode(JSON.stringify(roster));
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The roster of a fragment's base64url text; throws on bad text (the caller says so). */
export function decodeRoster(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(b64 + "===".slice((b64.length + 3) % 4));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
}
