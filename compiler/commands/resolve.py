"""``rulebook resolve``: JSON in, JSON out — a sampled result or the exact distribution.

Reads a rulebook — its compiled package from the cache of :mod:`rulebook.compiler.pipeline.cache`
when the rulebook's content hash is there (no check, no code generation),
else checked by :mod:`rulebook.compiler.pipeline.driver`, compiled and stored there — and the
command's arguments; prints the result as JSON, or as text (an exact
distribution listed in the order of the procedure's results). Input is
validated against the procedure's input schema (the same one written to
``schemas/procedures/``); a bad input gets an error naming the JSON path.
Entry point: :func:`main(args) -> int` (:func:`open_rulebook`, then
:meth:`Resolver.run`, or :meth:`Resolver.run_batch` for ``--batch``);
:func:`load` (check and compile, no cache) is shared with ``rulebook test``.

``--input`` is bounded before it is parsed: at most :data:`MAX_INPUT_BYTES`
bytes of UTF-8, nested at most :data:`MAX_INPUT_DEPTH` deep, numbers of at
most :data:`~rulebook.rules_dsl.parser.MAX_NUMBER_DIGITS` digits and no NaN or Infinity;
each refusal is one clear line, never the input repeated back.

``--batch`` reads JSON lines on standard input, one request per line
(``{"procedure": …, "input": {…}, "seed"?: n, "exact"?: bool, "explain"?:
bool}``; ``seed``, ``exact`` and ``explain`` default to the command's flags), and
writes one JSON line per request, in order: what a single ``resolve`` prints
for it, or ``{"line": n, "error": …}``. Each line has the bounds of
``--input``; a bad line does not stop the batch; the exit status is 1 when a
line failed. Output is flushed whenever the input read so far is answered, so
a program can talk to the command one line at a time. Only the modules a
resolution needs are imported on this path (no parser, no checker), so a warm
call costs an interpreter start, the package import and the hashing of the
rulebook.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from functools import lru_cache
from pathlib import Path

from rulebook import runtime
from rulebook.rules_dsl.diagnostics import did_you_mean, escaped, render_all

from rulebook.compiler.emit.data import fast_validation
from rulebook.compiler.support.i18n import diagnostics_summary
from rulebook.compiler.support.i18n import tell as _

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
        print(_("error: %(message)s") % {"message": message}, file=sys.stderr)
    return code


def load(rulebook: Path | None, fmt: str):
    """Check and compile a rulebook; returns (program, package) or None after printing errors."""
    from rulebook.compiler.pipeline import driver, pyload

    result = driver.check(rulebook or driver.DEFAULT_RULEBOOK)
    if not result.ok or result.program is None:
        errors = [d for d in result.diagnostics if d.severity == "error"]
        print(render_all(errors, result.sources, fmt, summarize=diagnostics_summary), file=sys.stderr)
        return None
    return result.program, pyload.compile_and_load(result.program)


def default_rulebook() -> Path:
    """What ``rulebook resolve`` reads without ``--rulebook``: ``driver.DEFAULT_RULEBOOK``
    (the first bundled rulebook by name), found through :mod:`package_data` rather than
    the driver, so that a warm resolve never loads the parser."""
    from rulebook.compiler.support import package_data

    return (package_data.bundled_rulebooks() or [package_data.folder("content")])[0]


def open_rulebook(rulebook: Path | None, fmt: str, use_cache: bool = True) -> Resolver | None:
    """A :class:`Resolver` for ``rulebook``: from the cache when its content hash is
    there, else checked, compiled and stored in the cache (or, with ``use_cache``
    false or a cache that may not be used, compiled into a temporary folder).
    None after printing the rulebook's errors."""
    from rulebook.compiler.pipeline import cache

    path = rulebook or default_rulebook()
    key = cache.key(path) if use_cache else None
    if key is not None:
        try:
            compiled = cache.open_entry(key)
            if compiled is not None:
                return Resolver.from_compiled(compiled)
        except (cache.CacheUnsafe, OSError) as exc:
            print(_("warning: the resolver cache is not used: %(reason)s") % {"reason": escaped(str(exc))}, file=sys.stderr)
            key = None
    if key is None:
        loaded = load(path, fmt)
        return None if loaded is None else Resolver(*loaded)
    from rulebook.compiler.pipeline import driver

    result = driver.check(path)
    if not result.ok or result.program is None:
        errors = [d for d in result.diagnostics if d.severity == "error"]
        print(render_all(errors, result.sources, fmt, summarize=diagnostics_summary), file=sys.stderr)
        return None
    try:
        return Resolver.from_compiled(cache.store(key, result.program))
    except (cache.CacheUnsafe, OSError) as exc:
        from rulebook.compiler.pipeline import pyload

        print(_("warning: the resolver cache is not used: %(reason)s") % {"reason": escaped(str(exc))}, file=sys.stderr)
        return Resolver(result.program, pyload.compile_and_load(result.program))


