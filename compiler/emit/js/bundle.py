"""The runtime's files as the generated package carries them, and the classic-script twin.

Reads: the JavaScript runtime beside this module (``runtime/*.js``, package data of the
compiler) and the Python runtime's gettext catalogs (the phrases of errors and traces).
Produces: :func:`runtime_files` — ``runtime/<name>.js`` by path, with ``runtime/catalog.js``
(every supported language's phrases, written from the catalogs); :func:`classic_script` —
ES modules (ours: one ``import``/``export`` per line or bracketed list) turned into one
classic script, each module a function returning its exports, in dependency order, the
entry module's exports assigned to a global (``browser.js``: Chromium refuses module
scripts on ``file://`` pages).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from rulebook.compiler.emit.js.names import js_json, js_string

RUNTIME = Path(__file__).resolve().parent / "runtime"
LANGUAGES = ("en", "es")

_IMPORT = re.compile(r'^import \{([^}]*)\} from "([^"]+)";\n', re.M)
_IMPORT_ALL = re.compile(r'^import \* as (\$?\w+) from "([^"]+)";\n', re.M)
_REEXPORT = re.compile(r'^export \{([^}]*)\} from "([^"]+)";\n', re.M)
_EXPORT = re.compile(r"^export (?:async )?(function\*?|class|const|let) (\$?\w+)", re.M)


@lru_cache(maxsize=1)
def _runtime_sources() -> tuple[tuple[str, str], ...]:
    # runtime/roster.js belongs to the army module (armies.js, written by .armies), not to the resolvers
    return tuple((p.name, p.read_text(encoding="utf-8")) for p in sorted(RUNTIME.glob("*.js")) if p.name != "roster.js")


def catalog_js() -> str:
    """``runtime/catalog.js``: the runtime's phrases in each supported language."""
    from rulebook.runtime.messages import phrases

    lines = ["// The runtime's phrases by language (message id in English → phrase), written by the",
             "// compiler from the Python runtime's gettext catalogs (runtime/locale).",
             "export const CATALOGS = Object.freeze({"]
    for lang in LANGUAGES:
        catalog = getattr(phrases(lang), "_catalog", {})
        pairs = sorted((k, v) for k, v in catalog.items() if isinstance(k, str) and k and isinstance(v, str))
        lines.append(f"  {js_string(lang)}: Object.freeze({{")
        lines.extend(f"    {js_string(k)}: {js_string(v)}," for k, v in pairs)
        lines.append("  }),")
    lines.append("});")
    return "\n".join(lines) + "\n"


def runtime_files() -> dict[str, str]:
    """The runtime's files by path in the package (``runtime/…``)."""
    files = {f"runtime/{name}": text for name, text in _runtime_sources()}
    files["runtime/catalog.js"] = catalog_js()
    return files


def _resolve(base: str, spec: str) -> str:
    parts = base.split("/")[:-1]
    for part in spec.split("/"):
        if part == "..":
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def _var(path: str) -> str:
    return "$m_" + re.sub(r"\W", "_", path.removesuffix(".js"))


def classic_script(files: dict[str, str], entry: str, global_name: str, header: str) -> str:
    """``files`` (ES modules by path) as one classic script assigning ``entry``'s exports to ``globalThis[global_name]``."""
    order: list[str] = []

    def visit(path: str, seen: tuple = ()) -> None:
        if path in order:
            return
        if path in seen:
            raise ValueError(f"import cycle through {path}")
        text = files[path]
        for m in [*_IMPORT.finditer(text), *_IMPORT_ALL.finditer(text), *_REEXPORT.finditer(text)]:
            visit(_resolve(path, m.group(2)), (*seen, path))
        order.append(path)

    visit(entry)
    out = [header, "(function () {", '"use strict";']
    for path in order:
        text = files[path]
        exports: list[str] = []

        def imported(m: re.Match) -> str:
            names = ", ".join(n.strip().replace(" as ", ": ") for n in m.group(1).split(",") if n.strip())
            return f"const {{ {names} }} = {_var(_resolve(path, m.group(2)))};\n"

        def reexported(m: re.Match) -> str:
            source = _var(_resolve(path, m.group(2)))
            for n in m.group(1).split(","):
                if n.strip():
                    exports.append(f"{n.strip()}: {source}.{n.strip()}")
            return ""

        text = _IMPORT.sub(imported, text)
        text = _IMPORT_ALL.sub(lambda m: f"const {m.group(1)} = {_var(_resolve(path, m.group(2)))};\n", text)
        text = _REEXPORT.sub(reexported, text)
        exports += [m.group(2) for m in _EXPORT.finditer(text)]
        text = _EXPORT.sub(lambda m: m.group(0).removeprefix("export "), text)
        out.append(f"// ---- {path}")
        out.append(f"const {_var(path)} = (function () {{")
        out.append(text.rstrip("\n"))
        out.append("return Object.freeze({ " + ", ".join(exports) + " });")
        out.append("})();")
    out.append(f"globalThis[{js_string(global_name)}] = {_var(entry)};")
    out.append("})();")
    return "\n".join(out) + "\n"


__all__ = ["runtime_files", "classic_script", "catalog_js", "js_json"]
