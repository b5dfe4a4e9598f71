"""``demo``, a pure src-layout project: ``[project]`` in ``pyproject.toml``, the package in
``src/demo`` carrying ``__version__``, a changelog with git-changelog's insertion marker, and a
``[tool.bumpversion]`` that moves both versions (``X.Y.Z``, ``X.Y.ZrcN``, ``X.Y.Z.devN``).

Two uses: :func:`files` is the release-flow project (hatchling, ``git_state`` and
``changelog`` gates, the release checklist, release-only edits), pushed to a bare origin by
``helpers.release``; :func:`write_gated` is the small adopter whose gates run its own tests
(``helpers.repo``, the ``project`` fixture)."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from helpers.projects import toml_strings

DIST_SCRIPT = Path(__file__).parent.parent / "dist.py"
"""helpers/dist.py: builds the sdist and wheel of a commit (the checklist's ``build`` step)."""

VERSION = "1.4.0.dev0"


def bumpversion(version: str, package: str = "demo", *, commit_and_tag: bool = True) -> str:
    """``[tool.bumpversion]`` at ``version`` over ``pyproject.toml``'s ``version`` and
    ``src/PACKAGE/__init__.py``'s ``__version__``; ``commit_and_tag``: say ``commit = false``
    and ``tag = false`` (bump-my-version's defaults) in the table."""
    explicit = "commit = false\ntag = false\n" if commit_and_tag else ""
    return (
        f'[tool.bumpversion]\ncurrent_version = "{version}"\n'
        "parse = '''(?x)\n"
        "    (?P<major>\\d+)\\.(?P<minor>\\d+)\\.(?P<patch>\\d+)\n"
        "    (?:(?P<pre_l>rc|\\.dev)(?P<pre_n>\\d+))?\n"
        "'''\n"
        'serialize = ["{major}.{minor}.{patch}{pre_l}{pre_n}", "{major}.{minor}.{patch}"]\n'
        f"{explicit}allow_dirty = false\n\n"
        "[tool.bumpversion.parts.pre_l]\n"
        'values = [".dev", "rc", "final"]\noptional_value = "final"\n\n'
        "[[tool.bumpversion.files]]\n"
        'filename = "pyproject.toml"\n'
        "search = '^version = \"{current_version}\"'\n"
        "replace = 'version = \"{new_version}\"'\n"
        "regex = true\n\n"
        "[[tool.bumpversion.files]]\n"
        f'filename = "src/{package}/__init__.py"\n'
        "search = '__version__ = \"{current_version}\"'\n"
        "replace = '__version__ = \"{new_version}\"'\n"
    )


CHECKLIST = """\
[[tool.mlrelease.release.checklist]]
id = "cut"
title = "Cut the branch"
run = ["mlrelease", "release", "cut", "--version", "{series}", "--execute", "--push"]

[[tool.mlrelease.release.checklist]]
id = "verify"
title = "Verify the branch"
run = ["mlrelease", "verify"]
evidence = ["build/release-verify/report.json"]
mutating = false

[[tool.mlrelease.release.checklist]]
id = "prepare"
title = "Bump and changelog"
run = ["mlrelease", "release", "prepare", "--version", "{version}", "--execute", "--push"]

[[tool.mlrelease.release.checklist]]
id = "rc"
title = "Tag the RC"
run = ["mlrelease", "release", "rc", "--execute", "--push"]

[[tool.mlrelease.release.checklist]]
id = "build"
title = "Build the RC's artifacts"
run = ["python3", "@DIST@", ".", "dist", "{version}"]
evidence = ["dist/SHA256SUMS"]
mutating = false

[[tool.mlrelease.release.checklist]]
id = "bind"
title = "Bind the artifacts to the RC"
run = ["mlrelease", "release", "bind", "--rc", "{rc_tag}", "--execute", "--push"]

[[tool.mlrelease.release.checklist]]
id = "rc-verify"
title = "Verify the RC"
run = ["mlrelease", "verify"]
evidence = ["build/release-verify/report.json"]
mutating = false
""".replace("@DIST@", DIST_SCRIPT.as_posix())
"""The demo's release checklist up to promotion, every step run for real (``build``: by
helpers/dist.py)."""

PROMOTE = """\
[[tool.mlrelease.release.checklist]]
id = "promote"
title = "Promote"
run = ["mlrelease", "release", "promote", "--rc", "{rc_tag}", "--published-elsewhere",
       "--execute", "--push"]
"""
"""The demo's last checklist step: promotion of an RC published elsewhere."""

EDITS = """\
edits = [
  { file = "README.md", search = "/blob/main/", replace = "/blob/{branch}/" },
  { file = "docs/links.md", search = "?ref=main", replace = "?ref={branch}" },
]
"""
"""The demo's release-only edits: its links pinned to the release branch."""


def pyproject(*, name: str = "demo") -> str:
    """The release-flow project's ``pyproject.toml`` (the package ``src/NAME``, version
    :data:`VERSION`): the ``git_state`` and ``changelog`` gates, a pure wheel, the release-only
    edits and the checklist through promotion."""
    return (
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
        f'[project]\nname = "{name}"\nversion = "{VERSION}"\nrequires-python = ">=3.9"\n\n'
        '[tool.mlrelease]\ngates = ["git_state", "changelog"]\n\n'
        '[tool.mlrelease.wheels]\nkind = "pure"\n\n'
        f"[tool.mlrelease.release]\n{EDITS}\n{CHECKLIST}\n{PROMOTE}\n\n"
        f"{bumpversion(VERSION, name)}"
    )


def files(*, name: str = "demo") -> dict[str, str]:
    """The release-flow project's files: :func:`pyproject`, the package ``src/NAME``, a README
    and a docs page whose links the release-only edits pin, an empty Unreleased section."""
    return {
        "pyproject.toml": pyproject(name=name),
        "README.md": f"# {name}\n\nDocs: https://github.com/example/{name}/blob/main/docs/index.md\n",
        "docs/links.md": f"Source: https://example.com/{name}?ref=main\n",
        "CHANGELOG.md": "# Changelog\n\n<!-- insertion marker -->\n## Unreleased\n\n",
        f"src/{name}/__init__.py": f'"""{name}."""\n\n__version__ = "{VERSION}"\n',
        f"src/{name}/core.py": "def answer() -> int:\n    return 42\n",
        ".gitignore": "build/\ndist/\n__pycache__/\n",
    }


def gated_pyproject(
    version: str, gates: Sequence[str], plugins: Sequence[str] = (), python: str = sys.executable
) -> str:
    """The gated adopter's ``pyproject.toml``: ``gates``, the ``tests`` gate running
    ``checks/`` with ``python``, gate ``plugins`` (module names) when any."""
    plugin_line = f"gate-plugins = {toml_strings(plugins)}\n" if plugins else ""
    return (
        f'[project]\nname = "demo"\nversion = "{version}"\n\n'
        f"[tool.mlrelease]\n{plugin_line}gates = {toml_strings(gates)}\n\n"
        "[tool.mlrelease.gate-options.tests]\n"
        f'command = ["{Path(python).as_posix()}", "-m", "pytest", "-q", "-p", "no:cacheprovider", '
        '"checks"]\n\n'
        f"{bumpversion(version, commit_and_tag=False)}"
    )


def write_gated(
    root: Path,
    *,
    version: str = VERSION,
    gates: Sequence[str] = ("versions", "changelog", "exit_criteria_doc", "tests"),
    changelog_title: str = "Unreleased",
    plugins: Mapping[str, str] | None = None,
) -> None:
    """Write the gated adopter: pyproject, one versioned module, changelog, a passing test in
    ``checks/``, and gate ``plugins`` (module name -> code) in the project root, as an adopter
    keeps them."""
    (root / "pyproject.toml").write_text(
        gated_pyproject(version, gates, list(plugins or ())), encoding="utf-8"
    )
    (root / "src" / "demo").mkdir(parents=True, exist_ok=True)
    (root / "src" / "demo" / "__init__.py").write_text(
        f'"""Demo."""\n\n__version__ = "{version}"\n', encoding="utf-8"
    )
    (root / "CHANGELOG.md").write_text(
        f"# Changelog\n\n<!-- insertion marker -->\n## {changelog_title}\n\n- first\n",
        encoding="utf-8",
    )
    (root / "checks").mkdir(exist_ok=True)
    (root / "checks" / "test_demo.py").write_text(
        "def test_ok():\n    assert 1 + 1 == 2\n", encoding="utf-8"
    )
    (root / ".gitignore").write_text("build/\n__pycache__/\n", encoding="utf-8")
    for module, code in (plugins or {}).items():
        (root / f"{module}.py").write_text(code, encoding="utf-8")
