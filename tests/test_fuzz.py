"""A bounded fuzz run in CI: Hypothesis drives the random choices of
:mod:`fuzzing` (generated rulebooks, and mutated files of the repository).
Derandomized, so every run tries the same cases; without shrinking, which can
take minutes on cases this big (a failure prints the whole case instead);
``bench/fuzz.py`` runs 100,000 on demand.

Each case must meet :func:`fuzzing.failure` (no exception, no internal error,
diagnostics inside the file and safe to print, generated Python that compiles,
imports without running rules text, and resolves) within the hang guard.
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import fuzzing
from guards import deadline

CASES = 1200  # per test: 2,400 in all, about a minute on one core

FUZZ = settings(
    max_examples=CASES, derandomize=True, database=None, deadline=None, phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example], print_blob=True,
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    return tmp_path_factory.mktemp("fuzz")


def _behaves(make, rng, folder) -> None:
    text, how = make(rng)
    with deadline(what=how):
        problem = fuzzing.failure(text, folder)
    assert problem is None, f"{problem} on {how}\n--- case ---\n{text[:3000]}"


@FUZZ
@given(rng=st.randoms(use_true_random=False))
def test_generated_rulebooks(rng, folder):
    _behaves(fuzzing.generated_case, rng, folder)


@FUZZ
@given(rng=st.randoms(use_true_random=False))
def test_mutated_rules_files(rng, folder):
    _behaves(fuzzing.mutated_case, rng, folder)
