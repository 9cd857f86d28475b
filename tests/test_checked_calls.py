"""A direct call of a generated resolver checks its arguments as ``rulebook resolve`` checks JSON.

``procedures.<name>(ctx, …)`` is the checked resolver (:func:`rulebook.runtime.resolver`): a bad
enum value, an unknown catalog id, a value of the wrong type, a missing or unknown argument is an
InputError naming its JSON-like path, in the package's language; ``runtime.exact`` and
``runtime.sample`` check once; calls between procedures (``_proc_<name>``) are not checked.
"""

from __future__ import annotations

import pytest

from rulebook import runtime

SHOT = {"perfil": "fusiles_seccion", "modo": "preciso", "distancia": 20, "p": 3, "calidad": "regular"}


def _error(fn, *args, **kwargs) -> str:
    with pytest.raises(runtime.InputError) as caught:
        fn(runtime.SampleContext(seed=1, trace=False), *args, **kwargs)
    return str(caught.value)


def test_a_direct_call_with_good_arguments_gives_what_the_unchecked_resolver_gives(package):
    fn = package.procedures.disparo_directo
    checked = fn(runtime.SampleContext(seed=4, trace=False), **SHOT)
    assert checked == fn.__wrapped__(runtime.SampleContext(seed=4, trace=False), **SHOT)
    positional = fn(runtime.SampleContext(seed=4, trace=False), *SHOT.values())
    assert positional == checked and type(checked) is package.types.ResultadoDisparo


@pytest.mark.parametrize("change, message", [
    ({"calidad": "elitee"}, "$.calidad: 'elitee' no es un valor de Calidad (green, regular, veteran, elite)"),
    ({"perfil": "no_such_weapon"}, "$.perfil: 'no_such_weapon' no está en el catálogo perfiles_armas"),
    ({"p": "3"}, "$.p: se esperaba un número entero, no '3'"),
    ({"p": True}, "$.p: se esperaba un número entero, no True"),
    ({"blanco_vehiculo": 1}, "$.blanco_vehiculo: se esperaba true o false, no 1"),
    ({"municion": None}, None),
    ({"calidad": None}, "$.calidad: falta un valor"),
    ({"p": None, "calidad": "x"}, "$.p: falta un valor"),
    ({"zz": 1}, "$: 'zz' no es un parámetro de disparo_directo"),
])
def test_a_bad_argument_is_an_input_error_naming_its_path(package, change, message):
    arguments = {**SHOT, **change}
    if message is None:
        package.procedures.disparo_directo(runtime.SampleContext(seed=1, trace=False), **arguments)
        return
    assert _error(package.procedures.disparo_directo, **arguments) == message


def test_a_missing_argument_and_a_missing_context(package):
    arguments = {k: v for k, v in SHOT.items() if k != "p"}
    assert _error(package.procedures.disparo_directo, **arguments) == "$.p: falta el parámetro"
    with pytest.raises(TypeError, match="takes a context first"):
        package.procedures.disparo_directo(**SHOT)
    with pytest.raises(TypeError):
        package.procedures.disparo_directo(runtime.SampleContext(seed=1), *SHOT.values(), 0, None, 12, False, False,
                                           False, False, False, "one too many")


def test_lists_maps_and_records_are_checked_inside(package):
    """A list's bad item is named by its index; a list becomes a tuple, as JSON input does."""
    fn = package.procedures.tirada_dados_ordenes
    assert _error(fn, oficiales=["green", "elitee"]).startswith("$.oficiales[1]: 'elitee' no es un valor de Calidad")
    assert _error(fn, oficiales="green") == "$.oficiales: se esperaba una lista"
    a = fn(runtime.SampleContext(seed=3, trace=False), oficiales=["green", "veteran"])
    assert a == fn(runtime.SampleContext(seed=3, trace=False), oficiales=("green", "veteran"))
    proc = package.PROCEDURES["coste_unidad"]
    assert _error(proc.function, coste_base=10, calidad="green", mejoras_nacionales=["no_such"]).startswith(
        "$.mejoras_nacionales[0]: 'no_such' no está en el catálogo")


def test_a_record_argument_is_checked_field_by_field():
    from rulebook.runtime.checks import _Bad, checker

    class Unit(runtime.Record):
        __slots__ = ("calidad", "armas")

    schema = runtime.Schema(
        records={"Unit": (Unit, (("calidad", "calidad", ("enum", "Calidad")), ("armas", "armas", ("list", ("ref", "armas")))))},
        enums={"Calidad": ("green", "elite")}, catalogs={"armas": {"fusil": None}},
    )
    check = checker(("record", "Unit"), schema)
    good = Unit(calidad="green", armas=("fusil",))
    assert check(good) is good  # nothing to change: the same record
    assert check(Unit(calidad="green", armas=["fusil"])) == good  # a list becomes a tuple
    with pytest.raises(_Bad) as bad:
        check(Unit(calidad="green", armas=("fusil", "cañón")))
    assert str(bad.value.error("$.unidad").in_language("en")) == "$.unidad.armas[1]: 'cañón' is not in the catalog armas"
    with pytest.raises(_Bad) as bad:
        check({"calidad": "green", "armas": []})
    assert str(bad.value.error("$.unidad").in_language("en")) == "$.unidad: an object Unit was expected"


