"""The release machine's rules for what ``release bind`` compares (issue 48): ``dist/`` doctored
member by member (an extra member or wheel, compiled code, other metadata), the clone's own
configuration (a filter from the environment or the clone's config, an attribute file outside
the commit, ``core.autocrlf``) and writes to the reference cache. None of them runs mlrelease;
the oracle's (c) judges each binding the maintainer's bind pushes after them: it lists exactly
the genuine build of its RC's commit (built from origin, whatever this clone's setup).

The environment's git configuration (``GIT_CONFIG_COUNT``) is this process's while a rule has
set it; :func:`forget` takes it back at the end of every example.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import rule

from helpers import release_oracle as oracle
from helpers.reference_builds import Members, rewrite_wheel, shared_object
from mlrelease.wheels.artifacts import write_sums

WHEEL = "demo-1.4.0-py3-none-any.whl"
INFO = "demo-1.4.0.dist-info"
DOCTORED = (
    "pth",
    "bare-extension",
    "extra-wheel",
    "second-wheel",
    "wheel-version",
    "summary",
    "entry-point",
)
CLONE = ("smudge-env", "smudge-config", "export-ignore", "autocrlf", "undo")
ENV_CONFIG = {
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "filter.evil.smudge",
    "GIT_CONFIG_VALUE_0": "sed s/42/7/",
}


def _sh(root: Path, *args: str) -> Any:
    from helpers.release_machine import sh

    return sh(root, *args)


def _compiled(self: Any, name: str) -> bytes:
    """A real shared object (gcc), made once per example."""
    folder = Path(self.base) / "cc"
    return shared_object(folder, name, f"int PyInit_{name}(void) {{ return 0; }}")


def _doctor(self: Any, how: str, members: Members) -> None:
    if how == "pth":
        members["demo_speedups.so.pth"] = b"import os; os.environ['DEMO'] = 'hooked'\n"
    elif how == "bare-extension":
        members["demo/core.so"] = _compiled(self, "core")
    elif how == "wheel-version":
        members[f"{INFO}/WHEEL"] = members[f"{INFO}/WHEEL"].replace(b"1.0", b"9.0", 1)
    elif how == "summary":
        head, _, _ = members[f"{INFO}/METADATA"].partition(b"\n\n")
        members[f"{INFO}/METADATA"] = head + b"\nSummary: moved: pip install demo-ng\n"
    elif how == "entry-point":
        members[f"{INFO}/entry_points.txt"] = b"[console_scripts]\npip = demo.core:answer\n"


@rule(how=st.sampled_from(DOCTORED))
def dist_doctored(self: Any, how: str) -> None:
    """The environment changes what dist/ holds, its RECORD kept true: a member added, one
    more wheel (the pure wheel plus a native module, tagged cp3X-manylinux, or the same wheel
    under a build tag), other metadata."""
    dist = Path(self.work) / "dist"
    wheel = dist / WHEEL
    if not wheel.is_file():
        return
    if how == "second-wheel":  # the same wheel again under a build tag: two of one tag
        shutil.copy(wheel, dist / "demo-1.4.0-1-py3-none-any.whl")
        write_sums(dist)
        return
    if how != "extra-wheel":
        rewrite_wheel(wheel, lambda members: _doctor(self, how, members))
        return
    extra = dist / "extra.whl"
    shutil.copy(wheel, extra)
    tag = "cp311-cp311-manylinux_2_17_x86_64"

    def native(members: Members) -> None:
        members["demo/_fast.cpython-311-x86_64-linux-gnu.so"] = _compiled(self, "_fast")
        text = members[f"{INFO}/WHEEL"].replace(b"Root-Is-Purelib: true", b"Root-Is-Purelib: false")
        members[f"{INFO}/WHEEL"] = text.replace(b"Tag: py3-none-any", f"Tag: {tag}".encode())

    rewrite_wheel(extra, native, f"demo-1.4.0-{tag}.whl")


@rule(setting=st.sampled_from(CLONE))
def clone_configuration(self: Any, setting: str) -> None:
    """The maintainer's clone as users set it up: a smudge filter given through the
    environment (as CI passes configuration) or the clone's config, with its attribute in
    ``.git/info/attributes`` (the checkout then writes ``answer`` returning 7, which ``build``
    packs); an ``export-ignore`` there; ``core.autocrlf=true`` with the tree checked out anew
    (CRLF); or all of it undone."""
    work = Path(self.work)
    attributes = work / ".git/info/attributes"
    attributes.parent.mkdir(parents=True, exist_ok=True)
    if setting == "undo":
        forget(self)
        attributes.unlink(missing_ok=True)
        for key in ("filter.evil.smudge", "core.autocrlf"):
            _sh(work, "config", "--unset", key)
        return
    if setting == "smudge-env":
        os.environ.update(ENV_CONFIG)
    elif setting == "smudge-config":
        _sh(work, "config", "filter.evil.smudge", ENV_CONFIG["GIT_CONFIG_VALUE_0"])
    elif setting == "autocrlf":
        _sh(work, "config", "core.autocrlf", "true")
    if setting == "export-ignore":
        attributes.write_text("src/demo/core.py export-ignore\n", encoding="utf-8")
    elif setting != "autocrlf":
        attributes.write_text("src/demo/core.py filter=evil\n", encoding="utf-8")
    if not _sh(work, "status", "--porcelain").stdout:
        for path in (work / "src/demo").glob("*.py"):
            path.unlink()
        _sh(work, "checkout", "--", "src/demo")


def forget(self: Any) -> None:
    """Take the environment's git configuration back (end of an example, or ``undo``)."""
    for key in ENV_CONFIG:
        os.environ.pop(key, None)


@rule()
def reference_cache_written(self: Any) -> None:
    """A build step writes ``.git/mlrelease/reference/<commit>`` for the newest RC: files of
    another tree (``answer`` returns 7) as "what the commit builds", and puts them in dist/."""
    from helpers.release_adversary import _other_files

    work = Path(self.work)
    commit = oracle.git(work, "rev-parse", "-q", "--verify", f"{self.newest_rc()}^{{commit}}")
    if not commit:
        return
    other = _other_files(self)
    cache = work / ".git/mlrelease/reference" / commit
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    dist = work / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    shutil.copytree(other, dist)
    names = {p.name: p for p in other.iterdir()}
    for path in names.values():
        shutil.copy(path, cache)
    wheel = next(n for n in names if n.endswith(".whl"))
    sdist = next(n for n in names if n.endswith(".tar.gz"))
    state = {"sdist": sdist, "wheel": wheel, "source": "", "seconds": 1.0}
    (cache / "reference.json").write_text(json.dumps(state), encoding="utf-8")
