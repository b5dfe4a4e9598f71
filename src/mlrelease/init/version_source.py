"""Where a repository writes its version, read from a :class:`~mlrelease.init.snapshot.Snapshot`
(pure): the file and the exact search bump-my-version needs for each place that carries it, or
git tags (setuptools-scm, hatch-vcs), with the evidence for ``mlrelease init`` to show."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from packaging.version import InvalidVersion, Version

from mlrelease.init.snapshot import Snapshot, line_of, lookup


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
    built_from_tag: bool = False
    """The release version comes from the tag at build time (``version-source = "tag"``, the
    PyTorch family): release tags sit on commits whose version file says a development marker
    of their series, or, under the branch model, main carries the bare next version (a final
    version no tag has released yet, where the files model would carry a marker)."""
    left: list[str] = field(default_factory=list)
    """Other places that spell the version and do not move with it, each with the reason
    (:mod:`mlrelease.init.carriers`)."""

    @property
    def from_tags(self) -> bool:
        return self.kind == "scm"


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
                    line=line_of(text, m.start()),
                )
                if is_version(m["value"])
                else None
            )
    return None


def _value(snap: Snapshot, vf: VersionFile, text: str | None = None) -> str | None:
    """The version ``vf`` carries (in ``text``, by default the file's text at HEAD)."""
    text = (snap.text(vf.filename) or "") if text is None else text
    head, _, tail = vf.search.partition("{current_version}")
    if vf.regex:
        pattern = head + r"(?P<v>[0-9][^\s'\"]*)" + tail
    else:
        pattern = re.escape(head) + r"(?P<v>[0-9][^\s'\"]*)" + re.escape(tail)
    m = re.search(pattern, text, re.M)
    return m["v"] if m else None


def is_version(text: str) -> bool:
    """Whether ``text`` is a PEP 440 version."""
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


def package_dirs(snap: Snapshot, name: str | None) -> list[str]:
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
    for folder in package_dirs(snap, name):
        for base in ("__init__.py", "version.py", "_version.py", "__about__.py"):
            found = _assignment(snap, f"{folder}/{base}")
            if found:
                return found
    return None


def _file_version(snap: Snapshot, path: str) -> VersionFile | None:
    text = snap.text(path)
    if text is None or not is_version(text.strip()):
        return None
    return VersionFile(path, "^{current_version}$", "{new_version}", regex=True, line=1)


def _scm(data: Mapping[str, Any], snap: Snapshot) -> str | None:
    requires = " ".join(str(r) for r in lookup(data, "build-system.requires") or []).lower()
    setup = snap.text("setup.py") or ""
    if lookup(data, "tool.setuptools_scm") is not None:
        return "[tool.setuptools_scm] in pyproject.toml"
    if lookup(data, "tool.hatch.version.source") == "vcs":
        return "[tool.hatch.version] source = 'vcs' (hatch-vcs)"
    if "use_scm_version" in setup:
        return "setup.py passes use_scm_version"
    dynamic = lookup(data, "project.dynamic") or []
    if "version" in dynamic and re.search(r"setuptools[-_]scm|hatch-vcs|versioningit", requires):
        return "a dynamic version and a tag-versioning build requirement (" + requires + ")"
    return None


def version_source(snap: Snapshot, latest_tag_version: str | None) -> VersionSource:
    """Find where the version is written, and the exact search for each file carrying it.

    The model is ``tag`` only on evidence that the build does not take the files' version:
    release tags on commits whose files say another version. A bare version on main is no
    such evidence: torchao keeps its bare next version there and builds what version.txt
    says (its v0.14.1 was prepared by setting 0.14.1), which the files model allows."""
    data = snap.pyproject()
    name = lookup(data, "project.name")
    scm = _scm(data, snap)
    read = _read_by_setup(snap) if scm else None
    kind: Any
    primary: VersionFile | None
    if scm and read is None:
        return VersionSource(
            "scm",
            latest_tag_version,
            [],
            f"{scm}: the version comes from git tags, so a bump has no file to rewrite",
        )
    if read is not None:  # tensordict: setup.py hands version.txt to setuptools-scm
        kind, primary = "file", read[0]
        why = (
            f"{read[1]}; {scm} too, but a version file the build reads is the version's "
            f"source; {primary.filename} line {primary.line}"
        )
        current = _value(snap, primary)
    else:
        kind, primary, why, current = _declared(snap, data, name)
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
        if (
            vf
            and vf.filename not in {f.filename for f in files}
            and snap.is_tracked(vf.filename)  # one the build writes is never a version file
            and _value(snap, vf) == current
        ):
            files.append(vf)
    evidence = None
    if files:
        evidence = _tags_elsewhere(snap, files[0])
    if evidence:
        return VersionSource(kind, current, files, f"{why}; {evidence}", built_from_tag=True)
    return VersionSource(kind, current, files, why)


VERSION_FILES = ("VERSION_NUMBER", "VERSION", "VERSION.txt", "version.txt")
"""Files that hold nothing but the version, in the order they are looked for."""


def _read_by_setup(snap: Snapshot) -> tuple[VersionFile, str] | None:
    """The version file ``setup.py`` names (it reads it, e.g. to hand it to setuptools-scm as
    ``SETUPTOOLS_SCM_PRETEND_VERSION``), with the evidence; None when it names none."""
    setup = snap.text("setup.py") or ""
    for path in VERSION_FILES:
        m = re.search(rf"""['"](?:\./)?{re.escape(path)}['"]""", setup)
        vf = _file_version(snap, path) if m else None
        if m and vf:
            return vf, f"the {path} file (setup.py line {line_of(setup, m.start())} reads it)"
    return None


_TAGGED = re.compile(r"(?P<base>\d+\.\d+\.\d+)(?:[-.]?(?P<pre>a|b|rc)(?P<n>\d+))?$", re.ASCII)


def _tags_elsewhere(snap: Snapshot, vf: VersionFile) -> str | None:
    """Why releases take their version from the tag, or None: at least half of the recent
    release tags (final or RC) sit on commits whose ``vf`` carries a development version of
    the tag's series instead (``v2.13.0`` on ``2.13.0a0``), the PyTorch family's practice."""
    seen, elsewhere = 0, []
    for tag, texts in snap.tag_texts.items():
        m = _TAGGED.search(tag)
        text = texts.get(vf.filename)
        carried = _value(snap, vf, text) if m and text is not None else None
        if m is None or carried is None or not is_version(carried):
            continue
        seen += 1
        tagged = Version(m["base"] + (f"{m['pre']}{m['n']}" if m["pre"] else ""))
        files = Version(carried)
        marker = files.base_version != str(files) and files != tagged
        if marker and files.release[:2] == tagged.release[:2]:
            elsewhere.append(f"{tag} on {carried}")
    if not elsewhere or len(elsewhere) * 2 < seen:
        return None
    return (
        f"release tags sit on commits whose {vf.filename} says another version "
        f"({', '.join(elsewhere[:3])}): the build takes the version from the tag"
    )


def _declared(
    snap: Snapshot, data: Mapping[str, Any], name: str | None
) -> tuple[Any, VersionFile | None, str, str | None]:
    """(kind, the file carrying the version, why, the version) as the build declares it."""
    static = lookup(data, "project.version")
    dynamic = lookup(data, "project.dynamic") or []
    if isinstance(static, str) and "version" not in dynamic:
        # bump-my-version keeps a static [project] version in step by itself.
        why = "[project] version in pyproject.toml (bump-my-version updates it itself)"
        return "static", None, why, static
    if lookup(data, "tool.poetry.version"):
        text = snap.text("pyproject.toml") or ""
        m = re.search(r'^version = "(?P<v>[^"]+)"', text, re.M)
        primary = None
        if m:
            primary = VersionFile(
                "pyproject.toml",
                '^version = "{current_version}"',
                'version = "{new_version}"',
                regex=True,
                line=line_of(text, m.start()),
            )
        kind: Any = "poetry"
        why = "[tool.poetry] version"
    else:
        kind, primary, why = _build_files(snap, data, name)
    if primary is None:
        return kind, None, why, None
    return kind, primary, f"{why}; {primary.filename} line {primary.line}", _value(snap, primary)


def _build_files(
    snap: Snapshot, data: Mapping[str, Any], name: str | None
) -> tuple[Any, VersionFile | None, str]:
    """Where the build backend reads a dynamic version: setuptools' attr or file, hatch's path,
    a literal in setup.py, a VERSION file, a package's ``__version__``."""
    attr = lookup(data, "tool.setuptools.dynamic.version.attr")
    file = lookup(data, "tool.setuptools.dynamic.version.file")
    hatch = lookup(data, "tool.hatch.version.path")
    if isinstance(attr, str):
        module, _, variable = attr.rpartition(".")
        primary = next(
            (
                f
                for f in (_assignment(snap, p, (variable,)) for p in _module_files(snap, module))
                if f
            ),
            None,
        )
        if primary is None:  # e.g. `from .version import __version__`
            primary = _version_in_package(snap, module.split(".")[0])
        why = f"[tool.setuptools.dynamic] version = {{attr = {attr!r}}}"
        if primary is None:  # torchtune: `__version__ = ""`, written by the build
            file = next(filter(None, map(lambda p: _file_version(snap, p), VERSION_FILES)), None)
            if file is not None:
                why += f", empty in the tree (the build writes it); the {file.filename} file"
                return "file", file, why + " holds the version"
        return "attr", primary, why
    if isinstance(file, (str, list)):
        path = file if isinstance(file, str) else file[0]
        why = f"[tool.setuptools.dynamic] version = {{file = {path!r}}}"
        return "file", _file_version(snap, path), why
    if isinstance(hatch, str):
        return "hatch", _assignment(snap, hatch), f"[tool.hatch.version] path = {hatch!r}"
    setup = snap.text("setup.py") or ""
    m = re.search(r"""\bversion\s*=\s*(?P<q>['"])(?P<v>[0-9][^'"]*)(?P=q)""", setup)
    if m and is_version(m["v"]):
        head = setup[m.start() : m.start("v")]
        primary = VersionFile(
            "setup.py",
            head + "{current_version}" + m["q"],
            head + "{new_version}" + m["q"],
            line=line_of(setup, m.start()),
        )
        return "setup.py", primary, "a literal version= in setup.py"
    skbuild = lookup(data, "tool.scikit-build.metadata.version.input")
    if skbuild in VERSION_FILES and (primary := _file_version(snap, skbuild)):
        reader = "scikit-build-core ([tool.scikit-build.metadata.version] input)"
        return "file", primary, f"the {skbuild} file (read by {reader})"
    read = _read_by_setup(snap)
    if read:
        return "file", *read
    for path in VERSION_FILES:
        primary = _file_version(snap, path)
        if primary:
            return "file", primary, f"the {path} file (read by the build)"
    primary = _version_in_package(snap, name)
    if primary:
        return "attr", primary, f"__version__ in {primary.filename}"
    return "unknown", None, ""
