// Contexts: what generated resolvers receive first (ctx). ctx.roll(rv, …) is their
// only source of randomness; ctx.call runs a procedure that rolls dice; ctx.repeat
// runs the body of a repeat … until; ctx.loop announces a loop over a list; ctx.runs
// gives the run numbers of a bounded loop (repeat [at most] N times), each counted as
// work; ctx.sources gives a stack's modifiers; ctx.enter/leave/step/let report where
// the resolver is.
//
// SampleContext resolves one random run (seeded, with an optional Trace citing the
// .rules lines). ExactContext is the exact engine of the Python runtime, ported: the
// resolver is replayed once per explored outcome; a roll names what the rest of the
// procedure still reads (state, from the compiler's liveness analysis), and two paths
// reaching the same roll in equal states share their future, computed once (each
// outcome's state is taken when the roll is made, while the resolver's locals hold
// this run's values: a bounded loop gives them new ones in each run). Both
// count their work against max_work and stop with the same WorkLimitError.
import { JsonObject, formatValue, gcd, key, toJSONable } from "./core.js";
import { RuleError, WorkLimitError } from "./errors.js";
import { Described, Joined, Phrase, translate } from "./messages.js";
import { Random } from "./dice.js";

export const DEFAULT_MAX_WORK = 5000000;
export const DEFAULT_MAX_PATHS = 2000000;
export const TRACED_RUNS = 100;

function short(value) {
  const text = formatValue(value);
  return [...text].length <= 60 ? text : [...text].slice(0, 57).join("") + "…";
}

function where(frame, label, chain) {
  const parts = [];
  if (frame !== null) {
    const [name, args, step] = frame;
    if (step === null) parts.push(new Phrase("in %(procedure)s", { procedure: name }));
    else parts.push(new Phrase("in %(procedure)s, step %(step)s «%(label)s»", { procedure: name, step: step[0], label: step[1] }));
    if (!chain.length || chain[chain.length - 1][0] !== name) chain = [...chain, [name, args]];
  }
  if (label) parts.push(label);
  for (const [name, args] of chain.slice().reverse()) {
    const shown = Object.keys(args).map((k) => `${k} = ${short(args[k])}`).join(", ");
    if (shown) parts.push(new Phrase("data of %(procedure)s: %(data)s", { procedure: name, data: shown }));
    else parts.push(new Phrase("data of %(procedure)s: (none)", { procedure: name }));
  }
  return new Joined(parts, "; ");
}

function repeatWhere(procedure, step) {
  if (!procedure) return "";
  if (step === null || step === undefined) return new Phrase("in %(procedure)s", { procedure });
  return new Phrase("in %(procedure)s, step %(step)s", { procedure, step });
}

function nonEmpty(w) { return w instanceof Joined ? !w.empty : Boolean(w); }

export function overLimit(what, limit, whereText, src) {
  const message = nonEmpty(whereText)
    ? "too much work: %(what)s exceed the limit of %(limit)s units of work (%(where)s). Reduce the data or raise the limit (max_work; on the command line, --max-work)"
    : "too much work: %(what)s exceed the limit of %(limit)s units of work. Reduce the data or raise the limit (max_work; on the command line, --max-work)";
  return new WorkLimitError(message, src, { what, limit, where: whereText });
}

function notRandom(rv, src) {
  return new RuleError("cannot roll %(value)r: it is not random", src, { value: rv });
}

// ---------------------------------------------------------------- traces