def listing(procedures: dict[str, dict], package) -> list[dict]:
    """The procedures of a package with their parameters (``procedures``: as in ``json/procedures.json``)."""
    out = []
    for name, proc in package.PROCEDURES.items():
        out.append({
            "name": name,
            "title": proc.title,
            "source": proc.ref,
            "params": [
                {"name": p["name"], "type": p["type"], "required": p["required"]}
                for p in procedures[name]["params"]
            ],
            "result": proc.result,
            "defined_at": proc.src,
            **({"status": proc.status} if getattr(proc, "status", "active") != "active" else {}),
        })
    return out


def distribution_line(outcome, probability) -> str:
    """One outcome of an exact distribution, as text: the probability, the percentage, the outcome."""
    p = runtime.number_text(probability)
    return f"{p:>12}  {float(probability) * 100:6.2f} %  {json.dumps(runtime.to_jsonable(outcome), ensure_ascii=False)}"


_STRUCTURE = re.compile(r'[\\"\[\]{}]')


def _check_depth(text: str, what: str = "--input") -> None:
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
                raise InputProblem(_("%(what)s is nested more than %(max)s levels deep (line %(line)s, column %(column)s)")
                                   % {"what": what, "max": MAX_INPUT_DEPTH, "line": line, "column": column})
        elif ch in "]}":
            depth -= 1


@lru_cache(maxsize=1)
def _max_digits() -> int:
    """:data:`rulebook.rules_dsl.parser.MAX_NUMBER_DIGITS`, imported when a long number is
    met (importing the parser costs a warm call more than the rest of it)."""
    from rulebook.rules_dsl.parser import MAX_NUMBER_DIGITS

    return MAX_NUMBER_DIGITS


_SAFE_DIGITS = 15
"""Numbers of at most this many digits are under every limit; longer ones are measured."""


def _hooks(what: str) -> dict:
    """``json.loads`` keyword arguments refusing long numbers, NaN and Infinity."""

    def integer(digits: str) -> int:
        if len(digits) > _SAFE_DIGITS and len(digits.lstrip("-")) > _max_digits():
            raise InputProblem(_("%(what)s has a number of %(digits)s digits; at most %(max)s are allowed")
                               % {"what": what, "digits": len(digits.lstrip("-")), "max": _max_digits()})
        return int(digits)

    def real(text: str) -> float:
        value = float(text)
        if not math.isfinite(value) or (
            len(text) > _SAFE_DIGITS and sum(ch.isdigit() for ch in re.split(r"[eE]", text)[0]) > _max_digits()
        ):
            raise InputProblem(_("%(what)s has a number out of range: %(number)s") % {"what": what, "number": _shorten(text)})
        return value

    def constant(name: str):
        raise InputProblem(_("%(what)s has %(name)s, which is not a number in JSON") % {"what": what, "name": name})

    return {"parse_int": integer, "parse_float": real, "parse_constant": constant}


_INPUT_HOOKS = _hooks("--input")


def parse_json(text: str, what: str = "--input", hooks: dict | None = None):
    """The JSON value of ``text`` (at most :data:`MAX_INPUT_BYTES` bytes, already
    checked by the caller), within the depth and number bounds; raises
    :class:`InputProblem`, naming ``what``."""
    _check_depth(text, what)
    try:
        data = json.loads(text, **(hooks or (_INPUT_HOOKS if what == "--input" else _hooks(what))))
    except json.JSONDecodeError as exc:
        raise InputProblem(_("%(what)s is not valid JSON: %(reason)s") % {"what": what, "reason": exc}) from None
    except RecursionError:
        raise InputProblem(_("%(what)s is nested too deeply") % {"what": what}) from None
    if not text.isascii() or "\\u" in text:  # a lone surrogate: from raw text or a backslash-u escape
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise InputProblem(_("%(what)s has text that is not valid Unicode (a lone surrogate such as \\udc80)") % {"what": what}) from None
    return data


