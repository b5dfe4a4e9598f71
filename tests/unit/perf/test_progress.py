"""The console's bar over a profile run: an adaptive run's added rounds grow its total, so it
never reads more done than planned (``63/18``)."""

from __future__ import annotations

import io

from rich.console import Console

from mlrelease.perf.progress import ProfileBar


def _bar() -> tuple[ProfileBar, io.StringIO]:
    out = io.StringIO()
    return ProfileBar(Console(file=out, force_terminal=False, width=100)), out


def test_added_rounds_grow_the_total_so_done_never_exceeds_it() -> None:
    bar, out = _bar()
    with bar.running(4):
        bar.advance(4)
        bar.extend(3)
        bar.advance(3)
    assert "7/7" in out.getvalue()


def test_extend_outside_a_run_is_ignored() -> None:
    bar, out = _bar()
    bar.extend(3)
    assert out.getvalue() == ""
