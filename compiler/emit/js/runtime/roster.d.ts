/**
 * Types of runtime/roster.js: rosters validated against army documents, exactly as
 * `rulebook roster validate` (compiler/commands/roster.py) validates them. Generic: the
 * generated armies.d.ts narrows the army ids and error codes to one rulebook's.
 */

/** The declaration that states a rule, and its manual section. */
export interface RuleRef {
  id: string;
  title: string;
  source: string;
}

/** One unit of a roster: an entry of the army and what the roster chose for it. */
export interface RosterUnit {
  /** An entry id of the army (`entries[].id`). */
  entry: string;
  /** A quality id, when the army has a quality (`quality.values[].id`). */
  quality?: string;
  /** The number of models, when the entry has a range (`entries[].models`). */
  models?: number;
  /** Option ids; an id written n times is taken n times. */
  options?: string[];
  /** One troop id per composition line with several alternatives, in order. */
  choices?: string[];
  name?: string;
}

/** A roster (the format of `schemas/roster.schema.json`, `format` 1). */
export interface Roster {
  $schema?: string;
  format: 1;
  /** The rulebook id. */
  rulebook: string;
  /** The content hash the roster was made with; another one is the warning `stale-rulebook`. */
  content_hash?: string;
  army: string;
  side?: string;
  role?: string;
  /** A game size id; or `points`, never both. */
  size?: string;
  /** Agreed points (armies with `agreed` budgets). */
  points?: number;
  name?: string;
  units: RosterUnit[];
}

/** One error or warning of a validation. */
export interface RosterIssue<Code extends string = string> {
  severity: "error" | "warning";
  code: Code;
  /** Where, as a JSON path into the roster (`$.units[2].options[0]`). */
  path: string;
  /** The army's message for the code (in the rulebook's language), filled with `params`. */
  message: string;
  /** The values the message names, as texts. */
  params: Record<string, string>;
  /** The declaration stating the rule that is broken. */
  rule: RuleRef;
  /** A did-you-mean for an unknown id: a candidate equal but for case, else difflib's closest match; or null. */
  suggestion: string | null;
}

/** A unit's cost: own (entry cost and models over the least), with quality, options, total. */
export interface UnitCost {
  base: number;
  quality: number;
  options: number;
  total: number;
}

/** What the validation says of one unit. */
export interface UnitLine {
  path: string;
  /** The entry id; null when it is unknown (the unit then costs 0). */
  entry: string | null;
  name: string | null;
  known: boolean;
  cost: UnitCost;
  /** Its troops after choices and options, in order. */
  troops: string[];
  /** The keys (`army.options`) of the options counted. */
  options: string[];
}

/** The result of a validation (the JSON of `rulebook roster validate --format json`, without `file`). */
export interface RosterReport<Code extends string = string> {
  legal: boolean;
  army: string;
  errors: RosterIssue<Code>[];
  warnings: RosterIssue<Code>[];
  units: UnitLine[];
  total: number;
  /** The budget; null when it cannot be known (no size or points, or one that is wrong). */
  budget: number | null;
}

/** Where a value breaks a schema: a JSON path and the keyword. */
export interface SchemaProblem {
  path: string;
  keyword: string;
}

/** An army document (`json/armies/<army>.json`; its schema is `schemas/armies/army.schema.json`). */
export interface ArmyDocument {
  format: number;
  id: string;
  title: string;
  rulebook: string;
  version: string;
  lang: string;
  content_hash: string;
  rule: RuleRef;
  sides: { id: string; title: string }[];
  roles: { id: string; title: string }[];
  budget: {
    sizes: { id: string; title: string; points: number | Record<string, number> }[];
    sizes_rule: RuleRef | null;
    agreed: boolean;
    agreed_min: number;
    bonus_percent: Record<string, number>;
  };
  quality: { title: string; rule: RuleRef | null; values: { id: string; title: string; percent: number }[] } | null;
  categories: { id: string; title: string }[];
  entries: {
    id: string;
    name: string;
    side: string | null;
    cost: number;
    per_model: number;
    models: { min: number; max: number } | null;
    category: string | null;
    weight: number;
    composition: { count: number; alternatives: string[] }[];
    options: string[];
    rule: RuleRef | null;
    [more: string]: unknown;
  }[];
  options: Record<string, { key: string; id: string; title: string; cost: number; max: number; remove: string[]; add: string[]; rule: RuleRef | null }>;
  troops: Record<string, { name: string; [more: string]: unknown }>;
  limits: { kind: "units" | "category" | "entry"; target: string | null; min: number | null; max: number | null; rule: RuleRef | null }[];
  /** The message of each error code, `{name}` placeholders. */
  messages: Record<string, string>;
  labels: Record<string, string>;
  [more: string]: unknown;
}

/** The most troops the units of a roster may be made of (placed and taken away). */
export declare const MAX_TROOPS: number;

/** Thrown by `validate` when a roster's units are made of more than MAX_TROOPS troops. */
export declare class RosterTooLarge extends Error {
  constructor(message: string);
}

/** `{name}` → params[name]; unknown names stay as written. */
export declare function fill(template: string, params: Record<string, string>): string;
/** difflib.SequenceMatcher(None, a, b).ratio(). */
export declare function ratio(a: string, b: string): number;
/** difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)[0], or null. */
export declare function closeMatch(word: string, candidates: readonly string[]): string | null;
/** The did-you-mean for an unknown id. */
export declare function suggest(value: unknown, candidates: readonly string[]): string | null;
/** n / d to the nearest integer, halves up. */
export declare function roundHalfUp(n: number, d: number): number;
/** Validate a roster that follows the roster schema against an army document. */
export declare function validate(army: ArmyDocument, roster: Roster): RosterReport;
/** The JSON Schema keywords schemaProblems understands. */
export declare const SCHEMA_KEYWORDS: readonly string[];
/** Where `value` breaks `schema` (the subset of JSON Schema roster schemas use), in document order. */
export declare function schemaProblems(schema: object, value: unknown): SchemaProblem[];
/** The roster as base64url of its JSON (what the army builder puts after `#roster=`). */
export declare function encodeRoster(roster: Roster): string;
/** The roster of a base64url text; throws on text that is not one. */
export declare function decodeRoster(text: string): unknown;
