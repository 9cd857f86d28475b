"""Hand-written baseline for the direct-fire benchmark (bench/run.py, ratios b and c).

Takes: the same arguments as the generated ``disparo_directo`` resolver
(content/1936/06-disparo.rules, VI.11–VI.16), with a ``random.Random`` in place
of the context. Produces: ``(impacto, bajas)``.

This is what a programmer would write by hand for the same rules: plain dicts
and tuples for the few tables involved, ``rng.choice`` for each die, no trace,
no source positions, no exact-distribution support. It is the "how fast could
plain Python be" yardstick for the generated resolver, and it supplies the
deterministic part (profile, band, I efectivo, damage) to the icepool
expression of ratio (c).

Only the weapon profiles the benchmark scenarios use are copied here; run.py
checks them against the compiled rulebook's catalog and checks every scenario's
exact distribution against the generated resolver, so a change to the rules
makes the benchmark fail instead of comparing different rules.
"""

from __future__ import annotations

import random

# VI.11: two +1 faces, two 0 faces, two -1 faces.
DADO_DISPARO = (1, 1, 0, 0, -1, -1)

# VI.11: calidad -> (dados lanzados, dados conservados)
DADOS_CALIDAD = {
    "green": (3, "peores"),
    "regular": (2, "todos"),
    "veteran": (3, "mejores"),
    "elite": (4, "mejores"),
}

# VI.12: coste de Munición por modo.
COSTE_MUNICION = {"preciso": 1, "area": 2}

BANDAS = ("corta", "media", "larga")

# VI.17, one entry per ammunition: (municion, i_preciso, i_area, d) with one
# value per band (corta, media, larga); None where the rulebook shows "-".
# d values are (normal, reducido).
PERFILES = {
    "fusiles_seccion": (
        (None, (9, 7, 5), (10, 8, 6), ((3, 1), (2, 1), (2, 1))),
    ),
    "francotirador": (
        (None, (9, 10, 9), (None, None, None), ((1, None), (1, None), (1, None))),
    ),
    "ametralladora_media_pesada": (
        (None, (8, 6, 4), (10, 9, 8), ((4, 3), (4, 3), (3, 2))),
    ),
    "puteaux_37_trp": (
        ("he", (7, 5, 4), (9, 8, 6), ((3, 1), (3, 1), (2, 1))),
        ("ap", (7, 5, 4), (None, None, None), ((6, None), (4, None), (2, None))),
    ),
    "pak_35_36_37": (
        ("he", (7, 6, 5), (8, 7, 6), ((3, 2), (3, 1), (2, 1))),
        ("ap", (7, 6, 5), (None, None, None), ((9, None), (7, None), (5, None))),
    ),
}


def banda(distancia: int) -> int:
    """VI.4: index of the band (0 corta, 1 media, 2 larga); a limit belongs to the lower band."""
    if distancia < 0:
        raise ValueError("La distancia no puede ser negativa")
    if distancia > 80:
        raise ValueError("Más de 80 cm: fuera del alcance del Tiro tenso")
    if distancia <= 20:
        return 0
    if distancia <= 50:
        return 1
    return 2


def tirada_calidad(rng: random.Random, calidad: str) -> int:
    """VI.11: roll the Quality's dice, keep two of them, sum (−2..+2)."""
    n, conserva = DADOS_CALIDAD[calidad]
    dados = [rng.choice(DADO_DISPARO) for _ in range(n)]
    if conserva == "peores":
        dados.sort()
        return dados[0] + dados[1]
    if conserva == "mejores":
        dados.sort(reverse=True)
        return dados[0] + dados[1]
    return sum(dados)


def resolucion_danio(
    d_normal: int,
    d_reducido: int | None,
    m: int,
    modo: str,
    blanco_a_cubierto: bool = False,
    blanco_vehiculo: bool = False,
    blanco_peana_pequena: bool = False,
    blanco_seccion: bool = False,
    municion_he: bool = False,
    casco: bool = False,
) -> int:
    """VI.14–VI.16: final casualties of a hit."""
    usa_reducido = modo == "area" and (blanco_a_cubierto or blanco_vehiculo)
    if usa_reducido and d_reducido is None:
        raise ValueError("El perfil no tiene D reducido↓ para este Fuego de Área")
    d_base = d_reducido if usa_reducido else d_normal
    bajas = min(d_base, max(0, d_base + m))
    if modo == "area" and blanco_peana_pequena:
        bajas = min(bajas, 1)
    if blanco_seccion:
        bajas = min(bajas, 4)
    if casco and municion_he:
        bajas = max(0, bajas - 1)
    return bajas


