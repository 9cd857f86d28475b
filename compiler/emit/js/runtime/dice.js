// Random variables: dice, pools of dice, bags of tokens, constants. Each has
// weighted() — its exact distribution as BigInt weights over one BigInt denominator,
// values in the runtime's order (computed once: generating polynomials and dynamic
// programming, never sides ** n tuples) — cost() (the work of computing it, known
// before), size (dice or tokens one sample draws), sample(rng), counting(kinds) and
// describe(lang). Ported from the Python runtime (rulebook.runtime.dice) with the
// same costs, so that the work limit stops the same resolutions.
import { Counts, compare, formatValue, gcd, key } from "./core.js";
import { RuleError } from "./errors.js";
import { Phrase, translate } from "./messages.js";
import { add, mul } from "./numbers.js";

export const OP_TEXT = { "==": "=", "!=": "≠", "<": "<", "<=": "≤", ">": ">", ">=": "≥" };
export const TESTS = {
  "==": (a, b) => compare(a, b) === 0, "!=": (a, b) => compare(a, b) !== 0,
  "<": (a, b) => compare(a, b) < 0, "<=": (a, b) => compare(a, b) <= 0,
  ">": (a, b) => compare(a, b) > 0, ">=": (a, b) => compare(a, b) >= 0,
};
const CACHE_PER_DIE = 1024;

const FACT = [1n];
export function factorial(n) {
  while (FACT.length <= n) FACT.push(FACT[FACT.length - 1] * BigInt(FACT.length));
  return FACT[n];
}
export function comb(n, k) {
  if (k < 0 || k > n) return 0n;
  k = Math.min(k, n - k);
  let r = 1n;
  for (let i = 1; i <= k; i++) r = (r * BigInt(n - k + i)) / BigInt(i);
  return r;
}
export const bigInts = (count) => 1 + Math.floor(count / 16);
export const isNumber = (x) => typeof x === "number" || (x !== null && typeof x === "object" && "n" in x && "d" in x);

export function checkCount(count, what, src) {
  if (typeof count !== "number" || !Number.isInteger(count)) {
    throw new RuleError("%(what)s must be an integer, not %(value)s", src, { what, value: formatValue(count) });
  }
  return count;
}

/** Base of every random variable. */
export class RandomVariable {
  constructor() { this._weighted = null; this.size = 1; }
  weighted() {
    if (this._weighted === null) {
      const [weights, total] = this._weights(); // Map key -> [value, weight]
      const items = [...weights.values()].filter(([, w]) => w !== 0n).sort((a, b) => compare(a[0], b[0]));
      let nums = items.map(([, w]) => w), den = total;
      let common = den;
      for (const w of nums) common = gcd(common, w);
      if (common > 1n) { nums = nums.map((w) => w / common); den /= common; }
      this._weighted = { values: items.map(([v]) => v), nums, den };
    }
    return this._weighted;
  }
  isComputed() { return this._weighted !== null; }
  counting(kinds) { return this; }
}

export function addWeight(map, value, w) {
  const k = key(value);
  const found = map.get(k);
  if (found) found[1] += w; else map.set(k, [value, w]);
}

export class Die extends RandomVariable {
  constructor(name, faces) {
    super();
    if (!faces.length) throw new RuleError("the die %(die)s has no faces", null, { die: name });
    this.name = name;
    this.faces = Object.freeze(faces.slice());
    this.pools = new Map();
  }
  distinctFaces() {
    const m = new Map();
    for (const f of this.faces) { const k = key(f); const e = m.get(k); if (e) e[1] += 1; else m.set(k, [f, 1]); }
    return [...m.values()];
  }
  isNumeric() { return this.faces.every(isNumber); }
  isStandard() {
    return this.name === `d${this.faces.length}` && this.faces.every((f, i) => f === i + 1);
  }
  cost() { return this.faces.length; }
  _weights() {
    const m = new Map();
    for (const [f, k] of this.distinctFaces()) addWeight(m, f, BigInt(k));
    return [m, BigInt(this.faces.length)];
  }
  sample(rng) { return this.faces[rng.below(this.faces.length)]; }
  describe() { return this.name; }
}

const STANDARD = new Map();
export function stdDie(sides) {
  if (!STANDARD.has(sides)) STANDARD.set(sides, new Die(`d${sides}`, Array.from({ length: sides }, (_, i) => i + 1)));
  return STANDARD.get(sides);
}
export function rollOne(die) { return die; }

export function poolText(die, count) { return die.isStandard() ? `${count}${die.name}` : `${count}×${die.name}`; }

