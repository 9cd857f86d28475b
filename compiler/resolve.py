"""``rulebook resolve``: JSON in, JSON out — a sampled result or the exact distribution.

Reads a rulebook (checked by :mod:`compiler.driver`, compiled and imported by
:mod:`compiler.pyload`) and the command's arguments; prints the result as JSON,
or as text (an exact distribution listed in the order of the procedure's
results). Input is validated against the procedure's input schema (the same
one written to ``schemas/procedures/``); a bad input gets an error naming the
JSON path. Entry point: :func:`main(args) -> int` (:func:`load`, then
:meth:`Resolver.run`); :func:`load` is shared with ``rulebook test``.

``--input`` is bounded before it is parsed: at most :data:`MAX_INPUT_BYTES`
bytes of UTF-8, nested at most :data:`MAX_INPUT_DEPTH` deep, numbers of at
most :data:`~rules_dsl.parser.MAX_NUMBER_DIGITS` digits and no NaN or Infinity;
each refusal is one clear line, never the input repeated back.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

import runtime
from rules_dsl.diagnostics import did_you_mean, escaped, render_all
from rules_dsl.parser import MAX_NUMBER_DIGITS

from . import driver, pyload, to_json


MAX_INPUT_BYTES = 1024 * 1024
"""The largest ``--input`` (inline or ``@file``)."""

MAX_INPUT_DEPTH = 64
"""How deeply ``--input`` may nest arrays and objects."""

MAX_MESSAGE = 600
"""Error messages are cut to this many characters (a schema error quotes the bad value)."""


class InputProblem(ValueError):
    """``--input`` cannot be read as the JSON of a procedure's parameters."""


def _shorten(message: str) -> str:
    if len(message) <= MAX_MESSAGE:
        return message
    return message[: MAX_MESSAGE - 160] + " … " + message[-150:]


def _fail(message: str, fmt: str, code: int = 1) -> int:
    message = escaped(_shorten(message))
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
    p = runtime.number_text(probability)
    return f"{p:>12}  {float(probability) * 100:6.2f} %  {json.dumps(runtime.to_jsonable(outcome), ensure_ascii=False)}"


_STRUCTURE = re.compile(r'[\\"\[\]{}]')


def _check_depth(text: str) -> None:
    """Refuse JSON nested deeper than :data:`MAX_INPUT_DEPTH`, in one pass over the
    text and before parsing (a parser would recurse once per level)."""
    if text.count("[") + text.count("{") <= MAX_INPUT_DEPTH:
        return  # not enough openers to nest too deeply
    depth = 0
    in_string = False
    escaped_at = -1
    for m in _STRUCTURE.finditer(text):
        ch, at = m.group(), m.start()
        if at == escaped_at:
            continue
        if in_string:
            if ch == "\\":
                escaped_at = at + 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_INPUT_DEPTH:
                line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
                raise InputProblem(f"--input is nested more than {MAX_INPUT_DEPTH} levels deep (line {line}, column {column})")
        elif ch in "]}":
            depth -= 1


def _integer(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise InputProblem(f"--input has a number of {len(digits.lstrip('-'))} digits; at most {MAX_NUMBER_DIGITS} are allowed")
    return int(digits)


def _real(text: str) -> float:
    mantissa = re.split(r"[eE]", text)[0]
    value = float(text)
    if sum(ch.isdigit() for ch in mantissa) > MAX_NUMBER_DIGITS or not math.isfinite(value):
        raise InputProblem(f"--input has a number out of range: {_shorten(text)}")
    return value


def _constant(name: str):
    raise InputProblem(f"--input has {name}, which is not a number in JSON")


def read_input(text: str):
    """The JSON value of ``--input``: the text itself, or ``@file`` for a file's contents.

    Raises :class:`InputProblem` (with the reason, and the position for bad JSON)."""
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            with path.open("rb") as stream:
                data = stream.read(MAX_INPUT_BYTES + 1)
        except OSError as exc:
            raise InputProblem(f"cannot read --input file {escaped(str(path))}: {exc.strerror or exc}") from None
        if len(data) > MAX_INPUT_BYTES:
            raise InputProblem(f"--input file {escaped(str(path))} is larger than {MAX_INPUT_BYTES} bytes")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputProblem(f"--input file {escaped(str(path))} is not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start}") from None
    elif len(text.encode("utf-8", "surrogatepass")) > MAX_INPUT_BYTES:
        raise InputProblem(f"--input is larger than {MAX_INPUT_BYTES} bytes")
    _check_depth(text)
    try:
        data = json.loads(text, parse_int=_integer, parse_float=_real, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise InputProblem(f"--input is not valid JSON: {exc}") from None
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise InputProblem("--input has text that is not valid Unicode (a lone surrogate such as \\udc80)") from None
    return data


def main(args) -> int:
    loaded = load(args.rulebook, args.format)
    if loaded is None:
        return 1
    return Resolver(*loaded).run(args)


class Resolver:
    """A checked and compiled rulebook answering ``rulebook resolve`` commands; the
    input schemas and their validators are built once."""

    def __init__(self, program, package) -> None:
        self.program = program
        self.package = package
        self._schemas = to_json.all_schemas(program)
        self._registry = to_json.registry_for(self._schemas)
        self._validators: dict[str, Draft202012Validator] = {}

    def validator(self, procedure: str) -> Draft202012Validator:
        """The validator of ``procedure``'s input schema."""
        if procedure not in self._validators:
            schema = self._schemas[f"procedures/{procedure}.input.schema.json"]
            self._validators[procedure] = Draft202012Validator(schema, registry=self._registry)
        return self._validators[procedure]

    def run(self, args) -> int:
        """Answer one command: the listing, or the resolution of ``args.procedure``;
        prints it and returns the exit status."""
        program, package = self.program, self.package
        fmt = args.format
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
        except InputProblem as exc:
            return _fail(str(exc), fmt, 2)
        err = best_match(self.validator(args.procedure).iter_errors(data))
        if err is not None:
            return _fail(f"invalid input at {err.json_path}: {err.message}", fmt, 1)
        try:
            kwargs = proc.convert(data)
            if args.exact:
                dist = runtime.exact(proc.function, max_work=args.max_work, **kwargs)
                out = {"procedure": args.procedure, "input": data, "distribution": dist.to_json()}
                try:
                    out["mean"] = runtime.to_jsonable(dist.mean())
                except Exception:  # non-numeric results have no mean
                    pass
                if args.explain:
                    out["steps"] = to_json.procedures_doc(program)["procedures"][args.procedure]["steps"]
            else:
                result, trace = runtime.sample(
                    proc.function, seed=args.seed, trace=args.explain, max_work=args.max_work, **kwargs
                )
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
