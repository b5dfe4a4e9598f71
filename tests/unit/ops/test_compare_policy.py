"""Pure parts of the conformance engine: policy files (tolerances, known failures) and the
``[tool.mlrelease.ops]`` configuration."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from mlrelease.errors import ConfigError
from mlrelease.ops import policy
from mlrelease.registry import load_config

# --- policy files and configuration ------------------------------------------------------


def _write(root: Path, name: str, text: str) -> None:
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(textwrap.dedent(text), encoding="utf-8")


def test_policy_files_are_parsed_matched_and_expired(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "ci/tolerances.toml",
        """
        [[override]]
        pattern = "test_*_fp16"
        backend = "rt*"
        rtol = 0.01
        reason = "fp16"
        [[override]]
        pattern = "test_*"
        atol = 0.5
        reason = "loose"
    """,
    )
    _write(
        tmp_path,
        "ci/known_failures.toml",
        """
        [[failure]]
        pattern = "test_old_*"
        backend = "rt"
        reason = "fixed upstream in 2.0"
        expires = 2020-01-31

        [[failure]]
        pattern = "test_new"
        reason = "tracked"
        tracking = "https://example.org/issues/1"
        expires = "2999-01-01"
    """,
    )
    rules = policy.load(tmp_path, "ci/tolerances.toml", "ci/known_failures.toml")
    assert rules.tolerance("test_a_fp16", "rt-cpu", 1e-3, 1e-7) == (0.01, 1e-7)
    assert rules.tolerance("test_a_fp16", "ref", 1e-3, 1e-7) == (1e-3, 0.5)
    assert rules.tolerance("other", "ref", 1e-3, 1e-7) == (1e-3, 1e-7)
    assert rules.known("test_old_x", "rt") is not None and rules.known("test_old_x", "ref") is None
    import datetime as dt

    expired = rules.expired(dt.date(2026, 1, 1))
    assert [k.pattern for k in expired] == ["test_old_*"]
    assert expired[0].label("ci/known_failures.toml") == (
        "ci/known_failures.toml:3: known failure 'test_old_*' on backend 'rt'"
    )
    unneeded = rules.unneeded([("test_old_x", "rt", True), ("test_new", "rt", False)], {"rt"})
    assert [(k.pattern, why) for k, why in unneeded] == [
        ("test_old_*", "all 1 matching case(s) now pass")
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[[failure]]\npattern = "x"\nreason = "r"\n',
            "expected an 'expires' date or a 'tracking'",
        ),
        ('[[failure]]\npattern = "x"\nreason = "r"\nexpires = "soon"\n', "expected a date such as"),
        (
            '[[failure]]\npattern = "x"\nreason = "r"\nexpire = 2020-01-01\n',
            "Did you mean 'expires'",
        ),
        ('[[failure]]\nreason = "r"\ntracking = "t"\n', "failure[0].pattern"),
    ],
)
def test_bad_known_failure_entries_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    _write(tmp_path, "ci/known_failures.toml", text)
    with pytest.raises(ConfigError, match=re.escape(message)):
        policy.load(tmp_path, "ci/tolerances.toml", "ci/known_failures.toml")


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            '[[tool.mlrelease.ops.backends]]\nname = "a"\nkind = "backend"\n',
            "tool.mlrelease.ops.backends[0].module: expected an import path",
        ),
        (
            '[[tool.mlrelease.ops.backends]]\nname = "a"\nkind = "reference"\n'
            '[[tool.mlrelease.ops.backends]]\nname = "a"\nkind = "reference"\n',
            "tool.mlrelease.ops.backends[1].name: expected a unique",
        ),
        (
            '[[tool.mlrelease.ops.backends]]\nname = "a"\nkind = "tensorrt"\n',
            "tool.mlrelease.ops.backends[0].kind: expected one of 'onnxruntime'",
        ),
        ("[tool.mlrelease.ops]\ntimeout = 3\n", "Did you mean 'timeout-s'?"),
    ],
)
def test_ops_config_errors_name_the_key(tmp_path: Path, table: str, message: str) -> None:
    from mlrelease.ops.service import ops_config

    _write(tmp_path, "pyproject.toml", "[project]\nname = 'x'\n" + table)
    with pytest.raises(ConfigError, match=re.escape(message)):
        ops_config(load_config(tmp_path))