export function remembered(die, keys, make) {
  const pools = die.pools;
  const rv = pools.get(keys[0]) || make();
  if (pools.size >= CACHE_PER_DIE) pools.clear();
  for (const k of keys) pools.set(k, rv);
  return rv;
}

export function powerWeights(faces, count) { // faces: [[int face, mult]]
  const lowest = Math.min(...faces.map(([f]) => f));
  const terms = faces.map(([f, m]) => [f - lowest, BigInt(m)]).sort((a, b) => a[0] - b[0]);
  const a0 = terms[0][1];
  const higher = terms.slice(1);
  const degree = count * terms[terms.length - 1][0];
  const q = new Array(degree + 1).fill(0n);
  q[0] = a0 ** BigInt(count);
  const n1 = BigInt(count + 1);
  for (let k = 1; k <= degree; k++) {
    let acc = 0n;
    for (const [i, ai] of higher) {
      if (i > k) break;
      acc += (n1 * BigInt(i) - BigInt(k)) * ai * q[k - i];
    }
    q[k] = acc / (BigInt(k) * a0);
  }
  const m = new Map();
  const base = lowest * count;
  q.forEach((w, k) => { if (w) addWeight(m, base + k, w); });
  return m;
}

export function sumWeights(faces, count, addNumbers) {
  let weights = new Map([[key(0), [0, 1n]]]);
  for (let i = 0; i < count; i++) {
    const next = new Map();
    for (const [s, w] of weights.values()) for (const [f, k] of faces) addWeight(next, addNumbers(s, f), w * BigInt(k));
    weights = next;
  }
  return weights;
}

export function keepWeights(faces, count, keepN, highest, addNumbers, mulNumber) {
  const order = faces.slice().sort((a, b) => (highest ? -1 : 1) * compare(a[0], b[0]));
  const worse = new Array(order.length).fill(0n);
  let acc = 0n;
  for (let i = order.length - 1; i >= 0; i--) { worse[i] = acc; acc += BigInt(order[i][1]); }
  const result = new Map();
  let states = new Map([[key([0, 0]), [[0, 0], 1n]]]);
  order.forEach(([face, mult], i) => {
    const next = new Map();
    const wWorse = worse[i];
    for (const [[placed, s], w] of states.values()) {
      const remaining = count - placed;
      for (let c = 0; c <= remaining; c++) {
        const ways = w * comb(remaining, c) * BigInt(mult) ** BigInt(c);
        const newPlaced = placed + c;
        const newKept = Math.min(newPlaced, keepN);
        const t = addNumbers(s, mulNumber(face, newKept - placed));
        if (newPlaced >= keepN) {
          const closed = ways * wWorse ** BigInt(count - newPlaced);
          if (closed) addWeight(result, t, closed);
        } else addWeight(next, [newPlaced, t], ways);
      }
    }
    states = new Map([...next.values()].map(([st, w]) => [key(st), [st, w]]));
  });
  return result;
}

const NUMBERS = {
  add,
  mulInt: (x, n) => mul(x, n),
  toNumber: (x) => (typeof x === "number" ? x : Number(x.n) / Number(x.d)),
};

class PoolSum extends RandomVariable {
  constructor(die, count, keep, keepN) {
    super();
    Object.assign(this, { die, count, keep, keepN });
    this.size = count;
  }
  integerFaces() { return this.die.faces.every((f) => typeof f === "number"); }
  cost() {
    const faces = this.die.distinctFaces();
    const values = faces.map(([f]) => NUMBERS.toNumber(f));
    const spread = Math.max(...values) - Math.min(...values);
    if (this.keep !== null) {
      const states = this.keepN * (this.keepN * spread + 1);
      return faces.length * states * (this.count + 1) * bigInts(this.count);
    }
    if (this.integerFaces()) return (this.count * spread + 1) * faces.length * bigInts(this.count);
    const outcomes = Number(comb(this.count + faces.length - 1, faces.length - 1));
    return outcomes * faces.length * this.count * bigInts(this.count);
  }
  _weights() {
    const total = BigInt(this.die.faces.length) ** BigInt(this.count);
    const faces = this.die.distinctFaces();
    if (this.keep !== null) {
      return [keepWeights(faces, this.count, this.keepN, this.keep === "highest", NUMBERS.add, NUMBERS.mulInt), total];
    }
    if (this.integerFaces()) return [powerWeights(faces, this.count), total];
    return [sumWeights(faces, this.count, NUMBERS.add), total];
  }
  sample(rng) {
    const rolled = [];
    for (let i = 0; i < this.count; i++) rolled.push(this.die.faces[rng.below(this.die.faces.length)]);
    let kept = rolled;
    if (this.keep !== null) {
      kept = rolled.slice().sort((a, b) => (this.keep === "highest" ? -1 : 1) * compare(a, b)).slice(0, this.keepN);
    }
    return kept.reduce((s, f) => NUMBERS.add(s, f), 0);
  }
  describe(lang) {
    const pool = poolText(this.die, this.count);
    if (this.keep === null) return pool;
    return translate(this.keep === "highest" ? "%(pool)s, keep %(n)s highest" : "%(pool)s, keep %(n)s lowest", { pool, n: this.keepN }, lang);
  }
}

