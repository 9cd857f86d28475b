"""The fast resolvers (``procedures.py``) and their records, as users touch them.

Records (``rulebook.runtime.Record`` subclasses written into ``types.py``) must behave as
immutable values: equal by class and fields, hashed alike, a readable repr, no
attribute assignment, picklable, ordered and shown by the runtime as before.
The fast resolvers must give the same result as their traced twins (or the same
rule error) for the same seed, over the inputs of every worked example and odds
table of the bundled rulebooks and over many random direct-fire attacks.
"""

from __future__ import annotations

import copy
import pickle
import random
from fractions import Fraction
from pathlib import Path

import pytest

from rulebook import runtime
from rulebook.runtime import Record, SampleContext, format_value, sort_key, to_jsonable

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = sorted(p for p in (ROOT / "content").iterdir() if p.is_dir() and any(p.glob("*.rules")))


def check(folder: Path):
    from rulebook.compiler.pipeline import driver

    result = driver.check(folder)
    assert result.ok, [d.render(result.sources) for d in result.diagnostics]
    return result.program


def load(folder: Path):
    from rulebook.compiler.pipeline import pyload

    return pyload.compile_and_load(check(folder))


# ---------------------------------------------------------------------------- records


def test_generated_records_are_immutable_values(package):
    Impacto = package.types.ResultadoImpacto
    a = Impacto._new(impacto=True, automatico=False, imposible=False, i_efectivo=7)
    b = Impacto(impacto=True, automatico=False, imposible=False, i_efectivo=7)  # the class call builds the same
    c = Impacto._new(impacto=True, automatico=False, imposible=False, i_efectivo=8)
    assert type(a) is Impacto and isinstance(a, Record)
    assert a == b and hash(a) == hash(b) and a != c and {a, b, c} == {a, c}
    assert repr(a) == "ResultadoImpacto(impacto=True, automatico=False, imposible=False, i_efectivo=7)"
    assert (a.impacto, a.i_efectivo) == (True, 7)
    other = package.types.ResultadoDisparo._new(impacto=True, bajas=7)
    assert a != other and a != (True, False, False, 7)  # never equal to another record type or a tuple
    for assign in (lambda: setattr(a, "impacto", False), lambda: setattr(a, "nuevo", 1), lambda: delattr(a, "impacto")):
        with pytest.raises(AttributeError):
            assign()
    assert a.impacto is True
    with pytest.raises(TypeError):
        a < c  # noqa: B015 - records have no order of their own
    with pytest.raises(TypeError):
        Impacto(impacto=True)  # every field is required
    with pytest.raises(TypeError):
        Impacto(impacto=True, automatico=False, imposible=False, i_efectivo=7, extra=1)
    assert pickle.loads(pickle.dumps(a)) == a and copy.deepcopy(a) == a
    assert to_jsonable(a) == {"impacto": True, "automatico": False, "imposible": False, "i_efectivo": 7}
    assert format_value(a) == "ResultadoImpacto(impacto: true, automatico: false, imposible: false, i_efectivo: 7)"
    assert sorted([c, a], key=sort_key) == [a, c]


def test_records_keep_rule_names_and_a_field_named_like_the_record(tmp_path):
    (tmp_path / "r.rules").write_text(
        "# Registros\n\n```rules\n"
        "rulebook registros \"Registros\" version \"0.1\" lang \"es\"\n"
        "section I \"Registros\"\n\n"
        "record Paso \"Paso\" {\n  Paso: int \"Paso\"\n  class: text \"Clase\"\n}\n\n"
        "procedure dar \"Dar\" (n: int) -> Paso {\n  return Paso(Paso: n, class: \"a\")\n}\n```\n",
        encoding="utf-8",
    )
    from rulebook.compiler.pipeline import pyload
    from rulebook.compiler.emit.python import to_python

    program = check(tmp_path)
    types_py = next(text for name, text in to_python.generate(program).items() if name.endswith("/types.py"))
    assert "self = __class__._writable()" in types_py  # the field Paso hides the class name in _new
    pkg = pyload.compile_and_load(program)
    result, _ = runtime.sample(pkg.PROCEDURES["dar"].function, seed=1, trace=False, n=3)
    assert type(result) is pkg.types.Paso and result.Paso == 3
    assert to_jsonable(result) == {"Paso": 3, "class": "a"}  # JSON keys: the names in the rules
    with pytest.raises(AttributeError):
        result.Paso = 4


