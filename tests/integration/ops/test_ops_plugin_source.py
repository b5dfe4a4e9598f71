"""An operator index from a declared source: the adopter's callable, run in a subprocess."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO_ROOT
from helpers.repo import git, mlrelease

from mlrelease.edges.proc import Limits
from mlrelease.errors import UserError
from mlrelease.ops import plugin

EXAMPLE = REPO_ROOT / "examples" / "converter-registry"


def test_the_example_registry_builds_its_page() -> None:
    found = plugin.collect(EXAMPLE, "converters.registry:index_rows")
    assert found.problems == []
    text = plugin.page(found.rows, "Supported converters", "converters.registry:index_rows")
    assert "4 operators: 1 static shapes, 3 supported." in text
    assert "| aten.conv2d.default | static shapes | static batch only |" in text


def project(tmp_path: Path, body: str) -> Path:
    (tmp_path / "src_rows.py").write_text(body, encoding="utf-8")
    return tmp_path


def test_bad_rows_get_a_verdict_each(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        "def rows():\n"
        "    yield ('aten.add', 'supported', '')\n"
        "    yield ('aten.add', 'supported')\n"
        "    yield 'aten.mul'\n"
        "    yield ('aten.sub', 3, '')\n"
        "    yield ('', 'supported')\n"
        "    print('noise on stdout')\n",
    )
    found = plugin.collect(root, "src_rows:rows")
    assert [r.operator for r in found.rows] == ["aten.add"]
    assert found.problems == [
        "src_rows:rows: row 2: operator 'aten.add' is listed twice",
        'src_rows:rows: row 3 is "aten.mul"; expected a tuple (operator, status, notes)',
        "src_rows:rows: row 4 holds (str, int, str); expected strings",
        "src_rows:rows: row 5: the operator and the status must not be empty",
    ]


@pytest.mark.parametrize(
    ("body", "spec", "message"),
    [
        ("def rows():\n    raise KeyError('gone')\n", "src_rows:rows", "failed: KeyError"),
        ("", "src_rows:missing", "AttributeError"),
        ("", "not a spec", "expected `package.module:callable`"),
        ("import os\ndef rows():\n    os._exit(3)\n", "src_rows:rows", "exited with status 3"),
        ("import time\ndef rows():\n    time.sleep(30)\n", "src_rows:rows", "time limit of 3 s"),
    ],
)
def test_a_broken_source_is_a_verdict_not_a_traceback(
    tmp_path: Path, body: str, spec: str, message: str
) -> None:
    root = project(tmp_path, body)
    with pytest.raises(UserError) as caught:
        plugin.collect(root, spec, limits=Limits(wall_s=3))
    assert message in str(caught.value)
    assert "Traceback" not in str(caught.value)


def gate(root: Path) -> dict[str, Any]:
    mlrelease(root, "verify", "--only", "ops_index")
    report = json.loads((root / "build/release-verify/report.json").read_text("utf-8"))
    result: dict[str, Any] = report["results"][0]
    return result


@pytest.fixture
def registry(tmp_path: Path) -> Path:
    """A copy of the example as a repository, its index committed and tagged v1.0.0."""
    root = tmp_path / "converter-registry"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", "build"))
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    (root / "pyproject.toml").write_text(text.replace('previous-index = ""\n', ""), "utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "feat: converters")
    git(root, "tag", "v1.0.0")
    return root


def edit(path: Path, old: str, new: str) -> None:
    """Replace ``old`` (which must be there) by ``new`` in the file at ``path``."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_the_committed_example_index_is_current() -> None:
    proc = mlrelease(EXAMPLE, "ops", "index", "--check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "are current" in proc.stdout + proc.stderr


def test_the_gate_passes_on_the_example_and_catches_a_stale_index(registry: Path) -> None:
    assert gate(registry)["status"] == "pass"
    edit(registry / "converters/registry.py", '"aten.relu.default"', '"aten.gelu.default"')
    stale = gate(registry)
    assert stale["status"] == "fail"
    assert "is stale (added: aten.gelu.default; removed: aten.relu.default)" in stale["summary"]
    # Regenerated for 1.1.0, the index is current; the operator v1.0.0 had is still gone.
    edit(registry / "pyproject.toml", 'version = "1.0.0"', 'version = "1.1.0"')
    assert mlrelease(registry, "ops", "index", "--execute").returncode == 0
    gone = gate(registry)
    assert gone["status"] == "fail"
    assert (
        "1 operator(s) of v1.0.0:docs/supported_ops.json are gone: aten.relu.default"
        in (gone["summary"])
    )
    assert "[[tool.mlrelease.ops.dropped]]" in gone["summary"]
    proc = mlrelease(registry, "ops", "diff", "v1.0.0")
    assert proc.returncode == 1
    out = proc.stdout + proc.stderr
    assert "added: aten.gelu.default" in out and "removed: aten.relu.default" in out


def test_a_removed_operator_is_waived_by_a_recorded_decision(registry: Path) -> None:
    edit(registry / "converters/registry.py", '@converter("aten.relu.default")\n', "")
    edit(registry / "pyproject.toml", 'version = "1.0.0"', 'version = "1.1.0"')
    assert mlrelease(registry, "ops", "index", "--execute").returncode == 0
    assert gate(registry)["status"] == "fail"
    edit(
        registry / "pyproject.toml",
        "[tool.mlrelease.ops]\n",
        '[[tool.mlrelease.ops.dropped]]\noperator = "aten.relu.default"\n'
        'reason = "lowered by the decomposition pass"\ndecision = "https://example.org/pr/1"\n\n'
        "[tool.mlrelease.ops]\n",
    )
    waived = gate(registry)
    assert waived["status"] == "pass", waived
    assert (
        "Dropped by decision: aten.relu.default (lowered by the decomposition pass; "
        "https://example.org/pr/1)" in waived["details"]
    )
    assert mlrelease(registry, "ops", "diff", "v1.0.0").returncode == 0


def test_a_bad_row_fails_the_gate_and_writes_nothing(registry: Path) -> None:
    edit(registry / "converters/registry.py", "yield target, status,", "yield target, 7,")
    result = gate(registry)
    assert result["status"] == "fail"
    assert "row 1 holds (str, int, str); expected strings" in result["summary"]
    proc = mlrelease(registry, "ops", "index", "--execute")
    assert proc.returncode == 1 and "Nothing written" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
