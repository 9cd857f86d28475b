"""``rulebook balance [RULEBOOK]``: what each unit's points buy, for designers.

Reads a rulebook folder (checked and compiled here). Produces, for every ``matchup`` it
declares, the analysis of :mod:`rulebook.compiler.analysis.balance` — each unit's effect
per 100 points against the field, its rank, its category's outliers, and with ``--matrix``
every pair — as text, JSON (``schemas/balance.schema.json``) or CSV. Entry points:
:func:`analyse_folder(path) -> Analysed` (also used by ``rulebook diff``) and :func:`main`.

The generated package is written to a temporary folder only while the keys of its
procedures are worked out; distributions are kept in the process
(:data:`rulebook.compiler.analysis.matchups.DISTRIBUTIONS`), so a second analysis after an
edit (``rulebook diff``, ``rulebook serve``, ``bench/balance.py``) resolves only what changed.
"""

from __future__ import annotations

import csv
import io
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from rulebook.compiler.analysis import balance as bal
from rulebook.compiler.analysis import matchups
from rulebook.compiler.ir import Program
from rulebook.compiler.support.i18n import _


class BalanceError(Exception):
    """The rulebook cannot be analysed (it does not check, or a fight is too large)."""


@dataclass
class Analysed:
    program: Program
    package: ModuleType
    balance: bal.Balance

    @property
    def rulebook(self) -> str:
        return self.program.rulebook.name if self.program.rulebook else ""

    @property
    def version(self) -> str:
        return self.program.rulebook.version if self.program.rulebook else ""


def load_package(program: Program) -> ModuleType:
    """The program's generated package, with the keys of its procedures worked out."""
    from rulebook.compiler.analysis.reads import procedure_keys
    from rulebook.compiler.emit.python import to_python
    from rulebook.compiler.pipeline import pyload

    with tempfile.TemporaryDirectory(prefix="rulebook-balance-") as tmp:
        to_python.write_package(program, Path(tmp))
        package = pyload.load_package(Path(tmp))
        procedure_keys(package)
    return package


def analyse_program(program: Program, package: ModuleType | None = None, max_work: int = matchups.MAX_WORK) -> Analysed:
    package = package if package is not None else load_package(program)
    try:
        results = matchups.compute(program, package, max_work=max_work)
    except matchups.EngagementTooLarge as exc:
        raise BalanceError(str(exc)) from None
    return Analysed(program, package, bal.analyse(results))


def analyse_folder(path: Path, max_work: int = matchups.MAX_WORK) -> Analysed:
    from rulebook.compiler.pipeline import driver
    from rulebook.rules_dsl.diagnostics import render_all

    checked = driver.check(path)
    if not checked.ok or checked.program is None:
        errors = [d for d in checked.diagnostics if d.severity == "error"]
        raise BalanceError(f"{path} has errors:\n" + render_all(errors, checked.sources))
    return analyse_program(checked.program, max_work=max_work)


def _number(v, places: int = 2) -> str:
    return "—" if v is None else f"{float(v):.{places}f}"


def render_text(a: Analysed, top: int = 5, matrix: bool = False) -> str:
    """Each matchup: the best and worst units per point, the outliers and (with ``matrix``) every pair."""
    lines: list[str] = []
    for m in a.balance.matchups:
        lines.append(f"{m.title} [{m.name}]")
        ranked = sorted((u for u in m.units if u.rank is not None), key=lambda u: u.rank)
        no_cost = [u for u in m.units if u.rank is None]
        lines.append("  " + _("effect per %(points)s points against the field (%(count)s units ranked)") % {"points": bal.PER_POINTS, "count": len(ranked)})
        shown = ranked if len(ranked) <= 2 * top else ranked[:top] + [None] + ranked[-top:]
        effect_word, cost_word, median_word, fences_word = _("effect"), _("cost"), _("median"), _("fences")
        for u in shown:
            if u is None:
                lines.append("    …")
                continue
            mark = {"high": " ▲", "low": " ▼"}.get(u.outlier or "", "")
            lines.append(f"    {u.rank:>4}. {u.label}: {_number(u.per_point, 3)} ({effect_word} {_number(u.effect, 3)}, {cost_word} {_number(u.cost, 0)}; "
                         f"{u.category_rank}/{u.category_size} {u.category}){mark}")
        outliers = [u for u in ranked if u.outlier]
        if outliers:
            lines.append("  " + _("outliers (%(rule)s):") % {"rule": _("Tukey's fences, or a factor of 2 in small categories")})
            for u in outliers:
                c = m.categories[u.category]
                word = _("high") if u.outlier == "high" else _("low")
                lines.append(f"    {word}: {u.label} {_number(u.per_point, 3)} — {u.category}: {median_word} {_number(c.median, 3)}, "
                             f"{fences_word} {_number(c.low, 3)} … {_number(c.high, 3)}")
        if no_cost:
            lines.append("  " + _("without a cost (not ranked): %(units)s") % {"units": ", ".join(sorted({u.name for u in no_cost}))})
        if m.kind == "win":
            lines.append("  " + _("engagements (win / loss / draw; still fighting after N; expected rounds):"))
            for u in m.units[: 3 * top]:
                for t, e in list(u.engagements.items())[:3]:
                    lines.append(f"    {u.label} × {t}: {_number(e.win, 3)} / {_number(e.loss, 3)} / {_number(e.draw, 3)}; "
                                 f"{_number(e.unfinished, 3)} ({e.rounds}); {_number(e.expected_rounds, 2)}")
        if matrix:
            lines.append("  " + _("matrix (rows: attackers; columns: targets):"))
            lines.append("    " + "\t".join(["", *[t for t, _n in m.targets]]))
            for u in m.units:
                lines.append("    " + "\t".join([u.label, *[_number(u.effects.get(t), 3) for t, _n in m.targets]]))
        for e in m.errors[:5]:
            lines.append("  " + _("not computed: %(error)s") % {"error": e})
        lines.append("")
    if not a.balance.matchups:
        lines.append(_("the rulebook declares no matchup"))
    return "\n".join(lines).rstrip()


def render_csv(a: Analysed, matrix: bool = False) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows(bal.csv_rows(a.balance, matrix))
    return out.getvalue()


def main(args) -> int:
    from rulebook.compiler.commands.resolve import default_rulebook

    path = args.rulebook if args.rulebook is not None else default_rulebook()
    try:
        a = analyse_folder(path, max_work=args.max_work)
    except BalanceError as exc:
        print(_("error: %(message)s") % {"message": exc}, file=sys.stderr)
        return 1
    if args.format == "json":
        from rulebook.compiler.emit.data.schemas import schema_id

        doc = bal.as_json(a.balance, a.rulebook, a.version, schema=schema_id(a.program, "balance.schema.json"))
        print(json.dumps(doc, ensure_ascii=False, indent=2))
    elif args.format == "csv":
        sys.stdout.write(render_csv(a, args.matrix))
    else:
        print(render_text(a, matrix=args.matrix))
    return 0
