"""Army documents → the army module of the JavaScript package: ``armies.js``,
``armies.d.ts`` and ``armies.browser.js`` (with ``runtime/roster.js`` and its types).

Reads the army documents a build writes (``json/armies/<army>.json``, from
:mod:`rulebook.compiler.emit.data.to_armies`) and the roster schema
(``schemas/roster.schema.json``); never the IR: the module runs the documents the
command line's validator reads, nothing else. Produces, under ``js/``:

* ``armies.js`` — an ES module: the documents as frozen data (``ARMIES``, ``ARMY_IDS``,
  ``ROSTER_SCHEMA``) and ``validateRoster(roster, armyId?)``, ``rosterProblems``,
  ``checkRoster``, ``unitCost``, ``armyOf``, over the generic validator of
  ``runtime/roster.js`` (re-exported): the results of
  :func:`rulebook.compiler.commands.roster.validate`, error for error;
* ``armies.d.ts`` — its types: rosters, reports, the army ids and the error codes as
  string-literal unions, each code with its message in the rulebook's language;
* ``armies.browser.js`` — the same code as a classic script (Chromium refuses ES
  modules on ``file://`` pages) setting ``globalThis.rbArmies``; the site copies it as
  ``assets/rulebook-armies.js`` for its army builder
  (:mod:`rulebook.compiler.emit.site.to_army_page`).

Every text of the content reaches the JavaScript as one raw template holding JSON
(``JSON.parse(String.raw`…`)``, so that an id such as ``__proto__`` stays a key), with ``<``
``>`` ``&`` U+2028 U+2029 and the backquote and ``$`` written as ``\\u....``; comments in ``armies.d.ts`` have
``*/`` broken. The bytes depend only on the documents (armies in id order).

Entry points: :func:`generate(army_documents, lang, roster_schema) -> dict[str, str]`
(path under ``js/`` → text), :func:`write_armies_module(js_dir, army_documents, lang,
roster_schema)` (writes them), :func:`write_build(out_dir)` (reads ``json/`` and
``schemas/`` of a build, writes ``js/``: what ``rulebook build`` calls) and
:func:`browser_script` (the classic script alone). ``lang`` is the language the
documents' messages are in (said in ``armies.d.ts``; by default the documents' own).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from rulebook.compiler.emit.js.names import js_without_comment_lines

RUNTIME = Path(__file__).resolve().parent / "runtime"
ROSTER_JS, ROSTER_D_TS = "runtime/roster.js", "runtime/roster.d.ts"
FILES = ("armies.js", "armies.d.ts", "armies.browser.js", ROSTER_JS, ROSTER_D_TS)
GLOBAL = "rbArmies"
"""The global the classic script sets (``window.rbArmies`` on a page)."""

RUNTIME_EXPORTS = ("MAX_TROOPS", "RosterTooLarge", "fill", "ratio", "closeMatch", "suggest", "roundHalfUp", "validate",
                   "SCHEMA_KEYWORDS", "schemaProblems", "encodeRoster", "decodeRoster")
"""What armies.js re-exports of runtime/roster.js (all of its exports)."""

_EXPORT = re.compile(r"^export (?=(?:function|const|class) )", re.M)
_EXPORTED = re.compile(r"^export (?:function|const|class) (\w+)", re.M)
_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def js_string(text: str) -> str:
    """A JavaScript string literal of ``text`` (JSON's), with ``< > & U+2028 U+2029`` as
    ``\\u....``: no text can end it, nor a ``<script>`` that held it."""
    return re.sub("[<>&\u2028\u2029]", lambda m: _UNSAFE[m.group(0)], json.dumps(text, ensure_ascii=False))


_UNSAFE_IN_RAW = {**_UNSAFE, "`": "\\u0060", "$": "\\u0024"}


def js_data(data: Any) -> str:
    """``JSON.parse(String.raw`…`)`` of ``data``: the document exactly as JSON reads it, its JSON text
    as it is (no backslash doubled: a sixth lighter than a string literal). The characters that could
    end the template or open a ``${}`` in it, and ``< > & U+2028 U+2029``, can only be inside JSON
    strings: they are written as JSON's ``\\u....`` escapes."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return "JSON.parse(String.raw`" + re.sub("[<>&\u2028\u2029`$]", lambda m: _UNSAFE_IN_RAW[m.group(0)], text) + "`)"


def _comment(text: str) -> str:
    """``text`` on one line of a ``/** */`` comment."""
    return " ".join(str(text).split()).replace("*/", "*\u2215")


def runtime_source() -> str:
    return (RUNTIME / "roster.js").read_text(encoding="utf-8")


def classic(module: str) -> str:
    """An ES module without imports, its ``export`` keywords taken away (its exports are
    all ``export function|const|class NAME`` at the start of a line)."""
    text = _EXPORT.sub("", module)
    left = [line for line in text.splitlines() if re.match(r"\s*(export|import)\b", line)]
    if left:
        raise ValueError(f"not a module this can wrap: {left[0]!r}")
    return text


def _exports(module: str) -> list[str]:
    return _EXPORTED.findall(module)


_HELPERS = """\
function deepFreeze(value) {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreeze(value[key]);
    Object.freeze(value);
  }
  return value;
}

/** The army documents by id (json/armies/<army>.json of the build), frozen. */
export const ARMIES = deepFreeze(%(armies)s);

/** The roster schema (schemas/roster.schema.json), frozen; null when the rulebook declares no army. */
export const ROSTER_SCHEMA = deepFreeze(%(schema)s);

/** The army ids, in order. */
export const ARMY_IDS = Object.freeze(Object.keys(ARMIES));

/** The army document of an id; throws RangeError for an id that is not one. */
export function armyOf(armyId) {
  if (typeof armyId !== "string" || !Object.prototype.hasOwnProperty.call(ARMIES, armyId)) {
    throw new RangeError(`no army ${JSON.stringify(armyId)} in this rulebook; the armies are: ${ARMY_IDS.join(", ") || "none"}`);
  }
  return ARMIES[armyId];
}

/** Where a roster breaks the roster schema ([{path, keyword}], document order; [] when it follows it). */
export function rosterProblems(roster) {
  return ROSTER_SCHEMA === null ? [{ path: "$", keyword: "false" }] : schemaProblems(ROSTER_SCHEMA, roster);
}

/** Validate a roster that follows the roster schema against its army (armyId, else roster.army):
 * the report of `rulebook roster validate --format json`. Throws RangeError for an unknown army,
 * RosterTooLarge for units made of more than MAX_TROOPS troops. */
export function validateRoster(roster, armyId) {
  return validate(armyOf(armyId === undefined ? roster.army : armyId), roster);
}

/** Any roster: {problems} where it breaks the roster schema (as `rulebook roster validate`
 * refuses it, exit 2), else {problems: [], report}. */
export function checkRoster(roster) {
  const problems = rosterProblems(roster);
  return problems.length ? { problems, report: null } : { problems, report: validateRoster(roster) };
}

/** What one unit costs in an army ({base, quality, options, total}), as the validator counts it. */
export function unitCost(unit, armyId) {
  const army = armyOf(armyId);
  return validate(army, { format: 1, rulebook: army.rulebook, army: army.id, units: [unit] }).units[0].cost;
}
"""


def _body(army_documents: dict[str, dict], roster_schema: dict | None) -> str:
    armies = {k: army_documents[k] for k in sorted(army_documents)}
    return _HELPERS % {"armies": js_data(armies), "schema": js_data(roster_schema)}


def _header(what: str, armies: dict[str, dict]) -> str:
    rulebooks = sorted({a["rulebook"] for a in armies.values()})
    return (f"// {what} Generated by rulebook (compiler/emit/js/armies.py) from the army documents of "
            f"{_comment(', '.join(rulebooks) or 'a rulebook without armies')}; do not edit.\n")


def _module(army_documents: dict[str, dict], roster_schema: dict | None) -> str:
    return (_header("The armies of the rulebook and their roster validator (ES module).", army_documents)
            + f'import {{ schemaProblems, validate }} from "./{ROSTER_JS}";\n'
            + f"export {{ {', '.join(RUNTIME_EXPORTS)} }} from \"./{ROSTER_JS}\";\n\n"
            + _body(army_documents, roster_schema))


def browser_script(army_documents: dict[str, dict], roster_schema: dict | None) -> str:
    """The text of ``armies.browser.js`` (the site copies it as ``assets/rulebook-armies.js``)."""
    runtime, body = runtime_source(), _body(army_documents, roster_schema)
    names = _exports(runtime) + _exports(body)
    inner = js_without_comment_lines(classic(runtime).rstrip("\n") + "\n" + classic(body))  # for pages: no comments
    indented = "".join(("  " + line if line.strip() else line) for line in inner.splitlines(keepends=True))
    return (_header(f"armies.js as a classic script: sets globalThis.{GLOBAL} (pages on file:// load no ES modules).", army_documents)
            + "(function (root) {\n  \"use strict\";\n\n" + indented
            + f"\n  root.{GLOBAL} = Object.freeze({{ {', '.join(names)} }});\n"
            + "})(typeof globalThis !== \"undefined\" ? globalThis : this);\n")


def _union(values: list[str]) -> str:
    return " | ".join(js_string(v) for v in values) if values else "never"


def _types(army_documents: dict[str, dict], lang: str | None) -> str:
    ids = sorted(army_documents)
    codes: dict[str, str] = {}
    for k in ids:
        for code, message in army_documents[k]["messages"].items():
            codes.setdefault(code, message)
    lang = lang or next((army_documents[k].get("lang") for k in ids), None) or "en"
    code_docs = "\n".join(f" * - `{_comment(c)}`: {_comment(m)}" for c, m in codes.items())
    army_docs = "\n".join(f" * - `{_comment(k)}`: {_comment(army_documents[k]['title'])}" for k in ids)
    return f"""{_header("Types of armies.js.", army_documents)}import type {{ ArmyDocument, Roster, RosterReport, RosterUnit, SchemaProblem, UnitCost }} from "./{ROSTER_JS}";
export type {{ ArmyDocument, Roster, RosterIssue, RosterReport, RosterUnit, RuleRef, SchemaProblem, UnitCost, UnitLine }} from "./{ROSTER_JS}";
export {{ {', '.join(RUNTIME_EXPORTS)} }} from "./{ROSTER_JS}";

/**
 * The armies of the rulebook:
{army_docs or " * (none)"}
 */
export type ArmyId = {_union(ids)};

/**
 * The codes of the errors and warnings a validation reports, in the order the rules are
 * applied, with the army's message (language `{_comment(lang)}`; `{{name}}` is filled from `params`):
{code_docs or " * (none)"}
 */
export type RosterErrorCode = {_union(list(codes))};

/** A validation of a roster of this rulebook. */
export interface ArmyReport extends RosterReport<RosterErrorCode> {{
  army: ArmyId;
}}

/** The army documents by id (json/armies/<army>.json), frozen. */
export declare const ARMIES: Readonly<Record<ArmyId, ArmyDocument>>;
/** The army ids, in order. */
export declare const ARMY_IDS: readonly ArmyId[];
/** The roster schema (schemas/roster.schema.json); null when the rulebook declares no army. */
export declare const ROSTER_SCHEMA: Readonly<Record<string, unknown>> | null;

/** The army document of an id; throws RangeError for an id that is not one. */
export declare function armyOf(armyId: ArmyId): ArmyDocument;
/** Where a roster breaks the roster schema, in document order ([] when it follows it). */
export declare function rosterProblems(roster: unknown): SchemaProblem[];
/**
 * Validate a roster that follows the roster schema against its army (`armyId`, else
 * `roster.army`): every error and warning at once (same codes, messages, JSON paths,
 * params, did-you-mean and order as `rulebook roster validate`), each unit's cost, the
 * total and the budget. Throws RangeError for an unknown army and RosterTooLarge when
 * the units are made of more than MAX_TROOPS troops.
 */
export declare function validateRoster(roster: Roster, armyId?: ArmyId): ArmyReport;
/** Any value: its schema problems (what the command line refuses with exit 2), else the report. */
export declare function checkRoster(roster: unknown): {{ problems: SchemaProblem[]; report: ArmyReport | null }};
/** What one unit costs in an army, as the validator counts it. */
export declare function unitCost(unit: RosterUnit, armyId: ArmyId): UnitCost;
"""


def generate(army_documents: dict[str, dict], lang: str | None = None, roster_schema: dict | None = None) -> dict[str, str]:
    """Path under ``js/`` → text of every file of the army module."""
    return {
        "armies.js": _module(army_documents, roster_schema),
        "armies.d.ts": _types(army_documents, lang),
        "armies.browser.js": browser_script(army_documents, roster_schema),
        ROSTER_JS: runtime_source(),
        ROSTER_D_TS: (RUNTIME / "roster.d.ts").read_text(encoding="utf-8"),
    }


def write_armies_module(js_dir: Path, army_documents: dict[str, dict], lang: str | None = None, roster_schema: dict | None = None) -> None:
    """Write :func:`generate`'s files under ``js_dir``."""
    for name, text in generate(army_documents, lang, roster_schema).items():
        path = js_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")


def read_build(out_dir: Path) -> tuple[dict[str, dict], dict | None]:
    """The army documents (by id) and the roster schema a build wrote (none: ``{}``, None)."""
    folder = out_dir / "json" / "armies"
    docs = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []
    schema = out_dir / "schemas" / "roster.schema.json"
    return {d["id"]: d for d in docs}, (json.loads(schema.read_text(encoding="utf-8")) if docs and schema.is_file() else None)


def write_build(out_dir: Path) -> None:
    """``js/`` of the army module of the build in ``out_dir`` (from its ``json/`` and ``schemas/``)."""
    docs, schema = read_build(out_dir)
    write_armies_module(out_dir / "js", docs, None, schema)
