"""ONNX's release practice, the bump model: release candidates are version bumps
(``1.3.0rc1``, ``1.3.0rc2``) committed on the release branch or the trunk, never RC tags; the
final version is bumped and tagged ``v1.3.0``.

:func:`files` is an adopted trunk project (``[tool.mlrelease.release] model = "trunk"``,
``rc-model = "bump"``) whose version lives in ``src/demo/__init__.py``; :func:`onnx_files` is
onnx's own layout before adoption (``VERSION_NUMBER`` read by scikit-build-core), for tests
of what ``mlrelease init`` proposes."""

from __future__ import annotations

from collections.abc import Sequence

from helpers.projects import toml_strings


def pyproject(*, version: str = "0.1.0rc1", gates: Sequence[str] = ("versions",)) -> str:
    """An adopted trunk project with version-bump RCs, at ``version``: setuptools reads
    ``demo.__version__``, bump-my-version moves it (``X.Y.Z``, ``X.Y.ZrcN``)."""
    return (
        '[project]\nname = "demo"\ndynamic = ["version"]\n\n'
        '[tool.setuptools.dynamic]\nversion = {attr = "demo.__version__"}\n\n'
        f"[tool.mlrelease]\ngates = {toml_strings(gates)}\n\n"
        '[tool.mlrelease.wheels]\nkind = "pure"\nrequired-platforms = []\n\n'
        '[tool.mlrelease.release]\nmodel = "trunk"\ntag = "v{major}.{minor}.{patch}"\n'
        'rc-tag = "v{major}.{minor}.{patch}rc{rc}"\nrc-model = "bump"\n\n'
        f'[tool.bumpversion]\ncurrent_version = "{version}"\n'
        "parse = '(?P<major>\\d+)\\.(?P<minor>\\d+)\\.(?P<patch>\\d+)"
        "(?:(?P<pre_l>rc)(?P<pre_n>\\d+))?'\n"
        'serialize = ["{major}.{minor}.{patch}{pre_l}{pre_n}", "{major}.{minor}.{patch}"]\n\n'
        '[[tool.bumpversion.files]]\nfilename = "src/demo/__init__.py"\n'
    )


def files(*, version: str = "0.1.0rc1") -> dict[str, str]:
    """The adopted trunk project's files at ``version``."""
    return {
        "pyproject.toml": pyproject(version=version),
        "src/demo/__init__.py": f'__version__ = "{version}"\n',
    }


def onnx_files(version: str = "1.3.0") -> dict[str, str]:
    """onnx's layout, not adopted: ``VERSION_NUMBER`` holds ``version`` and scikit-build-core's
    regex provider reads it; a file for a fix to change."""
    return {
        "pyproject.toml": '[project]\nname = "demo"\ndynamic = ["version"]\n\n'
        '[tool.scikit-build.metadata.version]\nprovider = "scikit_build_core.metadata.regex"\n'
        'input = "VERSION_NUMBER"\nregex = "(?P<value>.+)"\n',
        "VERSION_NUMBER": f"{version}\n",
        "fix.txt": "bug\n",
        ".gitignore": "build/\n__pycache__/\n",
    }
