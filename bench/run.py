"""Benchmarks of the rulebook compiler: each one a ratio against a baseline timed in the same run.

README
------
Run from the project root::

    python bench/run.py            # full run, about five minutes
    python bench/run.py --quick    # smoke run, about two minutes (noisy numbers)

Options: ``--repeat N`` (timings per measurement; default 7, quick 3),
``--calls N`` (resolver calls for b; default 20000, quick 2000),
``--build-repeat N`` (runs of each CLI command for d; default 3, quick 1).

It prints one compact table. Every row is *subject ÷ baseline*, both measured
in this process (d: in child processes started by it), interleaved repetition
by repetition, with ``time.perf_counter``; the table shows the median of each
side, the ratio of the medians and the range of the per-repetition ratios.

    a1  ``rulebook.compiler.pipeline.driver.check(content/1936)`` ÷ Lark alone parsing the same
        declarations (the same chunks check hands to Lark, same Lark instance,
        no transformer). How much the rest of check (prose, AST, name
        resolution, types) costs on top of raw parsing.
    a2  tracemalloc peak during check ÷ peak of Lark parsing every chunk and
        keeping the trees.
    b1  generated ``disparo_directo`` (the fast resolver) with
        ``rulebook.runtime.SampleContext(seed, trace=False)`` ÷ the hand-written
        plain-Python resolver in bench/baseline.py (same rules,
        ``random.Random`` dice), over the same list of calls (target ≤ 1.2×).
    b2  its traced twin with ``trace=True`` (a fresh Trace per call) ÷ the same baseline.
    b3  ``rulebook.runtime.sample(fn, seed=i, trace=False)`` per call (a new
        Random(seed) each time) ÷ the baseline with a new Random(i) per call.
    c1  ``rulebook.runtime.exact(disparo_directo, ...)`` mapped to casualties ÷ icepool
        2.1.3 computing the same dice expression (Quality pool keep
        highest/lowest 2 of the ±1 die, compare with P − I efectivo, map to
        casualties), per scenario.
    e1–e5, f1  exact distributions and schema validation at scale, each next
        to the issue's target (see bench/scale.py).
    d1  ``rulebook build --no-site`` ÷ ``rulebook check`` (whole CLI processes; target ≤ 3 s).
    d2  ``rulebook build`` (with mkdocs) ÷ ``rulebook build --no-site``.
    d3  ``build --no-site`` per declaration at 50× synthetic content ÷ at 1×
        (target ≤ 1.3×; see bench/scale.py).
    g1–g4  warm ``rulebook resolve`` (cache) ÷ ``--no-cache``, ``resolve --batch``
        throughput, and the ``rulebook serve`` edit loop (prose and data edit →
        page updated) ÷ a full build (see bench/speed.py).
    g5–g8  the edit loop with lines added, and the three edits with the page
        open in Chromium (new content drawn) ÷ a full build (bench/speed.py).

A ratio above 1 means the subject is slower than its baseline. Before timing,
the run checks that each pair computes the same thing (a: identical chunks;
b: the baseline's exact distribution, enumerated over its dice, equals the
generated resolver's in every scenario; c: icepool's and rulebook.runtime.exact's
casualty distributions are equal as Fractions) and exits with status 1 if not.
bench/README.md explains how to read the numbers.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from fractions import Fraction
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (str(ROOT), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)

import icepool  # noqa: E402
import lark  # noqa: E402

import baseline  # noqa: E402
from rulebook import runtime  # noqa: E402
import scale  # noqa: E402
import speed  # noqa: E402
from rulebook.compiler.pipeline import driver, pyload  # noqa: E402
from rulebook.compiler.check.loader import rule_files  # noqa: E402
from rulebook.rules_dsl import parser as rules_parser  # noqa: E402

RULEBOOK = ROOT / "content" / "1936"
SEED = 1936

# Direct-fire attacks used by b (cycled) and c: automatic, impossible and rolled
# hits, every Quality, both fire modes, cover, vehicles, small bases, helmets.
SCENARIOS: list[dict] = [
    dict(perfil="fusiles_seccion", modo="area", distancia=15, p=5, calidad="regular"),
    dict(perfil="fusiles_seccion", modo="area", distancia=15, p=5, calidad="regular", blanco_a_cubierto=True),
    dict(perfil="fusiles_seccion", modo="area", distancia=30, p=5, calidad="regular", m=-2),
    dict(perfil="fusiles_seccion", modo="preciso", distancia=60, p=7, calidad="regular"),
    dict(perfil="fusiles_seccion", modo="preciso", distancia=70, p=10, calidad="veteran"),
    dict(perfil="fusiles_seccion", modo="preciso", distancia=15, p=10, calidad="elite", blanco_seccion=True),
    dict(perfil="pak_35_36_37", modo="preciso", distancia=20, p=7, calidad="veteran", municion="ap", blanco_vehiculo=True),
    dict(perfil="pak_35_36_37", modo="area", distancia=70, p=5, calidad="green", municion="he", m=-1),
    dict(perfil="puteaux_37_trp", modo="area", distancia=45, p=5, calidad="elite", m=-1, municion="he", casco=True),
    dict(perfil="ametralladora_media_pesada", modo="area", distancia=70, p=10, calidad="regular", blanco_peana_pequena=True),
    dict(perfil="ametralladora_media_pesada", modo="preciso", distancia=40, p=7, calidad="elite"),
    dict(perfil="ametralladora_media_pesada", modo="preciso", distancia=40, p=7, calidad="green", m=1),
    dict(perfil="francotirador", modo="preciso", distancia=60, p=10, calidad="veteran", m=1),
]


class BenchFailure(Exception):
    """A pair no longer computes the same thing, or a command failed."""


# ----------------------------------------------------------------------------- timing


def _timed(fn) -> float:
    """Seconds for one call of ``fn()``, with the garbage collector off (as timeit does)."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0
    finally:
        if enabled:
            gc.enable()


