"""The reference build of a commit: what the release's files must be (issues 44, 48).

The commit's tree is checked out from git objects alone (:mod:`mlrelease.edges.checkout`: no
filter, no attribute outside the commit, no eol conversion, no configuration from the
environment; submodules at their recorded commits; HEAD at the commit, so a build that writes
the commit's hash gets it), and built with pypa/build the two ways releases are built, under
``SOURCE_DATE_EPOCH`` (the commit's time) and an environment without git variables:

- the sdist from the tree, and the wheel from that sdist (``python -m build``; what
  ``pip install`` of the sdist makes);
- the wheel from the tree (cibuildwheel, ``pip wheel .``), kept when it differs from the
  first (a build that writes the commit's hash where git answers: in the tree, not in the
  unpacked sdist).

A wheel built from the tree and not from the sdist refuses the release (the sdist lacks a file
the build needs). When no wheel builds here at all (a CUDA or Bazel build), the wheel's metadata
is prepared from the sdist instead, and :attr:`Reference.notes` says why: the comparison then
takes the metadata-only path, which the project must declare.

A reference is cached by commit in the clone's git folder (``mlrelease/reference/<commit>``),
but the cache is only a speed-up: anything the project's build runs could have written it.
:func:`build` reads it only when its :attr:`~Reference.digest` is one recorded where the build
could not write (the manifest origin binds to the RC); the first ``release bind`` of an RC,
which no manifest vouches for yet, builds anew.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mlrelease.edges import checkout, git
from mlrelease.errors import UserError
from mlrelease.wheels import members
from mlrelease.wheels.build import pypa_build

CACHE = "mlrelease/reference"
"""Below the clone's git folder: one folder per commit."""
STATE = "reference.json"
FILES = ("sdist", "wheel", "tree_wheel")


@dataclass(frozen=True)
class Reference:
    """What ``commit`` builds here: its sdist, its wheels (or only the wheel's metadata)."""

    commit: str
    sdist: Path | None = None
    wheel: Path | None = None
    """The wheel built from the sdist."""
    tree_wheel: Path | None = None
    """The wheel built from the tree, when its members differ from :attr:`wheel`'s."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """The wheel's core metadata as ``python -m build --metadata`` prints it (JSON fields),
    where no wheel builds here."""
    broken: str = ""
    """Why the commit is no release: its sdist does not build, or its sdist does not build a
    wheel that its tree builds (empty: it is one)."""
    notes: tuple[str, ...] = ()
    """Why no wheel of the commit builds here (the metadata-only path), if none does."""
    source: str = ""
    """The source digest of the tree the build read (:func:`mlrelease.edges.checkout.digest`)."""
    digest: str = ""
    """SHA-256 of the reference itself (:func:`_digest`): the same for every build of the
    commit, so the manifest that records it stays the same when bind runs again."""
    seconds: float = 0.0
    """How long the build took (0.0 when it was read from the cache)."""
    cached: bool = False

    @property
    def wheels(self) -> tuple[Path, ...]:
        """The reference wheels: from the sdist, then from the tree (when it differs)."""
        return tuple(w for w in (self.wheel, self.tree_wheel) if w is not None)


def build(
    root: Path,
    commit: str,
    version: str = "",
    stamp: Callable[[Path], None] | None = None,
    *,
    trusted: str = "",
) -> Reference:
    """The reference of ``commit``. ``stamp``: writes ``version`` into the tree first, as the
    release build does where the version comes from the tag (``version-source = "tag"``).
    ``trusted``: the digest of this reference as recorded where no build could write it; the
    cache is read only when it holds exactly that, and otherwise the commit is built again."""
    folder = git.git_dir(root) / CACHE / (f"{commit}-{version}" if stamp else commit)
    if trusted and (folder / STATE).is_file():
        found = _load(folder, commit)
        if found.digest == trusted:
            return found
    started = time.monotonic()
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mlrelease-reference-") as tmp:
        work = Path(tmp)
        out = work / "out"
        state = _make(root, commit, work, out, stamp)
        state["seconds"] = round(time.monotonic() - started, 3)
        (out / STATE).write_text(json.dumps(state, indent=1), encoding="utf-8")
        made = _load(out, commit).digest
        _install(out, folder)
    found = _load(folder, commit)
    if found.digest != made:  # replaced between the build and this read: not the build's
        raise UserError(
            f"the reference build of {commit[:12]} in {folder} changed while it was read; "
            "something else writes there (a build step?). Re-run."
        )
    return replace(found, cached=False)


def _install(out: Path, folder: Path) -> None:
    """Put ``out`` at ``folder`` whole (a killed run leaves no half), replacing what is there."""
    staged = Path(tempfile.mkdtemp(prefix=f"{folder.name}.", dir=folder.parent))
    shutil.rmtree(staged)
    shutil.copytree(out, staged)
    try:
        os.replace(staged, folder)
    except OSError:  # a folder is there: an older build, or one nobody trusts
        shutil.rmtree(folder, ignore_errors=True)
        try:
            os.replace(staged, folder)
        except OSError:  # another run put it there meanwhile
            shutil.rmtree(staged, ignore_errors=True)


def source_digest(root: Path, rev: str) -> tuple[str, str]:
    """(the commit ``rev`` names, the source digest of its tree as the reference reads it)."""
    commit = git.run(root, "rev-parse", "--verify", f"{rev}^{{commit}}")
    with tempfile.TemporaryDirectory(prefix="mlrelease-source-") as tmp:
        checkout.export(root, commit, Path(tmp) / "tree")
        return commit, checkout.digest(Path(tmp) / "tree")


PASSED = re.compile(
    r"PATH|USER|LOGNAME|USERNAME|PYENV_ROOT"
    r"|SYSTEMROOT|SYSTEMDRIVE|COMSPEC|PATHEXT|WINDIR|PROGRAMDATA"
    r"|PIP_(INDEX_URL|EXTRA_INDEX_URL|FIND_LINKS|TRUSTED_HOST|CERT|CLIENT_CERT|DEFAULT_TIMEOUT"
    r"|RETRIES|PROXY|DISABLE_PIP_VERSION_CHECK|NO_INPUT|NO_COLOR|PROGRESS_BAR)"
    r"|UV_(INDEX_URL|EXTRA_INDEX_URL|DEFAULT_INDEX|INDEX|FIND_LINKS|NATIVE_TLS|CACHE_DIR"
    r"|HTTP_TIMEOUT|INSECURE_HOST)"
    r"|SSL_CERT_FILE|SSL_CERT_DIR|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE"
    r"|(https?|all|no)_proxy|(HTTPS?|ALL|NO)_PROXY",
    re.IGNORECASE if os.name == "nt" else 0,
)
"""The only variables of this process the reference's builds see: how to find programs and
Python, the operating system's own (Windows), and the administrator's package sources (indexes,
a wheelhouse, certificates, proxies), which a fresh CI machine has too. Any
other variable can change what a build makes without a file of the commit saying so
(``HATCH_BUILD_HOOKS_ENABLE=1`` runs a hook the project left off, ``SETUPTOOLS_SCM_PRETEND_VERSION``
sets the version, ``CFLAGS`` the compiled code, ``PIP_CONSTRAINT`` the backend): the
reference is what the commit builds on a machine without them. The package sources are the
one trust taken from this machine: a backend they serve builds the reference as it builds CI's
(docs/release/reference-build.md says what that leaves open)."""

BUILD_SWITCHES = re.compile(
    r"(HATCH|HATCHLING|SETUPTOOLS|SETUPTOOLS_SCM|PDM|FLIT|POETRY|MATURIN|SKBUILD|CMAKE|MESON"
    r"|CIBW|PIP|UV|DISTUTILS|PYTHON|CUDA|TORCH|NVCC)_\w*"
    r"|_PYTHON_\w+|CC|CXX|CPP|LD|AR|CFLAGS|CXXFLAGS|CPPFLAGS|LDFLAGS|LDSHARED|ARCHFLAGS"
    r"|MACOSX_DEPLOYMENT_TARGET|PKG_CONFIG_PATH|MAX_JOBS|SOURCE_DATE_EPOCH"
)
"""Variables left out of the reference's builds that build tools read: named when a refusal
could come from them, since this clone's own build saw them."""


