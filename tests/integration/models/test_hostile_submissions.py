"""One regression test per class of the hostile corpus (issue 14): each fails on the verifier
before the fix, and passes now.

Every submission sits next to a canary file; the verdict, report.json and report.md are
searched for its bytes (raw, hex, as integers, as floats).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers import hostile

import mlrelease
from mlrelease.cli import main
from mlrelease.models import sandbox
from mlrelease.models.manifest import single
from mlrelease.models.verdicts import StepStatus

POSIX = hasattr(os, "mkfifo")
pytestmark = pytest.mark.skipif(not POSIX, reason="links, named pipes and rlimits are POSIX")


def verify(folder: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    """Run ``mlrelease models verify`` on a submission; the verdict plus both reports."""
    return hostile.verify_submission(folder, capsys, *extra)


def submission(tmp_path: Path, *attacks: str) -> Path:
    canary = hostile.write_canary(tmp_path)
    return hostile.build(tmp_path / "sub", canary, attacks)


# --- 1. bytes outside the submission: every place ONNX can point at external data ----------


@pytest.mark.parametrize(
    "place", ["function_default", "sparse_values", "sparse_indices", "subgraph"]
)
def test_external_data_anywhere_in_the_protobuf_is_checked(
    place: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = submission(tmp_path, f"leak_{place}_traversal")
    code, text = verify(folder, capsys)
    assert code == 1 and text.startswith("## Model Zoo submission: DECLINE"), text
    assert "step 0 integrity" in text and "path traversal" in text, text
    assert hostile.canary_hits(text) == []


@pytest.mark.parametrize("attack", ["model_hardlink", "leak_initializer_hardlink"])
def test_hard_links_are_refused_for_every_file(
    attack: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, text = verify(submission(tmp_path, attack), capsys)
    assert code == 1 and "hard links" in text, text
    assert hostile.canary_hits(text) == []


@pytest.mark.parametrize(
    ("attack", "says"),
    [
        ("toml_hardlink", "model.toml"),
        ("script_symlink", "pre-processing script"),
        ("license_symlink", "license file"),
    ],
)
def test_links_are_refused_for_manifest_scripts_and_licence(
    attack: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, text = verify(submission(tmp_path, attack), capsys)
    assert code == 1 and says in text, text
    assert "hard links" in text or "is a symlink to" in text, text
    assert "from-outside" not in text and hostile.canary_hits(text) == []


def test_symlinked_test_data_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, text = verify(submission(tmp_path, "test_data_symlink"), capsys)
    assert code == 1 and "test data file" in text and "is a symlink" in text, text
    assert hostile.canary_hits(text) == []


# --- 2. README: links refused, size bounded, content never published from elsewhere ---------


def test_hard_linked_readme_is_refused_and_not_published(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, text = verify(submission(tmp_path, "readme_hardlink"), capsys)
    assert code == 1 and "README" in text and "hard links" in text, text
    assert "canary-heading" not in text


def test_oversized_readme_is_refused_before_it_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, text = verify(submission(tmp_path, "readme_huge"), capsys)
    assert code == 1 and "bytes allowed for a README" in text, text


# --- 3. a verdict for every input: no traceback ----------------------------------------------


@pytest.mark.parametrize(
    ("attack", "says"),
    [
        ("script_pathological", "pre-processing script preprocess.py"),
        ("script_nested_calls", "nests too deeply to compile"),
        ("toml_deep", "model.toml nests too deeply"),
        ("name_rich_markup", "## Model Zoo submission: ACCEPT"),
    ],
)
def test_inputs_that_crashed_the_verifier_get_a_verdict(
    attack: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, text = verify(submission(tmp_path, attack), capsys)
    assert code in (0, 1) and text.startswith("## Model Zoo submission: "), text
    assert says in text and "Traceback" not in text


def test_exception_in_step_0_stops_the_later_steps(tmp_path: Path) -> None:
    folder = hostile.benign(tmp_path / "m")
    hostile.function_chain(folder, tmp_path / "canary.bin")
    verdict = sandbox.run(single(folder / "model.onnx"))
    first = verdict.steps[0]
    assert first.step == "integrity" and first.outcome is StepStatus.FAIL, verdict.to_dict()
    # Before the fix, checker and shape inference then ran on the file step 0 never cleared.
    assert all(s.outcome is StepStatus.SKIP for s in verdict.steps[1:]), verdict.to_dict()
    assert "step integrity" in first.summary and "recursion" in first.summary


# --- 4. escaping: the verdict heading cannot be forged -------------------------------------


@pytest.mark.parametrize("attack", ["tensor_name_forgery", "name_markdown"])
def test_submitted_markdown_cannot_forge_the_verdict(
    attack: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = submission(tmp_path, attack)
    main(["models", "verify", str(folder)])
    out = capsys.readouterr().out
    headings = [line for line in out.splitlines() if line.lstrip().startswith("#")]
    assert [h for h in headings if "Model Zoo submission" in h] == [headings[0]], out
    assert all(h.startswith(("## Model Zoo submission: ", "### ")) for h in headings), headings
    # Shown, but only inside a code span on one line: nothing submitted starts a line.
    assert all(not line.startswith(("<details>|", "![a]")) for line in out.splitlines())


def test_ansi_escapes_in_a_name_never_reach_the_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, text = verify(submission(tmp_path, "name_ansi"), capsys)
    assert code == 0 and "\x1b" not in text.split("report.json")[0], text


# --- 5. limits honoured outside a project; total budget; no temp folder left ----------------


def _cli(
    args: list[str], cwd: Path, tmpdir: Path, timeout: float
) -> subprocess.CompletedProcess[str]:
    package_root = Path(mlrelease.__file__).resolve().parents[1]
    env = {**os.environ, "TMPDIR": str(tmpdir), "PYTHONPATH": str(package_root)}
    return subprocess.run(
        [sys.executable, "-m", "mlrelease", "models", "verify", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_limits_apply_outside_a_project_and_killed_workers_leave_no_temp_folder(
    tmp_path: Path,
) -> None:
    folder = submission(tmp_path, "endless_loop")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    started = time.monotonic()
    done = _cli([str(folder), "--time-limit-s", "4"], cwd=tmp_path, tmpdir=scratch, timeout=90)
    assert time.monotonic() - started < 60
    assert done.returncode == 1, done.stderr
    assert "time limit of 4 s exceeded" in done.stdout, done.stdout
    left = [p.name for p in scratch.iterdir() if p.name.startswith("mlrelease-")]
    assert left == [], "a killed worker left its temp folder behind"


def test_total_budget_bounds_a_submission_of_hanging_models(tmp_path: Path) -> None:
    folder = submission(tmp_path, "endless_loop")
    (folder / "second.onnx").write_bytes((folder / "model.onnx").read_bytes())
    (folder / "model.toml").write_text(
        textwrap.dedent("""\
            [[models]]
            path = "model.onnx"
            [[models]]
            path = "second.onnx"
            test-data = ["test_data_set_0"]
            """)
    )
    report = tmp_path / "report.json"
    started = time.monotonic()
    done = _cli(
        [str(folder), "--time-limit-s", "100", "--total-time-limit-s", "6", "--json", str(report)],
        cwd=tmp_path,
        tmpdir=tmp_path,
        timeout=120,
    )
    assert time.monotonic() - started < 45
    assert done.returncode == 1, done.stderr
    verdicts = json.loads(report.read_text(encoding="utf-8"))
    summaries = " ".join(s["summary"] for v in verdicts for s in v["steps"])
    assert "total time budget of 6 s" in summaries, summaries


# --- 7. README titles are not false alarms --------------------------------------------------


def test_readme_title_naming_the_model_is_accepted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = submission(tmp_path)  # README: "# TinyAdd model", then at once "## Description"
    code, text = verify(folder, capsys)
    assert code == 0 and text.startswith("## Model Zoo submission: ACCEPT"), text