@dataclass
class Pair:
    """Repeated timings (or sizes) of a subject and its baseline, taken alternately."""

    subject: list[float]
    base: list[float]

    @property
    def s(self) -> float:
        return statistics.median(self.subject)

    @property
    def b(self) -> float:
        return statistics.median(self.base)

    @property
    def ratio(self) -> float:
        return self.s / self.b

    @property
    def ratio_range(self) -> tuple[float, float]:
        rs = [s / b for s, b in zip(self.subject, self.base)]
        return min(rs), max(rs)


def side_by_side(subject, base, repeat: int, warmup: bool = True) -> Pair:
    """Time ``subject()`` and ``base()`` ``repeat`` times each, alternating which goes first."""
    if warmup:
        subject()
        base()
    s: list[float] = []
    b: list[float] = []
    for i in range(repeat):
        if i % 2:
            b.append(_timed(base))
            s.append(_timed(subject))
        else:
            s.append(_timed(subject))
            b.append(_timed(base))
    return Pair(s, b)


# ----------------------------------------------------------------------------- formatting


def fmt_time(sec: float) -> str:
    if sec >= 1:
        return f"{sec:.2f} s"
    if sec >= 1e-3:
        return f"{sec * 1e3:.1f} ms"
    return f"{sec * 1e6:.2f} µs"


def fmt_bytes(n: float) -> str:
    return f"{n / 2**20:.2f} MiB"


@dataclass
class Row:
    key: str
    measure: str
    subject: str
    base: str
    ratio: float
    spread: tuple[float, float] | None = None
    target: str = ""  # the target for this row, marked ✓ (met) or ✗


def print_table(rows: list[Row]) -> None:
    head = ("", "measure (subject ÷ baseline)", "subject", "baseline", "ratio", "per-rep range", "target")
    cells = [
        (
            r.key,
            r.measure,
            r.subject,
            r.base,
            f"{r.ratio:.2f}×",
            f"{r.spread[0]:.2f}–{r.spread[1]:.2f}" if r.spread else "",
            r.target,
        )
        for r in rows
    ]
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(len(head))]
    right = {2, 3, 4}

    def line(c) -> str:
        return "  ".join(x.rjust(w) if i in right else x.ljust(w) for i, (x, w) in enumerate(zip(c, widths))).rstrip()

    print(line(head))
    print("  ".join("-" * w for w in widths))
    for c in cells:
        print(line(c))


# ----------------------------------------------------------------------------- a: check vs Lark


