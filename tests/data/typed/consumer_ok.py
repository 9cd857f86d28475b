"""A program using the generated package of content/1936 as its README shows, typed.

tests/test_wheel.py installs the package alone into a fresh venv, runs this script there
and type-checks it with ``mypy --strict`` and pyright (strict): both must accept it."""

from fractions import Fraction
from typing import cast

from manual_1936 import PROCEDURES, procedures, runtime, types


def main() -> None:
    ctx = runtime.SampleContext(seed=1, trace=False)
    calidad: types.Calidad = "veteran"
    shot: types.ResultadoDisparo = procedures.disparo_directo(
        ctx, perfil="fusiles_seccion", modo="preciso", distancia=20, p=3, calidad=calidad
    )
    hit: bool = shot.impacto
    casualties: int = shot.bajas
    band: types.Banda = procedures.banda_distancia(ctx, 30)
    cost = procedures.coste_unidad(ctx, coste_base=10, calidad="elite", mejoras_nacionales=[])
    total: int = cost.total
    rolls = [procedures.tirada_calidad(ctx, calidad=each) for each in types.VALUES_Calidad]
    odds: runtime.Distribution[types.ResultadoDisparo] = runtime.exact(
        procedures.disparo_directo, perfil="fusiles_seccion", modo="area", distancia=40, p=2, calidad="green"
    )
    p_hit: Fraction = odds.probability(lambda r: r.impacto)
    outcome, trace = runtime.sample(
        procedures.disparo_directo, seed=2, perfil="pistola", modo="preciso", distancia=10, p=1, calidad="regular"
    )
    also: bool = outcome.impacto
    checked = ""
    try:  # a value the checkers cannot see (read from a file…): the call checks it
        procedures.tirada_calidad(ctx, calidad=cast(types.Calidad, "elitee"))
    except runtime.InputError as error:
        checked = str(error)
    print(hit, casualties, band, total, rolls, p_hit, also, trace is not None, repr(PROCEDURES["tirada_calidad"]))
    print(checked)


main()
