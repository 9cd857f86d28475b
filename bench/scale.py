"""Benchmarks at scale for bench/run.py: exact distributions (rows e) and schema validation (row f).

Each function takes the number of repetitions and the notes list of run.py and
returns its :class:`run.Row` objects; each row names the issue's target for it.

    e1  8 Quality rolls of 2 shooting dice added up in one resolver:
        ``rulebook.runtime.exact`` ÷ icepool (target ≤ 2×).
    e2  the same with 30 rolls (target: polynomial growth up to 30; the notes
        give the exponent of the time from 10 to 30 rolls).
    e3  ``friccion_tras_repeticiones`` with 8 Élite officers (40 order dice):
        ``rulebook.runtime.exact`` ÷ icepool (target < 1 s).
    e4  a Tercios combat, 10 dice against 7 (tests/data/exact/combate_tercios.rules):
        ``rulebook.runtime.exact`` ÷ the enumeration of every path of every roll, which is
        how the runtime worked before (target < 50 ms).
    e5  ``bajas_transporte_destruido`` with 1,000 destroyed Transports (2,000
        variation dice): ``rulebook.runtime.exact`` ÷ icepool (target < 1 s).
    f1  JSON validation of the documents of content/1936 copied 10 times (10×
        the documents and the schemas; 4 in a quick run) ÷ 10 × the validation
        of one copy: about 1 when validation is linear.
    d3  ``build --no-site`` of a synthetic rulebook at 50× (10× in a quick run)
        its 1× size, time per declaration ÷ the same at 1× (target ≤ 1.3×, the
        issue's scale target); each build in a process of its own, timed around
        the build (not the interpreter's start). The notes give each stage's
        ratio. 1× is 25 chapters like the one in :data:`SYNTHETIC_CHAPTER`
        (16 declarations each: enums, tables, a die, records, a catalog, a rule,
        a term, procedures, examples, odds; prose), 400 declarations.

Every pair is checked to compute the same thing before it is timed.
"""

from __future__ import annotations

import json
import gc
import math
import statistics
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import icepool
from jsonschema import Draft202012Validator

from rulebook import runtime
from rulebook.compiler.pipeline import driver, pyload
from rulebook.compiler.emit.data import to_json

HERE = Path(__file__).resolve().parent
EXACT = HERE.parent / "tests" / "data" / "exact"
SHOOTING_DIE = [1, 1, 0, 0, -1, -1]
COMBAT = dict(
    combate_atacante=10, defensa_atacante=4, coraje_atacante=5, aguante_atacante=5, disciplina_atacante=5,
    desgaste_previo_atacante=2, combate_defensor=7, defensa_defensor=4, coraje_defensor=4, aguante_defensor=4,
    disciplina_defensor=4, desgaste_previo_defensor=1,
)


class BenchFailure(Exception):
    """Two sides of a pair do not compute the same thing."""


def summed_rolls_rules(k: int) -> str:
    """A rulebook with one procedure adding up ``k`` Quality rolls of two shooting dice."""
    lets = "\n".join(f"    let t{i} = roll DadoDisparo times 2" for i in range(1, k + 1))
    total = " + ".join(f"t{i}" for i in range(1, k + 1))
    return (
        "```rules\n"
        'rulebook suma "Suma de tiradas" version "1" lang "es"\n'
        'section S "Suma"\n'
        'die DadoDisparo "Dado de disparo" = [+1, +1, 0, 0, -1, -1]\n'
        f'procedure suma "{k} tiradas de Calidad sumadas" () -> int {{\n'
        f'  step "Tiradas" {{\n{lets}\n    return {total}\n  }}\n}}\n'
        "```\n"
    )


def compiled(path: Path):
    """The generated package of a rulebook file or folder."""
    checked = driver.check(path)
    if not checked.ok:
        raise BenchFailure(f"{path} does not check cleanly")
    return pyload.compile_and_load(checked.program)


def compiled_text(text: str):
    with tempfile.TemporaryDirectory(prefix="rulebook-bench-") as tmp:
        path = Path(tmp) / "bench.rules"
        path.write_text(text, encoding="utf-8")
        return compiled(path)


