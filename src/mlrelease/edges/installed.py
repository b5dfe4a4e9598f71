"""The running Python environment: what is installed in it, and how mlrelease got there.

The one reader of installed metadata (``importlib.metadata``), of module specs and of the
installers' records (uv's tool receipt, pipx's metadata, an editable install's
``direct_url.json``). It fills :class:`mlrelease.requirements.Environment`, which the
missing-dependency messages and ``mlrelease doctor`` are rendered from.

A module counts as installed only when the environment itself has it: the working directory
and the script's folder are left out of the search, and a folder without ``__init__.py`` (a
namespace package such as a project's ``build/`` report folder) is not a tool.
"""

from __future__ import annotations

import importlib.machinery
import importlib.metadata as metadata
import json
import os
import re
import shutil
import sys
import urllib.parse
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement

from mlrelease.requirements import (
    MODULES,
    PROJECT,
    Distribution,
    Environment,
    Installer,
    MissingDependency,
    normalize,
)
from mlrelease.requirements import missing_module as missing_in_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


def environment() -> Environment:
    """A snapshot of this interpreter's environment, for the table's modules."""
    names = {n for m in MODULES.values() for n in (m.distribution, *m.shadows, *m.alternatives)}
    return Environment(
        installer=installer(),
        prefix=sys.prefix,
        extras=extras(),
        providers=providers(MODULES),
        importable={name: has(name) for name in MODULES},
        distributions={n: v for n in sorted(names) if (v := version(n)) is not None},
    )


def version(distribution: str) -> str | None:
    """The installed version of ``distribution``, or None."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _search_path() -> list[str]:
    """``sys.path`` without the working directory and the running script's folder."""
    skip = {"", os.getcwd(), str(Path(sys.argv[0]).resolve().parent) if sys.argv[0] else ""}
    return [p for p in sys.path if p not in skip and os.path.abspath(p) not in skip]


def has(name: str) -> bool:
    """Whether this environment has the module (or, for a program, the command) ``name``."""
    info = MODULES.get(name)
    if info is not None and info.program:
        return program(name) is not None
    spec = importlib.machinery.PathFinder.find_spec(name.split(".")[0], _search_path())
    return spec is not None and spec.origin is not None


def require(module: str, *, needed_by: str = "", extra: str | None = None) -> None:
    """Raise :class:`MissingDependency` unless this environment has ``module``."""
    if not has(module):
        raise MissingDependency(module, needed_by=needed_by, extra=extra)


def module_of_import_error(exc: ImportError) -> str | None:
    """Which module an ImportError is about: its ``name``, ``No module named 'X'``, or the one
    of mlrelease's table that its message names and this environment lacks ("Pillow must be
    installed to use the reference implementation of the ImageDecoder operator")."""
    named = exc.name or missing_in_text(str(exc))
    if named:
        return named
    text = str(exc).lower()
    for module in MODULES.values():
        words = {module.name.lower(), module.distribution}
        if any(re.search(rf"\b{re.escape(w)}\b", text) for w in words) and not has(module.name):
            return module.name
    return None


def program(name: str) -> str | None:
    """The path of command ``name``: this environment's scripts folder first, then PATH."""
    scripts = str(Path(sys.executable).parent)
    return shutil.which(name, path=os.pathsep.join([scripts, os.environ.get("PATH", "")]))


def providers(names: Iterable[str]) -> dict[str, tuple[Distribution, ...]]:
    """Import name -> the installed distributions whose files include it."""
    table = metadata.packages_distributions()
    found: dict[str, tuple[Distribution, ...]] = {}
    for name in names:
        dists = dict.fromkeys(normalize(d) for d in table.get(name, ()))
        found[name] = tuple(Distribution(d, version(d) or "?") for d in dists)
    return found