def test_a_record_is_built_once(package):
    Impacto = package.types.ResultadoImpacto
    a = Impacto._new(True, False, False, 7)
    with pytest.raises(AttributeError):  # initialising it again would change it
        a.__init__(impacto=False, automatico=False, imposible=False, i_efectivo=0)
    assert a == Impacto(True, False, False, 7) and a.impacto is True


def test_resolvers_give_back_equal_records_of_scalar_fields_built_already(package, monkeypatch):
    fn = package.PROCEDURES["disparo_directo"].function
    attack = dict(perfil="fusiles_seccion", modo="area", distancia=15, p=5, calidad="regular")  # an automatic hit
    ctx = SampleContext(1, trace=False)
    first = fn(ctx, **attack)
    assert fn(ctx, **attack) is first and runtime.traced(fn)(SampleContext(1), **attack) == first
    assert first == package.types.ResultadoDisparo(impacto=True, bajas=3)
    assert pickle.loads(pickle.dumps(first)) == first
    # the last Record._shared_limit distinct records of a class are kept
    monkeypatch.setattr(Record, "_shared_limit", 2)
    new = Record._shared(package.types.ResultadoDisparo._new)
    a, b = new(True, 1), new(True, 2)
    assert new(True, 1) is a and new(True, 2) is b
    c = new(True, 3)  # a goes
    assert new(True, 3) is c and new(True, 1) is not a and new(True, 1) == a


ORDER_RULES = """# Orden

```rules
rulebook orden "Orden" version "0.1" lang "es"
section I "Orden"

record Tirada "Tirada" { a: int "A", b: int "B" }
record Media "Media" { valor: decimal "Valor", dados: list[int] "Dados" }

procedure sumar "Sumar" (a: int, b: int = 0, c: int = 0) -> Tirada {
  return Tirada(a: a + c, b: b)
}

procedure tirar "Tirar" (n: int) -> Tirada {
  return sumar(a: n, c: roll d6, b: roll d6 times 2)
}

procedure media "Media" (x: int) -> Media {
  return Media(valor: x / 2, dados: [x, x])
}
```
"""


def test_calls_go_by_position_in_the_order_written(tmp_path):
    """Arguments written in the order of the parameters go by position (noted with the
    parameter they fill), the rest by name: the dice are rolled in the order written,
    by the fast resolver as by its traced twin. Records whose fields are not all
    bools, ints or strings are built anew every time."""
    (tmp_path / "orden.rules").write_text(ORDER_RULES, encoding="utf-8")
    from rulebook.compiler.pipeline import pyload
    from rulebook.compiler.emit.python import to_python

    program = check(tmp_path)
    files = to_python.generate(program)
    fast = next(text for name, text in files.items() if name.endswith("/procedures.py"))
    assert "    return _proc_sumar(\n        ctx,\n        n,  # a\n        c=ctx.roll(_RV_1),\n        b=ctx.roll(_RV_2),\n" in fast
    assert "_new_Tirada = _rt.Record._shared(_t.Tirada._new)" in fast and "_new_Media = _t.Media._new" in fast
    pkg = pyload.compile_and_load(program)
    tirar = pkg.PROCEDURES["tirar"].function
    for seed in range(20):
        fast_result, traced_result = run_both(tirar, seed, {"n": 1})
        assert fast_result == traced_result
    media = pkg.PROCEDURES["media"].function
    first, _ = runtime.sample(media, seed=1, trace=False, x=3)
    again, _ = runtime.sample(media, seed=1, trace=False, x=3)
    assert first == again and first is not again and first.valor == Fraction(3, 2)


# ---------------------------------------------------------------------------- fast == traced