def read_input(text: str):
    """The JSON value of ``--input``: the text itself, or ``@file`` for a file's contents.

    Raises :class:`InputProblem` (with the reason, and the position for bad JSON)."""
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            with path.open("rb") as stream:
                data = stream.read(MAX_INPUT_BYTES + 1)
        except OSError as exc:
            raise InputProblem(_("cannot read --input file %(file)s: %(reason)s") % {"file": escaped(str(path)), "reason": exc.strerror or exc}) from None
        if len(data) > MAX_INPUT_BYTES:
            raise InputProblem(_("--input file %(file)s is larger than %(max)s bytes") % {"file": escaped(str(path)), "max": MAX_INPUT_BYTES})
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputProblem(_("--input file %(file)s is not UTF-8 text: byte %(byte)s at offset %(offset)s")
                               % {"file": escaped(str(path)), "byte": f"0x{data[exc.start]:02x}", "offset": exc.start}) from None
    elif len(text.encode("utf-8", "surrogatepass")) > MAX_INPUT_BYTES:
        raise InputProblem(_("--input is larger than %(max)s bytes") % {"max": MAX_INPUT_BYTES})
    return parse_json(text)


def main(args) -> int:
    if getattr(args, "clear_cache", False):
        from rulebook.compiler.pipeline import cache

        try:
            print(_("removed %(folder)s") % {"folder": escaped(str(cache.clear()))}, file=sys.stderr)
        except cache.CacheUnsafe as exc:
            return _fail(_("the resolver cache was left alone: %(reason)s") % {"reason": exc}, args.format)
        if not (args.procedure or args.list or args.batch):
            return 0
    resolver = open_rulebook(args.rulebook, args.format, use_cache=not args.no_cache)
    if resolver is None:
        return 1
    if args.batch:
        return resolver.run_batch(args, sys.stdin.buffer, sys.stdout)
    return resolver.run(args)


VERDICTS_KEPT = 4096
"""Input validation verdicts a :class:`Resolver` remembers (see :meth:`Resolver.input_problem`)."""


