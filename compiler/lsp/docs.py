"""One-line documentation of the language's words that are not declarations.

Entry points: :data:`ANNOTATION_DOCS` (``@name`` → what it does),
:data:`WARNING_KINDS` (a kind of warning ``@allow`` can silence → what it
reports), :data:`CLAUSE_DOCS` (``(context, word)`` → the clause's form and
meaning, for the clauses of an ``army`` block, of a ``units`` block and the
applied ``stacking`` of a rule), :data:`CLAUSE_ARGUMENTS` (an army clause →
its ``name:`` arguments). Reads nothing; hover and completion show
these texts. They summarise ``rules_dsl/LANGUAGE.md``; the tests check that
they name exactly the words the checker knows (``ANNOTATIONS``, the army
clause tables, the kinds the checker warns with).
"""

from __future__ import annotations

ANNOTATION_DOCS = {
    "source": '`@source "VI.11"`: the source reference (default: the section and the numbered heading above).',
    "status": "`@status deferred`: `active` (default), `deferred` (kept, marked on the site) or `not_playable`.",
    "doc": '`@doc "…"`: an explanation shown under the declaration on the site; `@doc` alone takes the paragraph above the fence.',
    "datasheet": '`@datasheet "Title"` (a catalog): one datasheet card per entry, on the site page titled by the value.',
    "cost_field": '`@cost_field "field"` (a `@datasheet` catalog): the int field of its record that holds the cost (the base cost, with `@cost_modifier`).',
    "cost_modifier": '`@cost_modifier "table"` (a `@datasheet` catalog): a table keyed by an enum with one numeric column, the percentage added to the base cost.',
    "as_printed": '`@as_printed(ids: [a, b], reason: "…")`: these `ref` ids may name no entry, because the manual prints them so; the reason is required and goes to the data.',
    "changelog": "`@changelog` (a catalog): the rulebook's version history, newest first (`version`, `changes`, optional `date`).",
    "allow": '`@allow kind("reason")`: the warnings of that kind inside the declaration are not reported; the reason is required.',
    "display": '`@display "{field} × {field}"` (a record): how the pages show one of its values, each `{field}` replaced by its value.',
    "internal": "`@internal` (a record or an enum): a type that only types values; it stays off the player pages.",
    "quick_reference": "`@quick_reference` (a constant or a table): also shown, with its values, on the quick-reference page.",
}

WARNING_KINDS = {
    "unused": "a value, constant, record, enum, die or bag that nothing uses",
    "unreachable": "statements after a `return`",
    "recursion": "a procedure whose every `return` calls the procedure itself: it would never end",
    "naming": "an enum value that is not lower_snake_case",
    "gap": "ranges of a table that leave numbers out",
    "missing-key": "an enum value without its row in a table keyed by the enum",
    "variant-spelling": "texts of one field, or titles of one enum, that differ only by accents, case or spacing",
    "duplicate-id": "one id defined in two catalogs with different values",
    "changelog": "the rulebook's version is not an entry of its `@changelog` catalog",
    "allow": "an `@allow` that silences no warning",
}

CLAUSE_DOCS = {
    ("army", "side"): '`side id "Title"` (repeated): a side a roster chooses from.',
    ("army", "sides"): "`sides Enum`: the sides a roster chooses from are the values of the enum.",
    ("army", "roles"): "`roles Enum`: the roles (attacker, defender…) a roster chooses from.",
    ("army", "sizes"): "`sizes table [column: c]`: game sizes, the rows of a table keyed by `id`; the points are its column named after each role (or `column:`).",
    ("army", "size"): '`size id "Title" points: N` (or `role: N` per role): a game size written in place.',
    ("army", "agreed"): "`agreed [min: N]`: the players may agree the points instead (at least `min`, default 1).",
    ("army", "bonus"): "`bonus role: P …`: a percentage added to the agreed points for a role, rounded half up.",
    ("army", "quality"): "`quality Enum [percent: table] [column: c]`: each unit takes a value of the enum; the table holds the percentage added to its cost.",
    ("army", "units"): "`units catalog cost: f [side:] [category:] [weight:] [name:] [models: max_models: per_model:] [composition: amount: alternatives:] { options … }`: the catalog's entries can be fielded.",
    ("army", "limit"): "`limit total | category: c | entry: e [min: N] [max: N]`: how many units, weighted units of a category, or units of one entry.",
    ("army", "limits"): "`limits table min: col max: col`: one category limit per row of a table keyed by the categories' enum.",
    ("units", "options"): "`options catalog cost: f [max: N] [only: [ids]] [entries: [ids] | exclude: [ids]]`: upgrades from a catalog, each taken up to `max` times.",
    ("units", "option"): '`option id "Title" [cost: N] [max: N] [entries: [ids] | exclude: [ids]] [remove: [ids]] [add: [ids]]`: an option written in place.',
    ("stacking", "sum"): "`stacking sum`: `rule_param` adds the parameter over every application the list holds (its own and granted).",
    ("stacking", "max"): "`stacking max`: `rule_param` takes the largest parameter over every application.",
    ("stacking", "min"): "`stacking min`: `rule_param` takes the smallest parameter over every application.",
    ("stacking", "first"): "`stacking first` (the default): `rule_param` takes the parameter of the first application.",
}

#: The ``name:`` arguments of each army clause but ``units`` (whose arguments
#: are the checker's ``UNIT_ARGS``), offered after the clause's values.
CLAUSE_ARGUMENTS = {
    "sizes": ("column",),
    "size": ("points",),
    "agreed": ("min",),
    "quality": ("percent", "column"),
    "limit": ("category", "entry", "min", "max"),
    "limits": ("min", "max"),
    "options": ("cost", "max", "only", "entries", "exclude"),
    "option": ("cost", "max", "entries", "exclude", "remove", "add"),
}
