"""Config loading: strict keys and types, errors that name the key."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from mlrelease import config, toml_tables
from mlrelease.cli import main
from mlrelease.errors import ConfigError


def write(tmp_path: Path, body: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(body, encoding="utf-8")
    return tmp_path


def test_defaults_when_table_is_absent(tmp_path: Path) -> None:
    cfg = config.load(write(tmp_path, "[project]\nname = 'x'\n"), {})
    assert cfg.gates == ["versions", "changelog", "exit_criteria_doc", "tests"]
    assert cfg.root == tmp_path.resolve()


def test_typo_names_the_key_and_suggests(tmp_path: Path) -> None:
    write(tmp_path, '[tool.mlrelease]\nchangelg = "CHANGES.md"\n')
    with pytest.raises(ConfigError) as info:
        config.load(tmp_path, {})
    message = str(info.value)
    assert "tool.mlrelease.changelg" in message
    assert "unknown key" in message
    assert "Did you mean 'changelog'?" in message


def test_wrong_type_names_key_expected_and_found(tmp_path: Path) -> None:
    write(tmp_path, '[tool.mlrelease]\ngates = "versions"\n')
    with pytest.raises(ConfigError) as info:
        config.load(tmp_path, {})
    assert str(info.value).endswith(
        "tool.mlrelease.gates: expected a list of strings, found a string ('versions')."
    )


def test_wrong_item_type_names_the_index(tmp_path: Path) -> None:
    write(tmp_path, "[tool.mlrelease]\ngates = ['versions', 3]\n")
    with pytest.raises(ConfigError, match=r"tool\.mlrelease\.gates\[1\]: expected a string"):
        config.load(tmp_path, {})


def test_bool_is_not_an_integer() -> None:
    @dataclass(frozen=True)
    class Options:
        jobs: int = 1
        names: dict[str, list[str]] = field(default_factory=dict)

    with pytest.raises(ConfigError, match="expected an integer, found a boolean"):
        toml_tables.parse_section(Options, {"jobs": True}, prefix="t", source="s")
    parsed = toml_tables.parse_section(Options, {"names": {"a": ["b"]}}, prefix="t", source="s")
    assert parsed.names == {"a": ["b"]}


def test_missing_required_key() -> None:
    @dataclass(frozen=True)
    class Needs:
        path: str

    with pytest.raises(ConfigError, match=r"t\.path: expected a value \(a string\), found nothing"):
        toml_tables.parse_section(Needs, {}, prefix="t", source="s")


def test_the_feature_tables_are_parsed_in_the_registered_order_each_error_named() -> None:
    @dataclass(frozen=True)
    class One:
        jobs: int = 1

    @dataclass(frozen=True)
    class Two:
        name: str = "two"

    registered = {"two": Two, "one": One}
    parsed = toml_tables.parse_sections(registered, {"one": {"jobs": 3}}, prefix="t", source="s")
    assert list(parsed) == ["two", "one"]  # the registry's order; an absent table: its defaults
    assert parsed == {"two": Two(), "one": One(jobs=3)}
    with pytest.raises(ConfigError, match=r"t\.one\.jobs: expected an integer"):
        toml_tables.parse_sections(registered, {"one": {"jobs": "x"}}, prefix="t", source="s")


def test_toml_syntax_error_names_the_file(tmp_path: Path) -> None:
    write(tmp_path, "[tool.mlrelease\n")
    with pytest.raises(ConfigError, match="valid TOML"):
        config.load(tmp_path, {})


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ('[tool.mlrelease]\nreport-dri = "out"\n', "tool.mlrelease.report-dri"),
        ("[tool.mlrelease]\nchangelog = 5\n", "tool.mlrelease.changelog"),
        ('[tool.mlrelease.gate-options]\ntests = "x"\n', "tool.mlrelease.gate-options.tests"),
    ],
)
def test_cli_exits_2_with_one_paragraph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, key: str
) -> None:
    write(tmp_path, body)
    assert main(["--root", str(tmp_path), "verify"]) == 2
    err = capsys.readouterr().err
    assert key in err
    assert "Traceback" not in err
    assert "\n\n" not in err.strip()  # one paragraph


def test_unknown_gate_in_config_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, '[tool.mlrelease]\ngates = ["versions", "chnagelog"]\n')
    assert main(["--root", str(tmp_path), "verify"]) == 2
    err = capsys.readouterr().err
    assert "tool.mlrelease.gates[1]" in err and "'chnagelog'" in err and "changelog" in err


def test_version_is_read_in_one_place(tmp_path: Path) -> None:
    both = "[project]\nname = 'x'\nversion = '1.0'\n[tool.bumpversion]\ncurrent_version = '1.1'\n"
    assert config.load(write(tmp_path, both), {}).version == "1.1"  # bump-my-version's first
    assert (
        config.load(write(tmp_path, "[project]\nname = 'x'\nversion = '1.0'\n"), {}).version
        == "1.0"
    )
    # a version from git tags alone (setuptools-scm): no version, one fallback
    scm = "[project]\nname = 'x'\ndynamic = ['version']\n"
    assert config.load(write(tmp_path, scm), {}).version == ""
    assert main(["--root", str(tmp_path), "version"]) == 0


def test_a_bad_version_source_names_the_key_and_the_choices(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mlrelease]\nversion-source = "tags"\n', encoding="utf-8"
    )
    with pytest.raises(ConfigError) as caught:
        config.load(tmp_path, {})
    message = str(caught.value)
    assert "version-source" in message and "'tag'" in message and "'tags'" in message
