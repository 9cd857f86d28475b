"""Exact distributions from the generated code against independent oracles.

* pure dice expressions of the rulebook against icepool 2.1.3;
* whole procedures against 100 000 sampled resolutions with a fixed seed.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

icepool = pytest.importorskip("icepool")


def _icepool_dist(die):
    return {k: Fraction(v, die.denominator()) for k, v in die.items()}


@pytest.mark.parametrize("calidad,dice,keep", [("green", 3, "lowest"), ("regular", 2, None), ("veteran", 3, "highest"), ("elite", 4, "highest")])
def test_quality_roll_matches_icepool(package, calidad, dice, keep):
    import runtime

    dist = runtime.exact(package.PROCEDURES["tirada_calidad"].function, calidad=calidad)
    shooting_die = icepool.Die([1, 1, 0, 0, -1, -1])
    pool = shooting_die.pool(dice)
    oracle = (pool.highest(2) if keep == "highest" else pool.lowest(2) if keep == "lowest" else pool).sum()
    assert dict(dist.items()) == _icepool_dist(oracle)


def test_variation_dice_match_icepool(package):
    import runtime

    data = package.data
    die = data.DIE_DadoVariacion
    rv = runtime.pool_sum(die, 2)
    oracle = 2 @ icepool.Die([1, -1, 0, 0, 0, 0])
    assert dict(rv.outcomes()) == _icepool_dist(oracle)


@pytest.mark.parametrize(
    "name,inputs",
    [
        ("resolucion_impacto", {"i_base": 6, "m": 0, "p": 7, "calidad": "veteran"}),
        ("disparo_directo", {"perfil": "fusiles_seccion", "modo": "area", "distancia": 15, "p": 5, "calidad": "regular"}),
        ("danio_vehiculo", {"d_final": 4, "resistencia": 3, "marcadores_danado": 1}),
        ("chequeo_moral", {"bajas": 4, "tipo": "seccion", "calidad": "regular"}),
        ("planificacion_bombardeo", {"calidad_principal": "veteran", "observadores_adicionales": 1, "fuera_en_blanco": 3}),
        ("robo_emplazamiento", {"terreno": "colinas", "tamano": "grande"}),
        ("tirada_dados_ordenes", {"oficiales": ["regular"]}),
    ],
)
def test_exact_matches_100000_samples(package, name, inputs):
    import runtime

    proc = package.PROCEDURES[name]
    kwargs = proc.convert(inputs)
    exact = runtime.exact(proc.function, **kwargs)
    n = 100_000
    counts = runtime.sample_many(proc.function, n, 20261130, **kwargs)
    assert set(counts) <= set(exact)
    for outcome, p in exact.items():
        freq = counts.get(outcome, 0) / n
        se = math.sqrt(float(p) * (1 - float(p)) / n) or 1 / n
        assert abs(freq - float(p)) <= 5 * se + 1e-9, (outcome, freq, float(p))
