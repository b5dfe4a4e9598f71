"""The frictions of a first adoption, each on a real repository: config mistakes refused at
load time by every command, versions and bumps as bump-my-version sees them, gates that fit any
project."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.repo import git

MakeRepo = Callable[..., Path]

COMMANDS = [
    ["verify"],
    ["gates", "list"],
    ["bump", "--part", "patch", "--execute"],
    ["changelog", "--execute"],
    ["release", "status"],
    ["wheels", "plan"],
]


def mlrelease(
    root: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mlrelease", "--root", str(root), *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COLUMNS": "300", **(env or {})},
    )


def append(root: Path, text: str) -> None:
    path = root / "pyproject.toml"
    path.write_text(path.read_text() + text)
    git(root, "commit", "-q", "-am", "chore: configure")


@pytest.mark.parametrize(
    ("mistake", "key", "found"),
    [
        ('\n[tool.mlrelease.gate-options.testz]\ncommand = ["x"]\n', "gate-options.testz", "testz"),
        ('\n[tool.mlrelease.gate-options.tests]\ntimeout-s = "long"\n', "tests.timeout-s", "long"),
        ('\n[tool.mlrelease.gate-options.tests]\ncomand = ["x"]\n', "tests.comand", "unknown key"),
    ],
    ids=["options-for-unknown-gate", "bad-option-type", "typo-in-option"],
)
def test_gate_option_mistakes_exit_2_at_load_for_every_command(
    make_repo: MakeRepo, mistake: str, key: str, found: str
) -> None:
    root = make_repo()
    # The helper's project already has a tests table; a second one would be a TOML error.
    text = (root / "pyproject.toml").read_text()
    start = text.index("[tool.mlrelease.gate-options.tests]")
    end = text.index("\n\n", start)
    (root / "pyproject.toml").write_text(text[:start] + text[end + 2 :] + mistake)
    git(root, "commit", "-q", "-am", "chore: configure")
    for command in COMMANDS:
        proc = mlrelease(root, *command)
        assert proc.returncode == 2, (command, proc.stderr)
        message = " ".join(proc.stderr.split())
        assert key in message and found in message, (command, message)
        assert git(root, "status", "--porcelain") == "", command  # nothing written
        assert not (root / "build").exists(), command


@pytest.mark.parametrize(
    ("gates", "key", "expected"),
    [
        ("[]", "tool.mlrelease.gates", "at least one gate name"),
        ('["versions", "changelgo"]', "tool.mlrelease.gates[1]", "Did you mean 'changelog'"),
    ],
)
def test_gate_list_mistakes_exit_2_at_load(
    make_repo: MakeRepo, gates: str, key: str, expected: str
) -> None:
    root = make_repo()
    text = (root / "pyproject.toml").read_text()
    start = text.index("gates = [")
    end = text.index("\n", start)
    (root / "pyproject.toml").write_text(text[:start] + f"gates = {gates}" + text[end:])
    git(root, "commit", "-q", "-am", "chore: configure")
    for command in COMMANDS:
        proc = mlrelease(root, *command)
        message = " ".join(proc.stderr.split())
        assert proc.returncode == 2 and key in message and expected in message, (command, message)
        assert git(root, "status", "--porcelain") == ""


def test_missing_changelog_exits_2_at_load(make_repo: MakeRepo) -> None:
    root = make_repo()
    git(root, "rm", "-q", "CHANGELOG.md")
    git(root, "commit", "-q", "-m", "chore: drop the changelog")
    for command in COMMANDS:
        proc = mlrelease(root, *command)
        message = " ".join(proc.stderr.split())
        assert proc.returncode == 2, (command, message)
        assert "tool.mlrelease.changelog" in message and "no file CHANGELOG.md" in message
        assert git(root, "status", "--porcelain") == ""


def test_no_search_pattern_takes_no_other_number_for_the_version(make_repo: MakeRepo) -> None:
    root = make_repo(version="1.4.0")
    # A file listed without a search: bump-my-version looks for the version itself, so an
    # unrelated number (an opset, a dependency pin) is not a "version mismatch".
    (root / "src" / "demo" / "ops.py").write_text('OPSET = "21.0.0"\nVERSION = "1.4.0"\n')
    append(root, '\n[[tool.bumpversion.files]]\nfilename = "src/demo/ops.py"\n')
    proc = mlrelease(root, "verify", "--only", "versions")
    assert proc.returncode == 0, proc.stderr
    assert "21.0.0" not in proc.stderr


def test_a_bump_bump_my_version_cannot_express_fails_and_writes_nothing(
    make_repo: MakeRepo,
) -> None:
    root = make_repo(version="1.4.0")
    text = (root / "pyproject.toml").read_text()
    # bump-my-version's default parse and serialize: X.Y.Z only.
    start = text.index("parse = '''")
    end = text.index("allow_dirty")
    text = text[:start] + text[end:]
    start = text.index("[tool.bumpversion.parts.pre_l]")
    end = text.index("[[tool.bumpversion.files]]")
    (root / "pyproject.toml").write_text(text[:start] + text[end:])
    git(root, "commit", "-q", "-am", "chore: default parse")
    proc = mlrelease(root, "bump", "--to", "1.5.0.dev0", "--execute")
    message = " ".join(proc.stderr.split())
    assert proc.returncode == 2, message
    assert "bump-my-version cannot express 1.5.0.dev0" in message and "'1.5.0'" in message
    assert "Version is now" not in message
    assert git(root, "status", "--porcelain") == ""


def test_a_pure_project_without_cibuildwheel_passes_the_wheels_gate(make_repo: MakeRepo) -> None:
    root = make_repo(version="1.4.0", gates=("wheels",))
    append(root, '\n[tool.mlrelease.wheels]\nkind = "pure"\n')  # default required platforms
    proc = mlrelease(root, "verify")
    assert proc.returncode == 0, proc.stderr
    assert "py3-none-any" in proc.stderr


def test_the_tests_gate_uses_this_interpreter_and_reads_stderr_without_colour(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    root = make_repo(version="1.4.0", gates=("tests",))
    text = (root / "pyproject.toml").read_text()
    start = text.index("[tool.mlrelease.gate-options.tests]")
    end = text.index("\n\n", start)
    # A runner that reports on stderr, in colour, started as plain `python`.
    (root / "run_checks.py").write_text(
        "import sys\nprint('\\x1b[32m3 checks passed\\x1b[0m', file=sys.stderr)\n"
    )
    options = '[tool.mlrelease.gate-options.tests]\ncommand = ["python", "run_checks.py"]\n'
    (root / "pyproject.toml").write_text(text[:start] + options + text[end + 1 :])
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "chore: own runner")
    # No `python` on PATH at all: the gate must not depend on one.
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "git").symlink_to("/usr/bin/git")
    proc = mlrelease(root, "verify", env={"PATH": str(bare)})
    assert proc.returncode == 0, proc.stderr
    assert "3 checks passed" in proc.stderr and "\x1b[32m" not in proc.stderr


def test_gates_list_all_shows_every_available_gate(make_repo: MakeRepo) -> None:
    root = make_repo(gates=("versions",))
    proc = mlrelease(root, "gates", "list", "--all")
    assert proc.returncode == 0, proc.stderr
    names = [
        line.split()[1] if line.startswith("*") else line.split()[0]
        for line in proc.stdout.splitlines()
        if line.strip() and not line.startswith("(")
    ]
    for gate in ("versions", "changelog", "wheels", "compat", "docs", "tests", "git_state"):
        assert gate in names
    assert proc.stdout.startswith(("* ", "  "))


def test_compat_without_onnx_says_what_to_install(make_repo: MakeRepo, tmp_path: Path) -> None:
    root = make_repo(gates=("compat",))
    # A module path that shadows onnx with a package that cannot be imported: as if absent.
    shadow = tmp_path / "shadow"
    (shadow / "onnx").mkdir(parents=True)
    (shadow / "onnx" / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'onnx'\", name='onnx')\n"
    )
    path = os.pathsep.join(p for p in (str(shadow), os.environ.get("PYTHONPATH", "")) if p)
    proc = mlrelease(root, "verify", env={"PYTHONPATH": path})
    message = " ".join(proc.stderr.split())
    assert proc.returncode == 1
    assert "the `compat` gate needs the Python module `onnx`" in message, message
    assert re.search(r"install the `\w[\w-]*` extra: `[^`]*install[^`]*`", message), message