def extras() -> dict[str, tuple[str, ...]]:
    """mlrelease's extras -> their requirements on this platform: from its checkout's
    pyproject.toml when it runs from one (an editable install's metadata is as old as the
    install), else from the installed package's metadata."""
    checkout = _checkout()
    if checkout:
        try:
            with (Path(checkout) / "pyproject.toml").open("rb") as handle:
                table = tomllib.load(handle).get("project", {}).get("optional-dependencies", {})
            return _on_this_platform({e: [str(r) for r in reqs] for e, reqs in table.items()})
        except (OSError, tomllib.TOMLDecodeError):
            pass
    try:
        meta = metadata.metadata(PROJECT)
        requires = metadata.requires(PROJECT) or []
    except metadata.PackageNotFoundError:
        return {}
    found: dict[str, list[str]] = {}
    for extra in meta.get_all("Provides-Extra") or []:
        for text in requires:
            try:
                req = Requirement(text)
            except InvalidRequirement:
                continue
            marker = req.marker  # `extra == "x"`: no marker is the package's own dependency
            mine = marker is not None and marker.evaluate({"extra": extra})
            if mine and marker is not None and not marker.evaluate({"extra": ""}):
                found.setdefault(extra, []).append(text)
    return _on_this_platform(found)


def _on_this_platform(table: dict[str, list[str]]) -> dict[str, tuple[str, ...]]:
    """Requirement strings without their markers, those whose marker excludes this platform
    left out (auditwheel on macOS)."""
    found: dict[str, tuple[str, ...]] = {}
    for extra, texts in table.items():
        reqs: list[str] = []
        for text in texts:
            try:
                req = Requirement(text)
            except InvalidRequirement:
                continue
            if req.marker is not None and not req.marker.evaluate({"extra": extra}):
                continue
            bracket = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
            reqs.append(f"{req.name}{bracket}{(req.url and ' @ ' + req.url) or req.specifier}")
        found[extra] = tuple(reqs)
    return found


def installer() -> Installer:
    """How mlrelease was installed here (see :class:`mlrelease.requirements.Installer`)."""
    prefix = Path(sys.prefix)
    receipt = prefix / "uv-receipt.toml"
    if receipt.is_file():
        return _uv_tool(receipt)
    if (prefix / "pipx_metadata.json").is_file():
        return Installer("pipx")
    kind = "pip" if has("pip") else "uv"
    return Installer(kind, python=_named_python(kind), checkout=_checkout())


def _named_python(kind: str) -> str:
    """Empty when the install command reaches this interpreter without naming it."""
    here = Path(sys.executable).parent
    if kind == "uv":
        active = os.environ.get("VIRTUAL_ENV")
        same = active is not None and Path(active).absolute() == Path(sys.prefix).absolute()
        return "" if same else sys.executable
    found = shutil.which("python")
    return "" if found and Path(found).parent.absolute() == here.absolute() else sys.executable


def _uv_tool(receipt: Path) -> Installer:
    """``uv tool install`` left a receipt: how mlrelease and its ``--with`` were asked for."""
    try:
        data = tomllib.loads(receipt.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return Installer("uv-tool", python=sys.executable)
    entries: list[dict[str, Any]] = list(data.get("tool", {}).get("requirements", []))
    spec, extras, with_ = PROJECT, (), []
    for entry in entries:
        text = _receipt_requirement(entry)
        if normalize(str(entry.get("name", ""))) == PROJECT:
            spec, extras = text, tuple(entry.get("extras", ()))
        else:
            with_.append(text)
    return Installer("uv-tool", python=sys.executable, spec=spec, extras=extras, with_=tuple(with_))


def _receipt_requirement(entry: dict[str, Any]) -> str:
    """A receipt entry as a requirement string, without its extras."""
    name = str(entry.get("name", ""))
    for key in ("path", "directory", "editable"):
        if key in entry:
            return f"{name} @ {Path(str(entry[key])).absolute().as_uri()}"
    if "url" in entry:
        return f"{name} @ {entry['url']}"
    if "git" in entry:
        return f"{name} @ git+{entry['git']}"
    return name + str(entry.get("specifier", ""))


def _checkout() -> str:
    """mlrelease's own checkout, when mlrelease runs from one (editable or from src/)."""
    root: Path | None = None
    try:
        raw = metadata.distribution(PROJECT).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        raw = None
    if raw:
        try:
            data = json.loads(raw)
        except ValueError:
            data = {}
        url = urllib.parse.urlparse(str(data.get("url", "")))
        if data.get("dir_info", {}).get("editable") and url.scheme == "file":
            root = Path(urllib.parse.unquote(url.path))
    package = Path(__file__).resolve().parents[1]
    if root is None and package.parent.name == "src":
        root = package.parents[1]
    if root is None or not (root / "pyproject.toml").is_file():
        return ""
    if not (root / "src" / PROJECT / "__init__.py").is_file():
        return ""
    try:
        relative = root.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return str(root)
    return relative.as_posix() if relative.parts else "."