def rules_chunks(path: Path) -> list[str]:
    """The text of every top-level declaration in the ```rules fences, as the parser splits them."""
    out: list[str] = []
    for f in rule_files(path):
        lines = f.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            if rules_parser.FENCE_OPEN.match(line.strip()) and not line.startswith((" ", "\t")):
                j = i + 1
                while j < len(lines) and not rules_parser.FENCE_CLOSE.match(lines[j]):
                    j += 1
                block = [(i + 2 + k, lines[i + 1 + k]) for k in range(j - i - 1)]
                for _, chunk in rules_parser._split_chunks(block):
                    out.append("\n".join(chunk) + "\n")
                i = j + 1
            else:
                i += 1
    return out


def check_recording_chunks(path: Path) -> tuple[driver.Checked, list[str]]:
    """Run ``driver.check`` and record the texts it hands to Lark (by wrapping the parser's Lark)."""
    real = rules_parser._lark()
    seen: list[str] = []

    class Spy:
        def parse(self, text, *args, **kwargs):
            seen.append(text)
            return real.parse(text, *args, **kwargs)

        def __getattr__(self, name):
            return getattr(real, name)

    original = rules_parser._lark
    rules_parser._lark = lambda: Spy()
    try:
        checked = driver.check(path)
    finally:
        rules_parser._lark = original
    return checked, seen


def traced_memory(fn) -> tuple[int, int]:
    """``(peak, retained)`` bytes allocated while ``fn()`` runs, and still held by its result."""
    gc.collect()
    tracemalloc.start()
    try:
        result = fn()
        gc.collect()
        retained, peak = tracemalloc.get_traced_memory()
        del result
        return peak, retained
    finally:
        tracemalloc.stop()


def bench_check(repeat: int, notes: list[str]) -> tuple[list[Row], driver.Checked]:
    t0 = time.perf_counter()
    rules_parser._lark.__wrapped__()  # a fresh Lark: what a new process pays once
    lark_build = time.perf_counter() - t0

    checked, seen = check_recording_chunks(RULEBOOK)  # also builds the cached Lark instance
    if not checked.ok or checked.program is None:
        raise BenchFailure("content/1936 does not check cleanly: run `rulebook check`")
    chunks = rules_chunks(RULEBOOK)
    if chunks != seen:
        raise BenchFailure("(a) the extracted ```rules chunks differ from what check parses")
    parser = rules_parser._lark()

    def lark_only():
        for text in chunks:
            parser.parse(text)

    def check():
        return driver.check(RULEBOOK)

    pair = side_by_side(check, lark_only, repeat, warmup=False)  # both ran once above
    (check_peak, check_kept), (lark_peak, _) = traced_memory(check), traced_memory(lark_only)
    mem = Pair([check_peak], [lark_peak])
    files = len(rule_files(RULEBOOK))
    notes.append(
        f"a: {len(chunks)} declarations ({sum(map(len, chunks)) / 1024:.0f} KiB of code) in {files} files, "
        f"the same chunks check parses ✓; check's result keeps {fmt_bytes(check_kept)}; "
        f"building the Lark parser (once per process, in neither side) takes {fmt_time(lark_build)}"
    )
    rows = [
        Row("a1", "rulebook check content/1936 ÷ Lark parse only", fmt_time(pair.s), fmt_time(pair.b), pair.ratio, pair.ratio_range),
        Row("a2", "peak memory (tracemalloc), same two", fmt_bytes(mem.s), fmt_bytes(mem.b), mem.ratio),
    ]
    return rows, checked


# ----------------------------------------------------------------------------- b: sampling vs plain Python


class EnumeratingRng:
    """Stands in for ``random.Random`` to enumerate every sequence of ``choice`` results.

    Each run replays the current path of choices; :meth:`advance` moves to the
    next path depth-first. Used to get the baseline's exact distribution.
    """

    def __init__(self) -> None:
        self.path: list[list[int]] = []  # [chosen index, number of options]
        self.pos = 0

    def choice(self, seq):
        if self.pos == len(self.path):
            self.path.append([0, len(seq)])
        i = self.path[self.pos][0]
        self.pos += 1
        return seq[i]

    def advance(self) -> bool:
        while self.path:
            last = self.path[-1]
            if last[0] + 1 < last[1]:
                last[0] += 1
                return True
            self.path.pop()
        return False


