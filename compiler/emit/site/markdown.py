"""Text from the rules → safe Markdown/HTML fragments for the site.

Everything a rules file says reaches the site through these functions: plain
text is HTML-escaped and its Markdown control characters are backslash-escaped,
so ``<script>``, ``{{ }}``, ``|``, ``*``, ``--8<--`` or ``*[abbr]:`` in a rule
description appear as written.

Reads plain text, prose inlines of the IR (:mod:`rulebook.compiler.ir`), numbers and
rules source; produces escaped Markdown, HTML attribute text, numbers in the
notation of the current language (:mod:`rulebook.compiler.i18n`: a decimal comma in
Spanish, a point in English; always a true minus sign) and highlighted code.
"""

from __future__ import annotations

import html
import re
import unicodedata
from fractions import Fraction
from functools import lru_cache

from rulebook.compiler import ir
from rulebook.compiler.support.i18n import current

# Python-Markdown's backslash-escapable characters, plus '|' (tables)
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|>])")


def esc(text: str) -> str:
    """Plain text → Markdown that renders exactly as that text (inline)."""
    return _esc(text if type(text) is str else str(text))


@lru_cache(maxsize=1 << 16)
def _esc(text: str) -> str:
    """:func:`esc` of a string, remembered (a page repeats the same titles and labels)."""
    text = html.escape(text, quote=True)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return text.replace("\r", " ").replace("\n", " ")


def attr(text: str) -> str:
    """Text for an HTML attribute value."""
    return html.escape(str(text), quote=True).replace("\n", " ")


def abbr_text(text: str) -> str:
    """Text for one line of a Markdown abbreviation (``*[term]: text``).

    Python-Markdown puts the definition, unparsed, into the ``title`` attribute
    (and escapes ``<``, ``>`` and ``"`` there): it has to be a single non-empty
    line whose ``&`` are escaped. An
    empty result (or ``''``/``""``, which Python-Markdown reads as "remove the
    abbreviation") means there is nothing to show.
    """
    t = " ".join(str(text).split())
    if t in ("''", '""'):
        return ""
    # The attribute serializer leaves existing entities alone ("&amp;" would
    # show as "&"): every "&" of the text is written as an entity first.
    return t.replace("&", "&amp;")


def abbr_term(text: str) -> str | None:
    """The term of an abbreviation, or None if Python-Markdown cannot read it as one.

    Its ``*[term]: definition`` syntax ends the term at the first ``]`` followed
    by ``:`` (or a space and ``:``) and takes no backslash; a ``]`` elsewhere is fine."""
    t = " ".join(str(text).split())
    if not t or re.search(r"\] ?:", t) or "\\" in t or t in ("''", '""'):
        return None
    return t


def anchor(name: str, part: bool = False) -> str:
    """A permanent, valid HTML id for a declaration name.

    ``part=True``: the second half of a composed id (``catalog--entry``), which
    needs no leading letter (``weapons--7_62mm``)."""
    return _anchor(name, bool(part)) if type(name) is str else _anchor.__wrapped__(name, part)


