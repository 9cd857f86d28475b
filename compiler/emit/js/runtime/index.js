// The runtime of a generated rulebook package: what its index.js imports, and nothing
// of any game. Modules: core (values, order, JSON), catalog and messages (phrases in
// the players' language), errors, numbers (exact arithmetic), rules (lookups and
// built-in functions), dice (random variables), context (sampling and the exact
// engine), input (input schemas and conversion), resolve (answers and the command line).
export { Counts, Frac, JsonObject, PMap, RecordType, RuleApp, compare, dumps, eq, formatValue, key, numberText, toJSONable } from "./core.js";
export { InputError, RuleError, WorkLimitError } from "./errors.js";
export { translate } from "./messages.js";
export { F, abs, add, capped_sum, ceil, clamp, cmp, div, floor, mul, neg, round, sub, trunc } from "./numbers.js";
export {
  EMPTY, IntRange, all, any, applied, comprehend, concat, contains, enumType, field, granted, hasRule, index, largest, len, list, lookup, lookupAmong,
  lookupRange, max, min, range, ruleParam, shift, smallest, stackedParam, sum, table,
} from "./rules.js";
export { Bag, Die, Pools, Random, bagDraw, bagWith, bagWithout, constant, poolCount, poolFaces, poolSum, rollOne, stdDie } from "./dice.js";
export { MAX_CHAIN, dicePool } from "./dice_mods.js";
export { DEFAULT_MAX_PATHS, DEFAULT_MAX_WORK, ExactContext, SampleContext, Session, Trace } from "./context.js";
export { Validator, convert, fromInput } from "./input.js";
export { RequestProblem, answer, distributionJSON, exact, frozenJSON, main, mean, plain, resolveText, sample } from "./resolve.js";