export function poolSum(die, count, keep = null, keepN = null, src = null) {
  const k = `sum|${count}|${keep}|${keepN}`;
  const found = die.pools.get(k);
  if (found) return found;
  count = checkCount(count, new Phrase("the number of dice"), src);
  if (count < 0) throw new RuleError("cannot roll a negative number of dice (%(count)s)", src, { count });
  if (!die.isNumeric()) throw new RuleError("the faces of the die %(die)s cannot be added", src, { die: die.name });
  if (keep === null) keepN = count;
  else {
    keepN = checkCount(keepN, new Phrase("the number of dice to keep"), src);
    if (keepN < 0) throw new RuleError("cannot keep a negative number of dice (%(count)s)", src, { count: keepN });
    if (keepN >= count) { keep = null; keepN = count; }
  }
  if (count === 0 || keepN === 0) return remembered(die, ["sum|0|null|0", k], () => constant(0));
  return remembered(die, [`sum|${count}|${keep}|${keepN}`, k], () => new PoolSum(die, count, keep, keepN));
}

class PoolCount extends RandomVariable {
  constructor(die, count, op, threshold) {
    super();
    Object.assign(this, { die, count, op, threshold });
    this.size = count;
    this.test = (face) => TESTS[op](face, threshold);
  }
  cost() { return (this.count + 1) * bigInts(this.count); }
  _weights() {
    const sides = this.die.faces.length;
    const good = BigInt(this.die.faces.filter(this.test).length), bad = BigInt(sides) - good;
    const m = new Map();
    for (let k = 0; k <= this.count; k++) addWeight(m, k, comb(this.count, k) * good ** BigInt(k) * bad ** BigInt(this.count - k));
    return [m, BigInt(sides) ** BigInt(this.count)];
  }
  sample(rng) {
    let n = 0;
    for (let i = 0; i < this.count; i++) if (this.test(this.die.faces[rng.below(this.die.faces.length)])) n++;
    return n;
  }
  describe(lang) {
    return translate("%(pool)s, count %(op)s %(threshold)s",
      { pool: poolText(this.die, this.count), op: OP_TEXT[this.op], threshold: formatValue(this.threshold) }, lang);
  }
}

export function poolCount(die, count, op, threshold, src = null) {
  const k = `count|${count}|${op}|${key(threshold)}`;
  const found = die.pools.get(k);
  if (found) return found;
  count = checkCount(count, new Phrase("the number of dice"), src);
  if (count < 0) throw new RuleError("cannot roll a negative number of dice (%(count)s)", src, { count });
  if (op !== "==" && op !== "!=" && !(die.isNumeric() && isNumber(threshold))) {
    throw new RuleError("the faces of the die %(die)s cannot be ordered with %(op)s", src, { die: die.name, op });
  }
  return remembered(die, [k], () => new PoolCount(die, count, op, threshold));
}

function* compositions(total, bounds) {
  const capacity = bounds.reduce((a, b) => a + b, 0);
  if (total < 0 || total > capacity) return;
  if (!bounds.length) { yield []; return; }
  const [first, ...rest] = bounds;
  const restCapacity = capacity - first;
  for (let k = Math.min(first, total); k >= Math.max(0, total - restCapacity); k--) {
    for (const tail of compositions(total - k, rest)) yield [k, ...tail];
  }
}

function kindsCounted(kinds, known) {
  const unknown = kinds.filter((k) => !known.includes(k)).sort();
  if (unknown.length) throw new RuleError("there is no %(kind)r among %(known)s", null, { kind: unknown[0], known: known.join(", ") });
  return known.filter((k) => kinds.includes(k));
}

