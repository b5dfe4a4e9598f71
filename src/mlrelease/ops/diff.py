"""What changed between two indices (the previous release's and this one)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlrelease import versions
from mlrelease.edges import git
from mlrelease.errors import UserError
from mlrelease.naming import Names
from mlrelease.ops import index as index_mod


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
    first_measured: list[str] = field(default_factory=list)
    """Op versions with cases now and none before (new, or newly tested): nothing but another
    backend can contradict their reference."""

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


def _measured(version: Mapping[str, Any]) -> bool:
    return any(s.get("status") != "no_test" for s in version.get("backends", {}).values())


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
    result.first_measured = [
        label(k)
        for k, v in after.items()
        if _measured(v) and (k not in before or not _measured(before[k]))
    ]
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
    root: Path,
    spec: str,
    index_path: str,
    current_version: str,
    names: Names,
    *,
    loads: Callable[[str, str], dict[str, Any]] = index_mod.loads,
) -> tuple[str, dict[str, Any]] | None:
    """The previous index named by ``spec``: a file, a git ref, or ``auto``; None when none.

    ``auto`` is the index at the newest final release tag older than ``current_version``, as
    the project spells its tags (``names``: ``[tool.mlrelease.release] tag``); a project with
    no such tag, or whose tag has no index, has none.
    ``loads`` parses it (a declared source's index has its own schema).
    """
    if not spec:
        return None
    if spec != "auto":
        path = Path(spec) if Path(spec).is_absolute() else root / spec
        if path.is_file():
            return spec, loads(path.read_text(encoding="utf-8"), spec)
        text = _show(root, spec, index_path)
        if text is None:
            raise UserError(
                f"previous index {spec!r}: expected a file or a git ref holding {index_path}, "
                "found neither. Pass an existing file, a tag such as v1.3.0, or a commit."
            )
        return f"{spec}:{index_path}", loads(text, f"{spec}:{index_path}")
    tag = previous_release_tag(root, current_version, names)
    if tag is None:
        return None
    text = _show(root, tag, index_path)
    if text is None:
        return None
    return f"{tag}:{index_path}", loads(text, f"{tag}:{index_path}")


def previous_release_tag(root: Path, current_version: str, names: Names) -> str | None:
    """The newest final-release tag older than ``current_version`` (none without a version):
    a tag of the configured pattern (``names.tag``), never a name that merely holds a version
    (another package's ``plugin-1.3.5``, an RC, a hand-made ``1.3.9``)."""
    if not git.is_repo(root) or not current_version:
        return None
    current = versions.parse(current_version)
    best: tuple[Any, str] | None = None
    for tag in git.run(root, "tag", "--list").splitlines():
        parsed = names.parse_tag(tag.strip())
        if parsed is None or parsed[1] is not None or parsed[0] >= current:
            continue
        if best is None or parsed[0] > best[0]:
            best = (parsed[0], tag.strip())
    return best[1] if best else None


def _show(root: Path, ref: str, path: str) -> str | None:
    if not git.is_repo(root):
        return None
    text = git.run(root, "show", f"{ref}:{path}", check=False)
    return text + "\n" if text else None


# --- the committed index against a fresh run: every changed operator version -------------------


@dataclass(frozen=True)
class VersionChange:
    """One operator version whose entry differs between the committed index and a fresh run."""

    label: str
    """``ai.onnx Relu-14``."""
    text: str
    """What changed, per backend, with the cases whose verdict changed."""
    worse: list[tuple[str, str]] = field(default_factory=list)
    """(case, backend) that passed in the committed index and fail in the fresh run."""


def _case_rows(version: Mapping[str, Any]) -> dict[str, Mapping[str, str]]:
    return {
        name: row
        for group in ("cases", "expanded_cases")
        for name, row in version.get(group, {}).items()
    }


def version_changes(committed: Mapping[str, Any], fresh: Mapping[str, Any]) -> list[VersionChange]:
    """Every operator version that differs, in the fresh index's order (then removed ones)."""
    before, after = _versions(committed), _versions(fresh)
    changes = []
    for key, version in after.items():
        old = before.get(key)
        if old is None:
            changes.append(VersionChange(label(key), "missing from the committed index"))
            continue
        if old == version:
            continue
        parts: list[str] = []
        worse: list[tuple[str, str]] = []
        old_rows, new_rows = _case_rows(old), _case_rows(version)
        backends = list(version.get("backends", {}))
        backends += [b for b in old.get("backends", {}) if b not in backends]
        for backend in backends:
            was = old.get("backends", {}).get(backend)
            now = version.get("backends", {}).get(backend)
            cases = []
            for case in sorted({*old_rows, *new_rows}):
                a = old_rows.get(case, {}).get(backend)
                b = new_rows.get(case, {}).get(backend)
                if a != b:
                    cases.append(f"{case} {a or 'absent'} -> {b or 'absent'}")
                    if a == "pass" and b not in (None, "pass", "environment"):  # not measured
                        worse.append((case, backend))
            if was != now or cases:
                parts.append(
                    f"{backend}: committed {index_mod._status_text(was)}, fresh run "
                    f"{index_mod._status_text(now)}"
                    + (f" (cases: {'; '.join(cases[:5])}" if cases else "")
                    + (f"; and {len(cases) - 5} more)" if len(cases) > 5 else ")" if cases else "")
                )
        changes.append(VersionChange(label(key), "; ".join(parts) or "the entry differs", worse))
    for key in before:
        if key not in after:
            changes.append(
                VersionChange(label(key), "in the committed index but not in a fresh run")
            )
    return changes
