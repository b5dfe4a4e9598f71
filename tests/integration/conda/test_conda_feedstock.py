"""``mlrelease conda`` on a recipe v1 and a meta.yaml feedstock: the change generated from the
bound release (demo 1.5.0 after 1.4.0, both really built, bound and promoted), read from origin
and the store, and the feedstock read from its remote."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.feedstock import sdist_sha256
from helpers.release import Repo

Conda = Callable[..., tuple[int, str, str]]
SHAPES = ("recipe.yaml", "meta.yaml")


def _outcome(conda: Conda, version: str = "1.5.0") -> dict:  # type: ignore[type-arg]
    code, out, err = conda("--version", version, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("shape", SHAPES)
def test_a_dependency_added_upstream_is_added_with_its_conda_name(
    shape: str, released: Repo, stock: Callable[..., Path], conda: Conda
) -> None:
    stock(shape)
    found = _outcome(conda)
    assert found["version"] == "1.5.0" and found["previous"] == "1.4.0"
    assert found["source"]["sha256"] == sdist_sha256(released, "1.5.0")
    # typing_extensions on PyPI is typing_extensions on conda-forge (the mapping's name)
    assert found["requirements"]["run"]["typing-extensions"] == ">=4.7.1"
    assert "+    - typing_extensions >=4.7.1" in found["diff"]
    assert f"-  sha256: {sdist_sha256(released, '1.4.0')}" in found["diff"]
    assert "+  number: 0" in found["diff"]
    assert '"1.5.0"' in found["diff"]


@pytest.mark.parametrize("shape", SHAPES)
def test_a_pin_upstream_loosened_is_loosened(
    shape: str, stock: Callable[..., Path], conda: Conda
) -> None:
    stock(shape)
    found = _outcome(conda)
    assert found["requirements"]["run"]["numpy"] == ">=1.22"
    assert "-    - numpy >=1.22,<2" in found["diff"] and "+    - numpy >=1.22" in found["diff"]
    why = [c["why"] for c in found["changes"] if "numpy" in c["text"]]
    assert why == ["upstream changed numpy<2,>=1.22 to numpy>=1.22"], why


@pytest.mark.parametrize("shape", SHAPES)
def test_a_pin_looser_than_the_wheels_is_a_lint_error(
    shape: str, stock: Callable[..., Path], conda: Conda
) -> None:
    stock(shape, run=["numpy >=1.22,<2", "protobuf", "pytorch >=2.12,<2.13"])
    found = _outcome(conda)
    loose = {f["text"].split()[1]: f for f in found["findings"] if f["rule"] == "loose-pin"}
    assert sorted(loose) == ["protobuf", "pytorch"], loose
    assert loose["protobuf"]["level"] == "warning"  # no lower bound: the wheels need 4.25.1
    assert "4.25.1" in loose["protobuf"]["text"]
    # not declared a sibling, pytorch kept its 2.12 pin: it allows no torch 2.13.0
    assert loose["pytorch"]["level"] == "error" and "allows none" in loose["pytorch"]["text"]


@pytest.mark.parametrize("shape", SHAPES)
def test_a_release_candidate_goes_to_the_rc_label_and_the_final_to_main(
    shape: str, stock: Callable[..., Path], conda: Conda
) -> None:
    stock(shape)
    code, out, err = conda("--rc", "v1.5.0-rc1", "--json")
    assert code == 0, err
    rc = json.loads(out)
    variants = (
        "recipe/variants.yaml" if shape == "recipe.yaml" else "recipe/conda_build_config.yaml"
    )
    assert rc["label"] == "demo_rc"
    assert f"+++ b/{variants}" in rc["diff"] and "+  - conda-forge demo_rc" in rc["diff"]
    final = _outcome(conda)
    assert final["label"] == "main" and variants not in final["diff"]


@pytest.mark.parametrize("shape", SHAPES)
def test_the_final_after_an_rc_leaves_the_rc_label(
    shape: str, stock: Callable[..., Path], conda: Conda
) -> None:
    variants = (
        "recipe/variants.yaml" if shape == "recipe.yaml" else "recipe/conda_build_config.yaml"
    )
    stock(shape, extra={variants: "channel_targets:\n  - conda-forge demo_rc\n"})
    final = _outcome(conda)
    assert "-  - conda-forge demo_rc" in final["diff"]
    assert "+  - conda-forge main" in final["diff"]


@pytest.mark.parametrize("shape", SHAPES)
def test_a_train_sibling_gets_its_minor_pin(
    shape: str, stock: Callable[..., Path], conda: Conda
) -> None:
    stock(shape, conda='siblings = { torch = "minor" }\n')
    found = _outcome(conda)
    # torch==2.13.0 in the wheel: pytorch on conda-forge, pinned to the 2.13 series
    assert found["requirements"]["run"]["pytorch"] == ">=2.13,<2.14"
    assert "+    - pytorch >=2.13,<2.14" in found["diff"]


@pytest.mark.parametrize("shape", SHAPES)
def test_a_patch_that_no_longer_applies_is_said_and_blocks_the_gate(
    shape: str, released: Repo, stock: Callable[..., Path], conda: Conda
) -> None:
    stock(shape)
    found = _outcome(conda)
    undecided = [u for u in found["undecided"] if "0001-answer.patch" in u]
    assert len(undecided) == 1 and "no longer applies" in undecided[0], found["undecided"]
    assert not found["ready"]
    # against 1.4.0's own sources the patch applies: nothing to say
    code, out, err = conda("--version", "1.4.0", "--json")
    assert code == 0, err
    assert not [u for u in json.loads(out)["undecided"] if "patch" in u]


@pytest.mark.parametrize("shape", SHAPES)
def test_execute_writes_a_branch_of_the_feedstock_once(
    shape: str, stock: Callable[..., Path], conda: Conda
) -> None:
    clone = stock(shape)
    head = _git(clone, "rev-parse", "HEAD")
    code, out, _ = conda("--version", "1.5.0")
    assert code == 0 and "Dry run: nothing written" in out
    assert _git(clone, "branch", "--list", "mlrelease/*") == ""
    code, out, err = conda("--version", "1.5.0", "--execute", "--push")
    assert code == 0, err
    assert "branch mlrelease/demo-1.5.0 written" in out and "pushed" in out
    recipe = f"recipe/{shape}"
    text = _git(clone.parent / "feedstock.git", "show", f"mlrelease/demo-1.5.0:{recipe}")
    assert "typing_extensions >=4.7.1" in text and "1.5.0" in text
    assert _git(clone, "rev-parse", "HEAD") == head  # the checkout is left alone
    code, out, err = conda("--version", "1.5.0", "--execute", "--push")
    assert code == 0, err
    assert "already holds this change" in out and "already has" in out


def _git(cwd: Path, *args: str) -> str:
    import subprocess

    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.mark.parametrize("shape", SHAPES)
def test_the_gate_on_the_final_release_says_whether_the_change_is_ready(
    shape: str, released: Repo, stock: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from mlrelease.cli import main

    assert 'version = "1.5.0"' in (released.path / "pyproject.toml").read_text()
    stock(shape, conda='siblings = { torch = "minor" }\n', patched=False)
    report = released.path / "build" / "release-verify" / "report.json"
    code = main(["--root", str(released.path), "verify", "--only", "conda"])
    capsys.readouterr()
    result = json.loads(report.read_text())["results"][0]
    assert (code, result["status"]) == (0, "pass"), result
    assert "ready" in result["summary"] and "not built" in result["details"][-1]
    evidence = json.loads((released.path / result["evidence"][0]).read_text())
    if shape == "recipe.yaml":  # rendered by rattler-build, offline
        assert evidence["rendered"] and "demo 1.5.0" in evidence["rendered"][0], evidence
    else:
        assert "rattler-build renders recipe v1" in evidence["render_skipped"]


@pytest.mark.parametrize("shape", SHAPES)
def test_the_gate_fails_while_a_patch_no_longer_applies(
    shape: str, released: Repo, stock: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from mlrelease.cli import main

    stock(shape, conda='siblings = { torch = "minor" }\n')
    code = main(["--root", str(released.path), "verify", "--only", "conda"])
    capsys.readouterr()
    report = released.path / "build" / "release-verify" / "report.json"
    result = json.loads(report.read_text())["results"][0]
    assert (code, result["status"]) == (1, "fail"), result
    assert "0001-answer.patch" in result["summary"] and "no longer applies" in result["summary"]
