"""The ``rulebook`` command line: check, fmt, build, resolve, test.

Every command prints diagnostics (text with carets, or ``--format json``) and
exits with status 1 on errors, 2 on bad usage; never a Python traceback. What a
command prints goes through :mod:`rulebook.compiler.support.terminal` (no control
character of an input reaches the terminal).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from rulebook import runtime
from rulebook.compiler.support.i18n import N_, diagnostics_summary
from rulebook.compiler.support.i18n import tell as _
from rulebook.compiler.support.i18n import tell_n as ngettext
from rulebook.rules_dsl.diagnostics import render_all


ARGPARSE_PHRASES = (
    N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"), N_("argument %(argument_name)s: %(message)s"),
    N_("the following arguments are required: %s"), N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"), N_("unrecognized arguments: %s"), N_("expected one argument"),
    N_("not allowed with argument %s"), N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("one of the arguments %s is required"), N_("expected at least one argument"), N_("expected at most one argument"),
    N_("ignored explicit argument %r"), N_("can't open '%(filename)s': %(error)s"),
)
"""argparse's own words (usage, the headings of a help, its errors): translated with the
command's phrases while the command line is read (:func:`_argparse_in_user_language`)."""


def _epilog() -> str:
    return _("Without RULEBOOK, the command runs on every bundled rulebook (each folder of content/ with .rules files).")


def _rulebook_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("rulebook", nargs="?", type=Path, default=None, metavar="RULEBOOK",
                   help=_("folder with the .rules files (or one file); by default, every bundled rulebook"))


def _format_arg(p: argparse.ArgumentParser, default: str = "text") -> None:
    p.add_argument("--format", choices=("text", "json"), default=default, help=_("output format (default %(default)s)"))


