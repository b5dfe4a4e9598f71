"""The pure rules behind the release-defect catalogue (issue #15): published docs per release
tag, cross-backend agreement, every changed operator version, the artifact set against the
previous release, removal of a published operator version, test sets without outputs."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from mlrelease.docs import published, switcher
from mlrelease.errors import ConfigError
from mlrelease.models import zoo
from mlrelease.models.manifest import ModelJob
from mlrelease.naming import Names
from mlrelease.ops import agreement, diff, index, policy
from mlrelease.ops.cases import CaseSummary
from mlrelease.ops.verdicts import ConformanceVerdict
from mlrelease.opsets import rules as opset_rules
from mlrelease.release.config import ReleaseConfig
from mlrelease.wheels import artifacts
from mlrelease.wheels.config import Dropped

# --- published docs -----------------------------------------------------------------------------

NAMES = Names.of(ReleaseConfig(), "pyproject.toml")


def _site(versions: list[str], folders: list[str] | None = None) -> published.Site:
    entries = switcher.entries(versions, "/", dev=True)
    return published.Site("origin/gh-pages", entries, frozenset(folders or versions))


def test_final_releases_follow_the_tag_pattern_and_skip_candidates() -> None:
    tags = ["v1.0.0", "v1.1.0-rc1", "v1.1.0", "1.2.0", "v1.3", "nightly"]
    assert published.final_releases(tags, NAMES) == {
        Version("1.0.0"): "v1.0.0",
        Version("1.1.0"): "v1.1.0",
    }


def test_releases_older_than_frozen_since_are_not_checked() -> None:
    tags = ["v0.9.0", "v1.0.0", "v1.1.0"]
    found = published.final_releases(tags, NAMES, Version("1.0.0"))
    assert list(found) == [Version("1.0.0"), Version("1.1.0")]


def test_every_final_release_needs_a_folder_an_entry_and_the_newest_preferred() -> None:
    released = {Version("1.0.0"): "v1.0.0", Version("1.1.0"): "v1.1.0"}
    assert published.problems(released, _site(["1.0.0", "1.1.0"])) == []
    found = published.problems(released, _site(["1.0.0"]))
    assert found == [
        "release v1.1.0 is not frozen on the published site origin/gh-pages: no frozen folder "
        "1.1.0/index.html and no entry for 1.1.0 in switcher.json. Run `mlrelease docs freeze "
        "--version 1.1.0 --execute` on a checkout of the pages branch and push it",
        "switcher.json on origin/gh-pages marks 1.0.0 as preferred; the newest final release "
        "is 1.1.0 (v1.1.0): freeze it (the freeze rewrites the switcher with it preferred)",
    ]
    listed_only = published.problems(released, _site(["1.0.0", "1.1.0"], ["1.0.0"]))
    assert listed_only[0].endswith(
        "no frozen folder 1.1.0/index.html. Run `mlrelease docs "
        "freeze --version 1.1.0 --execute` on a checkout of the "
        "pages branch and push it"
    )


def test_no_site_at_all_is_a_problem_only_once_something_is_released() -> None:
    assert published.problems({}, None) == []
    (problem,) = published.problems({Version("0.1.0"): "v0.1.0"}, None)
    assert problem.startswith("no published docs site found, but 1 release(s) are tagged (v0.1.0)")


def test_freeze_steps_are_recognised_by_their_command() -> None:
    assert published.is_freeze_step(["invoke", "docs.freeze", "--version", "1.0.0"])
    assert published.is_freeze_step(["mlrelease", "docs", "freeze", "--version", "1.0.0"])
    assert not published.is_freeze_step(["mlrelease", "docs", "build"])


# --- ops_index: agreement and every changed operator version ------------------------------------

CASES = [
    CaseSummary("test_abs", "ai.onnx", "Abs", 13, False),
    CaseSummary("test_relu", "ai.onnx", "Relu", 14, False),
]
DEFINED = [index.OpVersion("ai.onnx", "Abs", 13), index.OpVersion("ai.onnx", "Relu", 14)]


def _index(**verdicts: str) -> dict[str, Any]:
    table = {(c.name, b): ConformanceVerdict.PASS for c in CASES for b in ("rt", "ref")}
    for key, value in verdicts.items():
        case, backend = key.rsplit("__", 1)
        table[(case, backend)] = ConformanceVerdict(value)
    return index.build(
        onnx_version="1.23.2",
        case_sets=["demo"],
        defined=DEFINED,
        cases=CASES,
        backends=[{"name": "rt"}, {"name": "ref"}],
        verdicts=table,
        known=lambda c, b: False,
    )


def _policy(tmp_path: Path, text: str) -> policy.Policy:
    (tmp_path / "known.toml").write_text(text, encoding="utf-8")
    return policy.load(tmp_path, "tolerances.toml", "known.toml")


def test_only_pass_against_wrong_result_is_a_disagreement() -> None:
    built = _index(test_relu__ref="wrong_result", test_abs__ref="not_implemented")
    (found,) = agreement.disagreements(built)
    assert found.text() == "test_relu (ai.onnx Relu-14): rt pass, ref wrong result"


def test_unexplained_disagreements_fail_and_new_versions_name_a_reference_bug(
    tmp_path: Path,
) -> None:
    built = _index(test_relu__ref="wrong_result", test_abs__rt="wrong_result")
    rules = _policy(tmp_path, "")
    failures, _ = agreement.agreement_findings(built, rules, None)
    assert failures == [
        "2 case(s) where backends disagree (one passes, another gives a wrong result) without "
        "an entry in known.toml: test_abs (ai.onnx Abs-13): ref pass, rt wrong result; "
        "test_relu (ai.onnx Relu-14): rt pass, ref wrong result. Find which backend is wrong; "
        "fix it, or list each case as a [[disagreement]] with a reason and an expiry"
    ]
    failures, _ = agreement.agreement_findings(built, rules, {"ai.onnx Relu-14"})
    assert failures[0].startswith(
        "suspected reference bug in the new operator version ai.onnx Relu-14: test_relu"
    )
    assert failures[1].startswith("1 case(s) where backends disagree")


def test_a_listed_disagreement_or_a_dated_known_failure_explains_it(tmp_path: Path) -> None:
    built = _index(test_relu__ref="wrong_result")
    listed = _policy(
        tmp_path,
        '[[disagreement]]\npattern = "test_relu"\nbackend = "ref"\nreason = "r"\n'
        "expires = 2999-01-01\n",
    )
    failures, details = agreement.agreement_findings(built, listed, None)
    assert failures == [] and "explained: known.toml:2" in details[0]
    _, details = agreement.agreement_findings(_index(), listed, None)
    assert details == [
        "Remove known.toml:2: known failure 'test_relu' on backend 'ref': no case it matches "
        "disagrees any more."
    ]
    dated = _policy(
        tmp_path, '[[failure]]\npattern = "test_relu"\nreason = "r"\nexpires = 2999-01-01\n'
    )
    assert agreement.agreement_findings(built, dated, None)[0] == []
    undated = _policy(
        tmp_path, '[[failure]]\npattern = "test_relu"\nreason = "r"\ntracking = "https://x"\n'
    )
    assert len(agreement.agreement_findings(built, undated, None)[0]) == 1


def test_a_disagreement_entry_needs_an_expiry_and_expires(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"disagreement\[0\]\.expires"):
        _policy(tmp_path, '[[disagreement]]\npattern = "x"\nreason = "r"\n')
    old = _policy(tmp_path, '[[disagreement]]\npattern = "x"\nreason = "r"\nexpires = 2020-01-01\n')
    assert [e.pattern for e in old.expired(dt.date(2026, 1, 1))] == ["x"]


def test_every_changed_operator_version_is_named_and_worse_ones_are_marked() -> None:
    committed = _index(test_abs__rt="wrong_result")
    fresh = _index(test_relu__rt="wrong_result")
    changes = diff.version_changes(committed, fresh)
    assert [c.label for c in changes] == ["ai.onnx Abs-13", "ai.onnx Relu-14"]
    assert changes[0].worse == [] and changes[1].worse == [("test_relu", "rt")]
    assert "cases: test_relu pass -> wrong_result" in changes[1].text
    assert diff.version_changes(fresh, fresh) == []


def test_first_measured_versions_are_new_for_the_reference_rule() -> None:
    empty = index.build(
        onnx_version="1.23.2",
        case_sets=["demo"],
        defined=DEFINED,
        cases=CASES[:1],
        backends=[{"name": "rt"}, {"name": "ref"}],
        verdicts={(c, b): ConformanceVerdict.PASS for c in ("test_abs",) for b in ("rt", "ref")},
        known=lambda c, b: False,
    )
    assert diff.diff(empty, _index(), lambda c, b: False).first_measured == ["ai.onnx Relu-14"]


# --- artifacts against the previous release -----------------------------------------------------


def test_the_release_set_reads_wheel_names_of_the_project_only() -> None:
    names = [
        "demo-1.0.0-cp310-cp310-macosx_11_0_arm64.whl",
        "demo-1.0.0-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        "other-1.0.0-cp310-cp310-win_amd64.whl",
        "demo-1.0.0.tar.gz",
        "garbage.whl",
    ]
    assert artifacts.release_set(names, "demo") == {
        "cp310-macosx_arm64",
        "cp310-manylinux_x86_64",
    }


def test_drops_are_grouped_by_platform_python_or_combination() -> None:
    previous = {"cp310-linux", "cp311-linux", "cp310-mac", "cp311-mac", "cp310-win", "cp311-win"}
    assert artifacts.dropped(previous, {"cp311-linux", "cp311-mac"}) == {
        "platform win": ["cp310-win", "cp311-win"],
        "Python cp310": ["cp310-linux", "cp310-mac"],
    }
    assert artifacts.dropped(previous, previous - {"cp310-mac"}) == {"cp310-mac": ["cp310-mac"]}


def test_a_recorded_decision_covers_a_python_a_platform_or_one_combination() -> None:
    assert Dropped("cp310", "r", "d").covers("cp310-win_amd64")
    assert Dropped("win_amd64", "r", "d").covers("cp310-win_amd64")
    assert Dropped("cp310-win_amd64", "r", "d").covers("cp310-win_amd64")
    assert not Dropped("cp311", "r", "d").covers("cp310-win_amd64")


# --- operator versioning and Model Zoo test sets ------------------------------------------------


def _snapshot(version: int, ops: list[tuple[str, int]]) -> dict[str, Any]:
    operators = [{"op": op, "since": since, "inputs": [], "outputs": []} for op, since in ops]
    return {
        "format": 1,
        "onnx_version": "x",
        "domains": {"com.x": {"opset_version": version, "min_version": 1, "operators": operators}},
    }


def test_removing_a_published_operator_version_fails_even_with_an_opset_bump() -> None:
    before = _snapshot(2, [("A", 1), ("B", 1)])
    problems, _ = opset_rules.check(before, _snapshot(3, [("A", 1), ("C", 3)]))
    assert problems == [
        "com.x.B:1: published in the previous release (opset 2) and removed; a published "
        "operator version is never removed (models that import it lose their schema): keep it "
        "registered, and deprecate the operator with a new since_version instead"
    ]
    assert opset_rules.check(before, _snapshot(3, [("A", 1), ("B", 1), ("C", 3)]))[0] == []


def test_test_sets_with_inputs_and_no_outputs_are_named(tmp_path: Path) -> None:
    bare, full = tmp_path / "test_data_set_0", tmp_path / "test_data_set_1"
    for folder in (bare, full):
        folder.mkdir()
        (folder / "input_0.pb").write_bytes(b"")
    (full / "output_0.pb").write_bytes(b"")
    job = ModelJob("m", "m.onnx", str(tmp_path), test_data=[str(bare), str(full)])
    assert zoo.missing_outputs(job) == ["test_data_set_0"]
    declared = ModelJob("m", "m.onnx", str(tmp_path), inputs="inputs.npz")
    assert zoo.missing_outputs(declared) == ["the declared inputs"]