def enumerate_baseline(fn, **kwargs) -> dict:
    rng = EnumeratingRng()
    acc: dict = {}
    while True:
        rng.pos = 0
        result = fn(rng, **kwargs)
        if rng.pos != len(rng.path):
            raise BenchFailure("baseline is not deterministic over its dice")
        den = 1
        for _, n in rng.path:
            den *= n
        acc[result] = acc.get(result, 0) + Fraction(1, den)
        if not rng.advance():
            return acc


def as_pair(r) -> tuple[bool, int]:
    return (r.impacto, r.bajas)


def check_baseline_profiles(pkg) -> None:
    """The profiles copied into bench/baseline.py must match the compiled catalog."""
    catalog = pkg.data.CATALOG_perfiles_armas
    for name, entries in baseline.PERFILES.items():
        compiled = tuple(
            (
                f.municion,
                tuple(f.i_preciso[b] for b in baseline.BANDAS),
                tuple(f.i_area[b] for b in baseline.BANDAS),
                tuple(None if f.d[b] is None else (f.d[b].normal, f.d[b].reducido) for b in baseline.BANDAS),
            )
            for f in catalog[name].tiro_tenso
        )
        if compiled != entries:
            raise BenchFailure(f"bench/baseline.py: profile {name} differs from content/1936 ({compiled})")


def bench_sampling(fn, repeat: int, calls: int, notes: list[str]) -> list[Row]:
    for kw in SCENARIOS:
        ours = dict(runtime.exact(fn, **kw).map(as_pair).items())
        theirs = enumerate_baseline(baseline.disparo_directo, **kw)
        if ours != theirs:
            raise BenchFailure(f"(b) baseline and generated resolver disagree on {kw}: {ours} != {theirs}")
    work = [SCENARIOS[i % len(SCENARIOS)] for i in range(calls)]

    ctx = runtime.SampleContext(SEED, trace=False)
    gen_results = [as_pair(fn(ctx, **kw)) for kw in work]
    rng = random.Random(SEED)
    base_results = [baseline.disparo_directo(rng, **kw) for kw in work]
    same_draws = gen_results == base_results

    def generated():
        ctx = runtime.SampleContext(SEED, trace=False)
        for kw in work:
            fn(ctx, **kw)

    def generated_traced():
        ctx = runtime.SampleContext(SEED, trace=True)
        Trace, traced = runtime.Trace, runtime.traced(fn)
        for kw in work:
            ctx.trace = Trace()
            traced(ctx, **kw)

    def plain():
        rng = random.Random(SEED)
        f = baseline.disparo_directo
        for kw in work:
            f(rng, **kw)

    def api_sample():
        sample = runtime.sample
        for i, kw in enumerate(work):
            sample(fn, seed=i, trace=False, **kw)

    def plain_seeded():
        f, R = baseline.disparo_directo, random.Random
        for i, kw in enumerate(work):
            f(R(i), **kw)

    p1 = side_by_side(generated, plain, repeat)
    p2 = side_by_side(generated_traced, plain, repeat)
    p3 = side_by_side(api_sample, plain_seeded, repeat)
    notes.append(
        f"b: {calls} calls cycling {len(SCENARIOS)} scenarios; baseline ≡ generated exact distribution in "
        f"{len(SCENARIOS)}/{len(SCENARIOS)} ✓; same results for the same seed: {'yes' if same_draws else 'no'}"
    )

    def per_call(x: float) -> str:
        return fmt_time(x / calls) + "/call"

    return [
        Row("b1", "disparo_directo, trace=False ÷ plain Python", per_call(p1.s), per_call(p1.b), p1.ratio, p1.ratio_range,
            f"≤ 1.2× {'✓' if p1.ratio <= 1.2 else '✗'}"),
        Row("b2", "disparo_directo, trace=True ÷ plain Python", per_call(p2.s), per_call(p2.b), p2.ratio, p2.ratio_range),
        Row("b3", "runtime.sample(seed=i) ÷ plain, Random(i) per call", per_call(p3.s), per_call(p3.b), p3.ratio, p3.ratio_range),
    ]


# ----------------------------------------------------------------------------- c: exact vs icepool

