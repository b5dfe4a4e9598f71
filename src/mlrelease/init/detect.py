"""What a repository is, read from a :class:`~mlrelease.init.snapshot.Snapshot` (pure).

Each detector returns its conclusion with the evidence (a file and line, tags, branches), so that
``mlrelease init`` can say why it proposes each line.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from packaging.version import InvalidVersion, Version

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
from mlrelease.init.snapshot import Snapshot

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


@dataclass(frozen=True)
class Finding:
    """One conclusion: a topic, what was found, and why."""

    topic: str
    found: str
    why: str


@dataclass(frozen=True)
class VersionFile:
    """A file that carries the version, with the exact bump-my-version search for it."""

    filename: str
    search: str
    replace: str
    regex: bool = False
    line: int = 0


@dataclass(frozen=True)
class VersionSource:
    """Where the version lives."""

    kind: Literal["static", "attr", "file", "scm", "setup.py", "hatch", "poetry", "unknown"]
    current: str | None
    files: list[VersionFile] = field(default_factory=list)
    why: str = ""

    @property
    def from_tags(self) -> bool:
        return self.kind == "scm"


@dataclass(frozen=True)
class Build:
    kind: Literal["pure", "native"]
    cibuildwheel: bool
    why: str


@dataclass(frozen=True)
class Detection:
    """Everything ``init`` concluded about a repository."""

    name: str | None
    version: VersionSource
    tags: TagScheme
    model: Model
    build: Build
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
            Finding("tags", f"{self.tags.tag} / {self.tags.rc_tag}", self.tags.why),
            Finding("release model", f"{self.model.name} ({self.model.branch})", self.model.why),
            Finding("release candidates", self.rc.name, self.rc.why),
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


def _toml(snap: Snapshot) -> dict[str, Any]:
    text = snap.text("pyproject.toml")
    if text is None:
        return {}
    try:
        data: dict[str, Any] = tomllib.loads(text)
        return data
    except tomllib.TOMLDecodeError:
        return {}


def _get(data: Mapping[str, Any], dotted: str) -> Any:
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


_ASSIGN = re.compile(
    r"^(?P<lhs>(?P<name>__version__|VERSION|version)\s*(?::\s*str\s*)?=\s*)"
    r"(?P<q>['\"])(?P<value>[0-9][^'\"\s]*)(?P=q)",
    re.M,
)


def _assignment(
    snap: Snapshot, path: str, names: tuple[str, ...] = ("__version__",)
) -> VersionFile | None:
    """``__version__ = "1.2.3"`` in ``path`` as an exact search, or None."""
    text = snap.text(path)
    if text is None:
        return None
    for m in _ASSIGN.finditer(text):
        if m["name"] in names:
            prefix, quote = m["lhs"], m["q"]
            return (
                VersionFile(
                    path,
                    f"{prefix}{quote}{{current_version}}{quote}",
                    f"{prefix}{quote}{{new_version}}{quote}",
                    line=_line_of(text, m.start()),
                )
                if _is_version(m["value"])
                else None
            )
    return None


def _value(snap: Snapshot, vf: VersionFile) -> str | None:
    text = snap.text(vf.filename) or ""
    head, _, tail = vf.search.partition("{current_version}")
    if vf.regex:
        pattern = head + r"(?P<v>[0-9][^\s'\"]*)" + tail
    else:
        pattern = re.escape(head) + r"(?P<v>[0-9][^\s'\"]*)" + re.escape(tail)
    m = re.search(pattern, text, re.M)
    return m["v"] if m else None


def _is_version(text: str) -> bool:
    try:
        Version(text)
    except InvalidVersion:
        return False
    return True


def _module_files(snap: Snapshot, dotted: str) -> list[str]:
    """Candidate files of module ``dotted`` (``pkg.version`` -> ``src/pkg/version.py`` ...)."""
    rel = dotted.replace(".", "/")
    out = []
    for base in ("", "src/"):
        out += [f"{base}{rel}/__init__.py", f"{base}{rel}.py"]
    return [p for p in out if snap.has(p)]


def _package_dirs(snap: Snapshot, name: str | None) -> list[str]:
    """Top-level packages (folders with ``__init__.py`` at the top or under ``src/``), the one
    named like the distribution first."""
    tops = sorted(
        {
            p.rsplit("/", 1)[0]
            for p in snap.files
            if p.endswith("/__init__.py")
            and (p.count("/") == 1 or (p.startswith("src/") and p.count("/") == 2))
            and not p.startswith(("tests/", "test/", "docs/", "examples/"))
        }
    )
    wanted = (name or "").lower().replace("-", "_")
    return sorted(tops, key=lambda d: (d.rsplit("/", 1)[-1].lower() != wanted, d))


def _version_in_package(snap: Snapshot, name: str | None) -> VersionFile | None:
    for folder in _package_dirs(snap, name):
        for base in ("__init__.py", "version.py", "_version.py", "__about__.py"):
            found = _assignment(snap, f"{folder}/{base}")
            if found:
                return found
    return None


def _file_version(snap: Snapshot, path: str) -> VersionFile | None:
    text = snap.text(path)
    if text is None or not _is_version(text.strip()):
        return None
    return VersionFile(path, "^{current_version}$", "{new_version}", regex=True, line=1)


def _scm(data: Mapping[str, Any], snap: Snapshot) -> str | None:
    requires = " ".join(str(r) for r in _get(data, "build-system.requires") or []).lower()
    setup = snap.text("setup.py") or ""
    if _get(data, "tool.setuptools_scm") is not None:
        return "[tool.setuptools_scm] in pyproject.toml"
    if _get(data, "tool.hatch.version.source") == "vcs":
        return "[tool.hatch.version] source = 'vcs' (hatch-vcs)"
    if "use_scm_version" in setup:
        return "setup.py passes use_scm_version"
    dynamic = _get(data, "project.dynamic") or []
    if "version" in dynamic and re.search(r"setuptools[-_]scm|hatch-vcs|versioningit", requires):
        return "a dynamic version and a tag-versioning build requirement (" + requires + ")"
    return None


def version_source(snap: Snapshot, latest_tag_version: str | None) -> VersionSource:
    """Find where the version is written, and the exact search for each file carrying it."""
    data = _toml(snap)
    name = _get(data, "project.name")
    static = _get(data, "project.version")
    dynamic = _get(data, "project.dynamic") or []
    scm = _scm(data, snap)
    if scm:
        return VersionSource(
            "scm",
            latest_tag_version,
            [],
            f"{scm}: the version comes from git tags, so a bump has no file to rewrite",
        )
    primary: VersionFile | None = None
    kind: Any = "unknown"
    why = ""
    current: str | None = None
    if isinstance(static, str) and "version" not in dynamic:
        # bump-my-version keeps a static [project] version in step by itself.
        kind, current = "static", static
        why = "[project] version in pyproject.toml (bump-my-version updates it itself)"
    elif _get(data, "tool.poetry.version"):
        kind = "poetry"
        text = snap.text("pyproject.toml") or ""
        m = re.search(r'^version = "(?P<v>[^"]+)"', text, re.M)
        if m:
            primary = VersionFile(
                "pyproject.toml",
                '^version = "{current_version}"',
                'version = "{new_version}"',
                regex=True,
                line=_line_of(text, m.start()),
            )
        why = "[tool.poetry] version"
    else:
        attr = _get(data, "tool.setuptools.dynamic.version.attr")
        file = _get(data, "tool.setuptools.dynamic.version.file")
        hatch = _get(data, "tool.hatch.version.path")
        if isinstance(attr, str):
            module, _, variable = attr.rpartition(".")
            for path in _module_files(snap, module):
                primary = _assignment(snap, path, (variable,))
                if primary:
                    break
            if primary is None:  # e.g. `from .version import __version__`
                primary = _version_in_package(snap, module.split(".")[0])
            kind, why = "attr", f"[tool.setuptools.dynamic] version = {{attr = {attr!r}}}"
        elif isinstance(file, (str, list)):
            path = file if isinstance(file, str) else file[0]
            primary = _file_version(snap, path)
            kind, why = "file", f"[tool.setuptools.dynamic] version = {{file = {path!r}}}"
        elif isinstance(hatch, str):
            primary = _assignment(snap, hatch)
            kind, why = "hatch", f"[tool.hatch.version] path = {hatch!r}"
        else:
            setup = snap.text("setup.py") or ""
            m = re.search(r"""\bversion\s*=\s*(?P<q>['"])(?P<v>[0-9][^'"]*)(?P=q)""", setup)
            if m and _is_version(m["v"]):
                head = setup[m.start() : m.start("v")]
                primary = VersionFile(
                    "setup.py",
                    head + "{current_version}" + m["q"],
                    head + "{new_version}" + m["q"],
                    line=_line_of(setup, m.start()),
                )
                kind, why = "setup.py", "a literal version= in setup.py"
            else:
                skbuild = _get(data, "tool.scikit-build.metadata.version.input")
                for path in ("VERSION_NUMBER", "VERSION", "VERSION.txt", "version.txt"):
                    primary = _file_version(snap, path)
                    if primary:
                        reader = (
                            "scikit-build-core ([tool.scikit-build.metadata.version] input)"
                            if skbuild == path
                            else "the build"
                        )
                        kind, why = "file", f"the {path} file (read by {reader})"
                        break
                else:
                    primary = _version_in_package(snap, name)
                    if primary:
                        kind, why = "attr", f"__version__ in {primary.filename}"
        if primary is not None:
            current = _value(snap, primary)
            why += f"; {primary.filename} line {primary.line}"
    if current is None:
        return VersionSource(
            "unknown",
            latest_tag_version,
            [],
            "no version found in pyproject.toml, setup.py, a VERSION file or "
            "a package's __version__",
        )
    files = [primary] if primary else []
    # Other files that spell the same version in a recognisable assignment travel with it.
    extra = [_version_in_package(snap, name)] + [
        _file_version(snap, p) for p in ("VERSION_NUMBER", "VERSION")
    ]
    for vf in extra:
        if vf and vf.filename not in {f.filename for f in files} and _value(snap, vf) == current:
            files.append(vf)
    return VersionSource(kind, current, files, why)


NATIVE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".cu", ".pyx", ".rs", ".f90")
NATIVE_BACKENDS = ("scikit_build_core", "mesonpy", "maturin", "py_build_cmake", "setuptools_rust")


