"""Every bundled rulebook (``content/*/``) built with its site, once per test session.

Import ``BUNDLED`` (the rulebook folder names) and the ``bundled_builds``
fixture into a test module: ``from bundled import BUNDLED, bundled_builds``.
The default rulebook reuses the session's ``built`` folder
(tests/conftest.py); any other is built on first use and kept for the session.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = sorted(p.name for p in (ROOT / "content").iterdir() if p.is_dir() and any(p.glob("*.rules")))
_BUILDS: dict[str, Path] = {}


@pytest.fixture(scope="session")
def bundled_builds(built, tmp_path_factory) -> dict[str, Path]:
    """Rulebook folder name → its build folder (with ``site/``)."""
    from rulebook.compiler.pipeline import driver

    for name in BUNDLED:
        if name in _BUILDS:
            continue
        source = ROOT / "content" / name
        if source.resolve() == driver.DEFAULT_RULEBOOK.resolve():
            _BUILDS[name] = built
            continue
        target = tmp_path_factory.mktemp(f"site-{name}") / "build"
        result = driver.build(source, target, site=True)
        assert result.ok, [d.render(result.sources) for d in result.diagnostics if d.severity == "error"]
        _BUILDS[name] = target
    return _BUILDS


def builder_stem(build: Path) -> str:
    """The army builder page's name without ``.html`` in a build: ``ejercito``, or
    ``army-builder`` on the site of an English rulebook (its addresses are English)."""
    english = 'language: "en"' in (build / "mkdocs.yml").read_text(encoding="utf-8")
    return "army-builder" if english else "ejercito"
