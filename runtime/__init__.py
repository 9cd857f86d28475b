"""Runtime of the rules compiler: generic exact dice/probability/trace machinery.

Generated resolvers import only this package. It takes resolver functions
``fn(ctx, ...)`` that obtain randomness through ``ctx.roll(random_variable)``
and produces one sampled result with its step-by-step :class:`Trace`, or the
exact :class:`Distribution` of results, within a work limit. It contains no
game vocabulary.

Modules:
    messages      runtime phrases in the players' language (gettext catalogs in locale/).
    errors        RuleError / InputError with ``file.rules:LINE`` positions.
    numbers       exact arithmetic (int / Fraction), rounding, capped sums.
    values        Counts, value ordering, JSON conversion, text formatting.
    dice          random variables: dice, pools, bags, constants.
    dice_mods     dice with modifiers: re-rolls, explosions, several counts from one roll.
    context       SampleContext / ExactContext handed to resolvers; the work limit.
    trace         the recorded explanation of a sampled run.
    distribution  exact(), sample(), sample_many(), Distribution; fast and traced twins.
    tables        table lookups and ordered-value helpers.
    checks        checked direct calls of resolvers (InputError naming the argument's path).
    protocol      Procedure, Example, Odds: the objects a generated package is made of.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field as dataclass_field
from fractions import Fraction
from typing import Any, Literal

from .checks import resolver
from .context import DEFAULT_MAX_PATHS, DEFAULT_MAX_WORK, Context, ExactContext, SampleContext, WorkLimitError
from .dice import (
    COMPARISONS,
    Bag,
    Die,
    Pools,
    RandomVariable,
    bag_draw,
    bag_with,
    bag_without,
    constant,
    pool_count,
    pool_faces,
    pool_sum,
    roll_one,
    std_die,
)
from .dice_mods import dice_pool
from .distribution import Distribution, exact, sample, sample_many, traced, traced_by
from .errors import InputError, RuleError
from .numbers import (
    Number,
    capped_sum,
    ceil_,
    clamp,
    div,
    floor_,
    normalize,
    round_,
    trunc_,
)
from .protocol import Example, Expectation, Matchup, MatchupSide, Odds, OddsAxis, Param, Procedure
from .records import RuleApp, Schema, field, from_input, has_rule, rule_param
from .tables import index, lookup, lookup_among, lookup_range, ordinal, shift
from .trace import LetEvent, ProcedureFrame, RollEvent, Step, Trace
from .values import Counts, Record, format_value, granted, largest, number_text, record, smallest, sort_key, stacked_param, to_jsonable

__all__ = [
    # re-exported so generated code imports nothing else
    "dataclass",
    "dataclass_field",
    "Fraction",
    # … and so that their annotations import nothing else (read by type checkers only)
    "Any",
    "Literal",
    "Mapping",
    "Sequence",
    # records and inputs
    "Record",
    "record",
    "RuleApp",
    "Schema",
    "field",
    "from_input",
    "has_rule",
    "rule_param",
    # errors
    "RuleError",
    "InputError",
    "WorkLimitError",
    # numbers
    "Number",
    "normalize",
    "floor_",
    "ceil_",
    "round_",
    "trunc_",
    "div",
    "clamp",
    "capped_sum",
    # values
    "Counts",
    "to_jsonable",
    "sort_key",
    "format_value",
    "number_text",
    "smallest",
    "largest",
    "granted",
    "stacked_param",
    # dice
    "RandomVariable",
    "Die",
    "std_die",
    "roll_one",
    "pool_sum",
    "pool_count",
    "pool_faces",
    "dice_pool",
    "Bag",
    "bag_draw",
    "bag_with",
    "bag_without",
    "constant",
    "Pools",
    "COMPARISONS",
    # contexts and traces
    "Context",
    "SampleContext",
    "ExactContext",
    "Trace",
    "ProcedureFrame",
    "Step",
    "LetEvent",
    "RollEvent",
    # distributions
    "Distribution",
    "exact",
    "sample",
    "sample_many",
    "traced_by",
    "traced",
    "resolver",
    "DEFAULT_MAX_PATHS",
    "DEFAULT_MAX_WORK",
    # the objects a generated package is made of
    "Param",
    "Procedure",
    "Expectation",
    "Example",
    "OddsAxis",
    "Odds",
    "Matchup",
    "MatchupSide",
    # tables
    "lookup",
    "lookup_among",
    "lookup_range",
    "index",
    "shift",
    "ordinal",
]
