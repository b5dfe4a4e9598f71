"""Where the version is written (pure but for bump-my-version): which version each file listed
for bump-my-version carries.

bump-my-version rewrites the files; this module asks bump-my-version's own configuration and
search patterns where the version is, so that the ``versions`` gate checks exactly what a bump
would touch (nothing here re-implements its search).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mlrelease.errors import ConfigError, Repair


@dataclass(frozen=True)
class Occurrence:
    """A version string found in a file."""

    file: str
    line: int
    value: str


@dataclass(frozen=True)
class Problem:
    """A listed file where the version could not be found."""

    file: str
    message: str
    carried: str | None = None
    """The version the line carries instead of the current one, when one was found."""


SYNC = "mlrelease bump --sync --execute"
SYNC_REPAIR = Repair("command", command=tuple(SYNC.split()))
"""The repair of a stale current_version, as a ``--json`` refusal carries it."""
"""The command that sets ``current_version`` to what the version files carry (a hand edit)."""


def hand_edit(found: list[Occurrence], problems: list[Problem], current: str) -> str | None:
    """The one version every listed file carries when it is not ``current``
    (``[tool.bumpversion] current_version``): the files were edited by hand and the key stayed
    behind (tensorflow-onnx set ``VERSION_NUMBER`` to ``1.17.0rc1`` and left ``1.16.1``).
    None when the files do not agree on one other version."""
    said = {p.carried for p in problems} | {o.value for o in found}
    if not problems or None in said or len(said) != 1:
        return None
    (value,) = said
    return value if value is not None and value != current else None


def stale_current(current: str, carried: str) -> str:
    """The sentence every command that refuses a stale ``current_version`` says."""
    return (
        f"[tool.bumpversion] current_version says {current}, but every version file says "
        f"{carried} (edited by hand): the files are the truth. `{SYNC}` sets current_version "
        f"to {carried}; commit pyproject.toml (and push it), then re-run"
    )


OTHER_CONFIGS = (".bumpversion.cfg", ".bumpversion.toml", "setup.cfg")
"""Where bump-my-version looks for its configuration before ``pyproject.toml``, in its order."""


def other_config(root: Path) -> str | None:
    """The first file of :data:`OTHER_CONFIGS` in ``root`` that configures bump-my-version."""
    for name in OTHER_CONFIGS:
        path = root / name
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if name != "setup.cfg" or re.search(r"^\[bumpversion\]", text, re.M):
            return name
    return None


def _other_config(root: Path) -> list[Problem]:
    """A problem when a file bump-my-version reads first configures it too (deny by default:
    two configurations of one version disagree as soon as one of them moves it)."""
    other = other_config(root)
    if other is None:
        return []
    gone = "its [bumpversion] sections" if other == "setup.cfg" else "it"
    why = (
        "configures bump-my-version too, which reads it before pyproject.toml: anyone who runs "
        "bump-my-version moves its files and version, not the table's. Move what it lists into "
        "[tool.bumpversion] (`mlrelease init` on a project without the table carries it), then "
        f"delete {gone}"
    )
    return [Problem(other, why)]


def bumpversion_table(pyproject: Mapping[str, Any], source: str) -> Mapping[str, Any]:
    table = pyproject.get("tool", {}).get("bumpversion")
    if not isinstance(table, Mapping) or "current_version" not in table:
        raise ConfigError(
            "tool.bumpversion.current_version",
            "the project version (bump-my-version's table)",
            "no [tool.bumpversion] table with current_version",
            source=source,
            hint="Add [tool.bumpversion] with current_version and one [[tool.bumpversion.files]] "
            "entry per file that carries the version.",
        )
    return table


def bumpversion_config(root: Path, source: str) -> Any:
    """bump-my-version's own configuration of the project (its ``Config``).

    Everything that finds or rewrites a version goes through it, so the ``versions`` gate and
    ``mlrelease bump`` see exactly what bump-my-version does.
    """
    from bumpversion.config import get_configuration
    from bumpversion.exceptions import BumpVersionError

    try:
        return get_configuration(root / "pyproject.toml")
    except (BumpVersionError, ValueError) as exc:  # pydantic's ValidationError is a ValueError
        raise ConfigError(
            "tool.bumpversion",
            "a configuration bump-my-version accepts",
            f"an error: {str(exc).strip()[:400]}",
            source=source,
        ) from None


def scan(
    root: Path, pyproject: Mapping[str, Any], source: str
) -> tuple[list[Occurrence], list[Problem]]:
    """Where bump-my-version finds the current version: every match of each listed file's
    ``search`` (rendered by bump-my-version itself), plus a static ``[project] version``, which
    bump-my-version keeps in step on its own.

    A file whose search finds nothing is a :class:`Problem`; no other number in any file is
    taken for a version.
    """
    from bumpversion.context import get_context
    from bumpversion.files import resolve_file_config

    config, current = readable(root, pyproject, source)
    found: list[Occurrence] = []
    problems: list[Problem] = _other_config(root)
    static = pyproject.get("project", {}).get("version")
    if isinstance(static, str):
        text = (root / "pyproject.toml").read_text(encoding="utf-8")
        match = re.search(r"^version\s*=", text, re.M)
        found.append(
            Occurrence("pyproject.toml", _line(text, match.start() if match else 0), static)
        )
    for configured in resolve_file_config(config.files_to_modify, config.version_config):
        change = configured.file_change
        path = Path(change.filename)
        path = path if path.is_absolute() else root / path
        try:
            rel = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            rel = str(path)
        if change.key_path:  # a data file (TOML/JSON key): bump-my-version rewrites the key
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            if not change.ignore_missing_file:
                problems.append(Problem(rel, "the file does not exist"))
            continue
        # The context of a bump: the version and each of its parts (``{current_minor}``).
        context = get_context(config, current)
        value = configured.version_config.serialize(current, context)
        context["current_version"] = value
        pattern, raw = change.get_search_pattern(context)
        matches = list(pattern.finditer(text))
        if not matches and not change.ignore_missing_version:
            message, carried = _nothing_found(change, context, text, value, raw)
            problems.append(Problem(rel, message, carried))
        for m in matches:
            inside = _embedded(text, m.start(), m.end(), raw[:1].isdigit(), raw[-1:].isdigit())
            if inside:
                # The search ends inside a longer number: a bump would rewrite part of it.
                how = "no search pattern" if raw == value else "its search pattern"
                problems.append(
                    Problem(
                        rel,
                        f"line {_line(text, m.start())}: bump-my-version's search {raw!r} "
                        f"({how}) matches inside `{inside}`, which a bump would rewrite; "
                        "give this file an exact search pattern (or bring the line to the "
                        "current version)",
                    )
                )
            else:
                found.append(Occurrence(rel, _line(text, m.start()), value))
    return found, problems


def readable(root: Path, pyproject: Mapping[str, Any], source: str) -> tuple[Any, Any]:
    """bump-my-version's configuration of the project and its parsed current version, or a
    :class:`ConfigError` naming the key: no table, a ``parse`` that does not match
    ``current_version``, or one that reads only part of it. Commands that bump check it before
    their first change (``release cut`` makes a branch before it bumps)."""
    bumpversion_table(pyproject, source)
    config = bumpversion_config(root, source)
    current = config.version_config.parse(config.current_version)
    if current is None:
        raise ConfigError(
            "tool.bumpversion.current_version",
            "a version that tool.bumpversion.parse matches",
            repr(config.current_version),
            source=source,
            hint="Fix current_version or the parse pattern.",
        )
    _whole(config, current, source)
    return config, current


def _whole(config: Any, current: Any, source: str) -> None:
    """Refuse a ``parse``/``serialize`` that do not give back ``current_version`` whole.

    bump-my-version searches every file for the serialised current version, and rewrites
    that: with its default ``X.Y.Z`` parse, ``0.1.0.dev0`` is read as ``0.1.0``, so a bump
    to ``0.1.0`` would find ``0.1.0`` inside ``0.1.0.dev0`` and make ``0.1.0.dev0`` of it
    again, or a wrong version. Such a table is refused here, before any gate or bump reads a
    file with it.
    """
    from bumpversion.context import get_context

    given = config.current_version
    read = config.version_config.serialize(current, get_context(config, current))
    if read == given:
        return
    raise ConfigError(
        "tool.bumpversion.current_version",
        "a version that tool.bumpversion.parse reads whole and serialize writes back",
        f"{given!r} (read and written back as {read!r})",
        source=source,
        hint=(
            "Give [tool.bumpversion] a parse and serialize that cover the whole version (for "
            "PEP 440 versions, the ones `mlrelease init` proposes: docs/configuration.md)."
        ),
    )


_SENTINEL = "MLRELEASE0SENTINEL0"
_ANY_VERSION = r"[0-9][0-9A-Za-z.+!-]*"
_ANY_PART = r"[0-9A-Za-z]+"


def _nothing_found(
    change: Any, context: Any, text: str, value: str, raw: str
) -> tuple[str, str | None]:
    """Say what the line carries instead: bump-my-version's own rendering of the search, with
    any version-like text where the version goes, or any number where one of its parts goes
    (``{current_minor}``): shown to the user, with the version it carries instead (never a
    verdict)."""
    keys = [k for k in context if k == "current_version" or k.startswith("current_")]
    probe = dict(context, **{k: f"{_SENTINEL}{i}X" for i, k in enumerate(keys)})
    pattern, _ = change.get_search_pattern(probe)
    loose, groups = pattern.pattern, {}
    for i, key in enumerate(keys):
        token = re.escape(f"{_SENTINEL}{i}X")
        if token in loose:
            any_value = _ANY_VERSION if key == "current_version" else _ANY_PART
            loose = loose.replace(token, f"(?P<v{i}>{any_value})", 1).replace(token, f"(?P=v{i})")
            groups[f"v{i}"] = key
    message = f"bump-my-version's search {raw!r} finds nothing"
    try:
        other = re.search(loose, text, pattern.flags) if groups else None
    except re.error:
        other = None
    if other is None:
        return message, None
    said = [
        (other[g], str(value if k == "current_version" else context[k]), k)
        for g, k in groups.items()
    ]
    wrong = [
        f"`{got}`, expected `{want}`" + ("" if key == "current_version" else f" ({{{key}}})")
        for got, want, key in said
        if got != want
    ]
    carried = next((got for got, _, key in said if key == "current_version"), None)
    if not wrong:
        return message, None
    return f"line {_line(text, other.start())}: found {'; '.join(wrong)}: {message}", carried


def _embedded(text: str, start: int, end: int, starts: bool, ends: bool) -> str | None:
    """The longer number a match sits inside (``21.0.0`` around ``1.0.0``, ``MINOR 14`` around
    ``MINOR 1``), if any, looked for on the side where the search ``starts`` or ``ends`` with a
    digit."""
    before = text[start - 1] if start else ""
    after = text[end : end + 2]
    if (starts and (before.isdigit() or before == ".")) or (
        ends and (after[:1].isdigit() or (after[:1] == "." and after[1:2].isdigit()))
    ):
        left = start
        while left and (text[left - 1].isalnum() or text[left - 1] in ".-+"):
            left -= 1
        right = end
        while right < len(text) and (text[right].isalnum() or text[right] in ".-+"):
            right += 1
        return text[left:right].strip(".-+")
    return None


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def mismatches(occurrences: list[Occurrence], expected: str) -> list[Occurrence]:
    """Occurrences whose value differs from ``expected`` (compared as written, not normalised:
    bump-my-version searches for the exact string)."""
    return [o for o in occurrences if o.value != expected]
