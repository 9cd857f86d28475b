// Dice with modifiers: re-rolls, explosions, several counts from one roll. The port of the
// Python runtime's rulebook.runtime.dice_mods, with the same semantics, costs and texts.
//
// dicePool(die, n, { reroll, explode, chain, keep, keepN, test, tests, tally }, src): each
// test is [op, value] ([">=", 4]) or a function of one face returning true/false (a per-die
// condition, `each d if …`), turned at once into the faces that pass it; tests is
// [[name, test], …] (count (name: TEST, …)). The distribution of one die with its
// modifiers is worked out first (a re-roll is a mixture of the die with itself, an
// explosion a convolution with the die, a test a score per face), then the pool of n such
// dice is its n-th power (generating polynomials, dynamic programming): never sides ** n
// tuples; cost() is known before computing.
//
// One die: a die whose face is a re-roll face is rolled once more and the new face stands;
// then a die whose face explodes adds one more die (itself subject to the re-roll); an added
// die explodes again only with chain K, and one original die adds at most K dice (1 without
// chain). The sum adds every face; a count counts every die, added ones included; keep keeps
// the dice whose totals (the die with the dice it added) are highest/lowest.
import { Counts, compare, formatValue, gcd, key } from "./core.js";
import { RuleError } from "./errors.js";
import { Phrase, translate } from "./messages.js";
import { add, mul } from "./numbers.js";
import {
  Die, OP_TEXT, RandomVariable, TESTS, addWeight, bigInts, checkCount, comb, constant, isNumber, keepWeights, poolText,
  powerWeights, remembered, sumWeights,
} from "./dice.js";

/** Most dice one die may add by exploding (chain K). */
export const MAX_CHAIN = 100;

const EXACT_SHAPE = 100000; // one die's work below which cost() works the die out, to know its shape exactly

const toNumber = (x) => (typeof x === "number" ? x : Number(x.n) / Number(x.d));
const big = (x) => BigInt(x);
const bigMin = (...xs) => xs.reduce((a, b) => (b < a ? b : a));

/** The distinct faces of die that pass test: [op, value] or a function of a face. */
function passing(die, test, what, src) {
  const faces = die.distinctFaces().map(([f]) => f);
  if (typeof test === "function") {
    const out = [];
    for (const face of faces) {
      const passed = test(face);
      if (typeof passed !== "boolean") {
        throw new RuleError("the condition of %(what)s must be true or false, not %(value)s", src, { what, value: formatValue(passed) });
      }
      if (passed) out.push(face);
    }
    return out;
  }
  if (!(Array.isArray(test) && test.length === 2 && Object.prototype.hasOwnProperty.call(TESTS, test[0]))) {
    throw new RuleError("invalid test %(test)r of %(what)s", src, { test, what });
  }
  const [op, value] = test;
  if (op !== "==" && op !== "!=" && !(die.isNumeric() && isNumber(value))) {
    throw new RuleError("the faces of the die %(die)s cannot be ordered with %(op)s", src, { die: die.name, op });
  }
  if (typeof value === "boolean" || !(isNumber(value) || typeof value === "string")) {
    throw new RuleError("cannot compare with %(value)s", src, { value: formatValue(value) });
  }
  return faces.filter((f) => TESTS[op](f, value));
}

const within = (faces, face) => { const k = key(face); return faces.some((f) => key(f) === k); };

/** count dice with modifiers (see the top of this module): with test, how many dice pass it
 * (a number); with tests, Counts of how many pass each; with tally (named faces), Counts of
 * each face; else the sum of the faces (numeric dice; keep/keepN as in poolSum) or, for one
 * named-face die, its face. */