def fuego(perfil: str, modo: str, distancia: int, municion: str | None = None, municion_disponible: int = 12) -> tuple[int, int, int | None, bool]:
    """VI.12 steps 1–5: ``(i_base, d_normal, d_reducido, municion_he)`` of an attack."""
    entradas = PERFILES[perfil]
    if not entradas:
        raise ValueError("El perfil no tiene Tiro tenso")
    if municion is None or entradas[0][0] == municion:
        entrada = entradas[0]
    elif len(entradas) > 1 and entradas[1][0] == municion:
        entrada = entradas[1]
    else:
        raise ValueError("El perfil no dispone de esa munición")
    if municion_disponible < COSTE_MUNICION[modo]:
        raise ValueError("Una unidad que no disponga de Munición suficiente no puede declarar el ataque")
    b = banda(distancia)
    municion_fuego, i_preciso, i_area, d = entrada
    i_base = i_preciso[b] if modo == "preciso" else i_area[b]
    if i_base is None:
        raise ValueError("Un modo indicado como — no existe para ese perfil")
    if d[b] is None:
        raise ValueError("El perfil no tiene D en esa banda")
    d_normal, d_reducido = d[b]
    return i_base, d_normal, d_reducido, municion_fuego == "he"


def disparo_directo(
    rng: random.Random,
    perfil: str,
    modo: str,
    distancia: int,
    p: int,
    calidad: str,
    m: int = 0,
    municion: str | None = None,
    municion_disponible: int = 12,
    blanco_a_cubierto: bool = False,
    blanco_vehiculo: bool = False,
    blanco_peana_pequena: bool = False,
    blanco_seccion: bool = False,
    casco: bool = False,
) -> tuple[bool, int]:
    """VI.12–VI.16: one direct-fire attack; returns ``(impacto, bajas)``.

    Same arguments, in the same order, as the generated resolver (with ``rng``
    in place of the context).
    """
    i_base, d_normal, d_reducido, municion_he = fuego(perfil, modo, distancia, municion, municion_disponible)
    i_efectivo = i_base + m
    # VI.13: automatic success, impossible attack, else I efectivo + Quality roll >= P.
    if i_efectivo - 2 < p and (i_efectivo + 2 < p or i_efectivo + tirada_calidad(rng, calidad) < p):
        return False, 0
    bajas = resolucion_danio(
        d_normal, d_reducido, m, modo, blanco_a_cubierto, blanco_vehiculo,
        blanco_peana_pequena, blanco_seccion, municion_he, casco,
    )
    return True, bajas


def preparar_disparo(
    perfil: str,
    modo: str,
    distancia: int,
    p: int,
    calidad: str,
    m: int = 0,
    municion: str | None = None,
    municion_disponible: int = 12,
    blanco_a_cubierto: bool = False,
    blanco_vehiculo: bool = False,
    blanco_peana_pequena: bool = False,
    blanco_seccion: bool = False,
    casco: bool = False,
) -> tuple[int, int, str, int]:
    """The deterministic part of an attack, for a dice library (ratio c).

    Returns ``(i_efectivo, dados, conserva, bajas_si_impacta)``. The attack hits
    when ``i_efectivo + tirada >= p``, where ``tirada`` is the Quality roll
    (−2..+2), so that one comparison also covers VI.13's automatic success
    (``i_efectivo - 2 >= p``) and impossible attack (``i_efectivo + 2 < p``).
    """
    i_base, d_normal, d_reducido, municion_he = fuego(perfil, modo, distancia, municion, municion_disponible)
    bajas = resolucion_danio(
        d_normal, d_reducido, m, modo, blanco_a_cubierto, blanco_vehiculo,
        blanco_peana_pequena, blanco_seccion, municion_he, casco,
    )
    n, conserva = DADOS_CALIDAD[calidad]
    return i_base + m, n, conserva, bajas
