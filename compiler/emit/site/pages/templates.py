"""The site's Jinja2 templates → the environment every page is rendered through.

Reads ``site/templates/`` (and ``site/``, for ``mkdocs.yml.j2``) of the installed
package data and the current language's catalog (:mod:`rulebook.compiler.support.i18n`).
Produces :func:`environment`: a template environment whose phrases (``_()``,
``{% trans %}``) are in that language, with compiled templates kept for the process
(:class:`CompiledTemplates`). Templates receive data only: every text from the rules
is escaped before it reaches them, and no rules text is ever used as template source.
"""

from __future__ import annotations

import json

import jinja2

from rulebook.compiler.emit.site.markdown import attr, verbatim
from rulebook.compiler.support import i18n, package_data

SITE_DIR = package_data.folder("site")


def _yaml_json(obj, **kw) -> str:
    """json.dumps for YAML: no surrogate pairs (YAML would decode them wrongly)."""
    kw.setdefault("ensure_ascii", False)
    return json.dumps(obj, **kw)


class CompiledTemplates(jinja2.BytecodeCache):
    """Compiled templates kept in memory for the process, by name and source checksum
    (Jinja checks it), so the environment of each build (``rulebook serve``) or
    language does not compile the same templates again."""

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()


_TEMPLATE_CODE = CompiledTemplates()


def environment(lang: i18n.Language | None = None) -> jinja2.Environment:
    """The templates' environment; their phrases (``_()``, ``{% trans %}``) in ``lang`` (the current language by default)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(SITE_DIR / "templates"), str(SITE_DIR)]),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
        bytecode_cache=_TEMPLATE_CODE,
    )
    env.install_gettext_translations((lang or i18n.current()).translations, newstyle=True)  # type: ignore[attr-defined]
    env.policies["json.dumps_function"] = _yaml_json
    env.filters["attr"] = attr
    env.filters["verbatim"] = verbatim
    return env
