"""Templates of the declarations of the rules language, for editors.

Entry point: :data:`SNIPPETS`. Reads nothing; each :class:`Snippet` is a
declaration (or a statement: ``let``, ``if``, ``step``, ``repeat``; an
expression: ``stack``; an annotation: ``@allow``) with tab stops in the snippet syntax that VS Code, Neovim
(``vim.snippet``, LuaSnip) and Helix share (``${1:name}``, ``$0``). The
language server offers them as completions at the start of a line in a
```` ```rules ```` fence (so every LSP editor gets them), and
``editors/generate.py`` writes them to ``editors/vscode/snippets/rules.code-snippets``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Snippet:
    prefix: str
    description: str
    body: tuple[str, ...]


SNIPPETS = (
    Snippet("fence", "a ```rules fence", ("```rules", "$0", "```")),
    Snippet("section", "section: starts a page of the manual", ('section ${1:I} "${2:Título}"',)),
    Snippet("enum", "enum: named values", ('enum ${1:Nombre} "${2:Título}" {', '  ${3:valor} "${4:Título}"', "}")),
    Snippet("record", "record: typed fields", ('record ${1:Nombre} "${2:Título}" {', '  ${3:campo}: ${4:int} "${5:Título}"', "}")),
    Snippet(
        "catalog", "catalog: entries of a record, by id",
        ('catalog ${1:nombre} "${2:Título}" of ${3:Registro} {', "  columns ${4:campo}", "  ${5:id} | ${0:valor}", "}"),
    ),
    Snippet(
        "table", "table: rows by key, result columns",
        ('table ${1:nombre} "${2:Título}"', '  by ${3:clave}: ${4:int} range "${5:Clave}"', '  -> ${6:valor}: ${7:int} "${8:Valor}"', "{", "  ${9:1..3} | ${0:0}", "}"),
    ),
    Snippet("die", "die: faces of a die", ('die ${1:Dado} "${2:Título}" = [${0:1, 2, 3, 4, 5, 6}]',)),
    Snippet("bag", "bag: tokens drawn without replacement", ('bag ${1:Bolsa} "${2:Título}" {', "  ${3:tipo}: ${0:1}", "}")),
    Snippet("rule", "rule: a special rule", ('rule ${1:nombre} "${2:Título}" (${3:X}: int) {', '  "${4:Texto de la regla.}"', '  level 1: "${0:Efecto}"', "}")),
    Snippet(
        "procedure", "procedure: typed parameters, steps, a result",
        ('procedure ${1:nombre} "${2:Título}" (${3:x}: ${4:int}) -> ${5:int} {', '  step "${6:Paso}" {', "    return ${0:x}", "  }", "}"),
    ),
    Snippet("example", "example: a worked example of a procedure", ('example ${1:procedimiento} "${2:Título}" {', "  given (${3:x}: ${4:1})", "  expect ${0:result == 1}", "}")),
    Snippet(
        "odds", "odds: exact probabilities computed by a procedure",
        ('odds ${1:nombre} "${2:Título}" {', "  procedure ${3:procedimiento}(${4:x}: ${5:eje})", '  rows ${5:eje} in ${6:1..6} "${7:Título}"', "  cell probability(${0:result})", "}"),
    ),
    Snippet(
        "matchup", "matchup: what a unit's points buy against every target (rulebook balance)",
        ('matchup ${1:nombre} "${2:Título}" {', '  attacker ${3:a} in ${4:catalogo} "${5:Atacante}"', '  target ${6:t} in ${4:catalogo} "${7:Blanco}"',
         "  procedure ${8:procedimiento}(${9:x}: ${3:a})", "  measure: mean(${0:result})", "}"),
    ),
    Snippet(
        "army", "army: how a force is built (list building)",
        ('army ${1:nombre} "${2:Título}" {', "  agreed", "  units ${3:catalogo} cost: ${4:coste}", "}$0"),
    ),
    Snippet(
        "repeat", "repeat … until: roll again until a condition holds",
        ("repeat {", "  let ${1:a} = roll ${2:d6}", "  let ${3:b} = roll ${4:d6}", "} until ${5:a != b}$0"),
    ),
    Snippet("stack", "stack: modifiers from named sources, combined by a procedure", ("stack ${1:procedimiento}() {", '  "${2:Fuente}": ${3:valor}', "}$0")),
    Snippet("allow", "@allow: silence one kind of warning in the declaration below, with the reason", ('@allow ${1:unused}("${2:motivo}")$0',)),
    Snippet("const", "const: a named number", ('const ${1:nombre} "${2:Título}" = ${0:1}',)),
    Snippet("term", "term: a glossary entry", ('term ${1:id} "${2:Término}" "${0:Definición.}"',)),
    Snippet("let", "let: a named value in a procedure", ("let ${1:nombre} = ${0:valor}",)),
    Snippet("if", "if: a conditional block", ("if ${1:condición} {", "  $0", "}")),
    Snippet("step", "step: a numbered step of a procedure", ('step "${1:Paso}" {', "  $0", "}")),
)
