"""The feedstock's patches checked against the release's sources: ``git apply --check`` (the
edge's git) on the files each patch touches, taken from the sdist or the tag's archive."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping
from pathlib import Path

from mlrelease.edges import git

_TOUCHED = re.compile(r"^(?:---|\+\+\+) (?:[ab]/)?(\S+)", re.M)


def check(
    patches: Mapping[str, str], listed: list[str], sources: Mapping[str, bytes]
) -> dict[str, str]:
    """Patch -> why it does not apply, for the recipe's ``listed`` patches (paths relative to
    the recipe folder, keys of ``patches`` relative to the repository); a missing patch file
    is said too."""
    problems: dict[str, str] = {}
    by_name = {Path(p).name: p for p in patches}
    for name in listed:
        path = next((p for p in patches if p.endswith("/" + name) or p == name), None)
        path = path or by_name.get(Path(name).name)
        if path is None:
            problems[name] = "the recipe lists it but the feedstock has no such file"
            continue
        error = _apply(patches[path], sources)
        if error:
            problems[name] = error
    return problems


def _apply(text: str, sources: Mapping[str, bytes]) -> str:
    """Why ``text`` does not apply with ``-p1`` (nor ``-p0``), or "" when it does."""
    touched = {t for t in _TOUCHED.findall(text) if t != "/dev/null"}
    with tempfile.TemporaryDirectory(prefix="mlrelease-patch-") as folder:
        root = Path(folder)
        for path in touched:
            for candidate in (path, path.split("/", 1)[-1]):
                if candidate in sources:
                    target = root / candidate
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(sources[candidate])
        (root / "change.patch").write_text(text, encoding="utf-8")
        errors = []
        for strip in ("-p1", "-p0"):
            proc = git.call_git(root, "apply", "--check", strip, "change.patch")
            if proc.returncode == 0:
                return ""
            errors.append(" ".join(proc.stderr.split()))
        return errors[0][:300]