def environment(root: Path, commit: str, home: Path) -> dict[str, str]:
    """What the reference's builds run with: only the :data:`PASSED` variables of this
    process, no git variable or configuration (the build's own git calls see the checked-out
    tree's repository alone), ``SOURCE_DATE_EPOCH`` at the commit's time (``__DATE__``,
    archive timestamps), and ``home``, an empty folder, for a home.

    A home holds configuration that build tools read and no file of the commit says: an
    adversary's ``~/.pydistutils.cfg`` added a dependency to setuptools' metadata, and a
    ``~/.gitconfig`` whose ``core.attributesFile`` said ``export-ignore`` made setuptools-scm's
    file finder (which runs git without ``GIT_`` variables) leave a committed file out, in the
    maintainer's build and the reference alike. Only the package installers' caches are kept
    (content they fetched, not configuration), so a build need not fetch its backend again."""
    env = git.bare_environment({k: v for k, v in os.environ.items() if PASSED.fullmatch(k)})
    env["SOURCE_DATE_EPOCH"] = git.run(root, "show", "-s", "--format=%ct", commit)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    env["UV_CACHE_DIR"] = os.environ.get("UV_CACHE_DIR") or str(cache / "uv")
    env["PIP_CACHE_DIR"] = os.environ.get("PIP_CACHE_DIR") or str(cache / "pip")
    home.mkdir(parents=True, exist_ok=True)
    for name in ("HOME", "USERPROFILE"):
        env[name] = str(home)
    env["APPDATA"] = str(home / "AppData" / "Roaming")
    env["LOCALAPPDATA"] = str(home / "AppData" / "Local")
    return env


def left_out() -> list[str]:
    """The build tools' variables of this process that the reference's builds do not see."""
    return sorted(k for k in os.environ if BUILD_SWITCHES.fullmatch(k) and not PASSED.fullmatch(k))


