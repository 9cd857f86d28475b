"""Python distribution names that a generated package must never take.

Reads: a name — a rulebook id, or the generated package's name, which is also the name
of its distribution in ``python/<name>/pyproject.toml``. Produces :func:`taken_by(name)
-> str | None`: whose name it already is, when installing a distribution of that name
would replace something that is not the rulebook's (``pip install build/python/pip``
uninstalls pip itself) or be hidden by it (a module of the standard library); else None.

Names are compared as pip compares them (PEP 503: case folded, runs of ``-``, ``_``
and ``.`` as one ``-``). Taken are:

* the modules of Python's standard library (``sys.stdlib_module_names``, with those of
  the versions before and after this one in :data:`STDLIB_OTHER_VERSIONS`, so that the
  answer does not depend on the Python running it);
* the packaging tools (:data:`PACKAGING_TOOLS`);
* the rulebook tool and every distribution it installs (:data:`TOOL_DISTRIBUTIONS`:
  its requirements and theirs; ``tests/test_hardening_commands.py`` holds the list in
  step with the installed tool's metadata);
* a short list of well-known distributions (:data:`WELL_KNOWN`), found in most
  environments.

Used by the check of the rulebook declaration (:mod:`rulebook.compiler.check.declarations`)
and by :mod:`rulebook.compiler.emit.python.to_project`, which refuses to write such a project.
"""

from __future__ import annotations

import re
import sys

STDLIB_OTHER_VERSIONS = frozenset({
    # removed in 3.12 and 3.13 (3.11 still lists them; a later Python does not)
    "asynchat", "asyncore", "distutils", "imp", "smtpd", "aifc", "audioop", "cgi", "cgitb", "chunk", "crypt", "imghdr",
    "lib2to3", "mailcap", "msilib", "nis", "nntplib", "ossaudiodev", "pipes", "sndhdr", "spwd", "sunau", "telnetlib", "uu", "xdrlib",
    # added in 3.14
    "annotationlib", "compression",
})

PACKAGING_TOOLS = frozenset({
    "pip", "setuptools", "wheel", "build", "installer", "packaging", "pkg-resources", "virtualenv", "pipx", "pipenv",
    "poetry", "poetry-core", "hatch", "hatchling", "flit", "flit-core", "pdm", "pdm-backend", "twine", "uv", "conda",
    "setuptools-scm", "pyproject-hooks", "tomli", "distlib", "ensurepip",
})

TOOL_DISTRIBUTIONS = frozenset({
    "rulebook",
    # its requirements (pyproject.toml [project] dependencies) and everything they require
    "anyio", "attrs", "babel", "backrefs", "cattrs", "certifi", "charset-normalizer", "click", "colorama", "ghp-import",
    "idna", "interegular", "jinja2", "jsonschema", "jsonschema-rs", "jsonschema-specifications", "lark", "lsprotocol",
    "markdown", "markupsafe", "mergedeep", "mkdocs", "mkdocs-get-deps", "mkdocs-material", "mkdocs-material-extensions",
    "packaging", "paginate", "pathspec", "platformdirs", "pygls", "pygments", "pymdown-extensions", "python-dateutil",
    "pyyaml", "pyyaml-env-tag", "referencing", "requests", "rpds-py", "six", "sniffio", "typing-extensions", "tzdata",
    "urllib3", "watchdog", "watchfiles",
})

WELL_KNOWN = frozenset({
    "numpy", "pandas", "scipy", "matplotlib", "django", "flask", "fastapi", "boto3", "botocore", "cryptography",
    "pytest", "rich", "pillow", "sqlalchemy", "aiohttp", "pydantic", "pytz", "wrapt", "protobuf", "grpcio", "httpx",
    "tqdm", "simplejson", "ujson", "orjson", "lxml", "beautifulsoup4", "selenium", "hypothesis", "mypy", "black",
    "ruff", "tox", "nox", "coverage", "sphinx", "docutils", "ipython", "jupyter", "notebook", "tensorflow", "torch",
})
"""Distributions of almost every Python environment (a rulebook would replace them as it
would pip); a short list, not PyPI: a name outside it may still be taken there."""


def normalized(name: str) -> str:
    """A distribution name as pip compares it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


_STDLIB = frozenset(normalized(m) for m in sys.stdlib_module_names | STDLIB_OTHER_VERSIONS if not m.startswith("_"))


def taken_by(name: str) -> str | None:
    """Whose name ``name`` is as a distribution (``"a Python packaging tool"``), or None."""
    key = normalized(name)
    if key in PACKAGING_TOOLS:
        return "a Python packaging tool"
    if key in TOOL_DISTRIBUTIONS:
        return "the rulebook tool itself" if key == "rulebook" else "a distribution the rulebook tool runs on"
    if key in _STDLIB:
        return "a module of Python's standard library"
    if key in WELL_KNOWN:
        return "a well-known distribution"
    return None
