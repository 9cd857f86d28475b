"""Checked program → ``index.d.ts``: the types of the generated JavaScript package.

Reads: the enums, records, catalogs and procedures of a checked program. Produces the text
of the declarations (:func:`declarations_dts`): placeholder until written.
"""

from __future__ import annotations

from rulebook.compiler import ir


def declarations_dts(program: ir.Program) -> str:
    return "export {};\n"