def test_exact_and_sample_check_once_and_internal_calls_are_not_checked(package):
    fn = package.procedures.disparo_directo
    with pytest.raises(runtime.InputError, match=r"^\$\.calidad: 'x'"):
        runtime.exact(fn, **{**SHOT, "calidad": "x"})
    with pytest.raises(runtime.InputError, match=r"^\$\.calidad: 'x'"):
        runtime.sample(fn, seed=1, trace=False, **{**SHOT, "calidad": "x"})
    with pytest.raises(runtime.InputError, match=r"^\$\.calidad: 'x'"):
        runtime.sample_many(fn, 10, 1, **{**SHOT, "calidad": "x"})
    assert runtime.exact(fn, **SHOT) == runtime.exact(fn.__wrapped__, **SHOT)
    assert runtime.traced(fn) is runtime.traced(fn.__wrapped__) is package.traced.disparo_directo
    for name in package.PROCEDURES:
        public = getattr(package.procedures, name)
        assert getattr(package.procedures, f"_proc_{name}") is public.__wrapped__  # the unchecked resolver
        assert package.PROCEDURES[name].function is public


def test_a_distribution_prints_short():
    many = runtime.Distribution({i: runtime.Fraction(1, 1000) for i in range(1000)})
    assert repr(many) == "Distribution({0: 1/1000, 1: 1/1000, 2: 1/1000, 3: 1/1000, 4: 1/1000, 5: 1/1000, " \
                         "6: 1/1000, 7: 1/1000, … 992 more})"
    assert repr(runtime.Distribution({"a" * 500: 1})).startswith("Distribution({'aaaaaaaa")
    assert len(repr(runtime.Distribution({"a" * 500: 1}))) < 100


def test_what_a_user_prints_is_short(package):
    """A trace, its frames and steps, a long record print in a line (a frame's dataclass repr
    was its whole resolution; a catalog entry's, thousands of characters)."""
    result, trace = runtime.sample(package.procedures.disparo_directo, seed=1, **SHOT)
    assert repr(trace) == "<Trace 1 events>"
    assert repr(trace.root) == f"<ProcedureFrame disparo_directo: {len(trace.root.steps)} steps → {result!r}>"
    assert repr(trace.root.steps[0]).startswith("<Step 1. ") and len(repr(trace.root.steps[0])) < 120
    assert all(len(repr(e)) < 150 for step in trace.root.steps for e in step.events)
    assert repr(result) == "ResultadoDisparo(impacto=True, bajas=3)"  # a short record prints whole
    entries = [entry for name in dir(package.data) if name.startswith("CATALOG_")
               for entry in getattr(package.data, name).values()]
    longest = max(entries, key=lambda entry: len(", ".join(f"{v!r}" for v in entry._values(entry))))
    assert len(repr(longest)) < 1200 and repr(longest).startswith(type(longest).__name__ + "(")


def _types_module(tmp_path, rules: str) -> str:
    from rulebook.compiler.emit.python import to_python
    from rulebook.compiler.pipeline import driver

    path = tmp_path / "libro.rules"
    path.write_text('```rules\nrulebook libro "Libro" version "1" lang "es"\n' + rules + "\n```\n", encoding="utf-8")
    result = driver.check(path)
    assert result.ok, [d.render(result.sources) for d in result.diagnostics]
    return to_python.generate(result.program)["libro/types.py"]


def test_a_field_named_as_its_type_reads_the_type_by_another_name(tmp_path):
    """In a record's class a field hides a type of the same name from the annotations after it:
    they read it as ``_type_<name>``, bound at the end of types.py."""
    text = _types_module(tmp_path, 'enum Calidad { green "Verde" }\nrecord Unidad { Calidad: Calidad, otra: Calidad? }')
    assert "    Calidad: _type_Calidad\n    otra: _type_Calidad | None\n" in text
    assert text.rstrip().endswith("_type_Calidad = Calidad")
    namespace: dict = {}
    exec(compile(text.replace("from . import _runtime as _rt", "from rulebook import runtime as _rt"), "types.py", "exec"),
         namespace)
    assert namespace["Unidad"](Calidad="green", otra=None).Calidad == "green"


def test_two_declarations_that_become_one_name_of_types_py_are_refused(tmp_path):
    with pytest.raises(ValueError, match="both become VALUES_Banda"):
        _types_module(tmp_path, 'enum Banda { corta "Corta" }\nrecord VALUES_Banda { x: int }')