export function dicePool(die, count, { reroll = null, explode = null, chain = 1, keep = null, keepN = null, test = null,
  tests = null, tally = false } = {}, src = null) {
  if (!(die instanceof Die)) throw new RuleError("a die was expected, not %(value)r", src, { value: die });
  count = checkCount(count, new Phrase("the number of dice"), src);
  if (count < 0) throw new RuleError("cannot roll a negative number of dice (%(count)s)", src, { count });
  const reFaces = reroll !== null ? passing(die, reroll, "reroll", src) : [];
  const exFaces = explode !== null ? passing(die, explode, "explode", src) : [];
  chain = exFaces.length ? checkCount(chain, new Phrase("the chain of an explosion"), src) : 0;
  if (exFaces.length && !(chain >= 1 && chain <= MAX_CHAIN)) {
    throw new RuleError("an exploding die adds from 1 to %(max)s dice, not %(n)s", src, { max: MAX_CHAIN, n: chain });
  }
  const numeric = die.isNumeric();
  let mode, names = [];
  if (test !== null) {
    mode = "count";
    names = [["", passing(die, test, "count", src)]];
  } else if (tests !== null) {
    mode = "counts";
    names = tests.map(([name, t]) => [String(name), passing(die, t, "count", src)]);
  } else if (tally) {
    mode = "counts";
    names = die.distinctFaces().map(([face]) => [face, [face]]);
    if (numeric) throw new RuleError("the die %(die)s has no named faces", src, { die: die.name });
  } else if (numeric) {
    mode = "sum";
  } else {
    mode = "face";
    if (count !== 1 || exFaces.length) throw new RuleError("the faces of the die %(die)s cannot be added", src, { die: die.name });
  }
  if (mode === "sum" && keep !== null) {
    if (keep !== "highest" && keep !== "lowest") throw new RuleError("keep must be 'highest' or 'lowest', not %(keep)r", src, { keep });
    keepN = checkCount(keepN, new Phrase("the number of dice to keep"), src);
    if (keepN < 0) throw new RuleError("cannot keep a negative number of dice (%(count)s)", src, { count: keepN });
    if (keepN >= count) { keep = null; keepN = 0; }
  } else {
    keep = null;
    keepN = 0;
  }
  if (mode === "sum" && (count === 0 || (keep !== null && keepN === 0))) return constant(0);
  const k = "mods|" + key([count, reFaces, exFaces, chain, keep, keepN, mode, names]);
  return remembered(die, [k], () => new ModdedPool(die, count, reFaces, exFaces, chain, keep, keepN, mode, names));
}

/** count dice, each re-rolled on reroll faces and exploding on explode faces (up to chain
 * added dice); their sum (mode "sum", optionally keeping keepN of the dice's totals), how
 * many pass one test ("count", names holds one), how many pass each named test ("counts"),
 * or the face of one die ("face"). */
class ModdedPool extends RandomVariable {
  constructor(die, count, reroll, explode, chain, keep, keepN, mode, names) {
    super();
    Object.assign(this, { die, count, reroll, explode, chain, keep, keepN, mode, names });
    this.size = count * (chain + 1) * (reroll.length ? 2 : 1); // the most dice one roll draws
    this.oneDie = null;
    this.derived = new Map();
  }

  // One die ------------------------------------------------------------------
  /** One die with its re-roll: [[face, weight (BigInt)]] over a denominator (a mixture:
   * a re-roll face stands only when rolled again). */
  unit() {
    const faces = this.die.distinctFaces();
    const sides = big(this.die.faces.length);
    if (!this.reroll.length) return [faces.map(([f, m]) => [f, big(m)]), sides];
    let again = 0n;
    for (const [f, m] of faces) if (within(this.reroll, f)) again += big(m);
    return [faces.map(([f, m]) => [f, big(m) * again + (within(this.reroll, f) ? 0n : big(m) * sides)]), sides * sides];
  }
  /** What one die showing face adds to the outcome. */
  score(face) {
    if (this.mode === "sum" || this.mode === "face") return face;
    if (this.mode === "count") return within(this.names[0][1], face) ? 1 : 0;
    return this.names.map(([, faces]) => (within(faces, face) ? 1 : 0));
  }
  /** The outcome of one original die with the dice it adds: [Map key -> [score, weight], denominator]. */
  one() {
    const [unit, den] = this.unit();
    const plus = this.mode === "counts" ? (a, b) => a.map((x, i) => x + b[i]) : (a, b) => add(a, b);
    const scored = unit.filter(([, w]) => w).map(([f, w]) => [f, this.score(f), w]);
    let dist = new Map();
    for (const [, s, w] of scored) addWeight(dist, s, w);
    let total = den;
    for (let i = 0; i < (this.explode.length ? this.chain : 0); i++) { // dist: one die with i explosions left
      const next = new Map();
      for (const [face, s, w] of scored) {
        if (within(this.explode, face)) {
          for (const [t, v] of dist.values()) addWeight(next, plus(s, t), w * v);
        } else addWeight(next, s, w * total);
      }
      dist = next;
      total *= den;
    }
    let common = total;
    for (const [, w] of dist.values()) common = gcd(common, w);
    const out = new Map();
    for (const [k, [s, w]] of dist) out.set(k, [s, w / common]);
    return [out, total / common];
  }
  oneCached() {
    if (this.oneDie === null) this.oneDie = this.one();
    return this.oneDie;
  }

