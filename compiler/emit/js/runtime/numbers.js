// Exact arithmetic for rules: whole numbers are JS numbers, other decimals are Frac
// (a reduced fraction of two BigInts, denominator > 1). Every operation normalises:
// a whole result is a plain number again, so equal values have one representation.
// BigInt rather than a fraction library: the generated package must run with no
// dependency and no build step in Node and in browsers, and exact probabilities need
// integers of any size, which BigInt (ES2020) gives natively.
import { Frac, make } from "./core.js";
import { RuleError } from "./errors.js";


/** A literal n/d written by the compiler. */
export function F(n, d) { return make(BigInt(n), BigInt(d)); }

export function isNumber(x) { return typeof x === "number" || x instanceof Frac; }

function parts(x) {
  if (typeof x === "number") return [BigInt(x), 1n];
  if (x instanceof Frac) return [x.n, x.d];
  if (typeof x === "boolean") return [x ? 1n : 0n, 1n];
  throw new TypeError("not a number: " + String(x));
}

export function add(a, b) {
  if (typeof a === "number" && typeof b === "number") return a + b;
  const [an, ad] = parts(a), [bn, bd] = parts(b);
  return make(an * bd + bn * ad, ad * bd);
}
export function sub(a, b) {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const [an, ad] = parts(a), [bn, bd] = parts(b);
  return make(an * bd - bn * ad, ad * bd);
}
export function mul(a, b) {
  if (typeof a === "number" && typeof b === "number") return a * b;
  const [an, ad] = parts(a), [bn, bd] = parts(b);
  return make(an * bn, ad * bd);
}
export function neg(a) { return typeof a === "number" ? -a : make(-a.n, a.d); }

/** -1, 0 or 1. */
export function cmp(a, b) {
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  const [an, ad] = parts(a), [bn, bd] = parts(b);
  const l = an * bd, r = bn * ad;
  return l < r ? -1 : l > r ? 1 : 0;
}

export function div(a, b, src = null) {
  if (cmp(b, 0) === 0) throw new RuleError("division by zero (%(a)s / 0)", src, { a });
  const [an, ad] = parts(a), [bn, bd] = parts(b);
  return make(an * bd, ad * bn);
}

function floorBig(n, d) { // d > 0
  const q = n / d;
  return (n % d !== 0n && n < 0n) ? q - 1n : q;
}
export function floor(x) { return typeof x === "number" ? Math.floor(x) : Number(floorBig(x.n, x.d)); }
export function ceil(x) { return typeof x === "number" ? Math.ceil(x) : -Number(floorBig(-x.n, x.d)); }
export function trunc(x) { return typeof x === "number" ? Math.trunc(x) : Number(x.n / x.d); }
/** Nearest whole number, halves away from zero. */
export function round(x) {
  if (typeof x === "number") return x >= 0 ? Math.floor(x + 0.5) : -Math.floor(-x + 0.5);
  const half = new Frac(1n, 2n);
  return cmp(x, 0) >= 0 ? floor(add(x, half)) : -floor(add(neg(x), half));
}
export function abs(x) { return cmp(x, 0) < 0 ? neg(x) : x; }

export function clamp(x, lo, hi, src = null) {
  if (cmp(lo, hi) > 0) throw new RuleError("clamp with inverted limits (%(lo)s > %(hi)s)", src, { lo, hi });
  const low = cmp(x, lo) >= 0 ? x : lo;
  return cmp(low, hi) <= 0 ? low : hi;
}

/** The positive terms added up to at most cap, plus every negative term. */
export function capped_sum(cap, ...terms) {
  let positive = 0, negative = 0;
  for (const t of terms) {
    if (cmp(t, 0) > 0) positive = add(positive, t);
    else if (cmp(t, 0) < 0) negative = add(negative, t);
  }
  return add(cmp(positive, cap) <= 0 ? positive : cap, negative);
}

/** The double nearest to n/d (BigInts, d > 0), rounded as Python's float(Fraction) is. */
export function ratioToFloat(n, d) {
  if (n === 0n) return 0;
  const negative = n < 0n;
  if (negative) n = -n;
  const limit = 1n << 53n;
  let value;
  if (n < limit && d < limit) value = Number(n) / Number(d);
  else {
    const shift = BigInt(Math.max(0, 66 - (n.toString(2).length - d.toString(2).length)));
    let q = (n << shift) / d;
    if ((n << shift) % d !== 0n) q |= 1n; // sticky bit: a tie is never taken for exact
    value = Number(q);
    let s = Number(shift);
    while (s > 0) { const step = Math.min(s, 1000); value /= 2 ** step; s -= step; }
  }
  return negative ? -value : value;
}