def every_path(fn, kwargs: dict) -> dict:
    """The distribution of ``fn`` found by running it over every path of every roll,
    with the callees' rolls inlined: no states, no projections (how exact worked before)."""
    return dict(runtime.exact(fn, every_path=True, max_work=10**9, max_paths=10**8, **kwargs).items())


def icepool_dist(die: icepool.Die) -> dict:
    den = die.denominator()
    return {o: Fraction(q, den) for o, q in die.items() if q}


def median_time(fn, repeat: int) -> float:
    """Median seconds of ``fn()`` over ``repeat`` calls, the garbage collector off (as timeit does)."""
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        finally:
            gc.enable()
    return statistics.median(times)


SYNTHETIC_CHAPTER = '''```rules
section S{i} "Capítulo {i}"
```

### {i}.1 Dados de disparo

Cada unidad tira los dados que marca su Calidad {i}. El Término {i} se aplica cuando la unidad está
expuesta; la regla Regla {i} modifica la tirada.

```rules
enum Calidad{i} "Calidad {i}" ordered {{ green "Verde", regular "Regular", veteran "Veterano", elite "Élite" }}
enum Conserva{i} {{ mejores "Mejores", peores "Peores", todos "Todos" }}

table dados_calidad_{i} "Dados de disparo y Calidad {i}"
  by calidad: Calidad{i}
  -> dados: int "Dados", conserva: Conserva{i}
{{
  green    | 3 | peores
  regular  | 2 | todos
  veteran  | 3 | mejores
  elite    | 4 | mejores
}}

die DadoDisparo{i} "Dado de disparo {i}" = [+1, +1, 0, 0, -1, -1]

table movimiento_{i} "Movimiento {i}" by cm: int range -> m: int {{
  0..10 | 0
  >10..20 | -1
  >20..<30 | -2
  30.. | -3
}}

record Danio{i} {{ normal: int, reducido: int? }}
record Perfil{i} {{ nombre: text, d: list[Danio{i}?], alcance: int }}
catalog perfiles_{i} "Perfiles {i}" of Perfil{i} {{
  fusil_{i} | "Fusil {i}" | [(1, -)] | 60
  canon_{i} | "Cañón {i}" | [(4, 2), -] | 120
  pistola_{i} | "Pistola {i}" | [(1, -)] | 15
}}

record Resultado{i} "Resultado del impacto {i}" {{ impacto: bool, automatico: bool }}

rule regla_{i} "Regla {i}" {{
  "Una unidad con esta regla repite un dado de la tirada de Calidad."
}}

term t_{i} "Término {i}" "Estado de una unidad expuesta en el capítulo {i}."
```

### {i}.2 Resolución

El impacto se resuelve comparando la Iniciativa con la Protección.

```rules
procedure tirada_calidad_{i} "Tirada de Calidad {i}" (calidad: Calidad{i}) -> int {{
  step "Se lanzan los dados según la Calidad" {{
    let fila = dados_calidad_{i}[calidad]
    if fila.conserva == Conserva{i}.peores {{
      return roll DadoDisparo{i} times fila.dados keep lowest 2
    }} else if fila.conserva == Conserva{i}.mejores {{
      return roll DadoDisparo{i} times fila.dados keep highest 2
    }}
    return roll DadoDisparo{i} times 2
  }}
}}

procedure impacto_{i} "Resolución del impacto {i}" (i: int, p: int, calidad: Calidad{i} = Calidad{i}.regular, cm: int = 0) -> Resultado{i} {{
  step "I efectivo − 2 ≥ P: éxito automático" {{
    if i - 2 >= p {{ return Resultado{i}(impacto: true, automatico: true) }}
  }}
  step "I efectivo + tirada ≥ P" {{
    let t = tirada_calidad_{i}(calidad: calidad)
    return Resultado{i}(impacto: i + movimiento_{i}[cm] + t >= p, automatico: false)
  }}
}}

procedure danio_{i} (perfil: ref perfiles_{i}, extra: int) -> int {{
  let d = perfil.d[0]
  require d != none, "sin daño"
  return d.normal + extra + roll d6
}}

example impacto_{i} "Regular, I 6 contra P 7" {{
  given (i: 6, p: 7, calidad: Calidad{i}.regular)
  expect probability(result.impacto) == 1/3
  expect result.automatico == false
}}

example danio_{i} "Pistola: 1 + d6" {{
  given (perfil: perfiles_{i}.pistola_{i}, extra: 0)
  expect probability(result >= 5) == 1/2
}}

odds tabla_impacto_{i} "Probabilidad de impacto {i}" {{
  procedure impacto_{i}(i: 7 + d, p: 7, calidad: q)
  rows d in -3..2 "I − P"
  columns q in Calidad{i}
  cell probability(result.impacto)
}}

odds danio_por_perfil_{i} "Daño de 7 o más por perfil {i}" {{
  procedure danio_{i}(perfil: perfil, extra: e)
  each perfil in perfiles_{i}
  rows e in [0, 2]
  cell probability(result >= 7)
}}
```
'''
"""One chapter of the synthetic rulebook of row d3 (``{i}``: its number)."""


