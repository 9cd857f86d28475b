"""The protocol objects a generated package exposes print short: a tool author's REPL or
log shows a procedure, not its schema and resolver (the dataclass repr of one of
content/1936's procedures was 266,775 characters)."""

from __future__ import annotations

from rulebook.runtime.protocol import Param, Procedure


def test_a_procedure_prints_its_signature_and_source_not_its_schema():
    schema = {"records": {f"R{i}": {"fields": {f"f{j}": ("int",) for j in range(200)}} for i in range(200)}}
    procedure = Procedure(
        name="disparo", title="Disparo", ref="VI.2", src="06-disparo.rules:12", function=lambda ctx: None,
        params=(Param("perfil", ("ref", "armas")), Param("p", ("int",), has_default=True)), result="Resultado",
        schema=schema,
    )
    assert repr(procedure) == "<Procedure disparo(perfil, p) -> Resultado at 06-disparo.rules:12>"
    assert len(repr(procedure)) < 200 and str(procedure) == repr(procedure)
