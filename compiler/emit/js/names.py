"""The only doors from rules text to JavaScript source: names and literals.

:func:`js_name` maps a DSL name to a valid JavaScript identifier, injectively: plain
ASCII names stay readable; anything else (non-ASCII letters, JavaScript reserved words
and the globals a resolver must not shadow, names starting ``x_``) is encoded as
``x_<hex of its UTF-8 bytes>``. Generated helpers all contain ``$``, which no mangled
name does, so DSL names never shadow them. :func:`js_string` writes any text as a
JavaScript string literal (JSON, with the line separators escaped too);
:func:`comment` makes text safe in a ``//`` or ``/** */`` comment; :func:`js_without_comment_lines`
takes the comment lines out of a script a page loads.
"""

from __future__ import annotations

import json
import re

_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")

JS_RESERVED = frozenset("""
    break case catch class const continue debugger default delete do else enum export extends false finally for
    function if import in instanceof new null return super switch this throw true try typeof var void while with
    yield let static implements interface package private protected public await async of get set
    arguments eval undefined NaN Infinity globalThis Object Array Map Set WeakMap Number String Boolean BigInt Math
    JSON Symbol Error TypeError RangeError Promise Reflect Proxy Date RegExp Function constructor prototype
    toString valueOf hasOwnProperty isPrototypeOf propertyIsEnumerable toLocaleString ctx window self document
    require module exports process console
    resolve resolveText PACKAGE PROCEDURES RULEBOOK TITLE VERSION LANG CONTENT_HASH ENUMS CONSTANTS CATALOGS TABLES runtime
""".split())


def js_name(name: str) -> str:
    """A JavaScript identifier for a DSL name (stable and injective).

    >>> js_name("effective_score")
    'effective_score'
    >>> js_name("class")
    'x_636c617373'
    >>> js_name("tamaño")
    'x_74616d61c3b16f'
    """
    if _PLAIN.match(name) and name not in JS_RESERVED and not name.startswith("x_"):
        return name
    return "x_" + name.encode("utf-8").hex()


_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


def js_string(text: str) -> str:
    """``text`` as a JavaScript string literal (what ``JSON.stringify`` writes, and U+2028/U+2029 escaped)."""
    out = _ENCODE(text)
    return out.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") if "\u2028" in out or "\u2029" in out else out


def js_json(value) -> str:
    """A JSON value (dicts, lists, strings, numbers) as a JavaScript literal, on one line."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def comment(text: str) -> str:
    """``text`` on one line, safe inside ``//`` and ``/** */`` comments (line breaks and
    control characters escaped as JSON escapes them, ``*/`` broken)."""
    inner = json.dumps(text, ensure_ascii=False)[1:-1].replace('\\"', '"')
    inner = inner.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").replace("\x85", "\\u0085")
    return inner.replace("*/", "*\\/")


def js_without_comment_lines(script: str) -> str:
    """A script without its comment lines (``//`` lines and ``/* … */`` blocks that fill whole lines) and
    blank lines: what a page loads, lighter. The script as it is when a line has an odd number of
    backquotes (a template literal over lines, whose lines could look like comments) or a block
    comment shares a line with code."""
    lines = script.splitlines()
    if any(line.count("`") % 2 for line in lines):
        return script
    out, in_block = [], False
    for line in lines:
        text = line.strip()
        if in_block or text.startswith("/*"):
            if "*/" in text and not text.endswith("*/"):
                return script
            in_block = not text.endswith("*/") or text in ("/*", "/**")
        elif text and not text.startswith("//"):
            out.append(line)
    return "\n".join(out) + "\n"