  // The pool -------------------------------------------------------------------
  /** Known before computing: how many scores one die may have, and how far apart its
   * scores may be (in one dimension). */
  bounds() {
    const added = this.explode.length ? this.chain : 0;
    const faces = this.die.distinctFaces();
    const distinct = faces.length;
    if ((this.mode === "sum" || this.mode === "face") && this.die.isNumeric()) {
      const values = faces.map(([f]) => toNumber(f));
      const lo = Math.min(...values), hi = Math.max(...values);
      const spread = Math.trunc(Math.max(hi, hi * (added + 1)) - Math.min(lo, lo * (added + 1))) + 1;
      if (faces.every(([f]) => typeof f === "number")) return [spread, spread];
      return [Math.min(distinct ** (added + 1) * (added + 1), 1e9), spread];
    }
    if (this.mode === "face") return [distinct, 1];
    if (this.mode === "count") return [added + 2, added + 2];
    const vectors = Math.min(2 ** this.names.length, distinct);
    return [Math.min((added + 2) ** this.names.length, Number(comb(added + 1 + vectors, vectors))), added + 2];
  }
  /** The work of one() (a bound known before computing it). */
  oneDieWork() {
    const added = this.explode.length ? this.chain : 0;
    const distinct = this.die.distinctFaces().length;
    return distinct + added * distinct * this.bounds()[0];
  }
  /** How many scores one die has, and how far apart (in one dimension): worked out exactly
   * when one die is little work (it is then computed once), else bounded. */
  shape() {
    const [support, spread] = this.bounds();
    if (this.oneDieWork() > EXACT_SHAPE || this.mode === "counts") return [support, spread];
    const scores = [...this.oneCached()[0].values()].map(([s]) => s);
    if (this.mode === "face" || !scores.every(isNumber)) return [scores.length, spread];
    const numbers = scores.map(toNumber);
    return [scores.length, Math.trunc(Math.max(...numbers) - Math.min(...numbers)) + 1];
  }
  /** For vectors of counts: how many vectors one die has, the largest count of each name,
   * and the largest total of one vector (exact when one die is little work). */
  vectorShape() {
    const dims = this.names.length;
    const added = this.explode.length ? this.chain : 0;
    if (this.oneDieWork() > EXACT_SHAPE) return [this.bounds()[0], new Array(dims).fill(added + 1), (added + 1) * dims];
    const vectors = [...this.oneCached()[0].values()].map(([v]) => v);
    const most = [];
    for (let i = 0; i < dims; i++) most.push(Math.max(...vectors.map((v) => v[i])));
    return [vectors.length, most, Math.max(...vectors.map((v) => v.reduce((a, b) => a + b, 0)))];
  }
  /** More than the most dice of the pool that may pass one test: the base of the digits of
   * a vector of counts (digitsPower). */
  base() { return Math.max(2, this.count * Math.max(...this.vectorShape()[1]) + 1); }
  /** The work of a vector of counts as the digits of one number (a polynomial power, dense
   * up to the largest number) and one die at a time (over the vectors reached), as BigInts. */
  vectorCosts() {
    const [support, most, total] = this.vectorShape();
    const n = big(this.count), dims = this.names.length, b = big(this.base());
    let largest = 0n;
    for (const m of most) largest = largest * b + big(m); // one die's largest vector, as digits (a bound)
    let states = comb(this.count * total + dims, dims); // vectors whose counts add up to n * total at most
    for (const m of most) states = bigMin(states, (n * big(m) + 1n) ** big(dims));
    states = bigMin(states, comb(this.count + support - 1, support - 1));
    return [(n * largest + 1n) * big(support), n * states * big(support)];
  }
  cost() {
    const oneDie = this.oneDieWork();
    const [support, spread] = this.shape();
    const n = this.count;
    const factor = bigInts(n);
    if (this.mode === "face") return oneDie;
    if (this.keep !== null) {
      const states = this.keepN * (this.keepN * spread + 1);
      return oneDie + support * states * (n + 1) * factor;
    }
    if (this.mode === "counts" && this.names.length > 1) return oneDie + Number(bigMin(...this.vectorCosts())) * factor;
    if (this.mode === "sum" && !this.die.faces.every((f) => typeof f === "number")) {
      return oneDie + Number(comb(n + support - 1, support - 1)) * support * n * factor;
    }
    return oneDie + (n * spread + 1) * support * factor;
  }
  _weights() {
    const [one, den] = this.oneCached();
    const n = this.count;
    const total = den ** big(n);
    const items = [...one.values()];
    if (this.mode === "face") return [one, total];
    if (this.keep !== null) return [keepWeights(items, n, this.keepN, this.keep === "highest", add, mul), total];
    if (this.mode === "counts") {
      const names = this.names.map(([name]) => name);
      const m = new Map();
      if (names.length === 1) {
        for (const [k, w] of powerWeights(items.map(([s, w]) => [s[0], w]), n).values()) addWeight(m, new Counts(names, [k]), w);
        return [m, total];
      }
      const [byDigits, byDice] = this.vectorCosts();
      const found = byDigits <= byDice ? digitsPower(items, n, this.base()) : vectorPower(items, n);
      for (const [v, w] of found.values()) addWeight(m, new Counts(names, v), w);
      return [m, total];
    }
    if (items.every(([s]) => typeof s === "number")) return [powerWeights(items, n), total];
    return [sumWeights(items, n, add), total];
  }
  counting(kinds) {
    if (this.mode !== "counts") return this;
    const known = this.names.map(([name]) => name);
    const unknown = kinds.filter((k) => !known.includes(k)).sort();
    if (unknown.length) throw new RuleError("there is no %(kind)r among %(known)s", null, { kind: unknown[0], known: known.join(", ") });
    const names = this.names.filter(([name]) => kinds.includes(name));
    if (names.length === this.names.length) return this;
    const k = "mods|" + key([this.count, this.reroll, this.explode, this.chain, null, 0, "counts", names]);
    return remembered(this.die, [k], () => new ModdedPool(this.die, this.count, this.reroll, this.explode, this.chain, null, 0, "counts", names));
  }

