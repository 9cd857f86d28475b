"""Errors raised while resolving rules.

Takes: a message (in the players' language) and optionally the source position
of the rule that failed, written ``"path/to/file.rules:LINE"``.
Produces: exceptions whose ``str()`` is ``"path/to/file.rules:LINE: error: message"``
(or just the message when the position is unknown), the format used by
compilers so editors and terminals can link to the line.
"""

from __future__ import annotations

__all__ = ["RuleError", "InputError"]


class RuleError(Exception):
    """A rule could not be applied (missing table row, failed ``require``...).

    Attributes:
        message: the human readable explanation.
        src: ``"file.rules:LINE"`` of the rule that failed, or ``None``.
    """

    def __init__(self, message: str, src: str | None = None) -> None:
        super().__init__(message, src)
        self.message = message
        self.src = src

    def __str__(self) -> str:
        if self.src:
            return f"{self.src}: error: {self.message}"
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, src={self.src!r})"


class InputError(RuleError):
    """The inputs given to a procedure are invalid (wrong type, out of range...)."""