export class Trace {
  constructor(lang) { this.lang = lang; this.events = []; this.stack = []; }
  sink() {
    if (!this.stack.length) return this.events;
    const frame = this.stack[this.stack.length - 1];
    return frame.steps.length ? frame.steps[frame.steps.length - 1].events : frame.events;
  }
  get current() { return this.stack.length ? this.stack[this.stack.length - 1] : null; }
  enter(name, title, ref, src, args) {
    const frame = { kind: "procedure", name, title, ref, src, args, events: [], steps: [], result: null, finished: false };
    this.sink().push(frame);
    this.stack.push(frame);
  }
  leave(result) { const frame = this.stack.pop(); frame.result = result; frame.finished = true; }
  step(number, label, ref, src) {
    const step = { number, label, ref, src, events: [] };
    if (this.stack.length) this.stack[this.stack.length - 1].steps.push(step);
    else this.events.push({ kind: "procedure", name: "", title: "", ref: null, src: null, args: {}, events: [], steps: [step], result: null, finished: true });
  }
  let(name, value, src) { this.sink().push({ kind: "let", name, value, src }); }
  roll(label, description, value, src) { this.sink().push({ kind: "roll", label, description, value, src }); }
  toJSON() {
    const event = (e) => {
      if (e.kind === "let") return new JsonObject([["kind", "let"], ["name", e.name], ["value", toJSONable(e.value)], ["src", e.src]]);
      if (e.kind === "roll") {
        return new JsonObject([["kind", "roll"], ["label", e.label], ["description", e.description], ["value", toJSONable(e.value)], ["src", e.src]]);
      }
      return new JsonObject([
        ["kind", "procedure"], ["name", e.name], ["title", e.title], ["ref", e.ref], ["src", e.src],
        ["args", new JsonObject(Object.keys(e.args).map((k) => [k, toJSONable(e.args[k])]))],
        ["events", e.events.map(event)],
        ["steps", e.steps.map((s) => new JsonObject([["number", s.number], ["label", s.label], ["ref", s.ref], ["src", s.src], ["events", s.events.map(event)]]))],
        ["result", toJSONable(e.result)], ["finished", e.finished],
      ]);
    };
    return new JsonObject([["events", this.events.map(event)]]);
  }
}

// ---------------------------------------------------------------- sampling

export class SampleContext {
  constructor(seed = null, trace = true, maxWork = DEFAULT_MAX_WORK, lang = "es") {
    this.rng = new Random(seed);
    this.trace = trace ? new Trace(lang) : null;
    this.work = 0;
    this.maxWork = maxWork;
    this.lang = lang;
  }
  roll(rv, label = "", src = null, state = null, reads = null) {
    if (!rv || typeof rv.sample !== "function") throw notRandom(rv, src);
    this.work += rv.size;
    if (this.work > this.maxWork) {
      this.work -= rv.size;
      throw this.over(new Phrase("%(n)s dice or tokens (%(roll)s)", { n: rv.size, roll: new Described(rv) }), label, src);
    }
    const value = rv.sample(this.rng);
    if (this.trace !== null) this.trace.roll(label, rv.describe(this.lang), value, src);
    return value;
  }
  call(fn, args, src = null, state = null) { return fn(this, args); }
  loop(items) {
    const work = this.work + items.length;
    if (work > this.maxWork) throw this.over(new Phrase("%(n)s elements looped over", { n: items.length }), "", null);
    this.work = work;
    return items;
  }
  *runs(count, src = null) {
    for (let number = 1; number <= count; number++) {
      if (this.work + 1 > this.maxWork) throw this.over(new Phrase("%(n)s runs of a loop", { n: number }), "", src);
      this.work += 1;
      if (this.trace !== null) this.trace.let(translate("run", null, this.trace.lang), number, src);
      yield number;
    }
  }
  repeat(fn, args, src = null, until = "", procedure = "", step = null, state = null) {
    let runs = 0;
    const trace = this.trace;
    try {
      for (;;) {
        if (runs === TRACED_RUNS) this.trace = null;
        let done, values;
        try {
          [done, values] = fn(this, args);
        } catch (err) {
          if (!(err instanceof WorkLimitError) || !runs) throw err;
          [done, values] = [false, []];
          this.work = this.maxWork;
        }
        runs += 1;
        if (this.trace !== null) this.trace.let(`until ${until}`, done, src);
        if (done) return values;
        if (this.work + 1 > this.maxWork) {
          throw overLimit(new Phrase("%(n)s repeats without «%(until)s» holding in one resolution", { n: runs, until }),
            this.maxWork, repeatWhere(procedure, step), src);
        }
        this.work += 1;
      }
    } finally {
      this.trace = trace;
      if (trace !== null && runs > TRACED_RUNS) trace.let(translate("runs of the repeat not shown", null, trace.lang), runs - TRACED_RUNS, src);
    }
  }
  sources(items, src = null) {
    const applied = items.filter(([, v]) => !isZero(v));
    if (this.trace !== null) for (const [source, v] of applied) this.trace.let(`«${source}»`, v, src);
    return Object.freeze(applied.map(([, v]) => v));
  }
  over(what, label, src) {
    let frame = null;
    if (this.trace !== null && this.trace.current !== null) {
      const c = this.trace.current;
      const step = c.steps.length ? [c.steps[c.steps.length - 1].number, c.steps[c.steps.length - 1].label] : null;
      frame = [c.name, c.args, step];
    }
    return overLimit(new Phrase("%(what)s in one resolution", { what }), this.maxWork, where(frame, label, []), src);
  }
  enter(name, title, ref, src, args) { if (this.trace !== null) this.trace.enter(name, title, ref, src, args); }
  leave(result) { if (this.trace !== null) this.trace.leave(result); return result; }
  step(number, label, ref, src) { if (this.trace !== null) this.trace.step(number, label, ref, src); }
  let(name, value, src = null) { if (this.trace !== null) this.trace.let(name, value, src); return value; }
}

