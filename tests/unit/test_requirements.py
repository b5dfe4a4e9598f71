"""The missing-dependency message: what is missing, for whom, and one install line that fits
how mlrelease was installed (the environments themselves: tests/integration/install)."""

from __future__ import annotations

import pytest

from mlrelease.registry import command_extra
from mlrelease.requirements import (
    Distribution,
    Environment,
    Installer,
    MissingDependency,
    install_line,
)

EXTRAS = {
    "release": ("bump-my-version>=1.2.4", "git-changelog>=2.7"),
    "wheels": ("mlrelease[release]", "build>=1.2", "twine>=6.1"),
    "models": ("onnx>=1.19", "onnxruntime>=1.20", "numpy>=1.26"),
    "ops": ("mlrelease[models]", "pillow>=10.1"),
    "all": ("mlrelease[ops,release,wheels]",),
}


def env(kind: str = "pip", **kwargs: object) -> Environment:
    installer = Installer(kind, **kwargs)  # type: ignore[arg-type]
    return Environment(installer=installer, prefix="/venv", extras=EXTRAS)


@pytest.mark.parametrize(
    ("installer", "line"),
    [
        (Installer("pip"), 'python -m pip install "mlrelease[release]"'),
        (
            Installer("pip", python="/opt/venv/bin/python"),
            '/opt/venv/bin/python -m pip install "mlrelease[release]"',
        ),
        (Installer("uv"), 'uv pip install "mlrelease[release]"'),
        (
            Installer("uv", python="/opt/v/bin/python"),
            'uv pip install --python /opt/v/bin/python "mlrelease[release]"',
        ),
        (
            Installer("uv-tool", python="/t/bin/python", spec="mlrelease>=0.1", extras=("ops",)),
            'uv tool install "mlrelease[ops,release]>=0.1"',
        ),
        (
            Installer(
                "uv-tool",
                spec="mlrelease @ file:///w/mlrelease-0.1-py3-none-any.whl",
                with_=("rich>=13",),
            ),
            'uv tool install "mlrelease[release] @ file:///w/mlrelease-0.1-py3-none-any.whl"'
            ' --with "rich>=13"',
        ),
        (Installer("pipx"), 'pipx inject mlrelease "bump-my-version>=1.2.4" "git-changelog>=2.7"'),
        (Installer("pip", checkout="."), 'python -m pip install -e ".[release]"'),
        (
            Installer("uv", python="/c/.nox/t/bin/python", checkout="/c"),
            'uv pip install --python /c/.nox/t/bin/python -e "/c[release]"',
        ),
    ],
    ids=["pip", "pip-path", "uv", "uv-path", "uv-tool", "uv-tool-wheel", "pipx", "co", "co-uv"],
)
def test_the_install_line_fits_how_mlrelease_was_installed(installer: Installer, line: str) -> None:
    environment = Environment(installer=installer, extras=EXTRAS)
    assert install_line(environment, ["release"]) == line


def test_pipx_injects_the_distributions_of_included_extras_too() -> None:
    line = install_line(env("pipx"), ["ops"])
    assert line == (
        'pipx inject mlrelease "onnx>=1.19" "onnxruntime>=1.20" "numpy>=1.26" "pillow>=10.1"'
    )


def test_a_missing_module_names_its_distribution_the_extra_and_who_needs_it() -> None:
    error = MissingDependency("bumpversion", needed_by="`mlrelease bump`", extra="release")
    message = str(error.within(env()))
    assert message == (
        "`mlrelease bump` needs the Python module `bumpversion` from the distribution "
        "bump-my-version (>=1.2.4), which is not installed in /venv: install the `release` "
        'extra: `python -m pip install "mlrelease[release]"`.'
    )
    assert error.exit_code == 3


