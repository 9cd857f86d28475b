"""The worked examples of a generated package, resolved once per package.

Reads: a generated package (imported by :func:`rulebook.compiler.pyload.load_package`,
which stamps it with the hash of its sources) and an example's index in
``package.examples.EXAMPLES``. Produces: the example's
:class:`rulebook.compiler.examples.Evaluation` and the actual value of each of its
checks. Entry point: :func:`evaluated(package, index) -> (Evaluation, actuals)`.

Results are remembered by the package's source hash, for the latest package
only. Within a build, every stage that shows or exports the examples (the
pages, the test vectors) can share one resolution of each; across builds in
one process, a package byte-identical to the previous one's — ``rulebook
serve`` after a prose edit, where examples are most of the pages' cost — is
not resolved again. Two packages with one hash run the same code on the same
data, so their results are the same; everything kept was computed with one
package's own objects, so no record of an older package meets a newer one's.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from .examples import Evaluation, evaluate

_LATEST: dict[str, Any] = {"source": None, "results": {}}


def evaluated(package: ModuleType, index: int) -> tuple[Evaluation, list[Any]]:
    """Example ``index`` of ``package`` resolved and checked, and the actual value of
    each of its expectations (None where it has none, or when it cannot be computed);
    no actuals when the resolution failed."""
    source = getattr(package, "__rulebook_source_hash__", None)
    if source is not None and _LATEST["source"] == source and index in _LATEST["results"]:
        return _LATEST["results"][index]
    generated = package.examples.EXAMPLES[index]
    ev = evaluate(package, generated)
    actuals: list[Any] = []
    if ev.error is None:
        for expectation in generated.expectations:
            try:
                actuals.append(expectation.actual(ev.distribution) if expectation.op is not None else None)
            except Exception:  # noqa: BLE001 - a check that cannot be computed is reported by its verdict
                actuals.append(None)
    if source is not None:
        if _LATEST["source"] != source:
            _LATEST["source"], _LATEST["results"] = source, {}
        _LATEST["results"][index] = (ev, actuals)
    return ev, actuals