  // Rolling ----------------------------------------------------------------------
  /** The faces that stand for one original die: its own, then those of the dice it added. */
  rollOne(rng) {
    const roll = () => this.die.sample(rng);
    let face = roll();
    if (within(this.reroll, face)) face = roll();
    const faces = [face];
    let added = 0;
    while (within(this.explode, face) && added < this.chain) {
      face = roll();
      if (within(this.reroll, face)) face = roll();
      faces.push(face);
      added += 1;
    }
    return faces;
  }
  sample(rng) {
    const dice = [];
    for (let i = 0; i < this.count; i++) dice.push(this.rollOne(rng));
    if (this.mode === "face") return dice[0][0];
    if (this.mode === "sum") {
      let totals = dice.map((faces) => faces.reduce((s, f) => add(s, f), 0));
      if (this.keep !== null) {
        totals = totals.slice().sort((a, b) => (this.keep === "highest" ? -1 : 1) * compare(a, b)).slice(0, this.keepN);
      }
      return totals.reduce((s, t) => add(s, t), 0);
    }
    const rolled = dice.flat();
    if (this.mode === "count") return rolled.filter((f) => within(this.names[0][1], f)).length;
    return new Counts(this.names.map(([name]) => name), this.names.map(([, faces]) => rolled.filter((f) => within(faces, f)).length));
  }
  describe(lang) {
    let text = poolText(this.die, this.count);
    if (this.reroll.length) text = translate("%(pool)s, re-roll %(faces)s", { pool: text, faces: facesText(this.die, this.reroll) }, lang);
    if (this.explode.length) {
      const params = { pool: text, faces: facesText(this.die, this.explode), n: this.chain };
      text = translate(this.chain === 1 ? "%(pool)s, explode %(faces)s" : "%(pool)s, explode %(faces)s, chain %(n)s", params, lang);
    }
    if (this.keep === "highest") text = translate("%(pool)s, keep %(n)s highest", { pool: text, n: this.keepN }, lang);
    else if (this.keep === "lowest") text = translate("%(pool)s, keep %(n)s lowest", { pool: text, n: this.keepN }, lang);
    if (this.mode === "count") {
      text = translate("%(pool)s, count %(faces)s", { pool: text, faces: facesText(this.die, this.names[0][1], true) }, lang);
    } else if (this.mode === "counts" && this.names.some(([name, faces]) => name !== faces[0] || faces.length !== 1)) {
      const shown = this.names.map(([name, faces]) => `${name} ${facesText(this.die, faces, true)}`).join(", ");
      text = translate("%(pool)s, count %(faces)s", { pool: text, faces: shown }, lang);
    }
    return text;
  }
}

