"""The wheel as users install it, on onnx-ir 1.1.0 adopted by `mlrelease init`.

- bare (no extra): every command ends without a traceback, and every message about a missing
  dependency names the extra that brings it, in the form that fits this environment;
- `[all]`: init, verify, release status and a dry-run bump pass;
- bumpversion 0.6.0 (the abandoned tool of the same import name): the message names it and the
  command that removes it, and following the message makes the bump work.
"""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers.installed import Venv, git, run, uv

from mlrelease import cli

pytestmark = pytest.mark.slow

# One invocation per command and action, with the arguments it requires.
ARGS: dict[str, list[str]] = {
    "verify": ["verify", "--report-dir", "../reports"],
    "report merge": ["report", "merge", "../reports/report.json", "-o", "../merged"],
    "gates list": ["gates", "list", "--all"],
    "gates doc": ["gates", "doc"],
    "changelog": ["changelog"],
    "bump": ["bump", "--part", "patch"],
    "version": ["version"],
    "doctor": ["doctor"],
    "wheels plan": ["wheels", "plan"],
    "wheels build": ["wheels", "build"],
    "wheels audit": ["wheels", "audit", "dist"],
    "wheels smoke": ["wheels", "smoke", "dist"],
    "wheels collect": ["wheels", "collect", "downloads"],
    "wheels sums": ["wheels", "sums", "dist"],
    "wheels promote": ["wheels", "promote", "--artifacts", "dist"],
    "wheels source-digest": ["wheels", "source-digest"],
    "wheels provenance": [
        "wheels",
        "provenance",
        "dist",
        "--run-url",
        "https://github.com/o/r/actions/runs/1",
    ],
    "release status": ["release", "status"],
    "release cut": ["release", "cut", "--version", "1.1"],
    "release prepare": ["release", "prepare", "--version", "1.1.1"],
    "release rc": ["release", "rc"],
    "release promote": ["release", "promote", "--rc", "v1.1.1rc1", "--published-elsewhere"],
    "release bind": ["release", "bind", "--rc", "v1.1.1rc1"],
    "release publish": ["release", "publish", "--rc", "v1.1.1rc1"],
    "release cherry-picks": ["release", "cherry-picks"],
    "release promoted-rc": ["release", "promoted-rc", "v1.1.1"],
    "release checklist": ["release", "checklist", "--version", "1.1.1"],
    "release checklist-doc": ["release", "checklist-doc"],
    "docs build": ["docs", "build"],
    "docs generate": ["docs", "generate"],
    "docs freeze": ["docs", "freeze", "--version", "1.1.0"],
    "models verify": ["models", "verify"],
    "compat probe": ["compat", "probe"],
    "opset snapshot": ["opset", "snapshot"],
    "ops index": ["ops", "index"],
    "ops run": ["ops", "run"],
    "ops diff": ["ops", "diff", "old.json"],
    "ops cases": ["ops", "cases"],
    "perf run": ["perf", "run"],
    "perf compare": ["perf", "compare"],
    "perf bisect": ["perf", "bisect", "--good", "HEAD~1", "--bad", "HEAD"],
    "perf merge": ["perf", "merge", "results.json"],
    "perf history": ["perf", "history"],
    "perf baseline": ["perf", "baseline"],
    "init": ["init"],
    "downstream run": ["downstream", "run"],
    "downstream matrix": ["downstream", "matrix"],
    "downstream report merge": ["downstream", "report", "merge", "results.json"],
    "downstream list": ["downstream", "list"],
    "tests run": ["tests", "run", "--", "python", "-c", "pass"],
    "train status": ["train", "status"],
    "train cut": ["train", "cut"],
    "train bind": ["train", "bind", "--rc", "v1.1.1rc1"],
    "train promote": ["train", "promote"],
    "train matrix": ["train", "matrix"],
    "conda": ["conda", "--version", "1.1.1"],
}

MISSING = re.compile(r"needs (the Python module|the program) `([\w.]+)`")


def commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> Iterator[str]:
    """Every command path of the parser (``release status``, ``init``, ...)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, (*prefix, name))
            return
    yield " ".join(prefix)


def test_every_command_of_the_cli_is_run_here() -> None:
    assert set(commands(cli.build_parser())) - set(ARGS) == set(), "add it to ARGS"


def _paragraphs(output: str) -> list[str]:
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n|(?=error:)", output) if p.strip()]


def test_the_bare_wheel_ends_every_command_without_a_traceback_and_names_the_extra(
    make_venv: Callable[..., Venv], project: Path
) -> None:
    bare = make_venv("bare")
    unnamed: list[str] = []
    named: dict[str, str] = {}
    for name, args in ARGS.items():
        proc = bare.mlrelease(project, *args)
        output = proc.stdout + proc.stderr
        assert "Traceback (most recent call last)" not in output, (name, output[-3000:])
        for paragraph in _paragraphs(output):
            if MISSING.search(paragraph) or "not installed" in paragraph:
                # Dependency groups and nox sessions exist in mlrelease's own checkout only.
                assert "--group" not in paragraph and "nox -s" not in paragraph, (name, paragraph)
            for found in MISSING.finditer(paragraph):
                named[name] = found.group(2)
                if "mlrelease[" not in paragraph:
                    unnamed.append(f"{name}: {paragraph}")
    assert unnamed == []
    # The commands whose extra is not installed said so (the rest needs nothing more).
    assert named["bump"] == "bumpversion" and named["release status"] == "bumpversion"
    assert named["wheels build"] in ("build", "bumpversion")
    assert named["ops run"] == "onnx" and named["docs build"] == "sphinx"


def test_the_message_names_the_install_line_of_this_environment(
    make_venv: Callable[..., Venv], project: Path
) -> None:
    bare = make_venv("bare")
    proc = bare.mlrelease(project, "bump", "--part", "patch")
    assert proc.returncode == 3
    message = " ".join(proc.stderr.split()) + " ".join(proc.stdout.split())
    assert "`mlrelease bump` needs the Python module `bumpversion` from the distribution " in (
        message
    )
    assert "bump-my-version (>=" in message
    assert f'`uv pip install --python {bare.python} "mlrelease[release]"`' in message


def test_all_extras_adopt_verify_show_status_and_bump(
    make_venv: Callable[..., Venv], sdist_repo: Path, tmp_path: Path
) -> None:
    everything = make_venv("all", "[all]")
    root = tmp_path / "project"
    shutil.copytree(sdist_repo, root, symlinks=True)
    init = everything.mlrelease(root, "init", "--execute")
    assert init.returncode == 0, init.stdout + init.stderr
    said = " ".join((init.stdout + init.stderr).split())
    assert f'`uv pip install --python {everything.python} "mlrelease[release]"`' in said
    git(root, "commit", "-q", "-am", "chore: adopt mlrelease")
    # The tests gate runs onnx-ir's own suite, whose dependencies are the project's to install.
    verify = everything.mlrelease(root, "verify", "--skip", "tests")
    assert verify.returncode == 0, verify.stdout[-4000:] + verify.stderr[-2000:]
    status = everything.mlrelease(root, "release", "status")
    assert status.returncode == 0, status.stdout + status.stderr
    bump = everything.mlrelease(root, "bump", "--part", "patch")
    assert bump.returncode == 0, bump.stdout + bump.stderr
    said = bump.stdout + bump.stderr
    assert "Bump 1.1.0 -> 1.1.1" in said and "Dry run: nothing written" in said
    doctor = everything.mlrelease(root, "doctor")
    report = doctor.stdout + doctor.stderr
    # Every gate can run but `tests`: onnx-ir's suite needs its own dependencies.
    assert doctor.returncode == 1 and "1 configured gate(s) cannot run here: tests." in report
    assert git(root, "status", "--porcelain") == ""


def test_a_shadowing_bumpversion_is_named_and_following_the_message_fixes_it(
    make_venv: Callable[..., Venv], project: Path
) -> None:
    shadow = make_venv("shadow", "", "bumpversion==0.6.0")
    proc = shadow.mlrelease(project, "bump", "--part", "patch")
    message = " ".join((proc.stdout + proc.stderr).split())
    assert proc.returncode == 3, message
    assert "comes from bumpversion 0.6.0, bump2version 1.0.1" in message, message
    assert "Traceback" not in message
    commands = re.findall(r"`(uv pip [^`]+)`", message)
    assert [c.split()[2] for c in commands] == ["uninstall", "install"], message
    for command in commands:  # what the user does next: exactly what the message says
        done = run([uv(), *shlex.split(command)[1:]])
        assert done.returncode == 0, done.stderr
    again = shadow.mlrelease(project, "bump", "--part", "patch")
    assert again.returncode == 0, again.stdout + again.stderr