def run_both(fn, seed: int, inputs: dict):
    """``(fast, traced)`` outcomes for one seed: the result, or the rule error's text."""
    outcomes = []
    for twin, trace in ((fn, False), (runtime.traced(fn), True)):
        try:
            outcomes.append(("result", twin(SampleContext(seed, trace=trace), **inputs)))
        except runtime.RuleError as error:
            outcomes.append(("error", str(error)))
    return outcomes


@pytest.mark.parametrize("folder", RULEBOOKS, ids=[p.name for p in RULEBOOKS])
def test_fast_and_traced_agree_on_examples_and_odds(folder):
    pkg = load(folder)
    cases = [(ex.procedure, dict(ex.inputs)) for ex in pkg.examples.EXAMPLES]
    for odds in pkg.odds.ODDS:
        columns = odds.columns.values if odds.columns is not None else (None,)
        groups = odds.each.values if odds.each is not None else (None,)
        cases += [(odds.procedure, odds.inputs(r, c, g)) for r in odds.rows.values for c in columns for g in groups]
    assert len(cases) > 20
    compared = 0
    for name, inputs in cases:
        fn = pkg.PROCEDURES[name].function
        for seed in range(3):
            fast, traced = run_both(fn, seed, inputs)
            assert fast == traced, (name, inputs, seed)
            compared += 1
    assert compared == 3 * len(cases)


def test_fast_and_traced_agree_on_random_attacks(package):
    fn = package.PROCEDURES["disparo_directo"].function
    catalog = package.data.CATALOG_perfiles_armas
    profiles = sorted(name for name, entry in catalog.items() if entry.tiro_tenso)
    rng = random.Random(1936)
    results = set()
    for seed in range(600):
        inputs = dict(
            perfil=rng.choice(profiles), modo=rng.choice(("preciso", "area")), distancia=rng.randint(-5, 90),
            p=rng.randint(1, 12), calidad=rng.choice(("green", "regular", "veteran", "elite")), m=rng.randint(-3, 3),
            municion=rng.choice((None, "he", "ap")), municion_disponible=rng.randint(0, 12),
            blanco_a_cubierto=rng.random() < 0.3, blanco_vehiculo=rng.random() < 0.2,
            blanco_peana_pequena=rng.random() < 0.2, blanco_seccion=rng.random() < 0.2, casco=rng.random() < 0.3,
        )
        fast, traced = run_both(fn, seed, inputs)
        assert fast == traced, (inputs, seed)
        results.add(fast[0] if fast[0] == "error" else fast[1])
    assert "error" in results and len(results) > 5  # both rule errors and several outcomes were reached


# ---------------------------------------------------------------------------- runtime pieces


def test_a_hand_written_record_takes_its_fields_by_position_or_name():
    class Punto(Record):
        __slots__ = ("x", "y")

    assert Punto(1, y=2) == Punto(x=1, y=2) and Punto(1, 2).y == 2
    assert repr(Punto(1, 2)).endswith("Punto(x=1, y=2)") and Punto(1, 2) != (1, 2)
    for bad in (lambda: Punto(1), lambda: Punto(1, 2, 3), lambda: Punto(1, 2, z=3)):
        with pytest.raises(TypeError):
            bad()
    with pytest.raises(TypeError):  # fields are slots, and a record is not extended
        type("Otro", (Punto,), {"__slots__": ("z",)})
    with pytest.raises(TypeError):
        type("SinSlots", (Record,), {})


def test_pools_validate_each_number_of_dice_once():
    die = runtime.Die("Dado", (1, 1, 0, 0, -1, -1))
    made = []

    def make(n):
        made.append(n)
        return runtime.pool_sum(die, n, "highest", 2)

    pools = runtime.Pools(make)
    assert pools[3] is runtime.pool_sum(die, 3, "highest", 2) and pools[3] is pools[3]
    assert made == [3]  # the second roll of 3 dice found it
    with pytest.raises(runtime.RuleError):
        pools[-1]  # refused by pool_sum, every time, never remembered
    assert -1 not in pools
    ctx = SampleContext(1, trace=False, max_work=10)
    ctx.roll(pools[4])
    with pytest.raises(runtime.WorkLimitError):  # the work limit still counts every die
        ctx.roll(pools[7])