/** Ways to reach each vector of totals with n dice of per-die scores items ([[vector, weight]]):
 * dynamic programming, one die at a time, over the totals reached so far. */
function vectorPower(items, n) {
  const dims = items[0][0].length;
  let states = new Map([[key(new Array(dims).fill(0)), [new Array(dims).fill(0), 1n]]]);
  for (let i = 0; i < n; i++) {
    const next = new Map();
    for (const [s, w] of states.values()) for (const [v, k] of items) addWeight(next, s.map((x, j) => x + v[j]), w * k);
    states = next;
  }
  return states;
}

/** vectorPower with each vector written as the digits of one number in base (no digit
 * reaches base: adding vectors adds the numbers, without carries), so that the power is
 * that of a polynomial in one variable (powerWeights). */
function digitsPower(items, n, base) {
  const dims = items[0][0].length;
  const b = BigInt(base);
  const number = (v) => v.reduce((out, digit) => out * base + digit, 0);
  const digits = (x) => {
    let r = BigInt(x);
    const out = [];
    for (let i = 0; i < dims; i++) { out.push(Number(r % b)); r /= b; }
    return out.reverse();
  };
  const out = new Map();
  for (const [x, w] of powerWeights(items.map(([v, w]) => [number(v), w]), n).values()) addWeight(out, digits(x), w);
  return out;
}

/** The faces that pass a test, short: 6, ≥ 4, ≤ 2, 1/3/5 (named faces: Blanco/Escudo);
 * counted: one face reads = 6. */
function facesText(die, faces, counted = false) {
  if (!faces.length) return "∅";
  if (counted && faces.length === 1) return `${OP_TEXT["=="]} ${die.isNumeric() ? formatValue(faces[0]) : faces[0]}`;
  if (die.isNumeric()) {
    const values = die.distinctFaces().map(([f]) => f).sort(compare);
    const chosen = faces.slice().sort(compare);
    const same = (a, b) => a.length === b.length && a.every((x, i) => compare(x, b[i]) === 0);
    if (chosen.length > 1 && same(chosen, values.filter((v) => compare(v, chosen[0]) >= 0))) return `${OP_TEXT[">="]} ${formatValue(chosen[0])}`;
    if (chosen.length > 1 && same(chosen, values.filter((v) => compare(v, chosen[chosen.length - 1]) <= 0))) {
      return `${OP_TEXT["<="]} ${formatValue(chosen[chosen.length - 1])}`;
    }
    return chosen.map(formatValue).join("/");
  }
  return faces.map(String).join("/");
}
