"""The unit lane: pure code only. A test here that starts a process, opens a network
connection or imports torch fails and says where it belongs (tests/integration).

Every test also runs as on a fresh machine: an empty HOME, empty user cache and config
folders, no compiled locale. A test that would pass only where something ran before (a font
cache, a compiled locale, cached node cases) fails here on every machine, not only on CI.
"""

from __future__ import annotations

import contextlib
import importlib
import socket
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

MOVE = "unit tests are pure; move this test to tests/integration/"

# Libraries that start a process when first imported, before the guard: numpy < 2.2 runs
# `lscpu` in numpy.testing (scipy.stats imports it), matplotlib runs `fc-list` when it builds its
# font cache (a fresh HOME, or another matplotlib version). Their probes, not the tests'.
for _module in ("numpy.testing", "matplotlib.font_manager"):
    with contextlib.suppress(ImportError):
        importlib.import_module(_module)


def _refuse(what: str) -> Any:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"{what} in the unit lane: {MOVE}")

    return refuse


FRESH_FOLDERS = {
    "HOME": "home",
    "XDG_CACHE_HOME": "home/.cache",
    "XDG_CONFIG_HOME": "home/.config",
    "XDG_DATA_HOME": "home/.local/share",
    "MPLCONFIGDIR": "home/.config/matplotlib",
    "MLRELEASE_CACHE_DIR": "home/.cache/mlrelease",
    "HF_HOME": "home/.cache/huggingface",
    "LOCPATH": "locales",
}
"""The user's folders (and glibc's locale path), each pointed at an empty folder."""


@pytest.fixture(autouse=True)
def _pure(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    machine = tmp_path_factory.mktemp("fresh-machine")
    for variable, folder in FRESH_FOLDERS.items():
        (machine / folder).mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(variable, str(machine / folder))
    monkeypatch.setattr(subprocess.Popen, "_execute_child", _refuse("a subprocess"))
    monkeypatch.setattr(socket.socket, "connect", _refuse("a network connection"))
    yield
    assert "torch" not in sys.modules, f"torch was imported in the unit lane: {MOVE}"
