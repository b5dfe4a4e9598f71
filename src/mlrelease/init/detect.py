"""What a repository is, read from a :class:`~mlrelease.init.snapshot.Snapshot` (pure).

Each detector returns its conclusion with the evidence (a file and line, tags, branches), so that
``mlrelease init`` can say why it proposes each line.
"""

from __future__ import annotations

import ast
import configparser
import contextlib
import re
from dataclasses import dataclass, field
from typing import Literal

from mlrelease.init import publishing
from mlrelease.init.release_edits import ProposedEdit
from mlrelease.init.shape import (
    _TAG,
    Model,
    RcModel,
    TagScheme,
    changelog,
    conventional,
    rc_model,
    release_model,
    tag_scheme,
)
from mlrelease.init.snapshot import BUILD_SCRIPT, Snapshot, line_of, lookup
from mlrelease.init.version_source import VersionSource, version_source


@dataclass(frozen=True)
class Finding:
    """One conclusion: a topic, what was found, and why."""

    topic: str
    found: str
    why: str


@dataclass(frozen=True)
class WheelBuild:
    kind: Literal["pure", "native"]
    cibuildwheel: bool
    why: str
    builder: Literal["cibuildwheel", "external"] = "cibuildwheel"
    """``external``: the project's own workflow or script builds the wheels, not cibuildwheel;
    the ``wheels`` gate audits what it built instead of planning a build."""
    built_by: str = ""
    """The workflows and scripts that build the wheels (``external`` only)."""
    platforms: tuple[str, ...] = ()
    """The platform tags those name (``external`` only)."""


@dataclass(frozen=True)
class Detection:
    """Everything ``init`` concluded about a repository."""

    name: str | None
    version: VersionSource
    tags: TagScheme
    model: Model
    build: WheelBuild
    changelog: str | None
    changelog_why: str
    conventional: tuple[int, int]
    """(Conventional Commits, commits) among the recent subjects."""
    test_command: list[str] | None
    tests_why: str
    docs: str | None
    docs_why: str
    onnx: bool
    onnx_why: str
    rc: RcModel = field(default_factory=lambda: RcModel("tag", ""))
    """How release candidates are made (tags, or version bumps without tags)."""
    stale_changelog: str | None = None
    """A changelog file the project stopped keeping (no section for its newest releases)."""
    release_edits: list[ProposedEdit] = field(default_factory=list)
    """The release-only edits the newest release branch's release-only commits made."""
    edits_notes: list[str] = field(default_factory=list)
    """Which commits made them, the upstream series they pair with, the edits left out, or
    that none was found (branch model)."""
    upstream: str = ""
    """The project the release-only edits pair the release with (``torch``), when they name
    its series (``{upstream_series}``)."""
    picks: Literal["trailer", "fixes"] = "trailer"
    picks_why: str = ""
    publish_notes: list[str] = field(default_factory=list)
    """What the project's own workflows publish, and what that means for its RCs."""

    def findings(self) -> list[Finding]:
        v = self.version
        files = ", ".join(f"{f.filename}:{f.line}" if f.line else f.filename for f in v.files)
        cc, total = self.conventional
        return [
            Finding("version", f"{v.current or 'unknown'} ({v.kind})", v.why),
            Finding(
                "version files",
                files or "none (bump-my-version has nothing to rewrite)",
                "each has an exact search pattern; no other number is taken for a version",
            ),
            *(
                [
                    Finding(
                        "version left",
                        f"{len(v.left)} place(s), each listed below the proposal",
                        "they spell it, but do not move",
                    )
                ]
                if v.left
                else []
            ),
            Finding("tags", f"{self.tags.tag} / {self.tags.rc_tag}", self.tags.why),
            Finding("release model", f"{self.model.name} ({self.model.branch})", self.model.why),
            Finding("release candidates", self.rc.name, self.rc.why),
            *(
                [
                    Finding(
                        "release-only edits",
                        f"{len(self.release_edits)} edit(s)" if self.release_edits else "none",
                        f"the release-only commits of {self.model.newest}; listed below",
                    ),
                    Finding("fixes wanted (picks)", self.picks, self.picks_why),
                ]
                if self.model.name == "branch" and self.picks_why
                else []
            ),
            Finding("build", self.build.kind, self.build.why),
            Finding("changelog", self.changelog or "none", self.changelog_why),
            Finding(
                "commits",
                f"{cc} of {total} recent subjects are Conventional Commits",
                "the others go to the changelog's 'Other changes' section",
            ),
            Finding("tests", " ".join(self.test_command or ["none"]), self.tests_why),
            Finding("docs", self.docs or "none", self.docs_why),
            Finding("onnx", "yes" if self.onnx else "no", self.onnx_why),
        ]


NATIVE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".cu", ".pyx", ".rs", ".f90")
NATIVE_BACKENDS = ("scikit_build_core", "mesonpy", "maturin", "py_build_cmake", "setuptools_rust")