class PoolFaces extends RandomVariable {
  constructor(die, count, kinds) {
    super();
    Object.assign(this, { die, count, kinds });
    this.size = count;
    this.derived = new Map();
  }
  categories() {
    const faces = new Map(this.die.distinctFaces().map(([f, m]) => [f, m]));
    const mults = this.kinds.map((k) => faces.get(k));
    const other = this.die.faces.length - mults.reduce((a, b) => a + b, 0);
    return other ? [...mults, other] : mults;
  }
  cost() {
    const mults = this.categories();
    return Number(comb(this.count + mults.length - 1, mults.length - 1)) * mults.length * bigInts(this.count);
  }
  _weights() {
    const mults = this.categories();
    const n = this.count;
    const m = new Map();
    for (const parts of compositions(n, mults.map(() => n))) {
      let w = factorial(n);
      parts.forEach((k, i) => { w = (w * BigInt(mults[i]) ** BigInt(k)) / factorial(k); });
      addWeight(m, new Counts(this.kinds, parts.slice(0, this.kinds.length)), w);
    }
    return [m, BigInt(this.die.faces.length) ** BigInt(n)];
  }
  counting(kinds) {
    kinds = kindsCounted(kinds, this.kinds);
    if (kinds.length === this.kinds.length) return this;
    const k = kinds.join("\u0000");
    if (!this.derived.has(k)) this.derived.set(k, new PoolFaces(this.die, this.count, kinds));
    return this.derived.get(k);
  }
  sample(rng) {
    const counts = this.kinds.map(() => 0);
    for (let i = 0; i < this.count; i++) {
      const j = this.kinds.indexOf(this.die.faces[rng.below(this.die.faces.length)]);
      if (j >= 0) counts[j]++;
    }
    return new Counts(this.kinds, counts);
  }
  describe() { return poolText(this.die, this.count); }
}

export function poolFaces(die, count, src = null) {
  count = checkCount(count, new Phrase("the number of dice"), src);
  if (count < 0) throw new RuleError("cannot roll a negative number of dice (%(count)s)", src, { count });
  if (!die.faces.every((f) => typeof f === "string")) throw new RuleError("the die %(die)s has no named faces", src, { die: die.name });
  return remembered(die, [`faces|${count}`], () => new PoolFaces(die, count, die.distinctFaces().map(([f]) => f)));
}

export class Bag {
  constructor(name, tokens) {
    this.name = name;
    this.tokens = Object.freeze(tokens.map((t) => Object.freeze(t.slice())));
    this.draws = new Map();
  }
  total() { return this.tokens.reduce((s, [, n]) => s + n, 0); }
  kinds() { return this.tokens.map(([k]) => k); }
}

class BagDraw extends RandomVariable {
  constructor(bag, n, kinds) {
    super();
    Object.assign(this, { bag, n, kinds });
    this.size = n;
    this.derived = new Map();
  }
  categories() {
    const tokens = new Map(this.bag.tokens);
    const sizes = this.kinds.map((k) => tokens.get(k));
    const other = this.bag.total() - sizes.reduce((a, b) => a + b, 0);
    return other ? [...sizes, other] : sizes;
  }
  cost() {
    const sizes = this.categories();
    let ways = 1;
    for (const size of sizes) ways *= Math.min(size, this.n) + 1;
    const c = Number(comb(this.n + sizes.length - 1, Math.max(sizes.length - 1, 0)));
    return Math.min(ways, c) * sizes.length * bigInts(this.n);
  }
  _weights() {
    const sizes = this.categories();
    const m = new Map();
    for (const parts of compositions(this.n, sizes)) {
      let w = 1n;
      parts.forEach((k, i) => { w *= comb(sizes[i], k); });
      addWeight(m, new Counts(this.kinds, parts.slice(0, this.kinds.length)), w);
    }
    return [m, comb(this.bag.total(), this.n)];
  }
  counting(kinds) {
    kinds = kindsCounted(kinds, this.kinds);
    if (kinds.length === this.kinds.length) return this;
    const k = kinds.join("\u0000");
    if (!this.derived.has(k)) this.derived.set(k, new BagDraw(this.bag, this.n, kinds));
    return this.derived.get(k);
  }
  sample(rng) {
    const pool = [];
    for (const [kind, k] of this.bag.tokens) for (let i = 0; i < k; i++) pool.push(kind);
    const counts = this.kinds.map(() => 0);
    for (let i = 0; i < this.n; i++) {
      const j = i + rng.below(pool.length - i);
      [pool[i], pool[j]] = [pool[j], pool[i]];
      const c = this.kinds.indexOf(pool[i]);
      if (c >= 0) counts[c]++;
    }
    return new Counts(this.kinds, counts);
  }
  describe(lang) { return translate("draw %(n)s from %(bag)s", { n: this.n, bag: this.bag.name }, lang); }
}