function isZero(v) { return typeof v === "number" ? v === 0 : false; }

// ---------------------------------------------------------------- exact enumeration

class Known { constructor(dist) { this.dist = dist; } }

/** The results of a procedure call or repeat as a choice, weighted like a random variable's. */
class Results {
  constructor(name, values, nums, den) {
    this.name = name;
    this.size = 0;
    this._w = { values, nums, den };
  }
  weighted() { return this._w; }
  isComputed() { return true; }
  describe(lang) { return translate("result of %(procedure)s", { procedure: this.name }, lang); }
}

function bigLcm(a, b) { return (a / gcd(a, b)) * b; }

class Node {
  constructor(rv, weighted, site, state, whereAt) {
    this.rv = rv;
    this.where = whereAt;
    this.values = weighted.values;
    this.nums = weighted.nums;
    this.den = weighted.den;
    this.idx = -1;
    this.site = site;
    // every outcome's state (as its key) now, while the resolver's locals hold the values of
    // this roll: a bounded loop gives its locals new values in each run
    this.state = site === null ? null : this.values.map((v) => key(state(v)));
    this.key = null;
    this.found = new Map(); // denominator -> Map(result number -> numerator)
  }
  add(i, dist) {
    const [results, den] = dist;
    const weight = this.nums[i];
    const d = this.den * den;
    let bucket = this.found.get(d);
    if (bucket === undefined) { bucket = new Map(); this.found.set(d, bucket); }
    for (const [r, n] of results) bucket.set(r, (bucket.get(r) || 0n) + weight * n);
  }
  total() {
    let den, results;
    if (this.found.size === 1) [[den, results]] = [...this.found.entries()];
    else {
      den = 1n;
      for (const d of this.found.keys()) den = bigLcm(den, d);
      results = new Map();
      for (const [d, part] of this.found) {
        const scale = den / d;
        for (const [r, n] of part) results.set(r, (results.get(r) || 0n) + n * scale);
      }
    }
    let common = den;
    for (const n of results.values()) common = gcd(common, n);
    if (common > 1n) {
      const reduced = new Map();
      for (const [r, n] of results) reduced.set(r, n / common);
      return [reduced, den / common];
    }
    return [results, den];
  }
}

