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

Two languages, never mixed: the rulebook's ``lang`` decides what a build publishes
(site, JSON descriptions, schemas, the generated packages' docstrings), while the
command line's own words (``--help``, messages, summaries) follow the user's locale:
:func:`user_language` reads ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` and ``LANG``
with gettext's precedence (``C``/``POSIX`` or an unsupported language: English), and
:func:`tell`/:func:`tell_n` translate into it (imported as ``_``/``ngettext`` by the
commands, so that ``pybabel extract`` finds their phrases). Reading the catalog for the
command line needs no Babel: a warm ``rulebook resolve`` stays light.
"""

from __future__ import annotations

import contextlib
import gettext as stdlib_gettext
import os
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "rulebook"
SUPPORTED = ("en", "es")
DEFAULT = "es"
"""The language of a rulebook that does not declare ``lang``."""
USER_DEFAULT = "en"
"""The command line's language when the locale names none of ``SUPPORTED`` (``LANG=C``)."""

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


def with_descriptions_translated(schema):
    """A copy of a JSON Schema (or of a mapping of them) whose every ``"description"`` (English,
    marked with :func:`N_`) is in the current language."""
    if isinstance(schema, dict):
        return {k: (_(v) if k == "description" and isinstance(v, str) else with_descriptions_translated(v)) for k, v in schema.items()}
    if isinstance(schema, list):
        return [with_descriptions_translated(v) for v in schema]
    return schema


# ---------------------------------------------------------------------------
# The command line's language: the user's locale
# ---------------------------------------------------------------------------

def _code_of(locale_name: str) -> str:
    """``es_ES.UTF-8@euro`` → ``es``."""
    return locale_name.split(".")[0].split("@")[0].split("_")[0].split("-")[0].lower()


def user_language(environ=None) -> str:
    """The language of the user's locale, with gettext's precedence: the first of
    ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set names the locale; ``C`` or ``POSIX``
    (or none) is English and ignores ``LANGUAGE``; otherwise ``LANGUAGE`` (a list such as
    ``es:en``) is read before the locale. The first supported language wins; English when none is."""
    env = os.environ if environ is None else environ
    locale_name = next((env[var] for var in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(var)), "")
    if _code_of(locale_name) in ("", "c", "posix"):
        return USER_DEFAULT
    for name in (env.get("LANGUAGE") or "").split(":") + [locale_name]:
        if _code_of(name) in SUPPORTED:
            return _code_of(name)
    return USER_DEFAULT


@lru_cache(maxsize=None)
def _user_catalog(code: str) -> stdlib_gettext.NullTranslations:
    try:
        with open(LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.mo", "rb") as fp:
            return stdlib_gettext.GNUTranslations(fp)
    except OSError:
        return stdlib_gettext.NullTranslations()


def tell(message: str) -> str:
    """``message`` (English) in the user's language (the command line's words)."""
    return _user_catalog(user_language()).gettext(message)


def tell_n(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n`` in the user's language."""
    return _user_catalog(user_language()).ngettext(singular, plural, n)


def diagnostics_summary(diagnostics) -> str:
    """``2 errors, 1 warning`` (``2 errores, 1 aviso``): what a check found, in the user's language."""
    ngettext = tell_n  # the user's language (and the name ``pybabel extract`` looks for)
    severities = [d.severity for d in diagnostics]
    errors = severities.count("error")
    warnings = len(severities) - errors
    return (ngettext("%(num)d error", "%(num)d errors", errors) % {"num": errors} + ", "
            + ngettext("%(num)d warning", "%(num)d warnings", warnings) % {"num": warnings})