def build_kind(snap: Snapshot) -> Build:
    data = _toml(snap)
    cibw = _get(data, "tool.cibuildwheel") is not None
    reasons: list[str] = []
    backend = str(_get(data, "build-system.build-backend") or "")
    if any(b in backend for b in NATIVE_BACKENDS):
        reasons.append(f"build backend {backend}")
    setup = snap.text("setup.py") or ""
    if re.search(r"\bext_modules\b|\bExtension\(|CMakeExtension|build_ext", setup):
        reasons.append("setup.py builds extension modules")
    if snap.has("CMakeLists.txt"):
        reasons.append("CMakeLists.txt at the root")
    sources = [
        p
        for p in snap.files
        if p.endswith(NATIVE_SUFFIXES)
        and not p.startswith(("tests/", "test/", "docs/", "examples/"))
    ]
    if sources:
        reasons.append(f"{len(sources)} compiled source file(s) such as {sources[0]}")
    table = "; [tool.cibuildwheel] names the platforms" if cibw else ""
    if reasons:
        return Build("native", cibw, "; ".join(reasons) + table)
    return Build(
        "pure",
        cibw,
        "no C/C++/Cython sources, extension modules or native build "
        "backend: one py3-none-any wheel" + table,
    )


def test_command(snap: Snapshot) -> tuple[list[str] | None, str]:
    data = _toml(snap)
    has_tests = any(re.search(r"(^|/)(test_[^/]*|[^/]*_test)\.py$", p) for p in snap.files)
    config = (
        _get(data, "tool.pytest") is not None
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


def docs(snap: Snapshot) -> tuple[str | None, str]:
    # Shallowest first: docs/conf.py before docs/docsgen/source/conf.py (ONNX).
    deeper = sorted(
        (p.removesuffix("/conf.py") for p in snap.files if re.match(r"docs?/.*conf\.py$", p)),
        key=lambda p: (p.count("/"), p),
    )
    for folder in ("docs", "doc", "docs/source", "doc/source", *deeper):
        if f"{folder}/conf.py" in snap.files:
            return folder, (
                f"Sphinx ({folder}/conf.py); add `docs` to gates once its build "
                "requirements are in the release environment"
            )
    return None, "no Sphinx conf.py in docs/ or doc/"


def onnx_use(snap: Snapshot) -> tuple[bool, str]:
    data = _toml(snap)
    if _get(data, "project.name") == "onnx":
        return True, "the project is onnx itself: its make_model stamps what models carry"
    deps = [str(d) for d in _get(data, "project.dependencies") or []]
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
            return True, f"{path} line {_line_of(text, m.start())} requires onnx"
    return False, "onnx is not a dependency: the `compat` gate is not proposed"


def detect(snap: Snapshot) -> Detection:
    data = _toml(snap)
    tags = tag_scheme(snap)
    rc = rc_model(snap, tags)
    latest_version = None
    if tags.latest:
        m = _TAG.match(tags.latest)
        latest_version = m["base"] if m else None
    log, log_why = changelog(snap)
    tests, tests_why = test_command(snap)
    docs_dir, docs_why = docs(snap)
    onnx, onnx_why = onnx_use(snap)
    name = _get(data, "project.name")
    return Detection(
        name=name if isinstance(name, str) else None,
        version=version_source(snap, latest_version),
        tags=tags,
        model=release_model(snap),
        build=build_kind(snap),
        changelog=log,
        changelog_why=log_why,
        conventional=conventional(snap),
        test_command=tests,
        tests_why=tests_why,
        docs=docs_dir,
        docs_why=docs_why,
        onnx=onnx,
        onnx_why=onnx_why,
        rc=rc,
    )