def synthetic_rulebook(folder: Path, chapters: int) -> None:
    """A rulebook of ``chapters`` chapters (:data:`SYNTHETIC_CHAPTER`) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "000-manual.rules").write_text(
        'Reglamento sintético.\n\n```rules\nrulebook sintetico "Sintético" version "1.0" lang "es"\n```\n', encoding="utf-8")
    for i in range(1, chapters + 1):
        (folder / f"{i:04d}-capitulo.rules").write_text(SYNTHETIC_CHAPTER.format(i=i), encoding="utf-8")


_TIMED_BUILD = """
import json, sys, time
from pathlib import Path
from rulebook.compiler.pipeline import driver
t = time.perf_counter()
result = driver.build(Path(sys.argv[1]), Path(sys.argv[2]), site=False)
elapsed = time.perf_counter() - t
print(json.dumps({"ok": result.ok, "decls": len(result.program.decls) if result.program else 0,
                  "seconds": elapsed, "timings": result.timings}))
"""


def _timed_build(folder: Path, out: Path) -> dict:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _TIMED_BUILD, str(folder), str(out)], capture_output=True, text=True, timeout=1800)
    answer = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 and proc.stdout.strip() else None
    if answer is None or not answer["ok"]:
        raise BenchFailure(f"(d3) the synthetic rulebook in {folder.name} did not build:\n{proc.stdout[-1000:]}{proc.stderr[-2000:]}")
    return answer


def bench_build_at_scale(Row, fmt_time, quick: bool, notes: list[str]) -> list:
    base, times = 25, 10 if quick else 50
    with tempfile.TemporaryDirectory(prefix="rulebook-bench-scale-") as tmp:
        runs = {}
        for n in (base, base * times):
            synthetic_rulebook(Path(tmp) / f"s{n}", n)
            runs[n] = _timed_build(Path(tmp) / f"s{n}", Path(tmp) / f"out{n}")
    one, many = runs[base], runs[base * times]
    per_one, per_many = one["seconds"] / one["decls"], many["seconds"] / many["decls"]
    ratio = per_many / per_one
    stages = ", ".join(f"{k} {many['timings'][k] / one['timings'][k] / times:.2f}×" for k in one["timings"] if one["timings"].get(k))
    notes.append(f"d3: {one['decls']:,} declarations in {fmt_time(one['seconds'])}, {many['decls']:,} in {fmt_time(many['seconds'])}; "
                 f"each stage at {times}× ÷ {times} × (1×): {stages}")
    return [Row("d3", f"build --no-site per declaration, {times}× synthetic content ÷ 1×", fmt_time(per_many * 1000) + "/1k",
                fmt_time(per_one * 1000) + "/1k", ratio, None, _target(ratio <= 1.3, "≤ 1.3×"))]


def _target(met: bool, text: str) -> str:
    return f"{text} {'✓' if met else '✗'}"


def bench_exact_at_scale(side_by_side, Row, fmt_time, repeat: int, quick: bool, notes: list[str]) -> list:
    rows = []

    # e1, e2: Quality rolls added up
    packages = {k: compiled_text(summed_rolls_rules(k)) for k in (8, 10, 20, 30)}
    pairs = {}
    for k in (8, 30):
        fn = packages[k].PROCEDURES["suma"].function

        def ours(fn=fn):
            return runtime.exact(fn)

        def theirs(k=k):
            return k @ icepool.Die(SHOOTING_DIE).pool(2).sum()

        if dict(ours().items()) != icepool_dist(theirs()):
            raise BenchFailure(f"(e) {k} summed rolls: runtime.exact and icepool disagree")
        pairs[k] = side_by_side(ours, theirs, repeat)
    growth = {k: median_time(lambda k=k: runtime.exact(packages[k].PROCEDURES["suma"].function), repeat) for k in (10, 20, 30)}
    exponent = math.log(growth[30] / growth[10]) / math.log(3)
    small = compiled_text(summed_rolls_rules(6)).PROCEDURES["suma"].function
    paths6 = median_time(lambda: every_path(small, {}), 1)
    notes.append(
        f"e1–e2: distributions equal to icepool's (exact Fractions) ✓; exact time for 10 / 20 / 30 rolls "
        f"{fmt_time(growth[10])} / {fmt_time(growth[20])} / {fmt_time(growth[30])}: time ∝ k^{exponent:.1f} (polynomial); "
        f"enumerating every path (5^k) takes {fmt_time(paths6)} for 6 rolls"
    )
    p8, p30 = pairs[8], pairs[30]
    rows.append(Row("e1", "8 Quality rolls summed: runtime.exact ÷ icepool", fmt_time(p8.s), fmt_time(p8.b), p8.ratio,
                    p8.ratio_range, _target(p8.ratio <= 2, "≤ 2×")))
    rows.append(Row("e2", "30 Quality rolls summed: runtime.exact ÷ icepool", fmt_time(p30.s), fmt_time(p30.b), p30.ratio,
                    p30.ratio_range, _target(exponent < 4, f"polynomial (k^{exponent:.1f})")))

    # e3: order dice of 8 Élite officers
    manual = compiled(HERE.parent / "content" / "1936")
    officers = manual.PROCEDURES["friccion_tras_repeticiones"]
    officers_input = officers.convert({"oficiales": ["elite"] * 8})

    def friction():
        return runtime.exact(officers.function, **officers_input)

    def friction_icepool():
        return icepool.Die([0, 0, 0, 0, 0, 1]).pool(40).sum().map(lambda n: max(0, n - 30))

    if dict(friction().items()) != icepool_dist(friction_icepool()):
        raise BenchFailure("(e3) friccion_tras_repeticiones: runtime.exact and icepool disagree")
    p = side_by_side(friction, friction_icepool, repeat)
    rows.append(Row("e3", "friccion_tras_repeticiones, 8 Élite officers ÷ icepool", fmt_time(p.s), fmt_time(p.b), p.ratio,
                    p.ratio_range, _target(p.s < 1, "< 1 s")))

    # e4: a Tercios combat
    combat = compiled(EXACT / "combate_tercios.rules").PROCEDURES["combate"].function
    if dict(runtime.exact(combat, **COMBAT).items()) != every_path(combat, COMBAT):
        raise BenchFailure("(e4) the Tercios combat: runtime.exact and every-path enumeration disagree")
    p = side_by_side(lambda: runtime.exact(combat, **COMBAT), lambda: every_path(combat, COMBAT), min(repeat, 3))
    rows.append(Row("e4", "Tercios combat, 10 dice against 7 ÷ every path", fmt_time(p.s), fmt_time(p.b), p.ratio,
                    p.ratio_range, _target(p.s < 0.05, "< 50 ms")))

    # e5: destroyed Transports
    transports = 200 if quick else 1000
    losses = manual.PROCEDURES["bajas_transporte_destruido"]
    losses_input = losses.convert({"puntos_baja_restantes": 12, "transportes_destruidos": transports})

    def casualties():
        return runtime.exact(losses.function, **losses_input).map(lambda r: r.bajas)

    def casualties_icepool():
        return 3 * transports + (2 * transports) @ icepool.Die([1, -1, 0, 0, 0, 0])

    if dict(casualties().items()) != icepool_dist(casualties_icepool()):
        raise BenchFailure("(e5) bajas_transporte_destruido: runtime.exact and icepool disagree")
    p = side_by_side(casualties, casualties_icepool, 1 if not quick else repeat, warmup=False)
    rows.append(Row("e5", f"bajas_transporte_destruido, {transports:,} transports ÷ icepool", fmt_time(p.s), fmt_time(p.b),
                    p.ratio, p.ratio_range, _target(p.s < 1, "< 1 s at 1,000") if not quick else "(quick: 200)"))
    notes.append(
        "e3–e5: distributions equal to icepool's or to every-path enumeration ✓; e5 timed once "
        "(icepool's 2,000-dice convolution takes tens of seconds)" if not quick else
        "e3–e5: distributions equal to icepool's or to every-path enumeration ✓; quick run: e5 with 200 transports"
    )
    return rows


def _copies(schema_docs: dict, docs: dict, n: int) -> tuple[dict, dict]:
    """``n`` copies of the schemas and documents, copy ``i`` under ``schemas/c{i}/``."""
    out_schemas, out_docs = {}, {}
    for i in range(n):
        for rel, schema in schema_docs.items():
            base = schema["$id"][: schema["$id"].index("/schemas/") + len("/schemas/")]
            # every absolute reference moves with the copy ($id, $ref, the $schema a document must name)
            moved = json.loads(json.dumps(schema).replace(base, f"{base}c{i}/"))
            out_schemas[f"c{i}/{rel}"] = moved
        for rel, doc in docs.items():  # their $schema (the bundle's parts' too) name the copies
            out_docs[f"c{i}/{rel}"] = json.loads(json.dumps(doc).replace(base, f"{base}c{i}/"))
    return out_schemas, out_docs


def _validator_per_document(docs: dict, schema_docs: dict) -> None:
    """Validation as the json phase did it: a validator per document, each combining the
    whole registry with jsonschema's meta-schemas again."""
    registry = to_json.registry_for(schema_docs)
    by_id = {s["$id"]: s for s in schema_docs.values()}
    for doc in docs.values():
        schema = by_id.get(doc["$schema"]) or schema_docs[doc["$schema"].removeprefix("../schemas/")]
        list(Draft202012Validator(schema, registry=registry).iter_errors(doc))