def build_kind(snap: Snapshot) -> WheelBuild:
    data = snap.pyproject()
    cibw = lookup(data, "tool.cibuildwheel") is not None
    reasons: list[str] = []
    backend = str(lookup(data, "build-system.build-backend") or "")
    if any(b in backend for b in NATIVE_BACKENDS):
        reasons.append(f"build backend {backend}")
    sources = [
        p
        for p in snap.files
        if p.endswith(NATIVE_SUFFIXES)
        and not p.startswith(("tests/", "test/", "docs/", "examples/"))
    ]
    # setup.py naming extension modules builds one only from compiled sources the repository
    # holds (torchdata's get_ext_modules() returns []: a pure wheel).
    setup = snap.text("setup.py") or ""
    names_extensions = re.search(r"\bext_modules\b|\bExtension\(|CMakeExtension|build_ext", setup)
    unbuilt = ""
    if names_extensions and sources:
        reasons.append("setup.py builds extension modules")
    elif names_extensions:
        unbuilt = (
            "setup.py names extension modules, but the repository holds no compiled source "
            f"({' '.join(NATIVE_SUFFIXES)} outside tests, docs and examples) for them to build"
        )
    if snap.has("CMakeLists.txt"):
        reasons.append("CMakeLists.txt at the root")
    if sources:
        reasons.append(f"{len(sources)} compiled source file(s) such as {sources[0]}")
    table = "; [tool.cibuildwheel] names the platforms" if cibw else ""
    external = _external_builder(snap, cibw) if reasons else None
    if external is not None:
        by, tags = external
        return WheelBuild(
            "native",
            False,
            "; ".join(reasons) + f"; the wheels are built by {by}, not by cibuildwheel (no "
            "[tool.cibuildwheel], no workflow runs it): the `wheels` gate audits the built "
            "files instead of planning a build",
            "external",
            by,
            tags,
        )
    if reasons:
        return WheelBuild("native", cibw, "; ".join([*reasons, *filter(None, [unbuilt])]) + table)
    found = (
        f"{unbuilt}, and no native build backend"
        if unbuilt
        else ("no C/C++/CUDA/Cython/Rust sources, extension modules or native build backend")
    )
    return WheelBuild("pure", cibw, found + ": one py3-none-any wheel" + table)


WHEEL_BUILD = re.compile(
    r"bdist_wheel|\bpython3? -m build\b|\bpip3? wheel\b|build[_-]wheels?|\.whl\b", re.I
)
"""What a workflow or script that builds wheels says (a reusable ``build_wheels_linux.yml``, a
``setup.py bdist_wheel``, ``python -m build``)."""

PLATFORM_WORDS = (
    (r"linux", "manylinux_x86_64"),
    (r"aarch64|sbsa|linux[_-]?arm", "manylinux_aarch64"),
    (r"windows|\bwin", "win_amd64"),
    (r"macos|darwin", "macosx_arm64"),
)
"""Words of a build's file names and texts -> the platform tag its wheels carry."""


def _external_builder(snap: Snapshot, cibw: bool) -> tuple[str, tuple[str, ...]] | None:
    """The project's own wheel build (workflows or scripts, no cibuildwheel anywhere), if any:
    who builds the wheels, and the platforms they name."""
    builds = {p: t for p, t in snap.texts.items() if BUILD_SCRIPT.match(p)}
    if cibw or any("cibuildwheel" in t for t in builds.values()):
        return None
    found = sorted(p for p, t in builds.items() if WHEEL_BUILD.search(t))
    if not found:
        return None
    words = " ".join(found + [builds[p] for p in found])
    tags = tuple(t for pattern, t in PLATFORM_WORDS if re.search(pattern, words, re.I))
    by = ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
    return by, tags


def test_command(snap: Snapshot) -> tuple[list[str] | None, str]:
    data = snap.pyproject()
    has_tests = any(re.search(r"(^|/)(test_[^/]*|[^/]*_test)\.py$", p) for p in snap.files)
    config = (
        lookup(data, "tool.pytest") is not None
        or snap.has("pytest.ini")
        or "[tool:pytest]" in (snap.text("setup.cfg") or "")
    )
    extra = []
    if snap.has("noxfile.py"):
        extra.append("noxfile.py")
    if snap.has("tox.ini"):
        extra.append("tox.ini")
    also = (
        f" (the project also has {', '.join(extra)}; the gate runs pytest in the release "
        "environment)"
        if extra
        else ""
    )
    if has_tests or config:
        return ["python", "-m", "pytest", "-q"], (  # a command spec
            "pytest configuration" if config else "test_*.py files"
        ) + " found; `python` is the interpreter running mlrelease" + also
    return None, "no tests found: the `tests` gate is not proposed"


SPHINX_INDEX = ("index.rst", "index.md", "contents.rst")
"""A Sphinx source folder's root document, beside its ``conf.py``."""


