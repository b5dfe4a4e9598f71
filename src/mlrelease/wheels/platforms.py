"""The wheel platforms a project declares it builds: for init's ``required-platforms``, and
for what the ``wheels`` gate and ``wheels plan`` ask cibuildwheel.

They come from the project's own build matrix: ``[tool.cibuildwheel]`` (``archs``, per
platform too) and the GitHub workflows that run cibuildwheel (``CIBW_ARCHS*``, the runners
they run on, the identifiers they pass to ``only:`` / ``CIBW_BUILD``). Never from the machine
``init`` runs on: cibuildwheel's default ``archs = "auto"`` means "this machine's", so
:func:`declared_archs` resolves every platform's architectures first, and :func:`query` asks
cibuildwheel with explicit ``--archs`` (its ``build`` / ``skip`` still apply). Everything here
but :func:`query` and :func:`read_workflows` is pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlrelease.wheels import matrix
from mlrelease.wheels.config import DEFAULT_REQUIRED_PLATFORMS
from mlrelease.wheels.matrix import PLATFORMS, Identifier, parse_identifier, platform_arch

ALL_ARCHS = {
    "linux": ("x86_64", "i686", "aarch64", "ppc64le", "s390x", "armv7l", "riscv64"),
    "windows": ("AMD64", "x86", "ARM64"),
    "macos": ("x86_64", "arm64", "universal2"),
}
"""What cibuildwheel's ``archs = "all"`` means per platform."""

DEFAULT_ARCHS = {
    "linux": ("x86_64", "aarch64"),
    "windows": ("AMD64", "ARM64"),
    "macos": ("x86_64", "arm64"),
}
"""With nothing declared: the 64-bit architectures that have GitHub-hosted native runners
(the platforms of mlrelease's wheel workflow, ``DEFAULT_REQUIRED_PLATFORMS``)."""

COMPANION_32 = {"x86_64": "i686", "AMD64": "x86"}
"""cibuildwheel's ``auto`` adds the 32-bit build a 64-bit x86 runner can also make."""

AUTO_WORDS = {"auto", "native", "auto64", "auto32"}
"""``archs`` values that mean "the runner's own": resolved from the workflow's runners."""

EXTRA_REQUIRED = ("macosx_universal2",)
"""Built tags required besides ``DEFAULT_REQUIRED_PLATFORMS``: a universal2 wheel stands in for
both macOS architectures."""

_IDENT_RE = re.compile(r"\b(?:cp|pp|gp)\d+t?-[a-z0-9_]+\b")
_ENV_RE = re.compile(
    r"\bCIBW_ARCHS(?:_(?P<platform>LINUX|MACOS|WINDOWS))?\s*[:=]\s*[\"']?(?P<value>[^\"'\n#]*)"
)
_RUNNER_RE = re.compile(r"\b(?:ubuntu|macos|windows)-(?:latest|\d[\d.]*)(?:-[a-z0-9]+)*\b")


def runner_arch(label: str) -> tuple[str, str] | None:
    """The cibuildwheel platform and native arch of a GitHub runner label, e.g.
    ``ubuntu-24.04-arm`` -> ``("linux", "aarch64")``; None for a label it cannot place."""
    if label.startswith("ubuntu-"):
        return ("linux", "aarch64" if label.endswith("-arm") else "x86_64")
    if label.startswith("windows-"):
        return ("windows", "ARM64" if label.endswith("-arm") else "AMD64")
    if label.startswith("macos-"):
        version = label.split("-")[1]
        # macos-13 and the `-intel` / `-large` labels are the Intel runners.
        intel = label.endswith(("-intel", "-large")) or version in ("11", "12", "13")
        return ("macos", "x86_64" if intel else "arm64")
    return None


def split_archs(value: Any) -> list[str]:
    """``archs`` as cibuildwheel reads it: a list, or a string split on spaces and commas."""
    items = value if isinstance(value, list) else re.split(r"[\s,]+", str(value))
    return [str(i).strip() for i in items if str(i).strip()]


@dataclass
class Declared:
    """What the project declares it builds, per cibuildwheel platform."""

    archs: dict[str, list[str]] = field(default_factory=dict)
    """Resolved architectures (no ``auto``) per platform, in a stable order."""
    named_tags: set[str] = field(default_factory=set)
    """Platform tags of the identifiers the workflows name (``only:``, ``CIBW_BUILD``)."""
    sources: list[str] = field(default_factory=list)
    """Where each part came from, for init's note."""