class RequestProblem(Exception):
    """A request that cannot be answered: the message, and the exit status of a single call."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


class Resolver:
    """A compiled rulebook answering ``rulebook resolve`` commands; the input
    schemas and their validators are built once, when first needed."""

    def __init__(self, program, package, *, schemas: dict | None = None, procedures: dict | None = None) -> None:
        if program is not None:
            from rulebook.compiler.emit.data import to_json

            schemas = to_json.all_schemas(program)
            procedures = to_json.procedures_doc(program)["procedures"]
        assert schemas is not None and procedures is not None
        self.program = program
        self.package = package
        self.lang: str | None = getattr(package, "LANG", None)  # the players' language of traces and errors
        self._schemas = schemas
        self._procedures = procedures
        self._registry = None
        self._validators: dict = {}
        self._verdicts: dict[tuple[str, str], str | None] = {}
        self._fast = fast_validation.Prevalidator(schemas)

    @classmethod
    def from_compiled(cls, compiled) -> Resolver:
        """A resolver over a :class:`rulebook.compiler.pipeline.cache.Compiled` (no program needed)."""
        return cls(None, compiled.package, schemas=compiled.schemas, procedures=compiled.procedures)

    def validator(self, procedure: str):
        """The validator of ``procedure``'s input schema."""
        if procedure not in self._validators:
            from jsonschema import Draft202012Validator
            from referencing import Registry, Resource
            from referencing.jsonschema import DRAFT202012

            if self._registry is None:  # the schemas by $id, so that $ref between them resolve
                self._registry = Registry().with_resources(
                    (s["$id"], Resource(contents=s, specification=DRAFT202012)) for s in self._schemas.values()
                )
            schema = self._schemas[f"procedures/{procedure}.input.schema.json"]
            self._validators[procedure] = Draft202012Validator(schema, registry=self._registry)
        return self._validators[procedure]

    def input_problem(self, procedure: str, data) -> str | None:
        """Why ``data`` is not a valid input of ``procedure`` (None when it is).

        Verdicts are remembered by the input's JSON text (at most
        :data:`VERDICTS_KEPT`): a batch resolving one input with many seeds
        validates it once."""
        key = (procedure, json.dumps(data, sort_keys=True, ensure_ascii=False))
        try:
            return self._verdicts[key]
        except KeyError:
            pass
        problem = None
        if not self._fast.is_valid(data, self._schemas[f"procedures/{procedure}.input.schema.json"]["$id"]):
            validator = self.validator(procedure)  # jsonschema, for its message (and its verdict)
            if not validator.is_valid(data):
                from jsonschema.exceptions import best_match

                err = best_match(validator.iter_errors(data))
                problem = _("invalid input at %(path)s: %(reason)s") % {"path": err.json_path, "reason": err.message}
        if len(self._verdicts) >= VERDICTS_KEPT:
            self._verdicts.clear()
        self._verdicts[key] = problem
        return problem

    def procedure(self, name):
        """The runtime procedure called ``name``; :class:`RequestProblem` (status 2) otherwise."""
        if not name:
            raise RequestProblem(_("name a procedure (see `rulebook resolve --list`)"), 2)
        proc = self.package.PROCEDURES.get(name) if isinstance(name, str) else None
        if proc is None:
            guess = did_you_mean(name, self.package.PROCEDURES) if isinstance(name, str) else None
            shown = name if isinstance(name, str) else json.dumps(name)
            raise RequestProblem((_("unknown procedure '%(name)s'; did you mean '%(guess)s'?") if guess else _("unknown procedure '%(name)s'"))
                                 % {"name": shown, "guess": guess}, 2)
        return proc

    def resolve(self, name: str, data, *, seed: int | None, exact: bool, explain: bool, max_work: int):
        """The answer to one request as the JSON object ``resolve --format json`` prints,
        and the procedure, the exact distribution (or None) and the trace (or None).
        Raises :class:`RequestProblem`."""
        proc = self.procedure(name)
        if not exact and seed is None:
            raise RequestProblem(_("give --seed N for a sampled resolution or --exact for the exact distribution"), 2)
        problem = self.input_problem(name, data)
        if problem is not None:
            raise RequestProblem(problem)
        dist = trace = None
        try:
            kwargs = proc.convert(data)
            if exact:
                dist = runtime.exact(proc.function, max_work=max_work, lang=self.lang, **kwargs)
                out = {"procedure": name, "input": data, "distribution": dist.to_json()}
                try:
                    out["mean"] = runtime.to_jsonable(dist.mean())
                except Exception:  # non-numeric results have no mean
                    pass
                if explain:
                    out["steps"] = self._procedures[name]["steps"]
            else:
                result, trace = runtime.sample(proc.function, seed=seed, trace=explain, max_work=max_work, lang=self.lang,
                                               **kwargs)
                out = {"procedure": name, "input": data, "seed": seed, "result": runtime.to_jsonable(result)}
                if explain and trace is not None:
                    out["trace"] = trace.to_json()
        except runtime.RuleError as exc:
            raise RequestProblem(str(exc)) from None
        status = getattr(proc, "status", "active")
        if status != "active":  # @status not_playable / deferred: the answer says so
            out["status"] = status
        return out, proc, dist, trace

    def run(self, args) -> int:
        """Answer one command: the listing, or the resolution of ``args.procedure``;
        prints it and returns the exit status."""
        fmt = args.format
        if args.list:
            items = listing(self._procedures, self.package)
            if fmt == "json":
                print(json.dumps(items, ensure_ascii=False, indent=2))
            else:
                for it in items:
                    params = ", ".join(f"{p['name']}: {p['type']}" + ("" if p["required"] else " = …") for p in it["params"])
                    marked = f" ({it['status']})" if "status" in it else ""
                    print(f"{it['name']}({params}) -> {it['result']}    {it['title']} [{it['source']}]{marked}")
            return 0
        try:
            self.procedure(args.procedure)
            if not args.exact and args.seed is None:
                raise RequestProblem(_("give --seed N for a sampled resolution or --exact for the exact distribution"), 2)
            try:
                data = read_input(args.input)
            except InputProblem as exc:
                raise RequestProblem(str(exc), 2) from None
            out, proc, dist, trace = self.resolve(
                args.procedure, data, seed=args.seed, exact=args.exact, explain=args.explain, max_work=args.max_work
            )
        except RequestProblem as exc:
            return _fail(str(exc), fmt, exc.status)
        if fmt == "text" and "status" in out:
            print(f"note: {args.procedure} is marked @status {out['status']}", file=sys.stderr)
        if fmt == "text" and not args.exact:
            if trace is not None:
                print(trace.render_compact(lang=self.lang))
            print(json.dumps(out["result"], ensure_ascii=False))
        elif fmt == "text":
            for outcome, p in proc.in_outcome_order(dist):
                print(distribution_line(outcome, p))
        else:
            print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0

    # ------------------------------------------------------------------ --batch

    def answer_line(self, number: int, line: bytes, defaults: dict) -> tuple[str, bool]:
        """One line of ``--batch`` → (its JSON answer, whether it succeeded)."""
        what = _("line %(num)s") % {"num": number}
        try:
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise RequestProblem(_("%(what)s is not UTF-8 text: byte %(byte)s at offset %(offset)s")
                                     % {"what": what, "byte": f"0x{line[exc.start]:02x}", "offset": exc.start}) from None
            request = parse_json(text, what)
            if not isinstance(request, dict):
                raise RequestProblem(_('%(what)s is not a JSON object such as %(example)s')
                                     % {"what": what, "example": '{"procedure": "…", "input": {…}, "seed": 1}'})
            unknown = sorted(set(request) - {"procedure", "input", "seed", "exact", "explain"})
            if unknown:
                raise RequestProblem(_("%(what)s has an unknown field '%(field)s' (expected procedure, input, seed, exact, explain)")
                                     % {"what": what, "field": unknown[0]})
            options = {**defaults}
            for field, kind in (("seed", int), ("exact", bool), ("explain", bool)):
                if field in request:
                    value = request[field]
                    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                        raise RequestProblem((_("%(what)s: '%(field)s' must be an integer") if kind is int
                                              else _("%(what)s: '%(field)s' must be true or false")) % {"what": what, "field": field})
                    options[field] = value
            if "seed" in request and "exact" not in request:
                options["exact"] = False
            out, *_rest = self.resolve(request.get("procedure"), request.get("input", {}), **options)
        except (RequestProblem, InputProblem) as exc:
            return json.dumps({"line": number, "error": escaped(_shorten(str(exc)))}, ensure_ascii=False), False
        return json.dumps(out, ensure_ascii=False), True

    def run_batch(self, args, stdin, stdout) -> int:
        """Answer every line of ``stdin`` (bytes) on ``stdout`` (text), in order; returns 1
        when a line failed, else 0. Blank lines are skipped (their numbers still count).
        Only the end of the input ends the batch (:func:`batch_lines`). A reader that
        closes its end of ``stdout`` stops the batch quietly (as ``rulebook`` does on a
        closed pipe), with the exit status of the lines answered so far."""
        defaults = {"seed": args.seed, "exact": args.exact, "explain": args.explain, "max_work": args.max_work}
        try:
            fd = stdin.fileno()
        except (AttributeError, OSError, ValueError):  # not a file (a test's BytesIO)
            fd = None
        failed = False
        number = 0
        read = (lambda: os.read(fd, BATCH_READ)) if fd is not None else (lambda: stdin.read(BATCH_READ))
        for lines in batch_lines(read):
            answers = []
            for line in lines:
                number += 1
                if line is None:
                    too_long = _("line %(num)s is larger than %(max)s bytes") % {"num": number, "max": MAX_INPUT_BYTES}
                    answers.append(json.dumps({"line": number, "error": too_long}, ensure_ascii=False))
                    failed = True
                elif line.strip():
                    answer, ok = self.answer_line(number, line, defaults)
                    failed |= not ok
                    answers.append(answer)
            try:
                if answers:
                    stdout.write("\n".join(answers) + "\n")
                stdout.flush()
            except BrokenPipeError:
                _quiet(stdout)
                break
        return 1 if failed else 0


