"""Where the tool's package data is on disk: the site's templates and theme files
(the package ``rulebook.site``, the repository's ``site/``) and the bundled
rulebooks (``rulebook.content``, the repository's ``content/``).

Reads only the import system. Entry points: :func:`folder(name) -> Path`, found
through :mod:`importlib.resources`, so the same code works from a source
checkout (``pip install -e .``) and from an installed wheel, whatever the
working folder; :func:`bundled_rulebooks` lists the rulebooks of ``content``
(light enough for a warm ``rulebook resolve``, which must not load the parser).
"""

from __future__ import annotations

import importlib.util
from importlib import resources
from pathlib import Path

NAMESPACE = "rulebook"


def folder(name: str) -> Path:
    """The folder of the data package ``rulebook.<name>`` (``"site"``, ``"content"``).

    The data is read as files (Jinja's loader, mkdocs' theme folder, the rulebook
    loader), so it must be a folder on disk, as pip installs a wheel.

    Raises:
        LookupError: the package is not installed, or not as files.
    """
    package = f"{NAMESPACE}.{name}"
    try:
        root = resources.files(package)
    except NotADirectoryError:
        # Python 3.11 with setuptools' editable install: the path of a namespace
        # package also holds the editable finder's placeholder, which
        # importlib.resources refuses; the real folder is the other entry.
        return _first_folder(importlib.util.find_spec(package), package)
    except ModuleNotFoundError:
        raise LookupError(f"the package data {package} is not installed") from None
    if isinstance(root, Path):
        return root
    # a namespace package (no __init__.py): a view over its folders
    for child in root.iterdir():
        if isinstance(child, Path):
            return child.parent
    raise LookupError(f"the package data {package} is empty or not on disk")


def _first_folder(spec, package: str) -> Path:
    for entry in (spec.submodule_search_locations or []) if spec else []:
        if Path(entry).is_dir():
            return Path(entry)
    raise LookupError(f"the package data {package} is not on disk")


def bundled_rulebooks() -> list[Path]:
    """The bundled rulebooks: the folders of ``content/`` holding ``.rules`` files, by name."""
    content = folder("content")
    if not content.is_dir():
        return []
    return sorted(p for p in content.iterdir() if p.is_dir() and any(p.glob("*.rules")))
