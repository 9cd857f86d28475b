"""The players' language: message catalogs and number notation, chosen by the rulebook's ``lang``.

Reads the compiled gettext catalogs ``compiler/locale/<lang>/LC_MESSAGES/rulebook.mo``
(sources: the ``.po`` files beside them, extracted with ``pybabel extract -F
compiler/locale/babel.cfg``) and Babel's locale data (decimal symbol, percent pattern).
Produces a :class:`Language`: ``gettext``/``ngettext`` for every phrase the
compiler writes for players (site pages, labels, generated instructions) and
the site's number notation (``1,5`` and ``37,5 %`` in Spanish, ``1.5`` and
``37.5%`` in English, always with a true minus sign ``−``).

Entry points: :func:`language(code) -> Language`; :func:`using(code)` makes a
language current while pages are written (:func:`current`, and the module
functions :func:`_` and :func:`ngettext`, read it). The message ids are
English; ``SUPPORTED`` lists the languages with a catalog.
"""

from __future__ import annotations

import contextlib
import gettext as stdlib_gettext
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "rulebook"
SUPPORTED = ("en", "es")
DEFAULT = "es"
"""The language of a rulebook that does not declare ``lang``."""

MINUS = "\u2212"


@dataclass(frozen=True)
class Language:
    """One language's phrases (a stdlib gettext catalog) and number notation."""

    code: str
    translations: stdlib_gettext.NullTranslations
    decimal: str
    percent_suffix: str

    def gettext(self, message: str) -> str:
        return self.translations.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.translations.ngettext(singular, plural, n)

    def number_text(self, text: str) -> str:
        """A number written with ``.`` and ``-`` (``-1.5``) in this language's notation (``−1,5``)."""
        return text.replace(".", self.decimal).replace("-", MINUS)


def supported(code: str) -> bool:
    return code in SUPPORTED


def of_rulebook(program) -> str:
    """The language of a checked program: its rulebook's ``lang``, or ``DEFAULT`` when it declares none."""
    rb = program.rulebook
    return rb.lang if rb is not None and rb.lang in SUPPORTED else DEFAULT


@lru_cache(maxsize=None)
def language(code: str) -> Language:
    """The catalog and notation of ``code`` (one of ``SUPPORTED``).

    Raises:
        KeyError: ``code`` has no catalog (the checker reports this at the rulebook's ``lang``).
    """
    if code not in SUPPORTED:
        raise KeyError(code)
    from babel import Locale  # build time only: imported when a page is written

    with open(LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.mo", "rb") as fp:
        translations = stdlib_gettext.GNUTranslations(fp)
    locale = Locale.parse(code)
    symbols = locale.number_symbols.get("latn", {})
    pattern = locale.percent_formats[None].pattern
    return Language(code, translations, symbols.get("decimal", "."), pattern[pattern.rindex("0") + 1:])


_current: ContextVar[Language | None] = ContextVar("rulebook_language", default=None)


def current() -> Language:
    """The language pages are being written in (the default language outside :func:`using`)."""
    lang = _current.get()
    return lang if lang is not None else language(DEFAULT)


@contextlib.contextmanager
def using(code: str):
    """Make ``code`` the current language inside the ``with`` block."""
    token = _current.set(language(code))
    try:
        yield current()
    finally:
        _current.reset(token)


def _(message: str) -> str:
    """``message`` (English) in the current language."""
    return current().gettext(message)


def N_(message: str) -> str:
    """Marks a phrase for the catalogs (``pybabel extract -k N_``) where it is stored; ``_`` translates it where used."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n``, in the current language."""
    return current().ngettext(singular, plural, n)