@lru_cache(maxsize=1 << 16)
def _anchor(name: str, part: bool) -> str:
    """:func:`anchor` of a string, remembered (every link to a declaration computes it)."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    plain = re.sub(r"[^A-Za-z0-9_-]+", "-", plain).strip("-") or "x"
    if plain != name:
        plain += "-" + format(sum(name.encode()) % 4096, "x")
    return plain if part or plain[0].isalpha() else "id-" + plain


def link(text: str, href: str | None, title: str | None = None) -> str:
    """An HTML link around already escaped ``text`` (Markdown or HTML); just the text without ``href``.

    Every internal link of the site is written this way, with the final URL of
    the page (``page.html#anchor``): Markdown never rewrites it, and the same
    form works in Markdown text and inside raw HTML."""
    if not href:
        return text
    tip = f' title="{attr(title)}"' if title else ""
    return f'<a href="{attr(href)}"{tip}>{text}</a>'


def inlines(items: tuple[ir.Inline, ...], target) -> str:
    """Prose inline runs → Markdown. ``target(name)`` gives (href, title) for [[refs]]."""
    out = []
    for it in items:
        if isinstance(it, ir.Text):
            out.append(esc(it.text))
        elif isinstance(it, ir.Strong):
            out.append(f"**{esc(it.text)}**")
        elif isinstance(it, ir.Emph):
            out.append(f"*{esc(it.text)}*")
        elif isinstance(it, ir.Code):
            out.append(f"<code>{html.escape(it.text)}</code>")
        elif isinstance(it, ir.Link):
            href, title = target(it.target)
            out.append(link(esc(title), href))
    return "".join(out)


def plain(items: tuple[ir.Inline, ...], target=None) -> str:
    """Prose inline runs as plain text (search, headings' anchors); [[refs]] as their title."""
    out = []
    for it in items:
        if isinstance(it, ir.Link):
            out.append(target(it.target)[1] if target else it.target)
        else:
            out.append(it.text)
    return "".join(out)


def number(value: int | Fraction | float, decimals: int | None = None) -> str:
    """A number as the site writes it, in the current language: ``−1,5`` (es), ``−1.5`` (en).

    ``decimals`` fixes the digits after the decimal symbol; otherwise an int is
    written whole and a Fraction in its shortest decimal form (``%g``)."""
    if decimals is not None:
        text = f"{value:.{decimals}f}"
    elif isinstance(value, Fraction):
        text = f"{float(value):g}"
    else:
        text = str(value)
    return current().number_text(text)


def percent(p: Fraction) -> str:
    """A probability as a percentage with one decimal, without the sign: ``37,5``."""
    return number(float(p) * 100, 1)


def percent_sign(text: str) -> str:
    """A number followed by the percent sign as the current language writes it (``37,5 %``, ``37.5%``)."""
    return text + current().percent_suffix


def exact_probability(p: Fraction) -> str:
    """An exact probability as ``n/d (xx,x %)``."""
    exact = f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)
    return f"{exact} ({percent_sign(percent(p))})"


def bar_width(p: Fraction) -> str:
    """A probability as the CSS width of its bar (a percentage with a decimal point)."""
    return f"{float(p) * 100:.2f}"


_PLAIN_TOKEN = re.compile(r'<span class="[wn]">([^<]*)</span>')
_GREY_TOKEN = re.compile(r'<span class="(?:o|na)">')  # drawn in the grey of punctuation (class "p"): see extra.css
_SAME_CLASS_NEIGHBOURS = re.compile(r'<span class="((?!err")[\w -]+)">([^<]*)</span>([ \t]*)<span class="\1">')


def _unwrap_whitespace(html_code: str) -> str:
    """Lighter highlighted HTML that looks the same: whitespace and plain names as text (Pygments wraps
    each in a span whose colour is the code's own); operators and attribute names as punctuation (the
    theme draws the three in one grey, in both palettes: extra.css); and neighbouring tokens of one
    class (apart only by spaces) in one span. A long rules source listing is mostly spans: this is a
    fifth of its bytes."""
    html_code = _GREY_TOKEN.sub('<span class="p">', _PLAIN_TOKEN.sub(r"\1", html_code))
    while True:
        merged = _SAME_CLASS_NEIGHBOURS.sub(r'<span class="\1">\2\3', html_code)
        if merged == html_code:
            return html_code
        html_code = merged


@lru_cache(maxsize=None)
def _lexer(lang: str):
    if lang == "rules":
        from rulebook.rules_dsl.pygments_lexer import RulesLexer

        return RulesLexer()
    from pygments.lexers import get_lexer_by_name

    return get_lexer_by_name(lang)


@lru_cache(maxsize=None)
def _formatter(lines: bool):
    """Pygments' HTML formatter without its wrapping (one line per source line when
    ``lines``), made once: making one builds its whole style sheet."""
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True, lineseparator="\n") if lines else HtmlFormatter(nowrap=True)


VERBATIM_OPEN = "<!--rb-verbatim-->"
VERBATIM_CLOSE = "<!--/rb-verbatim-->"
"""The markers around a block of finished HTML that Python-Markdown is not given
(:mod:`rulebook.compiler.emit.site.mkdocs_raw` takes it out of the page before the conversion
and puts it back after). No text from a rules file can write them: its ``<`` is
always escaped (:func:`esc`, :func:`attr`, Pygments)."""


def verbatim(block: str) -> str:
    """A block of finished HTML (no Markdown inside, no blank line, every line starting
    with a tag) between the verbatim markers, for a page's top level (after a blank
    line, before a blank line or the end).

    The site gets it byte for byte as Python-Markdown would have passed it through,
    without Markdown parsing it tag by tag to find its end (a rules source listing is
    most of its page's bytes)."""
    if VERBATIM_OPEN in block or VERBATIM_CLOSE in block:
        raise ValueError("a verbatim block cannot hold the verbatim markers")
    if not (block.startswith("<") and block.endswith(">")) or _LINE_NOT_A_TAG.search(block):
        raise ValueError("every line of a verbatim block starts with a tag, and the block ends with one")
    return VERBATIM_OPEN + block + VERBATIM_CLOSE


_LINE_NOT_A_TAG = re.compile(r"\n(?!<)")


def highlight(code: str, lang: str = "rules") -> str:
    """Source code → highlighted HTML block (Pygments; ``rules`` is the project's lexer).

    Produced here rather than through a Markdown fence so that no line of
    rules source is ever seen by Markdown preprocessors (snippets, abbr).
    """
    from pygments import highlight as pyg

    body = _unwrap_whitespace(pyg(code, _lexer(lang), _formatter(False)).rstrip())
    # Every line starts with a tag: no blank line (Markdown would end the raw
    # HTML block there) and no line that a preprocessor could take for its own
    # syntax (``--8<--`` snippets, ``*[abbr]:``).
    body = re.sub(r"^(?!<)", "<span></span>", body, flags=re.M)
    return f'<div class="language-{lang} highlight"><pre><span></span><code>{body}</code></pre></div>'


def highlight_lines(code: str, lang: str = "rules") -> list[str]:
    """Source code → one highlighted HTML fragment per line (tags closed on each line)."""
    return list(_highlighted_lines(code, lang))


@lru_cache(maxsize=4096)
def _highlighted_lines(code: str, lang: str) -> tuple[str, ...]:
    """:func:`highlight_lines`, remembered: ``rulebook serve`` rebuilds the pages of
    files that an edit did not touch, whose highlighting is the same."""
    from pygments import highlight as pyg

    body = pyg(code, _lexer(lang), _formatter(True))
    lines = [_unwrap_whitespace(line) for line in body.split("\n")]
    wanted = code.count("\n") + (0 if code.endswith("\n") else 1)
    return tuple((lines + [""] * wanted)[:wanted])
