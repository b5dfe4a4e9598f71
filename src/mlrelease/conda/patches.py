"""The feedstock's patches checked against the release's sources, in the recipe's order, as the
build applies them: each with ``git apply --check`` (the edge's git) on the files the patches
touch (taken from the sdist or the tag's archive), then applied, so the next patch sees what
the one before it changed."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from mlrelease.edges import git

_TOUCHED = re.compile(r"^(?:---|\+\+\+) (?:[ab]/)?(\S+)", re.M)


def _find(patches: Mapping[str, str], name: str) -> str | None:
    """The repository path of the patch the recipe lists as ``name`` (relative to its folder)."""
    exact = [p for p in patches if p == name or p.endswith("/" + name)]
    if exact:
        return exact[0]
    return next((p for p in patches if Path(p).name == Path(name).name), None)


def check(
    patches: Mapping[str, str], listed: Sequence[str], sources: Mapping[str, bytes]
) -> dict[str, str]:
    """Patch -> why it does not apply, for the recipe's ``listed`` patches in order (paths
    relative to the recipe folder; ``patches``: repository path -> text); a listed patch the
    feedstock lacks is said too."""
    problems: dict[str, str] = {}
    found = {name: _find(patches, name) for name in listed}
    texts = {name: patches[path] for name, path in found.items() if path is not None}
    with tempfile.TemporaryDirectory(prefix="mlrelease-patch-") as folder:
        root = Path(folder)
        for text in texts.values():
            _copy(text, sources, root)
        for n, name in enumerate(listed):
            if name not in texts:
                problems[name] = "the recipe lists it but the feedstock has no such file"
                continue
            patch = root / f".patch-{n}"
            patch.write_text(texts[name], encoding="utf-8")
            error = _apply(root, patch.name)
            if error:
                problems[name] = error
    return problems


def _copy(text: str, sources: Mapping[str, bytes], root: Path) -> None:
    """The files ``text`` touches, from ``sources`` into ``root`` (once)."""
    for path in {t for t in _TOUCHED.findall(text) if t != "/dev/null"}:
        for candidate in (path, path.split("/", 1)[-1]):
            target = root / candidate
            if candidate in sources and not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(sources[candidate])


def _apply(root: Path, name: str) -> str:
    """Apply patch ``name`` in ``root`` (``-p1``, else ``-p0``, then with fuzz); why it does
    not apply, or ""."""
    errors = []
    # -C1: one line of context must match, as the builds' patch tools (GNU patch's and
    # rattler-build's) accept a hunk whose outer context lines moved (fuzz).
    for options in (("-p1",), ("-p0",), ("-p1", "-C1"), ("-p0", "-C1")):
        proc = git.call_git(root, "apply", "--check", *options, name)
        if proc.returncode == 0:
            git.run(root, "apply", *options, name)
            return ""
        errors.append(" ".join(proc.stderr.split()))
    return errors[0][:300]
