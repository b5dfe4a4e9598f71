"""What conformance cases need from the machine: provided when it can be, named when it cannot.

A case that fails because the machine lacks something (a locale, an optional module such as
Pillow, which the onnx reference evaluator's ImageDecoder imports) gets the verdict
``environment``: not measured here, never a regression; the index keeps its committed verdict and
the message names what is missing and how to install it.

onnxruntime's StringNormalizer builds a C++ locale (``en_US.UTF-8`` unless the model names
another). Fresh Debian and Ubuntu images have no such locale, so those cases fail for a reason
that says nothing about onnxruntime. When glibc's ``localedef`` and the locale sources are
there, the locale is compiled once into the cache and handed to the workers through
``LOCPATH``; otherwise such a case gets the verdict ``environment``, whose message names the
missing locale and how to install it, and the index keeps its committed verdict.
"""

from __future__ import annotations

import functools
import locale
import os
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from mlrelease import requirements
from mlrelease.edges import installed
from mlrelease.edges.proc import call

REQUIRED_LOCALES = ("en_US.UTF-8",)
"""Locales the node suite needs: onnxruntime's StringNormalizer default."""

LOCALE_ERROR = re.compile(r"failed to construct locale with name:\s*([\w.@-]+)", re.I)
"""How a backend says a locale is missing (onnxruntime's message)."""

INSTALL_HINT = (
    "install the locale sources so that mlrelease can compile it (Debian/Ubuntu: "
    "`apt-get install locales`), or the locale itself (`localedef -i en_US -f UTF-8 en_US.UTF-8`)"
)


@dataclass(frozen=True)
class Provision:
    """What the workers get: environment overrides, and what could not be provided."""

    env: dict[str, str] = field(default_factory=dict)
    provided: tuple[str, ...] = ()
    """Locales compiled into the cache for this run."""
    missing: dict[str, str] = field(default_factory=dict)
    """Locale -> why it could not be provided."""


def has_locale(name: str) -> bool:
    """Whether this process's C library can load the locale ``name`` (``LOCPATH`` honoured)."""
    saved = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, name)
    except locale.Error:
        return False
    finally:
        locale.setlocale(locale.LC_CTYPE, saved)
    return True


def _glibc() -> str | None:
    try:
        version = os.confstr("CS_GNU_LIBC_VERSION")
    except (AttributeError, ValueError, OSError):
        return None
    return version.replace(" ", "-") if version else None


def _compile(name: str, folder: Path) -> str | None:
    """Compile ``name`` (``lang_TERRITORY.CHARSET``) into ``folder``; None, or why not."""
    localedef = shutil.which("localedef")
    if localedef is None:
        return "`localedef` (glibc's locale compiler) is not on PATH"
    source, _, charset = name.partition(".")
    if (folder / name / "LC_CTYPE").is_file():
        return None
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".{name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    proc = call([localedef, "-i", source, "-f", charset or "UTF-8", str(partial)])
    # localedef exits 1 on warnings with the locale written; LC_CTYPE is what the cases use.
    if not (partial / "LC_CTYPE").is_file():
        shutil.rmtree(partial, ignore_errors=True)
        why = " ".join((proc.stderr or proc.stdout).split())[:200]
        return f"`localedef -i {source} -f {charset}` failed: {why or f'exit {proc.returncode}'}"
    shutil.rmtree(folder / name, ignore_errors=True)
    partial.rename(folder / name)  # atomic: a concurrent run sees all of it or none
    return None


def provide(cache_dir: Path, names: Iterable[str] = REQUIRED_LOCALES) -> Provision:
    """Make ``names`` loadable by the workers, compiling into ``cache_dir`` what is missing."""
    wanted = [n for n in names if not has_locale(n)]
    if not wanted:
        return Provision()
    glibc = _glibc()
    if glibc is None:
        return Provision(
            missing={n: "not installed, and this is not a glibc system" for n in wanted}
        )
    folder = cache_dir / "locales" / glibc
    missing = {n: why for n in wanted if (why := _compile(n, folder))}
    provided = tuple(n for n in wanted if n not in missing)
    if not provided:
        return Provision(missing=missing)
    search = [str(folder), os.environ.get("LOCPATH", ""), "/usr/lib/locale"]
    env = {"LOCPATH": os.pathsep.join(p for p in search if p)}
    return Provision(env=env, provided=provided, missing=missing)


def explain(exc: BaseException) -> str | None:
    """The ``environment`` verdict's message for a backend error, or None when it is not one:
    a missing locale, or a module this environment lacks (an ImportError)."""
    found = LOCALE_ERROR.search(str(exc))
    if found:
        return (
            f"needs the {found.group(1)} locale, which this machine does not have and mlrelease "
            f"could not compile: {INSTALL_HINT}"
        )
    if not isinstance(exc, ImportError):
        return None
    module = installed.module_of_import_error(exc)
    if module is None:
        return f"needs a module this environment lacks ({type(exc).__name__}: {exc})"
    missing = requirements.MissingDependency(module, needed_by="the case", extra="ops")
    return str(missing.within(_environment()))


@functools.lru_cache(maxsize=1)
def _environment() -> requirements.Environment:
    """Read once per worker: every case that lacks a module names the same install line."""
    return installed.environment()