def test_a_shadowing_distribution_is_named_with_the_command_that_removes_it() -> None:
    shadowed = Environment(
        installer=Installer("uv", python="/v/bin/python"),
        extras=EXTRAS,
        providers={"bumpversion": (Distribution("bump2version", "1.0.1"),)},
        importable={"bumpversion": True},
        distributions={"bumpversion": "0.6.0", "bump2version": "1.0.1"},
    )
    error = MissingDependency("bumpversion.context", needed_by="the `versions` gate")
    message = str(error.within(shadowed))
    assert "comes from bumpversion 0.6.0, bump2version 1.0.1" in message
    assert "`uv pip uninstall --python /v/bin/python bumpversion bump2version`" in message
    assert error.repair is None  # removing the shadow comes first: no command to follow blindly
    assert 'uv pip install --python /v/bin/python "mlrelease[release]"' in message


def test_a_version_without_the_module_asked_for_is_an_upgrade() -> None:
    old = Environment(
        installer=Installer("pip"),
        extras=EXTRAS,
        providers={"bumpversion": (Distribution("bump-my-version", "0.28.0"),)},
        importable={"bumpversion": True},
        distributions={"bump-my-version": "0.28.0"},
    )
    message = str(MissingDependency("bumpversion.context", needed_by="x").within(old))
    assert "found bump-my-version 0.28.0, which has no `bumpversion.context`" in message
    assert "(>=1.2.4)" in message and "Upgrade it" in message


def test_the_extra_that_brings_the_module_wins_over_the_commands() -> None:
    # `release status` names `release`; numpy is not in it, the first extra with numpy is.
    error = MissingDependency("numpy", needed_by="`mlrelease release status`", extra="release")
    assert "install the `models` extra" in str(error.within(env()))


def test_without_installed_metadata_the_callers_extra_is_named() -> None:
    error = MissingDependency("PIL", needed_by="the conformance run", extra="ops")
    message = str(error)
    assert "`PIL` from the distribution pillow" in message
    assert 'python -m pip install "mlrelease[ops]"' in message


def test_a_module_outside_the_table_is_named_without_a_guess() -> None:
    error = MissingDependency("company_gates", needed_by="the `custom` gate")
    message = str(error.within(env()))
    assert "install the distribution that provides `company_gates`" in message


def test_of_reads_the_module_from_an_import_error() -> None:
    exc = ModuleNotFoundError("No module named 'bumpversion.context'", name="bumpversion.context")
    assert MissingDependency.of(exc, needed_by="x").module == "bumpversion.context"
    bare = ImportError("cannot import name 'get_context' from 'bumpversion.bump'")
    assert MissingDependency.of(bare, needed_by="x").module == "bumpversion.bump"


def test_inside_the_checkout_the_nox_sessions_are_named() -> None:
    message = str(MissingDependency("onnx", needed_by="x").within(env(checkout=".")))
    assert "nox -s" in message
    assert "nox -s" not in str(MissingDependency("onnx", needed_by="x").within(env()))


@pytest.mark.parametrize(
    ("words", "extra"),
    [
        (["perf", "merge"], "perf-report"),
        (["perf", "run"], "perf"),
        (["release", "promote"], "wheels"),
        (["release", "status"], "release"),
        (["release", "bind"], "wheels"),
        (["changelog"], "release"),
        (["version"], None),
        (["opset", "rules"], "opsets"),
        (["verify"], None),
        (["nonsense"], None),
    ],
)
def test_the_longest_command_prefix_names_the_extra(words: list[str], extra: str | None) -> None:
    assert command_extra(words) == extra


def test_a_missing_extra_is_a_repair_a_json_caller_can_run() -> None:
    """Under ``--json`` the install line is the refusal's repair: a command, nothing to commit."""
    error = MissingDependency("bumpversion", needed_by="`mlrelease bump`", extra="release")
    assert error.within(env()).repair is not None
    assert error.repair.data() == {
        "kind": "command",
        "command": ["python", "-m", "pip", "install", "mlrelease[release]"],
        "commit": [],
        "then": "re-run",
    }
