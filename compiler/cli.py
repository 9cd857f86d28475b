"""The ``rulebook`` command line: check, build, resolve, test.

Every command prints diagnostics (text with carets, or ``--format json``) and
exits with status 1 on errors, 2 on bad usage; never a Python traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import runtime
from rules_dsl.diagnostics import render_all

from . import driver

EPILOG = "Sin RULEBOOK se usa el reglamento incluido (content/1936)."


def _rulebook_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("rulebook", nargs="?", type=Path, default=None, metavar="RULEBOOK",
                   help="carpeta con los ficheros .rules (o un fichero); por defecto content/1936")


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

    p = sub.add_parser("build", help="genera json/, schemas/, python/, docs/ y site/", epilog=EPILOG)
    _rulebook_arg(p)
    _format_arg(p)
    p.add_argument("-o", "--output", type=Path, default=Path("build"), help="carpeta de salida (por defecto build/)")
    p.add_argument("--no-site", action="store_true", help="no ejecuta mkdocs (sólo genera docs/)")

    p = sub.add_parser("resolve", help="resuelve un procedimiento: resultado muestreado o distribución exacta")
    p.add_argument("procedure", nargs="?", help="nombre del procedimiento")
    p.add_argument("--rulebook", type=Path, default=None, help="carpeta del reglamento (por defecto content/1936)")
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
    _format_arg(p, "json")

    p = sub.add_parser("test", help="ejecuta los ejemplos del reglamento", epilog=EPILOG)
    _rulebook_arg(p)
    _format_arg(p)

    p = sub.add_parser("diff", help="compara dos versiones de un reglamento (datos y probabilidades)")
    p.add_argument("old", type=Path, metavar="OLD", help="carpeta del reglamento (o de su build) anterior")
    p.add_argument("new", type=Path, metavar="NEW", help="carpeta del reglamento (o de su build) nueva")
    _format_arg(p)

    sub.add_parser("lsp", help="servidor de lenguaje (LSP) para editores, por stdin/stdout")
    return parser


def _print_diags(result: driver.Checked, fmt: str, stream=sys.stderr) -> None:
    if result.diagnostics:
        print(render_all(result.diagnostics, result.sources, fmt), file=stream)


def cmd_check(args) -> int:
    result = driver.check(args.rulebook or driver.DEFAULT_RULEBOOK)
    if args.format == "json":
        print(render_all(result.diagnostics, result.sources, "json"))
    else:
        _print_diags(result, "text", sys.stdout)
    if not result.ok or (args.werror and result.diagnostics):
        return 1
    return 0


def cmd_build(args) -> int:
    t0 = time.perf_counter()
    result = driver.build(args.rulebook or driver.DEFAULT_RULEBOOK, args.output, site=not args.no_site)
    _print_diags(result, args.format)
    if not result.ok:
        print("build failed; the previous output was left untouched", file=sys.stderr)
        return 1
    total = time.perf_counter() - t0
    parts = ", ".join(f"{k} {v:.2f}s" for k, v in result.timings.items())
    print(f"built {args.output}/ in {total:.2f}s ({parts})", file=sys.stderr)
    return 0


def cmd_resolve(args) -> int:
    from . import resolve

    return resolve.main(args)


def cmd_test(args) -> int:
    from . import test_command

    return test_command.main(args)


def cmd_diff(args) -> int:
    from . import diff

    try:
        result = diff.diff_rulebooks(args.old, args.new)
    except diff.DiffError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.format == "json":
        print(json.dumps(diff.as_json(result), ensure_ascii=False, indent=2))
    else:
        print(diff.render_text(result))
    return 0


def cmd_lsp(args) -> int:
    from .lsp.server import serve

    return serve()


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    handler = {"check": cmd_check, "build": cmd_build, "resolve": cmd_resolve, "test": cmd_test, "diff": cmd_diff, "lsp": cmd_lsp}[args.command]
    try:
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
