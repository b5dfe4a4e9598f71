"""The reachability rule on workflows written for the purpose (no act run): the triggers the
rehearsal cannot run (``pull_request_target``, a release branch), GitHub's filter patterns, the
``if:`` conditions it can and cannot decide before the event, and ``needs:``."""

from __future__ import annotations

from pathlib import Path

import pytest
import reach
from expressions import UNKNOWN, ExpressionError, evaluate, parse
from reachability import matches

PYPROJECT = """[tool.mlrelease.release]
main-branch = "main"
branch = "release/{major}.{minor}"
tag = "v{major}.{minor}.{patch}"
rc-tag = "v{major}.{minor}.{patch}-rc{rc}"
"""


def workflow(tmp_path: Path, text: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    path = folder / "w.yml"
    path.write_text(text, encoding="utf-8")
    return path


WRITER = """
  write:
    {guard}
    runs-on: ubuntu-latest
    permissions:
      contents: write
    steps:
      - run: echo
"""


@pytest.mark.parametrize(
    ("on", "guard", "found"),
    [
        ("pull_request_target:", "", ["a pull_request_target"]),
        ("pull_request_target:", "if: github.event_name == 'push'", []),
        # the fork check is decided by the event itself: not known before it, so not a guard
        (
            "pull_request_target:",
            "if: github.event.pull_request.head.repo.full_name == github.repository",
            ["a pull_request_target"],
        ),
        ("push:\n    tags: ['v*']", "", ["push of RC tag v1.2.3-rc1"]),
        ("push:\n    tags: ['v*', '!v*-rc*']", "", []),
        ("push:\n    tags: ['v[0-9]+.[0-9]+.[0-9]+']", "", []),
        ("push:\n    branches: [main]", "", []),
        ("push:", "", ["push of RC tag v1.2.3-rc1"]),
        ("push:", "if: startsWith(github.ref, 'refs/heads/')", []),
        ("workflow_dispatch:", "", []),
    ],
)
def test_a_writer_is_found_on_each_untrusted_event_it_can_run_on(
    tmp_path: Path, on: str, guard: str, found: list[str]
) -> None:
    path = workflow(tmp_path, f"on:\n  {on}\njobs:{WRITER.format(guard=guard)}")
    problems = reach.problems(path)
    assert [p.partition(" can run on ")[2].partition(" (")[0] for p in problems] == found
    assert all(p.startswith("w.yml: job write holds contents: write and") for p in problems)


def test_a_job_whose_need_never_runs_never_runs_unless_it_asks_always(tmp_path: Path) -> None:
    needs = "needs: gate\n    runs-on: ubuntu-latest\n    permissions: {contents: write}"
    text = f"""on: pull_request
permissions: {{}}
jobs:
  gate:
    if: github.event_name == 'push'
    runs-on: ubuntu-latest
    steps: [{{run: echo}}]
  after:
    {needs}
    steps: [{{run: echo}}]
  cleanup:
    {needs}
    if: always()
    steps: [{{run: echo}}]
"""
    assert [p.partition(" holds")[0] for p in reach.problems(workflow(tmp_path, text))] == [
        "w.yml: job cleanup"
    ]


def test_a_job_without_permissions_holds_the_default_token(tmp_path: Path) -> None:
    text = "on: pull_request\njobs:\n  any:\n    runs-on: ubuntu-latest\n    steps: [{run: echo}]"
    (problem,) = reach.problems(workflow(tmp_path, text))
    assert problem.startswith("w.yml: job any holds the default token permissions")


def test_github_filter_patterns() -> None:
    assert matches(["v[0-9]+.[0-9]+.[0-9]+"], "v1.22.3")
    assert not matches(["v[0-9]+.[0-9]+.[0-9]+"], "v1.2.3-rc1")
    assert matches(["release/**"], "release/1.2") and not matches(["release/*"], "release/1/2")
    assert not matches(["v*", "!v*-rc*"], "v1.2.3-rc1") and matches(["v*", "!v*-rc*"], "v1.2.3")


def test_conditions_are_three_valued() -> None:
    status = {"success": lambda: True}
    pr = {"github": {"event_name": "pull_request"}}
    assert evaluate(parse("github.head_ref == 'main'"), pr, status) is UNKNOWN
    assert evaluate(parse("github.event_name == 'push' && github.head_ref"), pr, status) is False
    assert evaluate(parse("github.event_name == 'PULL_REQUEST' || x"), pr, status) is True
    assert evaluate(parse("${{ !contains(github.ref_name, '-rc') }}"), pr, status) is UNKNOWN
    tag = {"github": {"ref_name": "v1.2.3-rc1"}}
    assert evaluate(parse("${{ !contains(github.ref_name, '-RC') }}"), tag, status) is False


def test_an_if_it_cannot_read_names_the_workflow_and_job(tmp_path: Path) -> None:
    text = "on: pull_request\njobs:\n  odd:\n    if: github.ref ==\n    runs-on: x\n    steps: []"
    with pytest.raises(ExpressionError, match=r"^w\.yml: job odd: its `if:` expected 'more'"):
        reach.problems(workflow(tmp_path, text))
