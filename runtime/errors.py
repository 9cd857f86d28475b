"""Errors raised while resolving rules.

Takes: a message and optionally the source position of the rule that failed,
written ``"path/to/file.rules:LINE"``. The message is either text from the
rules (a ``require``'s message, shown as written) or, with ``params``, a
runtime phrase: an English message id of ``runtime/locale`` whose ``%(name)s``
are filled from ``params`` and which is rendered in ``lang`` when read (see
:mod:`rulebook.runtime.messages` for how a package's language reaches it).
Produces: exceptions whose ``str()`` is ``"path/to/file.rules:LINE: error: message"``
(or just the message when the position is unknown), the format used by
compilers so editors and terminals can link to the line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .messages import translate

__all__ = ["RuleError", "InputError"]


class RuleError(Exception):
    """A rule could not be applied (missing table row, failed ``require``...).

    Attributes:
        message_id: the message as written (rules text, or an English message id).
        params: the message id's parameters; ``None`` for text from the rules.
        src: ``"file.rules:LINE"`` of the rule that failed, or ``None``.
        lang: the language it is read in (``None``: the runtime's default).
    """

    def __init__(self, message: str, src: str | None = None, params: Mapping[str, Any] | None = None,
                 lang: str | None = None) -> None:
        super().__init__(message, src)
        self.message_id = message
        self.params = dict(params) if params is not None else None
        self.src = src
        self.lang = lang

    @property
    def message(self) -> str:
        """The human readable explanation, in :attr:`lang`."""
        if self.params is None:
            return self.message_id
        return translate(self.message_id, self.params, self.lang)

    def in_language(self, lang: str) -> RuleError:
        """Read this error in ``lang`` unless a package already chose its language; returns ``self``."""
        if self.lang is None:
            self.lang = lang
        return self

    def __str__(self) -> str:
        if self.src:
            return f"{self.src}: error: {self.message}"
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, src={self.src!r})"


class InputError(RuleError):
    """The inputs given to a procedure are invalid (wrong type, out of range...)."""