def make_parser() -> argparse.ArgumentParser:
    """The command line, its help in the user's language (``LANG``/``LC_ALL``/``LC_MESSAGES``)."""
    parser = argparse.ArgumentParser(
        prog="rulebook",
        description=_("Rulebook compiler: checks the rules and generates Python resolvers, JSON with schemas and the website."),
        epilog=_epilog(),
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("check", help=_("check a rulebook and show its diagnostics"), epilog=_epilog())
    _rulebook_arg(p)
    _format_arg(p)
    p.add_argument("--werror", action="store_true", help=_("treat warnings as errors"))
    p.add_argument("--fix", action="store_true",
                   help=_("apply the exact fixes the diagnostics propose (old syntax, values in their former spelling, "
                          "a forgotten probability()); leave a file whose fixes overlap untouched; then check again"))

    p = sub.add_parser("fmt", help=_("rewrite .rules files in the canonical layout (the prose outside the code blocks is kept as it is)"),
                       epilog=_("Without PATHS, every bundled rulebook. A file is written only when its new layout means the same: "
                                "its syntax tree and its rulebook's checked program are compared before and after."))
    p.add_argument("paths", nargs="*", type=Path, metavar="PATHS", help=_("rulebook folders or .rules files; by default, every bundled rulebook"))
    p.add_argument("--check", action="store_true", help=_("write nothing; list the files that would be reformatted and exit 1 if there are any"))
    p.add_argument("--diff", action="store_true", help=_("write nothing; print a unified diff of each file that would be reformatted"))

    p = sub.add_parser("build", help=_("generate json/, schemas/, python/, docs/ and site/"), epilog=_epilog())
    _rulebook_arg(p)
    _format_arg(p)
    p.add_argument("-o", "--output", type=Path, default=Path("build"),
                   help=_("output folder (default build/; without RULEBOOK, one subfolder per rulebook and an index.html linking their sites)"))
    p.add_argument("--no-site", action="store_true", help=_("do not run mkdocs (only generate docs/)"))
    p.add_argument("--base", type=Path, default=None, metavar="PATH",
                   help=_("the previous version (a build or the rulebook's folder) the version is computed against; "
                          "by default, the build already in the output folder (none: the declared version, 1.0 → 1.0.0)"))
    p.add_argument("--allow-failing-examples", action="store_true",
                   help=_("build a draft even when the rules contradict some examples (warnings, and “holds”: false in their vectors)"))

    p = sub.add_parser("resolve", help=_("resolve a procedure: a sampled result or the exact distribution"))
    p.add_argument("procedure", nargs="?", help=_("name of the procedure"))
    p.add_argument("--rulebook", type=Path, default=None, help=_("folder of the rulebook (default: the first bundled rulebook by name)"))
    p.add_argument("--input", default="{}", help=_("parameters as JSON, or @file.json"))
    g = p.add_mutually_exclusive_group()
    g.add_argument("--seed", type=int, help=_("seed of a sampled resolution"))
    g.add_argument("--exact", action="store_true", help=_("compute the exact distribution of results"))
    p.add_argument("--explain", action="store_true",
                   help=_("include the step-by-step trace (short with --format text; complete with --format json)"))
    p.add_argument(
        "--max-work", type=int, default=runtime.DEFAULT_MAX_WORK, metavar="N",
        help=_("work limit of one resolution: dice, states, elements visited (default %(default)s)"),
    )
    p.add_argument("--list", action="store_true", help=_("list the procedures with their types"))
    p.add_argument(
        "--batch", action="store_true",
        help=_('read JSON requests, one per line, on standard input ({"procedure": …, "input": {…}, "seed": n} or "exact": true) '
               "and write one JSON answer per line, in order"),
    )
    p.add_argument("--no-cache", action="store_true", help=_("neither use nor write the cache of compiled rulebooks"))
    p.add_argument(
        "--clear-cache", action="store_true",
        help=_("empty the cache of compiled rulebooks ($XDG_CACHE_HOME/rulebook or ~/.cache/rulebook)"),
    )
    _format_arg(p, "json")

    p = sub.add_parser("test", help=_("run the rulebook's worked examples"), epilog=_epilog())
    _rulebook_arg(p)
    _format_arg(p)

    p = sub.add_parser("diff", help=_("compare two versions of a rulebook (data, logic and probabilities); exit 0 when equal, 1 when they differ, 2 when unreadable"))
    p.add_argument("old", type=Path, metavar="OLD", help=_("folder of the previous rulebook (or of its build)"))
    p.add_argument("new", type=Path, metavar="NEW", help=_("folder of the new rulebook (or of its build)"))
    _format_arg(p)

    p = sub.add_parser("balance", help=_("for designers: each unit's effect per point against the field, its rank and the outliers, from the rulebook's matchups"))
    p.add_argument("rulebook", nargs="?", type=Path, default=None, metavar="RULEBOOK",
                   help=_("folder with the .rules files (or one file); by default, the first bundled rulebook"))
    p.add_argument("--format", choices=("text", "json", "csv"), default="text", help=_("output format (default %(default)s)"))
    p.add_argument("--matrix", action="store_true", help=_("also every pair: each attacker against each target"))
    p.add_argument("--max-work", type=int, default=5_000_000, metavar="N", help=_("the work limit of one engagement (default %(default)s)"))

    sub.add_parser("lsp", help=_("language server (LSP) for editors, on stdin/stdout"))

    p = sub.add_parser("serve", help=_("serve the site locally, rebuild it (and reload the browser) on every edit"))
    p.add_argument("rulebook", nargs="?", type=Path, default=None, metavar="RULEBOOK",
                   help=_("folder of the rulebook served (or a .rules file); by default, the first bundled rulebook by name"))
    p.add_argument("--host", default="127.0.0.1", help=_("address to listen on (default 127.0.0.1, this computer only)"))
    p.add_argument("--port", type=int, default=8000, help=_("port (default 8000; 0 picks a free one)"))

    p = sub.add_parser("roster", help=_("army rosters: validate or print a roster (JSON)"))
    roster_sub = p.add_subparsers(dest="roster_command", metavar="ACTION")
    roster_sub.required = True
    for action, help_text in (("validate", _("validate a roster: all its errors, the cost of each unit and the total against the budget")),
                              ("print", _("print a roster on a sheet (HTML or Markdown) with each unit's datasheet"))):
        q = roster_sub.add_parser(action, help=help_text)
        q.add_argument("roster", type=Path, metavar="ROSTER.json", help=_("the roster (format schemas/roster.schema.json)"))
        q.add_argument("--rulebook", type=Path, default=None,
                       help=_("folder of the rulebook or of its build (default: the bundled rulebook the roster names)"))
        if action == "validate":
            _format_arg(q)
        else:
            q.add_argument("--format", choices=("html", "markdown"), default="html", help=_("format of the sheet (default %(default)s)"))
            q.add_argument("-o", "--output", type=Path, default=None, help=_("output file (default: standard output)"))
    return parser


@contextlib.contextmanager
def _argparse_in_user_language():
    """argparse's own words in the user's language while the command line is read (argparse
    looks its ``_``/``ngettext`` up when it writes a help or an error)."""
    saved = argparse._, argparse.ngettext
    argparse._, argparse.ngettext = _, ngettext
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved


if TYPE_CHECKING:  # rulebook.compiler.pipeline.driver (the parser, the checker) is imported by the commands that use
    from rulebook.compiler.pipeline import driver  # it: a warm `rulebook resolve` answers from the cache without it


def _print_diags(result: driver.Checked, fmt: str, stream=None) -> None:
    if result.diagnostics:
        print(render_all(result.diagnostics, result.sources, fmt, summarize=diagnostics_summary),
              file=stream or sys.stderr)  # looked up now: tests swap it


def _shown(path: Path) -> str:
    """A path as the user would type it: relative to the working folder when it is inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _each_rulebook(args, run_one, fmt: str = "text") -> int:
    """``run_one(args)`` for ``args.rulebook``, or for every bundled rulebook when none is
    named (a ``== content/x`` line before each in text; one JSON document in json,
    ``merge``d from each run's printed JSON)."""
    from rulebook.compiler.pipeline import driver

    if args.rulebook is not None:
        return run_one(args)
    status, merged = 0, None
    for book in driver.bundled_rulebooks():
        one = argparse.Namespace(**{**vars(args), "rulebook": book})
        if fmt == "json":
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                status = max(status, run_one(one))
            doc = json.loads(out.getvalue() or "[]")
            merged = doc if merged is None else (merged + doc if isinstance(doc, list) else {**merged, **doc})
        else:
            print(f"== {_shown(book)}", flush=True)
            status = max(status, run_one(one))
    if fmt == "json":
        print(json.dumps(merged if merged is not None else [], ensure_ascii=False, indent=2))
    return status


def cmd_check(args) -> int:
    return _each_rulebook(args, _check_one, args.format)


def _check_one(args) -> int:
    from rulebook.compiler.pipeline import driver

    path = args.rulebook or driver.DEFAULT_RULEBOOK
    result = driver.check(path)
    if getattr(args, "fix", False):
        from rulebook.compiler.commands import fix

        applied = fix.apply(path, result.diagnostics, result.sources)
        print(applied.summary(), file=sys.stderr)
        if applied.edits:
            result = driver.check(path)  # what remains
    if args.format == "json":
        print(render_all(result.diagnostics, result.sources, "json"))
    else:
        _print_diags(result, "text", sys.stdout)
    if not result.ok or (args.werror and result.diagnostics):
        return 1
    return 0


def cmd_build(args) -> int:
    """One rulebook into ``-o``; without RULEBOOK, each bundled rulebook into ``-o/<folder>``
    and ``-o/index.html`` linking their sites."""
    from rulebook.compiler.pipeline import driver

    if args.rulebook is not None:
        return _build_one(args, args.rulebook, args.output)[0]
    status, built = 0, []
    for book in driver.bundled_rulebooks():
        code, result = _build_one(args, book, args.output / book.name)
        status = max(status, code)
        if result.ok and result.program is not None:
            built.append((book.name, result.program))
    if not status and not args.no_site:
        from rulebook.compiler.emit.site import to_pages

        to_pages.write_bundle_index(args.output, built)
        index = args.output / "index.html"
        print(ngettext("index of %(num)d rulebook: %(index)s", "index of the %(num)d rulebooks: %(index)s", len(built))
              % {"num": len(built), "index": index}, file=sys.stderr)
    return status


def _build_one(args, book: Path, output: Path) -> tuple[int, driver.Checked]:
    """Build ``book`` into ``output``; (exit status, the result)."""
    from rulebook.compiler.pipeline import driver

    t0 = time.perf_counter()
    base = args.base if getattr(args, "base", None) is not None else driver.PREVIOUS
    result = driver.build(book, output, site=not args.no_site, allow_failing_examples=args.allow_failing_examples, base=base)
    _print_diags(result, args.format)
    if not result.ok:
        print(_("build of %(rulebook)s failed; the previous output was left untouched") % {"rulebook": _shown(book)}, file=sys.stderr)
        return 1, result
    total = time.perf_counter() - t0
    parts = ", ".join(f"{k} {v:.2f}s" for k, v in result.timings.items())
    print(_("built %(output)s/ in %(seconds)ss (%(parts)s)") % {"output": output, "seconds": f"{total:.2f}", "parts": parts}, file=sys.stderr)
    return 0, result


def cmd_resolve(args) -> int:
    from rulebook.compiler.commands import resolve

    return resolve.main(args)


def cmd_test(args) -> int:
    from rulebook.compiler.commands import test_command

    return _each_rulebook(args, test_command.main, args.format)


def cmd_diff(args) -> int:
    from rulebook.compiler.commands import diff

    from rulebook.compiler.support import i18n

    with i18n.using(i18n.user_language()):  # the differences are told in the user's language
        try:
            result = diff.diff_rulebooks(args.old, args.new)
        except diff.DiffError as exc:
            print(str(exc) if isinstance(exc, diff.BadBuild) else _("error: %(message)s") % {"message": exc}, file=sys.stderr)  # a BadBuild's names its file
            return exc.status
        if args.format == "json":
            print(json.dumps(diff.as_json(result), ensure_ascii=False, indent=2))
        else:
            print(diff.render_text(result))
    return 0 if result.empty else 1  # as diff(1): 0 the same, 1 differences, 2 trouble


def cmd_balance(args) -> int:
    from rulebook.compiler.commands import balance
    from rulebook.compiler.support import i18n

    with i18n.using(i18n.user_language()):
        return balance.main(args)


def cmd_roster(args) -> int:
    from rulebook.compiler.commands import roster

    return roster.main(args)


def cmd_fmt(args) -> int:
    from rulebook.compiler.commands import fmt

    return fmt.main(args)


def cmd_lsp(args) -> int:
    from rulebook.compiler.lsp.server import serve

    return serve()


def cmd_serve(args) -> int:
    from rulebook.compiler.commands import serve

    return serve.main(args)


ONE_SHOT_GC_THRESHOLD = (100_000, 100, 100)
"""Python's cycle collector thresholds (``gc.set_threshold``) in a command that ends when
its work does (Python's default: 700, 10, 10). Such a command builds large structures
that live until it ends (the syntax trees, the checked program, the generated package):
each collection walks the young ones again, and the full collections walk all of them,
about 0.35 s of a 3.5 s build of the largest bundled rulebook; about 0.1 s with these. Cycles of
garbage still go, a little later."""


@contextlib.contextmanager
def _collector_for(command: str):
    """Python's cycle collector tuned for ``command``: rarer in the commands that end with
    their work; as it was for the long-running ones (``serve``, ``lsp``) and afterwards."""
    if command in ("serve", "lsp"):
        yield
        return
    import gc

    before = gc.get_threshold()
    gc.set_threshold(*ONE_SHOT_GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _output_filter(args):
    """What the command prints, through the one terminal filter (rulebook.compiler.support.terminal):
    control characters from a rules file, a roster or a build never reach the terminal raw,
    and JSON output keeps its meaning. ``lsp`` speaks its protocol on the standard streams
    and ``serve`` runs threads that print: neither is wrapped."""
    if args.command in ("lsp", "serve"):
        return contextlib.nullcontext()
    from rulebook.compiler.support import terminal

    return terminal.filtered(json_stdout=getattr(args, "format", None) == "json")


def main(argv: list[str] | None = None) -> int:
    with _argparse_in_user_language():
        parser = make_parser()
        args = parser.parse_args(argv)
    handler = {"check": cmd_check, "fmt": cmd_fmt, "build": cmd_build, "resolve": cmd_resolve, "test": cmd_test, "diff": cmd_diff, "balance": cmd_balance, "lsp": cmd_lsp, "roster": cmd_roster, "serve": cmd_serve}[args.command]
    try:
        with _collector_for(args.command), _output_filter(args):
            return handler(args)
    except KeyboardInterrupt:
        print(_("interrupted"), file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the system refused (a full or read-only temporary folder…): say what and where
        where = f"{exc.filename}: " if exc.filename else ""
        print(_("error: %(message)s") % {"message": f"{where}{exc.strerror or exc}"}, file=sys.stderr)
        return 1
    except Exception as exc:  # a bug in the compiler: say so, without a traceback
        print(_("internal error: %(error)s\nplease report this with the input that caused it") % {"error": f"{type(exc).__name__}: {exc}"},
              file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