ICE_DADO_DISPARO = icepool.Die(list(baseline.DADO_DISPARO))


def icepool_casualties(**kw) -> icepool.Die:
    """The casualties of one attack as an icepool expression (deterministic part from baseline.py)."""
    i_efectivo, dados, conserva, bajas = baseline.preparar_disparo(**kw)
    pool = ICE_DADO_DISPARO.pool(dados)
    if conserva == "peores":
        tirada = pool.lowest(2).sum()
    elif conserva == "mejores":
        tirada = pool.highest(2).sum()
    else:
        tirada = pool.sum()
    return (i_efectivo + tirada >= kw["p"]).map({True: bajas, False: 0})


def icepool_dist(die: icepool.Die) -> dict:
    den = die.denominator()
    return {o: Fraction(q, den) for o, q in die.items() if q}


def bench_exact(fn, repeat: int, loops: int, notes: list[str]) -> list[Row]:
    def ours(kw) -> dict:
        return dict(runtime.exact(fn, **kw).map(lambda r: r.bajas).items())

    for kw in SCENARIOS:
        a, b = ours(kw), icepool_dist(icepool_casualties(**kw))
        if a != b:
            raise BenchFailure(f"(c) runtime.exact and icepool disagree on {kw}: {a} != {b}")

    def subject():
        for _ in range(loops):
            for kw in SCENARIOS:
                ours(kw)

    def base():
        for _ in range(loops):
            for kw in SCENARIOS:
                icepool_dist(icepool_casualties(**kw))

    pair = side_by_side(subject, base, repeat)
    n = loops * len(SCENARIOS)
    notes.append(
        f"c: {len(SCENARIOS)} scenarios × {loops} loops; casualty distributions equal (exact Fractions) in "
        f"{len(SCENARIOS)}/{len(SCENARIOS)} ✓; both sides warm (their caches filled by the check)"
    )
    return [
        Row("c1", "runtime.exact(disparo_directo) ÷ icepool 2.1.3", fmt_time(pair.s / n) + "/scen", fmt_time(pair.b / n) + "/scen", pair.ratio, pair.ratio_range),
    ]


# ----------------------------------------------------------------------------- d: CLI builds

_BUILT = re.compile(r"built .* in [\d.]+s \((?P<parts>[^)]*)\)")