export function bagDraw(bag, n, src = null) {
  n = checkCount(n, new Phrase("the number of tokens"), src);
  if (n > bag.total()) {
    throw new RuleError("cannot draw %(n)s tokens from %(bag)s: there are only %(total)s", src, { n, bag: bag.name, total: bag.total() });
  }
  if (n <= 0) return constant(new Counts(bag.kinds(), bag.kinds().map(() => 0)));
  if (!bag.draws.has(n)) bag.draws.set(n, new BagDraw(bag, n, bag.kinds()));
  return bag.draws.get(n);
}

/** The bag with tokens already taken out (removed: [[kind, n]]). */
export function bagWithout(bag, removed, src = null) {
  const out = new Map(removed);
  const tokens = bag.tokens.map(([kind, count]) => {
    const n = out.has(kind) ? out.get(kind) : 0;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0) throw new RuleError("cannot take out %(n)r tokens of %(kind)s", src, { n, kind });
    if (n > count) {
      throw new RuleError("the bag %(bag)s only has %(count)s tokens of %(kind)s; %(n)s cannot be taken out", src, { bag: bag.name, count, kind, n });
    }
    return [kind, count - n];
  });
  const unknown = [...out.keys()].filter((k) => !bag.kinds().includes(k)).sort();
  if (unknown.length) throw new RuleError("the bag %(bag)s has no tokens of %(kind)s", src, { bag: bag.name, kind: unknown[0] });
  return new Bag(bag.name, tokens);
}

/** The bag's kinds with the given numbers of tokens (counts: [[kind, n]]), others as declared. */
export function bagWith(bag, counts, src = null) {
  const given = new Map(counts);
  const unknown = [...given.keys()].filter((k) => !bag.kinds().includes(k)).sort();
  if (unknown.length) throw new RuleError("the bag %(bag)s has no tokens of %(kind)s", src, { bag: bag.name, kind: unknown[0] });
  const tokens = bag.tokens.map(([kind, declared]) => {
    const n = given.has(kind) ? given.get(kind) : declared;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0) {
      throw new RuleError("there cannot be %(n)r tokens of %(kind)s in the bag %(bag)s", src, { n, kind, bag: bag.name });
    }
    return [kind, n];
  });
  return new Bag(bag.name, tokens);
}

class Constant extends RandomVariable {
  constructor(value) { super(); this.value = value; this.size = 0; }
  cost() { return 1; }
  _weights() { const m = new Map(); addWeight(m, this.value, 1n); return [m, 1n]; }
  counting(kinds) {
    if (this.value instanceof Counts) {
      const keep = this.value.kinds.map((k, i) => [k, this.value.counts[i]]).filter(([k]) => kinds.includes(k));
      return constant(new Counts(keep.map(([k]) => k), keep.map(([, n]) => n)));
    }
    return this;
  }
  sample() { return this.value; }
  describe(lang) { return translate("fixed value %(value)s", { value: formatValue(this.value) }, lang); }
}

export function constant(value) { return new Constant(value); }

/** The roll of one place in a resolver whose number of dice varies, by number: pools.get(n) is make(n), made once. */
export class Pools {
  constructor(make) { this.make = make; this.made = new Map(); }
  get(count) {
    let rv = this.made.get(count);
    if (rv === undefined) {
      rv = this.make(count);
      if (typeof count === "number") {
        if (this.made.size >= CACHE_PER_DIE) this.made.clear();
        this.made.set(count, rv);
      }
    }
    return rv;
  }
}

/** A seeded pseudo-random generator: sfc32 (Chris Doty-Humphrey's Small Fast Counting
 * generator, 128 bits of state), its state filled from the seed by splitmix32. Sampled
 * values are reproducible for a seed in every JS engine; they are not Python's. */
export class Random {
  constructor(seed) {
    let s = BigInt.asUintN(64, BigInt(seed === null || seed === undefined ? Math.floor(Math.random() * 2 ** 52) : seed));
    let x = Number(s & 0xffffffffn) ^ Number(s >> 32n);
    const next = () => {
      x = (x + 0x9e3779b9) | 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next(); this.b = next(); this.c = next(); this.d = next();
    for (let i = 0; i < 12; i++) this.next32();
  }
  next32() {
    let { a, b, c, d } = this;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    Object.assign(this, { a, b, c, d });
    return t >>> 0;
  }
  /** A whole number in [0, n), without bias. */
  below(n) {
    const limit = Math.floor(0x100000000 / n) * n;
    let r;
    do r = this.next32(); while (r >= limit);
    return r % n;
  }
}