def docs(snap: Snapshot) -> tuple[str | None, str]:
    # Shallowest first: docs/conf.py before docs/docsgen/source/conf.py (ONNX); then a Sphinx
    # root in any folder up to two levels deep (Torch-TensorRT's docsrc/), told from a stray
    # conf.py by its root document.
    deeper = sorted(
        (p.removesuffix("/conf.py") for p in snap.files if re.match(r"docs?/.*conf\.py$", p)),
        key=lambda p: (p.count("/"), p),
    )
    shallow = (p.removesuffix("/conf.py") for p in snap.files if p.endswith("/conf.py"))
    elsewhere = sorted(
        folder
        for folder in shallow
        if re.fullmatch(r"[^/]+(/[^/]+)?", folder)
        and any(f"{folder}/{index}" in snap.files for index in SPHINX_INDEX)
    )
    for folder in ("docs", "doc", "docs/source", "doc/source", *deeper, *elsewhere):
        if f"{folder}/conf.py" in snap.files:
            return folder, (
                f"Sphinx ({folder}/conf.py); add `docs` to gates once its build "
                "requirements are in the release environment"
            )
    return None, (
        "no Sphinx sources: no conf.py in docs/ or doc/, nor beside an index document in a "
        "folder up to two levels deep"
    )


def onnx_use(snap: Snapshot) -> tuple[bool, str]:
    data = snap.pyproject()
    if lookup(data, "project.name") == "onnx":
        return True, "the project is onnx itself: its make_model stamps what models carry"
    deps = [str(d) for d in lookup(data, "project.dependencies") or []]
    for d in deps:
        if (
            re.match(r"onnx(\b|[<>=~! ;\[])", d)
            and not d.startswith("onnx-")
            and not d.startswith(("onnxruntime", "onnxscript"))
        ):
            return True, f"[project] dependencies: {d}"
    for path in ("requirements.txt", "setup.py"):
        text = snap.text(path) or ""
        m = re.search(r"""^\s*['"]?onnx(?:\s*[<>=~!;]|['"]|\s*$)""", text, re.M)
        if m:
            return True, f"{path} line {line_of(text, m.start())} requires onnx"
    return False, "onnx is not a dependency: the `compat` gate is not proposed"


def distribution_name(snap: Snapshot) -> str | None:
    """The distribution name, read without running anything: ``[project] name``, else
    ``setup.cfg``'s ``[metadata] name``, else ``name=`` of ``setup.py``'s ``setup()`` call
    (Torch-TensorRT, PyTorch: no ``[project]`` table): a literal, or a module-level name bound
    to one or to an environment variable's default (PyTorch's
    ``package_name = os.getenv("TORCH_PACKAGE_NAME", "torch")``)."""
    name = lookup(snap.pyproject(), "project.name")
    if isinstance(name, str) and name:
        return name
    parser = configparser.ConfigParser(interpolation=None)
    with contextlib.suppress(configparser.Error):
        parser.read_string(snap.text("setup.cfg") or "")
        if parser.get("metadata", "name", fallback=""):
            return parser.get("metadata", "name").strip() or None
    try:
        tree = ast.parse(snap.text("setup.py") or "")
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # whatever the file holds
        return None
    bound = {
        target.id: value
        for node in tree.body
        if isinstance(node, ast.Assign) and (value := _literal(node.value, {})) is not None
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", "")) == "setup"
        ):
            for keyword in node.keywords:
                if keyword.arg == "name":
                    return _literal(keyword.value, bound) or None
    return None


def _literal(node: ast.expr, bound: dict[str, str]) -> str | None:
    """A string literal, a name ``bound`` to one, or the literal default of
    ``os.getenv("X", "default")`` / ``os.environ.get("X", "default")``; None otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return bound.get(node.id)
    if isinstance(node, ast.Call) and len(node.args) == 2:  # (variable, default)
        called = ast.unparse(node.func)
        if called in ("os.getenv", "getenv", "os.environ.get", "environ.get"):
            return _literal(node.args[1], bound)
    return None


def detect(snap: Snapshot) -> Detection:
    tags = tag_scheme(snap)
    model = release_model(snap)
    latest_version = None
    if tags.latest:
        m = _TAG.match(tags.latest)
        latest_version = m["base"] if m else None
    log, log_why, stale_log = changelog(snap)
    tests, tests_why = test_command(snap)
    docs_dir, docs_why = docs(snap)
    onnx, onnx_why = onnx_use(snap)
    version = version_source(snap, latest_version)
    rc, published = publishing.rc_model(
        snap, tags, rc_model(snap, tags), version, model.main_branch
    )
    return Detection(
        name=distribution_name(snap),
        version=version,
        tags=tags,
        model=model,
        build=build_kind(snap),
        changelog=log,
        changelog_why=log_why,
        stale_changelog=stale_log,
        conventional=conventional(snap),
        test_command=tests,
        tests_why=tests_why,
        docs=docs_dir,
        docs_why=docs_why,
        onnx=onnx,
        onnx_why=onnx_why,
        rc=rc,
        publish_notes=published,
    )