def bench_validation_at_scale(program, Row, fmt_time, repeat: int, quick: bool, notes: list[str]) -> list:
    schema_docs, docs = to_json.all_schemas(program), to_json.documents(program, [])
    copies = 4 if quick else 10
    one = _copies(schema_docs, docs, 1)
    many = _copies(schema_docs, docs, copies)
    for problems in (to_json.validate(one[1], one[0]), to_json.validate(many[1], many[0])):
        if problems:
            raise BenchFailure(f"(f1) the documents do not validate: {problems[:2]}")
    t1 = median_time(lambda: to_json.validate(one[1], one[0]), max(1, min(repeat, 3)))
    tn = median_time(lambda: to_json.validate(many[1], many[0]), 1)
    note = f"f1: {len(docs)} documents against {len(schema_docs)} schemas, then {copies} copies of both; every document valid ✓"
    if not quick:
        per_document = median_time(lambda: _validator_per_document(many[1], many[0]), 1)
        note += (
            f"; building one validator per document over the same registry (as the json phase did) takes "
            f"{fmt_time(per_document)} at {copies}×: {per_document / (copies * t1):.2f}× of {copies} × (1×)"
        )
    notes.append(note)
    ratio = tn / (copies * t1)
    return [Row("f1", f"JSON validation, {copies}× content ÷ {copies} × (1× content)", fmt_time(tn), fmt_time(copies * t1),
                ratio, None, _target(ratio < 1.3, "linear (≈ 1×)"))]
