"""Runtime phrases in the players' language: message ids, catalogs, rendering.

Takes: English message ids marked with :func:`N_` (``"the die %(die)s has no
faces"``), their parameters, and a language code (``"es"``, ``"en"``: a
generated package's ``LANG``).
Produces: the phrase in that language, read from the gettext catalogs
``runtime/locale/<lang>/LC_MESSAGES/runtime.mo`` with the standard library only
(extracted and compiled with Babel, see ``compiler/locale/babel.cfg``); a
language without a catalog reads the English ids.

How the language reaches the runtime, with no global mutable state (two
packages of different languages can run in one process):

* a :class:`~rulebook.runtime.errors.RuleError` carries its message id and parameters,
  not text; it is rendered when read (``str(err)``, ``err.message``) in
  ``err.lang``. The entry points that run a package's resolver
  (``rulebook.runtime.sample``, ``sample_many``, ``exact``, ``Procedure.convert``) set
  ``err.lang`` to that package's language (:func:`language_of`) as the error
  leaves them; an error raised outside them reads in :data:`DEFAULT_LANGUAGE`.
* a :class:`~rulebook.runtime.context.SampleContext` is made with the package's
  language: its trace records dice descriptions and its own phrases in it, and
  ``Trace.render_text()`` renders in it unless told another language.
"""

from __future__ import annotations

import gettext
import sys
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_LANGUAGE", "LOCALE_DIR", "N_", "Phrase", "Described", "Joined", "phrases", "translate", "language_of"]

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DEFAULT_LANGUAGE = "es"


def N_(msgid: str) -> str:
    """Mark ``msgid`` (English) for extraction; it is translated when rendered."""
    return msgid


@lru_cache(maxsize=None)
def phrases(lang: str) -> gettext.NullTranslations:
    """The runtime's catalog for ``lang`` (message ids are English: a language without a catalog reads English)."""
    return gettext.translation("runtime", LOCALE_DIR, [lang], fallback=True)


class Phrase:
    """A phrase not yet rendered: a message id and its parameters (which may be phrases)."""

    __slots__ = ("msgid", "params")

    def __init__(self, msgid: str, **params: Any) -> None:
        self.msgid = msgid
        self.params = params

    def render(self, lang: str | None) -> str:
        return translate(self.msgid, self.params, lang)


class Described:
    """A random variable's description as a parameter of a phrase, rendered in the phrase's language."""

    __slots__ = ("rv",)

    def __init__(self, rv: Any) -> None:
        self.rv = rv

    def render(self, lang: str | None) -> str:
        return self.rv.describe(lang or DEFAULT_LANGUAGE)


class Joined:
    """Parts (phrases or plain text) rendered in one language and joined by ``sep``; empty when there are none."""

    __slots__ = ("parts", "sep")

    def __init__(self, parts: list, sep: str) -> None:
        self.parts = tuple(parts)
        self.sep = sep

    def __bool__(self) -> bool:
        return bool(self.parts)

    def render(self, lang: str | None) -> str:
        return self.sep.join(_rendered(part, lang) for part in self.parts)


def _rendered(value: Any, lang: str | None) -> Any:
    return value.render(lang) if isinstance(value, (Phrase, Described, Joined)) else value


def translate(msgid: str, params: Mapping[str, Any] | None, lang: str | None) -> str:
    """``msgid`` in ``lang`` (``None``: :data:`DEFAULT_LANGUAGE`), its ``%(name)s`` filled
    from ``params``; a parameter that is a :class:`Phrase` is rendered in ``lang`` too.

    >>> translate("the die %(die)s has no faces", {"die": "d0"}, "en")
    'the die d0 has no faces'
    """
    text = phrases(lang or DEFAULT_LANGUAGE).gettext(msgid)
    if params is None:
        return text
    return text % {k: _rendered(v, lang) for k, v in params.items()}


def language_of(fn: Callable[..., Any]) -> str:
    """The language of the generated package ``fn`` (a resolver) belongs to: its
    ``LANG``; :data:`DEFAULT_LANGUAGE` for a function outside a package."""
    module = getattr(fn, "__module__", None) or ""
    for name in (module.rpartition(".")[0], module):
        lang = getattr(sys.modules.get(name), "LANG", None) if name else None
        if isinstance(lang, str) and lang:
            return lang
    return DEFAULT_LANGUAGE