/** What the enumerations of one exact() call share: the work budget, the results of calls by arguments, the chain of procedures. */
export class Session {
  constructor(maxWork, maxPaths) {
    this.maxWork = maxWork;
    this.maxPaths = maxPaths;
    this.work = 0;
    this.runs = 0;
    this.calls = new Map();
    this.chain = [];
  }
  charge(units, what, whereAt) {
    const work = this.work + units;
    if (work > this.maxWork) {
      const [frame, label, src] = whereAt;
      throw overLimit(what(), this.maxWork, where(frame, label, this.chain), src);
    }
    this.work = work;
  }
}

function argsKey(fn, args) {
  return fn.procName + "(" + Object.keys(args).map((k) => k + "=" + key(args[k])).join(",") + ")";
}

export class ExactContext {
  constructor(session = null) {
    this.session = session || new Session(DEFAULT_MAX_WORK, DEFAULT_MAX_PATHS);
    this.nodes = [];
    this.pos = 0;
    this.memo = new Map();
    this.frames = [];
    this.numbers = new Map();
    this.results = [];
  }
  roll(rv, label = "", src = null, state = null, reads = null) {
    if (!rv || typeof rv.weighted !== "function") throw notRandom(rv, src);
    if (reads !== null) rv = rv.counting(reads);
    if (!rv.isComputed()) {
      this.session.charge(rv.cost(), () => new Phrase("the results of %(roll)s", { roll: new Described(rv) }), [this.frame(), label, src]);
    }
    return this.choose(rv, rv.weighted(), `${src}\u0000${label}`, state, label, src);
  }
  call(fn, args, src = null, state = null) {
    const session = this.session;
    const k = argsKey(fn, args);
    let results = session.calls.get(k);
    if (results === undefined) {
      const [pairs, den] = new ExactContext(session).weightedResults(fn, args);
      results = new Results(fn.procName, pairs.map(([r]) => r), pairs.map(([, w]) => w), den);
      session.calls.set(k, results);
    }
    return this.choose(results, results.weighted(), `${src}\u0000call ${fn.procName}`, state, "", src);
  }
  repeat(fn, args, src = null, until = "", procedure = "", step = null, state = null) {
    const session = this.session;
    const k = "repeat " + argsKey(fn, args);
    let results = session.calls.get(k);
    if (results === undefined) {
      const [pairs] = new ExactContext(session).weightedResults(fn, args);
      const kept = pairs.filter(([[done]]) => done).map(([[, values], w]) => [values, w]);
      if (!kept.length) {
        const w = repeatWhere(procedure, step);
        const message = nonEmpty(w)
          ? "the condition «%(until)s» of the repeat %(where)s holds on no possible roll: the repeat would never end"
          : "the condition «%(until)s» of the repeat holds on no possible roll: the repeat would never end";
        throw new RuleError(message, src, { until, where: w });
      }
      let total = 0n;
      for (const [, w] of kept) total += w;
      let common = total;
      for (const [, w] of kept) common = gcd(common, w);
      results = new Results(fn.procName, kept.map(([v]) => v), kept.map(([, w]) => w / common), total / common);
      session.calls.set(k, results);
    }
    return this.choose(results, results.weighted(), `${src}\u0000repeat ${fn.procName}`, state, "", src);
  }
  *runs(count, src = null) {
    const session = this.session;
    for (let number = 1; number <= count; number++) {
      session.charge(1, () => new Phrase("%(n)s runs of a loop", { n: number }), [this.frame(), "", src]);
      yield number;
    }
  }
  loop(items) {
    const session = this.session;
    const work = session.work + items.length;
    if (work > session.maxWork) {
      session.charge(items.length, () => new Phrase("%(n)s elements looped over", { n: items.length }), [this.frame(), "", null]);
    }
    session.work = work;
    return items;
  }
  sources(items, src = null) { return Object.freeze(items.filter(([, v]) => !isZero(v)).map(([, v]) => v)); }
  enter(name, title, ref, src, args) {
    const chain = this.session.chain;
    if (!this.frames.length && chain.length) chain[chain.length - 1] = [name, args];
    this.frames.push([name, args, null]);
  }
  leave(result) { this.frames.pop(); return result; }
  step(number, label, ref, src) { if (this.frames.length) this.frames[this.frames.length - 1][2] = [number, label]; }
  let(name, value, src = null) { return value; }
  frame() { return this.frames.length ? this.frames[this.frames.length - 1].slice() : null; }

