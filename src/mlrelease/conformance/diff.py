"""What changed between two indices (the previous release's and this one)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlrelease import git, versions
from mlrelease.conformance import index as index_mod
from mlrelease.errors import UserError


@dataclass
class IndexDiff:
    """Op versions added or removed; per backend, op versions newly failing or newly passing."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    newly_failing: list[str] = field(default_factory=list)
    newly_passing: list[str] = field(default_factory=list)
    regressions: list[str] = field(default_factory=list)
    """Cases that passed before and fail now, not covered by a known failure."""
    known_regressions: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.newly_failing or self.newly_passing)

    def lines(self) -> list[str]:
        out = []
        for title, items in (
            ("ops added", self.added),
            ("ops removed", self.removed),
            ("newly failing", self.newly_failing),
            ("newly passing", self.newly_passing),
            ("regressions not listed as known failures", self.regressions),
            ("regressions listed as known failures", self.known_regressions),
        ):
            if items:
                out.append(
                    f"{title} ({len(items)}): "
                    + "; ".join(items[:20])
                    + (f"; and {len(items) - 20} more" if len(items) > 20 else "")
                )
        return out


def _versions(index: Mapping[str, Any]) -> dict[tuple[str, str, int], Mapping[str, Any]]:
    return {
        (op["domain"], op["op_type"], v["since_version"]): v
        for op in index.get("ops", [])
        for v in op["versions"]
    }


def label(key: tuple[str, str, int]) -> str:
    return f"{key[0]} {key[1]}-{key[2]}"


def diff(
    old: Mapping[str, Any], new: Mapping[str, Any], known: Callable[[str, str], bool]
) -> IndexDiff:
    """Compare ``old`` (previous release) with ``new``; ``known(case, backend)`` excuses."""
    result = IndexDiff()
    before, after = _versions(old), _versions(new)
    result.added = [label(k) for k in after if k not in before]
    result.removed = [label(k) for k in before if k not in after]
    old_backends = {b["name"] for b in old.get("backends", [])}
    for key, version in after.items():
        if key not in before:
            continue
        for backend, status in version["backends"].items():
            if backend not in old_backends:
                continue
            was = before[key]["backends"].get(backend, {}).get("status")
            now = status["status"]
            if was == "pass" and now == "fail":
                result.newly_failing.append(f"{label(key)} on {backend} ({status.get('reason')})")
            elif was != "pass" and now == "pass":
                result.newly_passing.append(f"{label(key)} on {backend}")
    old_cases = index_mod.case_verdicts(old)
    for (case, backend), verdict in sorted(index_mod.case_verdicts(new).items()):
        was_verdict = old_cases.get((case, backend))
        if was_verdict is not None and was_verdict.ok and not verdict.ok:
            text = f"{case} on {backend}: {verdict.label}"
            (result.known_regressions if known(case, backend) else result.regressions).append(text)
    return result


def load_previous(
    root: Path, spec: str, index_path: str, current_version: str
) -> tuple[str, dict[str, Any]] | None:
    """The previous index named by ``spec``: a file, a git ref, or ``auto``; None when none.

    ``auto`` is the index at the newest release tag (``vX.Y.Z``, no pre-release) older than
    ``current_version``; a project with no such tag, or whose tag has no index, has none.
    """
    if not spec:
        return None
    if spec != "auto":
        path = Path(spec) if Path(spec).is_absolute() else root / spec
        if path.is_file():
            return spec, index_mod.loads(path.read_text(encoding="utf-8"), spec)
        text = _show(root, spec, index_path)
        if text is None:
            raise UserError(
                f"previous index {spec!r}: expected a file or a git ref holding {index_path}, "
                "found neither. Pass an existing file, a tag such as v1.3.0, or a commit."
            )
        return f"{spec}:{index_path}", index_mod.loads(text, f"{spec}:{index_path}")
    tag = previous_release_tag(root, current_version)
    if tag is None:
        return None
    text = _show(root, tag, index_path)
    if text is None:
        return None
    return f"{tag}:{index_path}", index_mod.loads(text, f"{tag}:{index_path}")


def previous_release_tag(root: Path, current_version: str) -> str | None:
    """The newest final-release tag older than ``current_version``."""
    if not git.is_repo(root):
        return None
    current = versions.parse(current_version)
    best: tuple[Any, str] | None = None
    for tag in git.run(root, "tag", "--list").splitlines():
        version = versions.tag_to_version(tag.strip())
        if version is None or version.is_prerelease or version >= current:
            continue
        if best is None or version > best[0]:
            best = (version, tag.strip())
    return best[1] if best else None


def _show(root: Path, ref: str, path: str) -> str | None:
    if not git.is_repo(root):
        return None
    text = git.run(root, "show", f"{ref}:{path}", check=False)
    return text + "\n" if text else None