def _resolve(platform: str, words: list[str], runners: set[str]) -> list[str]:
    """``archs`` words of one platform, ``auto`` ones resolved on the workflow's runners."""
    found: list[str] = []
    for word in words:
        if word == "all":
            found += ALL_ARCHS[platform]
        elif word in AUTO_WORDS:
            native = sorted(runners) or list(DEFAULT_ARCHS[platform])
            for arch in native:
                if word != "auto32":
                    found.append(arch)
                if word in ("auto", "auto32") and arch in COMPANION_32:
                    found.append(COMPANION_32[arch])
        else:
            found.append(word)
    return [a for a in ALL_ARCHS[platform] if a in found] + sorted(
        {a for a in found if a not in ALL_ARCHS[platform]}
    )


def declared_archs(pyproject: Mapping[str, Any], workflows: Mapping[str, str]) -> Declared:
    """Resolve each platform's architectures from ``[tool.cibuildwheel]`` and the workflows
    (``name -> text``) that run cibuildwheel. A platform a cibuildwheel workflow exists for but
    none runs is not built; with no such workflow, every platform is, on its ``archs``."""
    cibw = pyproject.get("tool", {}).get("cibuildwheel", {})
    declared = Declared()
    config: dict[str, list[str]] = {}
    for platform in PLATFORMS:
        table = cibw.get(platform, {})
        value = table.get("archs", cibw.get("archs")) if isinstance(table, dict) else None
        if value is not None:
            config[platform] = split_archs(value)
            declared.sources.append(f"[tool.cibuildwheel.{platform}] archs = {value!r}")
    env: dict[str, list[str]] = {}
    runners: dict[str, set[str]] = {}
    named: dict[str, set[str]] = {}
    built = [(n, t) for n, t in sorted(workflows.items()) if "cibuildwheel" in t]
    for name, text in built:
        for match in _ENV_RE.finditer(text):
            words = split_archs(match["value"])
            if not words or "${{" in match["value"]:
                continue  # an expression: the runners and identifiers say what it is
            targets = [match["platform"].lower()] if match["platform"] else list(PLATFORMS)
            for platform in targets:
                env.setdefault(platform, []).extend(words)
            declared.sources.append(f"{name}: {match[0].strip()}")
        labels = sorted(set(_RUNNER_RE.findall(text)))
        for label in labels:
            if at := runner_arch(label):
                runners.setdefault(at[0], set()).add(at[1])
        if labels:
            declared.sources.append(f"{name}: runners {' '.join(labels)}")
        for text_id in sorted(set(_IDENT_RE.findall(text))):
            try:
                tag = parse_identifier(text_id).tag
                platform, arch = platform_arch(tag)
            except ValueError:
                continue  # pyodide, or not an identifier at all
            named.setdefault(platform, set()).add(arch)
            declared.named_tags.add(tag)
    # A matrix computed at run time (``fromJSON``) hides its runners: then the workflows
    # cannot say a platform is not built, and the config decides which are.
    dynamic = any(re.search(r"fromjson\s*\(", t, re.IGNORECASE) for _, t in built)
    placed = bool(runners or named) and not dynamic
    for platform in PLATFORMS:
        if placed and platform not in runners and platform not in named:
            continue  # the project's workflows do not build it
        # cibuildwheel reads CIBW_* over pyproject.toml.
        words = env.get(platform) or config.get(platform) or ["auto64"]
        archs = _resolve(platform, words, set() if dynamic else runners.get(platform, set()))
        archs += [a for a in sorted(named.get(platform, set())) if a not in archs]
        declared.archs[platform] = archs
    if placed:
        declared.sources.append(
            f"identifiers named in the workflows: {len(declared.named_tags)} platform tag(s)"
        )
    else:
        declared.sources.append("no GitHub workflow names the runners cibuildwheel runs on")
    return declared


def pick_required(built_tags: set[str], named_tags: set[str]) -> list[str]:
    """The required platforms among the tags cibuildwheel selects on the declared archs; when
    the workflows name identifiers (``only:``), only the tags they name are built."""
    tags = built_tags & named_tags if named_tags else built_tags
    return [p for p in (*DEFAULT_REQUIRED_PLATFORMS, *EXTRA_REQUIRED) if p in tags]


def query(root: Path, pyproject: Mapping[str, Any]) -> tuple[list[Identifier], Declared]:
    """What cibuildwheel selects for the project at ``root`` on its declared architectures."""
    declared = declared_archs(pyproject, read_workflows(root))
    archs = {p: a for p, a in declared.archs.items() if a}
    return (matrix.query(root, list(archs), archs) if archs else []), declared


def read_workflows(root: Path) -> dict[str, str]:
    """The texts of ``.github/workflows/*.yml`` / ``*.yaml`` by file name."""
    folder = root / ".github" / "workflows"
    if not folder.is_dir():
        return {}
    found: dict[str, str] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix in (".yml", ".yaml") and path.is_file():
            try:
                found[path.name] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue  # unreadable: it declares nothing init can use
    return found