  choose(rv, weighted, site, state, label, src) {
    const values = weighted.values;
    if (values.length === 1) return values[0];
    const nodes = this.nodes, pos = this.pos;
    if (pos < nodes.length) {
      const node = nodes[pos];
      if (rv !== node.rv && !(values.length === node.values.length && weighted.den === node.den && weighted.nums.every((n, i) => n === node.nums[i]) && values.every((v, i) => key(v) === key(node.values[i])))) {
        throw new RuleError("the procedure is not deterministic: replaying a path it rolled %(roll)s where it rolled %(before)s before",
          src, { roll: new Described(rv), before: new Described(node.rv) });
      }
      this.pos = pos + 1;
      return values[node.idx];
    }
    const whereAt = [this.frame(), label, src];
    this.session.charge(values.length, () => new Phrase("%(n)s results of %(roll)s", { n: values.length, roll: new Described(rv) }), whereAt);
    const node = new Node(rv, weighted, state !== null ? site : null, state, whereAt);
    if (!this.nextOutcome(node)) throw new Known(node.total());
    nodes.push(node);
    this.pos = pos + 1;
    return values[node.idx];
  }
  nextOutcome(node) {
    const memo = this.memo;
    for (let i = node.idx + 1; i < node.values.length; i++) {
      let k = null;
      if (node.site !== null) {
        k = node.site + "\u0001" + node.state[i];
        const known = memo.get(k);
        if (known !== undefined) { node.add(i, known); continue; }
      }
      node.idx = i;
      node.key = k;
      return true;
    }
    return false;
  }
  number(result) {
    const k = key(result);
    let n = this.numbers.get(k);
    if (n === undefined) { n = this.results.length; this.numbers.set(k, n); this.results.push(result); }
    return n;
  }
  /** The results of fn(ctx, args), in the order found, with their weights, and the denominator. */
  weightedResults(fn, args) {
    const session = this.session;
    session.chain.push([fn.procName || "procedimiento", args]);
    let numbered, den;
    try {
      [numbered, den] = this.explore(fn, args, session);
    } finally {
      session.chain.pop();
    }
    return [[...numbered].map(([n, w]) => [this.results[n], w]), den];
  }
  explore(fn, args, session) {
    const nodes = this.nodes, memo = this.memo;
    for (;;) {
      session.runs += 1;
      if (session.runs > session.maxPaths) {
        throw new RuleError("the exact distribution of %(procedure)s needs more than %(n)s paths of rolls; reduce the number of dice or raise max_paths",
          null, { procedure: fn.procName, n: session.maxPaths });
      }
      this.pos = 0;
      this.frames.length = 0;
      let found;
      try {
        const result = fn(this, args);
        if (this.pos !== nodes.length) throw new RuleError("the procedure is not deterministic: replaying a path it made fewer rolls", null, {});
        found = [new Map([[this.number(result), 1n]]), 1n];
      } catch (err) {
        if (!(err instanceof Known)) throw err;
        found = err.dist;
      }
      const whereAt = nodes.length ? nodes[nodes.length - 1].where : [null, "", null];
      session.charge(this.pos + 1, () => new Phrase("the paths of rolls explored"), whereAt);
      let more = false;
      while (nodes.length) {
        const node = nodes[nodes.length - 1];
        if (node.key !== null) {
          memo.set(node.key, found);
          session.charge(found[0].size, () => new Phrase("the states remembered"), node.where);
        }
        node.add(node.idx, found);
        if (this.nextOutcome(node)) { more = true; break; }
        found = node.total();
        nodes.pop();
      }
      if (!more) return found;
    }
  }
}
