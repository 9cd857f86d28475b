"""A program using the generated package of content/1936 with mistakes type checkers must find.

tests/test_wheel.py type-checks it with ``mypy --strict`` and pyright (strict): each must
report an error on every line marked ``# ERROR:`` and on no other line."""

from manual_1936 import procedures, runtime


def main() -> None:
    ctx = runtime.SampleContext(seed=1, trace=False)
    shot = procedures.disparo_directo(ctx, perfil="fusiles_seccion", modo="preciso", distancia=20, p=3,
                                      calidad="elitee")  # ERROR: not a value of Calidad
    print(shot.impactos)  # ERROR: ResultadoDisparo has no field impactos
    procedures.banda_distancia(ctx, distancia="30")  # ERROR: distancia is an int
    procedures.disparo_directo(ctx, modo="area", distancia=5, p=1, calidad="green",
                               perfil="no_such_weapon")  # ERROR: not an id of perfiles_armas
    odds = runtime.exact(procedures.disparo_directo, perfil="pistola", modo="area", distancia=5, p=1, calidad="green")
    print(odds.probability(lambda r: r.bajass > 0))  # ERROR: the outcomes are ResultadoDisparo


main()
