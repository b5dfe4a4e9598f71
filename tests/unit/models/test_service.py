"""How many models one verification runs at once."""

from __future__ import annotations

import os

import pytest

from mlrelease.models.service import _workers


def test_jobs_zero_is_one_per_core_at_most_four_and_never_more_than_the_models(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    assert _workers(0, 9) == 4
    assert _workers(0, 3) == 3
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert _workers(0, 9) == 2
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert _workers(0, 9) == 1


def test_a_configured_count_wins_and_one_model_is_one_worker() -> None:
    assert _workers(6, 9) == 6
    assert _workers(1, 9) == 1
    assert _workers(6, 1) == 1
    assert _workers(0, 0) == 1
