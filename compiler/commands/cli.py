"""The ``rulebook`` command line: check, build, resolve, test.

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
from rulebook.rules_dsl.diagnostics import render_all


EPILOG = "Sin RULEBOOK, la orden se aplica a cada reglamento incluido (cada carpeta de content/ con ficheros .rules)."


def _rulebook_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("rulebook", nargs="?", type=Path, default=None, metavar="RULEBOOK",
                   help="carpeta con los ficheros .rules (o un fichero); por defecto, todos los reglamentos incluidos")


def _format_arg(p: argparse.ArgumentParser, default: str = "text") -> None:
    p.add_argument("--format", choices=("text", "json"), default=default, help=f"formato de la salida (por defecto {default})")


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rulebook",
        description="Compilador de reglamentos: comprueba las reglas, genera resolutores Python, JSON con esquemas y el sitio web.",
        epilog=EPILOG,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("check", help="comprueba un reglamento y muestra sus diagnósticos", epilog=EPILOG)
    _rulebook_arg(p)
    _format_arg(p)
    p.add_argument("--werror", action="store_true", help="trata los avisos como errores")
    p.add_argument("--fix", action="store_true",
                   help="aplica las correcciones exactas que proponen los diagnósticos (sintaxis antigua, valores con su ortografía "
                        "anterior, probability() olvidado); deja intacto un fichero cuyas correcciones se solapan; luego vuelve a comprobar")

    p = sub.add_parser("build", help="genera json/, schemas/, python/, docs/ y site/", epilog=EPILOG)
    _rulebook_arg(p)
    _format_arg(p)
    p.add_argument("-o", "--output", type=Path, default=Path("build"),
                   help="carpeta de salida (por defecto build/; sin RULEBOOK, una subcarpeta por reglamento y un index.html que enlaza sus sitios)")
    p.add_argument("--no-site", action="store_true", help="no ejecuta mkdocs (sólo genera docs/)")
    p.add_argument("--base", type=Path, default=None, metavar="PATH",
                   help="la versión anterior (un build o la carpeta del reglamento) frente a la que se calcula la versión; "
                        "por defecto, el build que ya hay en la carpeta de salida (ninguno: la versión declarada, 1.0 → 1.0.0)")
    p.add_argument("--allow-failing-examples", action="store_true",
                   help="compila un borrador aunque haya ejemplos que las reglas contradicen (avisos, y «holds»: false en sus vectores)")

    p = sub.add_parser("resolve", help="resuelve un procedimiento: resultado muestreado o distribución exacta")
    p.add_argument("procedure", nargs="?", help="nombre del procedimiento")
    p.add_argument("--rulebook", type=Path, default=None, help="carpeta del reglamento (por defecto, el primer reglamento incluido por nombre)")
    p.add_argument("--input", default="{}", help="parámetros en JSON, o @fichero.json")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--seed", type=int, help="semilla para una resolución muestreada")
    g.add_argument("--exact", action="store_true", help="calcula la distribución exacta de resultados")
    p.add_argument("--explain", action="store_true", help="incluye la traza paso a paso")
    p.add_argument(
        "--max-work", type=int, default=runtime.DEFAULT_MAX_WORK, metavar="N",
        help=f"límite de trabajo de una resolución: dados, estados, elementos recorridos (por defecto {runtime.DEFAULT_MAX_WORK})",
    )
    p.add_argument("--list", action="store_true", help="lista los procedimientos con sus tipos")
    p.add_argument(
        "--batch", action="store_true",
        help='lee peticiones JSON por líneas en la entrada estándar ({"procedure": …, "input": {…}, "seed": n} o "exact": true) '
             "y escribe una respuesta JSON por línea, en orden",
    )
    p.add_argument("--no-cache", action="store_true", help="no usa ni escribe la caché de reglamentos compilados")
    p.add_argument(
        "--clear-cache", action="store_true",
        help="vacía la caché de reglamentos compilados ($XDG_CACHE_HOME/rulebook o ~/.cache/rulebook)",
    )
    _format_arg(p, "json")

    p = sub.add_parser("test", help="ejecuta los ejemplos del reglamento", epilog=EPILOG)
    _rulebook_arg(p)
    _format_arg(p)

    p = sub.add_parser("diff", help="compara dos versiones de un reglamento (datos, lógica y probabilidades); sale con 0 si son iguales, 1 si difieren, 2 si no se pueden leer")
    p.add_argument("old", type=Path, metavar="OLD", help="carpeta del reglamento (o de su build) anterior")
    p.add_argument("new", type=Path, metavar="NEW", help="carpeta del reglamento (o de su build) nueva")
    _format_arg(p)

    sub.add_parser("lsp", help="servidor de lenguaje (LSP) para editores, por stdin/stdout")

    p = sub.add_parser("serve", help="sirve el sitio en local y lo reconstruye (y recarga el navegador) al editar")
    p.add_argument("rulebook", nargs="?", type=Path, default=None, metavar="RULEBOOK",
                   help="carpeta del reglamento que se sirve (o un fichero .rules); por defecto, el primer reglamento incluido por nombre")
    p.add_argument("--host", default="127.0.0.1", help="dirección en la que escuchar (por defecto 127.0.0.1, sólo este equipo)")
    p.add_argument("--port", type=int, default=8000, help="puerto (por defecto 8000; 0 elige uno libre)")

    p = sub.add_parser("roster", help="listas de ejército: valida o imprime una lista (JSON)")
    roster_sub = p.add_subparsers(dest="roster_command", metavar="ACTION")
    roster_sub.required = True
    for action, help_text in (("validate", "valida una lista: todos sus errores, el coste de cada unidad y el total frente al presupuesto"),
                              ("print", "imprime una lista en una hoja (HTML o Markdown) con la ficha de cada unidad")):
        q = roster_sub.add_parser(action, help=help_text)
        q.add_argument("roster", type=Path, metavar="ROSTER.json", help="la lista (formato schemas/roster.schema.json)")
        q.add_argument("--rulebook", type=Path, default=None,
                       help="carpeta del reglamento o de su build (por defecto, el reglamento incluido que nombra la lista)")
        if action == "validate":
            _format_arg(q)
        else:
            q.add_argument("--format", choices=("html", "markdown"), default="html", help="formato de la hoja (por defecto html)")
            q.add_argument("-o", "--output", type=Path, default=None, help="archivo de salida (por defecto, la salida estándar)")
    return parser


if TYPE_CHECKING:  # rulebook.compiler.pipeline.driver (the parser, the checker) is imported by the commands that use
    from rulebook.compiler.pipeline import driver  # it: a warm `rulebook resolve` answers from the cache without it


def _print_diags(result: driver.Checked, fmt: str, stream=None) -> None:
    if result.diagnostics:
        print(render_all(result.diagnostics, result.sources, fmt), file=stream or sys.stderr)  # looked up now: tests swap it


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
        print(f"index of {'the rulebook' if len(built) == 1 else f'the {len(built)} rulebooks'}: {args.output / 'index.html'}", file=sys.stderr)
    return status


def _build_one(args, book: Path, output: Path) -> tuple[int, driver.Checked]:
    """Build ``book`` into ``output``; (exit status, the result)."""
    from rulebook.compiler.pipeline import driver

    t0 = time.perf_counter()
    base = args.base if getattr(args, "base", None) is not None else driver.PREVIOUS
    result = driver.build(book, output, site=not args.no_site, allow_failing_examples=args.allow_failing_examples, base=base)
    _print_diags(result, args.format)
    if not result.ok:
        print(f"build of {_shown(book)} failed; the previous output was left untouched", file=sys.stderr)
        return 1, result
    total = time.perf_counter() - t0
    parts = ", ".join(f"{k} {v:.2f}s" for k, v in result.timings.items())
    print(f"built {output}/ in {total:.2f}s ({parts})", file=sys.stderr)
    return 0, result


def cmd_resolve(args) -> int:
    from rulebook.compiler.commands import resolve

    return resolve.main(args)


def cmd_test(args) -> int:
    from rulebook.compiler.commands import test_command

    return _each_rulebook(args, test_command.main, args.format)


def cmd_diff(args) -> int:
    from rulebook.compiler.commands import diff

    try:
        result = diff.diff_rulebooks(args.old, args.new)
    except diff.DiffError as exc:
        print(str(exc) if isinstance(exc, diff.BadBuild) else f"error: {exc}", file=sys.stderr)  # a BadBuild's names its file
        return exc.status
    if args.format == "json":
        print(json.dumps(diff.as_json(result), ensure_ascii=False, indent=2))
    else:
        print(diff.render_text(result))
    return 0 if result.empty else 1  # as diff(1): 0 the same, 1 differences, 2 trouble


def cmd_roster(args) -> int:
    from rulebook.compiler.commands import roster

    return roster.main(args)


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
    parser = make_parser()
    args = parser.parse_args(argv)
    handler = {"check": cmd_check, "build": cmd_build, "resolve": cmd_resolve, "test": cmd_test, "diff": cmd_diff, "lsp": cmd_lsp, "roster": cmd_roster, "serve": cmd_serve}[args.command]
    try:
        with _collector_for(args.command), _output_filter(args):
            return handler(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the system refused (a full or read-only temporary folder…): say what and where
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug in the compiler: say so, without a traceback
        print(f"internal error: {type(exc).__name__}: {exc}\nplease report this with the input that caused it", file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
