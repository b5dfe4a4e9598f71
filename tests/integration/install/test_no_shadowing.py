"""A project's own folders are never taken for the tools mlrelease runs (`python -m build`,
twine, check-wheel-contents...), and a tool that is missing is named with its extra, never as
"No module named build.__main__" because the report folder build/ answered to that name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.installed import Venv

pytestmark = pytest.mark.slow

TRAP = """\
import pathlib, sys
pathlib.Path({marker!r}).write_text(" ".join(sys.argv))
raise SystemExit("the project's folder {name}/ ran instead of the tool")
"""


def plant(project: Path, names: tuple[str, ...]) -> Path:
    """Packages named like the tools, in the project root, that leave a marker if imported."""
    marker = project.parent / "shadowed.txt"
    for name in names:
        folder = project / name
        folder.mkdir(exist_ok=True)
        trap = TRAP.format(marker=str(marker), name=name)
        (folder / "__init__.py").write_text(trap, encoding="utf-8")
        (folder / "__main__.py").write_text(trap, encoding="utf-8")
    return marker


def test_project_folders_named_like_the_tools_are_never_run(
    make_venv: Callable[..., Venv], project: Path
) -> None:
    everything = make_venv("all", "[all]")
    marker = plant(project, ("build", "twine", "check_wheel_contents", "bumpversion"))
    (project / "dist").mkdir()
    (project / "tests").mkdir(exist_ok=True)
    (project / "tests" / "__init__.py").write_text("raise SystemExit('tests/ imported')\n")
    built = everything.mlrelease(project, "wheels", "build", "--no-smoke")
    assert not marker.exists(), marker.read_text()
    assert built.returncode == 0, (built.stdout + built.stderr)[-3000:]
    assert sorted(p.name for p in (project / "dist").iterdir()) == [
        "SHA256SUMS",
        "onnx_ir-1.1.0-py3-none-any.whl",
        "onnx_ir-1.1.0.tar.gz",
    ]
    bump = everything.mlrelease(project, "bump", "--part", "patch")
    assert bump.returncode == 0 and not marker.exists(), bump.stdout + bump.stderr


def test_a_missing_tool_is_named_with_its_extra_not_by_the_report_folder(
    make_venv: Callable[..., Venv], project: Path
) -> None:
    (project / "build" / "release-verify").mkdir(parents=True)  # verify's reports
    proc = make_venv("bare").mlrelease(project, "wheels", "build")
    message = " ".join((proc.stdout + proc.stderr).split())
    assert proc.returncode == 3, message
    assert "__main__" not in message and "is a package" not in message
    assert "needs the Python module `build` from the distribution build (>=" in message
    assert "install the `wheels` extra: `uv pip install --python" in message
    assert '"mlrelease[wheels]"`' in message