WALK_STOPS = (".git", ".hg")
"""Where a build backend stops looking upward for files outside the project: hatchling walks up
to the nearest ``.hgignore`` until a folder holding ``.hg``, and to the nearest ``.gitignore``
until a folder holding ``.git`` (an unpacked sdist holds none), and includes the file it found
in the sdist. An adversary's ``/tmp/.hgignore`` made the candidate and the reference both leave
a committed module out, and they matched. So the reference builds in a folder holding an empty
``.git`` and ``.hg`` (no repository: git and hg look past them), and pypa/build unpacks the sdist
there too (``TMPDIR``): no file outside the commit decides what the reference holds."""


def _make(
    root: Path, commit: str, work: Path, out: Path, stamp: Callable[[Path], None] | None
) -> dict[str, Any]:
    """Build into ``out`` and return what :func:`_load` reads back."""
    tree = work / "tree"
    checkout.export(root, commit, tree)
    state: dict[str, Any] = {"source": checkout.digest(tree)}
    if stamp is not None:
        stamp(tree)
    env = environment(root, commit, work / "home")
    for temp in ("TMPDIR", "TEMP", "TMP"):  # pypa/build unpacks the sdist here, under `work`
        env[temp] = str(work / "tmp")
    (work / "tmp").mkdir()
    for boundary in WALK_STOPS:  # a backend walking up stops here: nothing outside counts
        (work / boundary).mkdir()
    out.mkdir()
    try:
        pypa_build(tree, "--sdist", "--outdir", str(out), cwd=work, env=env)
    except UserError as exc:
        return {
            **state,
            "broken": f"the sdist of {commit[:12]} does not build from its tree: {exc}",
        }
    sdist = next(out.glob("*.tar.gz"))
    state["sdist"] = sdist.name
    wheels = {}
    errors = {}
    for name, source in (("wheel", sdist), ("tree_wheel", tree)):
        try:
            pypa_build(source, "--wheel", "--outdir", str(out / name), cwd=work, env=env)
            wheels[name] = next((out / name).glob("*.whl"))
        except UserError as exc:
            errors[name] = str(exc)
    return _judge(commit, out, state, wheels, errors, sdist, work, env)


def _judge(
    commit: str,
    out: Path,
    state: dict[str, Any],
    wheels: dict[str, Path],
    errors: dict[str, str],
    sdist: Path,
    work: Path,
    env: dict[str, str],
) -> dict[str, Any]:
    """What the builds of ``_make`` make of the commit."""
    if "wheel" in wheels:
        state["wheel"] = wheels["wheel"].relative_to(out).as_posix()
        tree = wheels.get("tree_wheel")
        if tree is not None and members.view(tree) != members.view(wheels["wheel"]):
            state["tree_wheel"] = tree.relative_to(out).as_posix()
        return state
    if "tree_wheel" in wheels:
        state["broken"] = (
            f"the sdist {sdist.name} of {commit[:12]} does not build a wheel, while its tree "
            f"does: the sdist lacks a file the build needs (MANIFEST.in, the backend's sdist "
            f"includes). {errors['wheel']}"
        )
        return state
    try:
        state["metadata"] = json.loads(pypa_build(sdist, "--metadata", cwd=work, env=env))
    except (UserError, json.JSONDecodeError) as exc:
        state["broken"] = f"the sdist {sdist.name} yields no wheel metadata: {exc}"
        return state
    last = errors["wheel"].strip().splitlines()[-1:] or [""]
    state["notes"] = [f"no wheel of {commit[:12]} builds on this machine ({last[0][:300]})"]
    return state


def _load(folder: Path, commit: str) -> Reference:
    state = json.loads((folder / STATE).read_text(encoding="utf-8"))
    paths = {k: folder / state[k] if state.get(k) else None for k in FILES}
    return Reference(
        commit=commit,
        sdist=paths["sdist"],
        wheel=paths["wheel"],
        tree_wheel=paths["tree_wheel"],
        metadata=state.get("metadata", {}),
        broken=state.get("broken", ""),
        notes=tuple(state.get("notes", ())),
        source=state.get("source", ""),
        digest=_digest(state, paths),
        seconds=float(state.get("seconds", 0.0)),
        cached=True,
    )


def _digest(state: dict[str, Any], paths: dict[str, Path | None]) -> str:
    """SHA-256 of what the reference is: its files' entries (an ELF extension by its loaded
    image, :func:`~mlrelease.wheels.elf.image_digest`), its metadata, its source digest and
    whether it is broken; not its archives' headers nor the wording of a build's error, so a
    second build of the commit has the same digest. A file gone: no digest."""
    said: dict[str, Any] = {
        "broken": bool(state.get("broken")),
        "metadata": state.get("metadata", {}),
        "source": state.get("source", ""),
    }
    for key, path in paths.items():
        if path is not None:
            if not path.is_file():
                return ""
            said[key] = members.view(path)
    return hashlib.sha256(json.dumps(said, sort_keys=True).encode()).hexdigest()
