"""``rulebook resolve``: JSON in, JSON out — a sampled result or the exact distribution.

Reads a rulebook (checked by :mod:`compiler.driver`, compiled and imported by
:mod:`compiler.pyload`) and the command's arguments; prints the result as JSON,
or as text (an exact distribution listed in the order of the procedure's
results). Input is validated against the procedure's input schema (the same
one written to ``schemas/procedures/``); a bad input gets an error naming the
JSON path. Entry point: :func:`main(args) -> int`; :func:`load` is shared with
``rulebook test``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

import runtime
from rules_dsl.diagnostics import did_you_mean, render_all

from . import driver, pyload, to_json


def _fail(message: str, fmt: str, code: int = 1) -> int:
    if fmt == "json":
        print(json.dumps({"error": message}, ensure_ascii=False, indent=2))
    else:
        print(f"error: {message}", file=sys.stderr)
    return code


def load(rulebook: Path | None, fmt: str):
    """Check and compile a rulebook; returns (program, package) or None after printing errors."""
    result = driver.check(rulebook or driver.DEFAULT_RULEBOOK)
    if not result.ok or result.program is None:
        errors = [d for d in result.diagnostics if d.severity == "error"]
        print(render_all(errors, result.sources, fmt), file=sys.stderr)
        return None
    return result.program, pyload.compile_and_load(result.program)


def listing(program, package) -> list[dict]:
    out = []
    for name, proc in package.PROCEDURES.items():
        out.append({
            "name": name,
            "title": proc.title,
            "source": proc.ref,
            "params": [
                {"name": p["name"], "type": p["type"], "required": p["required"]}
                for p in to_json.procedures_doc(program)["procedures"][name]["params"]
            ],
            "result": proc.result,
            "defined_at": proc.src,
        })
    return out


def distribution_line(outcome, probability) -> str:
    """One outcome of an exact distribution, as text: the probability, the percentage, the outcome."""
    p = f"{probability.numerator}/{probability.denominator}"
    return f"{p:>12}  {float(probability) * 100:6.2f} %  {json.dumps(runtime.to_jsonable(outcome), ensure_ascii=False)}"


def read_input(text: str):
    if text.startswith("@"):
        text = Path(text[1:]).read_text(encoding="utf-8")
    return json.loads(text)


def main(args) -> int:
    fmt = args.format
    loaded = load(args.rulebook, fmt)
    if loaded is None:
        return 1
    program, package = loaded
    if args.list:
        items = listing(program, package)
        if fmt == "json":
            print(json.dumps(items, ensure_ascii=False, indent=2))
        else:
            for it in items:
                params = ", ".join(f"{p['name']}: {p['type']}" + ("" if p["required"] else " = …") for p in it["params"])
                print(f"{it['name']}({params}) -> {it['result']}    {it['title']} [{it['source']}]")
        return 0
    if not args.procedure:
        return _fail("name a procedure (see `rulebook resolve --list`)", fmt, 2)
    proc = package.PROCEDURES.get(args.procedure)
    if proc is None:
        guess = did_you_mean(args.procedure, package.PROCEDURES)
        return _fail(f"unknown procedure '{args.procedure}'" + (f"; did you mean '{guess}'?" if guess else ""), fmt, 2)
    if not args.exact and args.seed is None:
        return _fail("give --seed N for a sampled resolution or --exact for the exact distribution", fmt, 2)
    try:
        data = read_input(args.input)
    except (OSError, json.JSONDecodeError) as exc:
        return _fail(f"--input is not valid JSON: {exc}", fmt, 2)
    all_schemas = to_json.all_schemas(program)
    schema = all_schemas[f"procedures/{args.procedure}.input.schema.json"]
    validator = Draft202012Validator(schema, registry=to_json.registry_for(all_schemas))
    err = best_match(validator.iter_errors(data))
    if err is not None:
        return _fail(f"invalid input at {err.json_path}: {err.message}", fmt, 1)
    try:
        kwargs = proc.convert(data)
        if args.exact:
            dist = runtime.exact(proc.function, **kwargs)
            out = {"procedure": args.procedure, "input": data, "distribution": dist.to_json()}
            try:
                out["mean"] = runtime.to_jsonable(dist.mean())
            except Exception:  # non-numeric results have no mean
                pass
            if args.explain:
                out["steps"] = to_json.procedures_doc(program)["procedures"][args.procedure]["steps"]
        else:
            result, trace = runtime.sample(proc.function, seed=args.seed, trace=args.explain, **kwargs)
            out = {"procedure": args.procedure, "input": data, "seed": args.seed, "result": runtime.to_jsonable(result)}
            if args.explain and trace is not None:
                out["trace"] = trace.to_json()
                if fmt == "text":
                    print(trace.render_text())
    except runtime.RuleError as exc:
        return _fail(str(exc), fmt, 1)
    if fmt == "text" and not args.exact:
        print(json.dumps(out["result"], ensure_ascii=False))
    elif fmt == "text":
        for outcome, p in proc.in_outcome_order(dist):
            print(distribution_line(outcome, p))
    else:
        print(json.dumps(out, ensure_ascii=False, indent=2))
    return 0