BATCH_READ = 1 << 16
"""Bytes ``--batch`` asks for in one read of its input."""


def batch_lines(read, limit: int = MAX_INPUT_BYTES):
    """The lines of a stream, grouped by the read that completed them: ``read()`` returns
    the next bytes, and ``b""`` only at the end of the input (a read may end anywhere: in a
    line, on its newline, or hold several lines). Yields, after each read, the list of the
    lines it completed (bytes, without the newline; the last line needs none), where a line
    over ``limit`` bytes is ``None``: it is reported as soon as it is known to be too long,
    and the rest of it is skipped up to its newline, so at most ``limit`` bytes and one read
    are held at any time."""
    pending = bytearray()
    skipping = False  # inside a line already reported as too long, until its newline
    while True:
        chunk = read()
        if not chunk:  # the end of the input: the last line, when it has no newline
            if pending:
                yield [bytes(pending)]
            return
        lines: list[bytes | None] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            if skipping:
                skipping = False
            elif len(pending) + end - start > limit:
                lines.append(None)
            else:
                pending += chunk[start:end]
                lines.append(bytes(pending))
            pending.clear()
            start = end + 1
        if not skipping and start < len(chunk):
            if len(pending) + len(chunk) - start > limit:
                lines.append(None)
                pending.clear()
                skipping = True
            else:
                pending += chunk[start:]
        yield lines


def _quiet(stdout) -> None:
    """Nothing more reaches a closed ``stdout``, not even the interpreter's last flush at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):  # not a file (a test's StringIO)
        pass
