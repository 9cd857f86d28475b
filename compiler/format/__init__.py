"""``rulebook fmt``'s stage: the canonical layout of ``.rules`` files.

Reads a ``.rules`` file's text. Produces the same file in the canonical layout
(:func:`format_source`): the code of each ```` ```rules ```` fence re-indented, re-spaced
and its catalog and table rows aligned as columns; the prose outside the fences kept
byte for byte. The layout is documented in ``rules_dsl/LANGUAGE.md`` ("Formatting").

Modules: :mod:`.tokens` (the tokens of a line, the space between two), :mod:`.layout`
(a fence's lines), :mod:`.rows` (rows aligned as columns), :mod:`.fences` (a file's
fences), :mod:`.safety` (the syntax tree and the checked IR compared before and after).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .fences import fences, format_fences

__all__ = ["Formatted", "format_source", "fences", "same_meaning", "same_program"]


@dataclass(frozen=True, slots=True)
class Formatted:
    """A file in the canonical layout.

    ``text`` is the formatted text (the original when nothing changed); ``kept`` the
    fences left as they were, as (line, column, why), 1-based: their code could not be
    read (the parser says why)."""

    text: str
    changed: bool
    kept: tuple[tuple[int, int, str], ...] = field(default=())


def format_source(text: str, wanted=None) -> Formatted:
    """``text`` (a ``.rules`` file) in the canonical layout.

    Args:
        text: the file's contents.
        wanted: ``wanted(open_line, close_line)`` (0-based lines of a fence's ``` lines)
            chooses the fences to format; all of them by default.

    Returns:
        The formatted file. Its meaning is not verified here: callers that write it
        compare it with :func:`same_meaning` first.
    """
    new, kept = format_fences(text, wanted)
    return Formatted(new, new != text, tuple(kept))


def same_meaning(before: str, after: str, filename: str) -> bool:
    """Whether two versions of a file parse to the same syntax tree, positions aside
    (:func:`rulebook.compiler.format.safety.same_meaning`; the parser is imported on first use)."""
    from .safety import same_meaning as compare

    return compare(before, after, filename)


def same_program(before: dict[str, str], after: dict[str, str]) -> bool | None:
    """Whether two versions of a rulebook check to the same IR, positions aside; None when the
    original does not check clean (:func:`rulebook.compiler.format.safety.same_program`)."""
    from .safety import same_program as compare

    return compare(before, after)