def run_cli(args: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "rulebook.compiler.commands.cli", *args],
        cwd=ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL,
    )
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise BenchFailure(f"rulebook {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return elapsed, proc.stderr


def bench_build(repeat: int, notes: list[str]) -> list[Row]:
    check_t: list[float] = []
    nosite_t: list[float] = []
    site_t: list[tuple[float, str]] = []
    with tempfile.TemporaryDirectory(prefix="rulebook-bench-") as tmp:
        for i in range(repeat):
            check_t.append(run_cli(["check", str(RULEBOOK)])[0])
            nosite_t.append(run_cli(["build", str(RULEBOOK), "-o", f"{tmp}/nosite-{i}", "--no-site"])[0])
            site_t.append(run_cli(["build", str(RULEBOOK), "-o", f"{tmp}/site-{i}"]))
            if not (Path(tmp) / f"site-{i}" / "site" / "index.html").exists():
                raise BenchFailure("rulebook build produced no site/index.html")
    d1 = Pair(nosite_t, check_t)
    d2 = Pair([t for t, _ in site_t], nosite_t)
    median_run = sorted(site_t)[len(site_t) // 2]
    m = _BUILT.search(median_run[1])
    stages = m.group("parts") if m else "?"
    notes.append(f"d: whole processes (interpreter start-up included), {repeat} run(s) each; stages of the median build: {stages}")
    return [
        Row("d1", "rulebook build --no-site ÷ rulebook check (CLI)", fmt_time(d1.s), fmt_time(d1.b), d1.ratio, d1.ratio_range if repeat > 1 else None,
            f"≤ 3 s {'✓' if d1.s <= 3 else '✗'}"),
        Row("d2", "rulebook build (mkdocs) ÷ build --no-site", fmt_time(d2.s), fmt_time(d2.b), d2.ratio, d2.ratio_range if repeat > 1 else None),
    ]


# ----------------------------------------------------------------------------- main


def _compile_installed() -> str:
    """Compile the rulebook package's modules to bytecode first, as ``pip install`` leaves
    an installed package: an editable install under ``PYTHONDONTWRITEBYTECODE`` (set on some
    machines) would otherwise compile every module changed since its last ``.pyc`` in each
    CLI process the d and g rows start (about 0.1 s each, measured 1 Dec 2026)."""
    import compileall

    import rulebook.compiler
    import rulebook.rules_dsl

    folders = [Path(m.__file__).parent for m in (rulebook.compiler, runtime, rulebook.rules_dsl)]  # an editable install maps them
    ok = all(compileall.compile_dir(str(folder), quiet=2, maxlevels=3) for folder in folders)
    return f"bytecode: the rulebook package compiled first ({'done' if ok else 'some modules failed to compile'}), as an installed package is"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Benchmarks of the rulebook compiler, as ratios against in-process baselines.")
    ap.add_argument("--quick", action="store_true", help="CI smoke run: fewer repetitions and calls (about a minute)")
    ap.add_argument("--repeat", type=int, help="timings per measurement (default 7; quick 3)")
    ap.add_argument("--calls", type=int, help="resolver calls per timing in b (default 20000; quick 2000)")
    ap.add_argument("--build-repeat", type=int, help="runs of each CLI command in d (default 3; quick 1)")
    ap.add_argument("--no-serve", action="store_true", help="skip g3–g8 (the serve edit loop, with and without Chromium)")
    args = ap.parse_args(argv)
    repeat = args.repeat or (3 if args.quick else 7)
    calls = args.calls or (2_000 if args.quick else 20_000)
    build_repeat = args.build_repeat or (1 if args.quick else 3)
    loops = 3 if args.quick else 20
    if min(repeat, calls, build_repeat) < 1:
        ap.error("--repeat, --calls and --build-repeat must be at least 1")

    started = time.perf_counter()
    compiled = _compile_installed()
    print(
        f"rulebook benchmarks ({'quick' if args.quick else 'full'} run): median of {repeat} timings, "
        f"{build_repeat} CLI run(s) per command, {calls} calls in b"
    )
    print(
        f"python {platform.python_version()} · lark {lark.__version__} · icepool {icepool.__version__} · "
        f"mkdocs {metadata.version('mkdocs')} · {platform.system()} {platform.machine()} · {os.cpu_count()} CPUs"
    )
    print()
    notes: list[str] = [compiled]
    rows: list[Row] = []
    try:
        check_rows, checked = bench_check(repeat, notes)
        rows += check_rows
        pkg = pyload.compile_and_load(checked.program)
        check_baseline_profiles(pkg)
        fn = pkg.PROCEDURES["disparo_directo"].function
        rows += bench_sampling(fn, repeat, calls, notes)
        rows += bench_exact(fn, repeat, loops, notes)
        rows += scale.bench_exact_at_scale(side_by_side, Row, fmt_time, repeat, args.quick, notes)
        rows += scale.bench_validation_at_scale(checked.program, Row, fmt_time, repeat, args.quick, notes)
        rows += bench_build(build_repeat, notes)
        rows += scale.bench_build_at_scale(Row, fmt_time, args.quick, notes)
        rows += speed.bench_resolve(Row, fmt_time, SCENARIOS[0], max(3, build_repeat * 3), notes)
        rows += speed.bench_batch(Row, fmt_time, SCENARIOS, max(calls, 20_000), build_repeat, notes)  # start-up ≪ the batch
        if not args.no_serve:
            rows += speed.bench_edit_loop(Row, fmt_time, build_repeat, notes)
            rows += speed.bench_edit_in_browser(Row, fmt_time, build_repeat, notes)
    except (BenchFailure, scale.BenchFailure, speed.BenchFailure) as exc:
        if rows:
            print_table(rows)
            print()
        print(f"FAILED: {exc}", file=sys.stderr)
        return 1
    print_table(rows)
    print()
    for note in notes:
        print(note)
    print(f"ratio > 1: the subject is slower than its baseline. Whole run: {time.perf_counter() - started:.1f} s")
    if args.quick:
        print("quick run: few repetitions, the ratios are indicative only")
    return 0


if __name__ == "__main__":
    sys.exit(main())
