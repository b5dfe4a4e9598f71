"""The git edge: every git command mlrelease runs starts here, hermetic.

A git command means the same whatever the user's setup or clone (docs/release/invariants.md,
"What mlrelease assumes of git"):

- **Configuration that changes what a command does is fixed** on the command line
  (:data:`FIXED`, ``git -c``, which wins over every configuration file): no tag rides along a
  branch push (``push.followTags``), nothing is pruned or recursed into behind the command's
  back, no signature or colour lands in parsed output, and **no hook runs**
  (``core.hooksPath``): mlrelease's commits touch only version files and changelogs, and a
  push names its refs, so a client-side hook can neither change nor veto what is released.
  The user's identity (``user.name``, ``user.email``) and signing keys still apply.
- **The environment cannot redirect a command** to another repository, index, object store
  or namespace (:data:`SCRUBBED`); replacement objects (``refs/replace``) are ignored, so a
  commit is what its hash names.
- **Attribute filters** (smudge/clean, ``export-subst``): reads take committed blobs as
  stored; only :func:`blob_bytes` with ``filters=True`` asks what a checkout would write
  (the configuration's hash as the build reads it).
- **Repositories mlrelease makes** (the reference's checkout, :mod:`mlrelease.edges.checkout`)
  are run under :func:`bare_environment`: no ``GIT_`` variable and no system or global
  configuration reaches them.

Callers name refs fully (``refs/heads/...``, ``refs/tags/...``) and pushes name each refspec
(``src:dst``); the release reader checks that a remote pushes where it is read from, and that
the clone is not shallow before it asks a history question.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mlrelease.edges.proc import CompletedProcess, call, call_bytes
from mlrelease.errors import PreconditionError, UserError

FIXED: tuple[tuple[str, str], ...] = (
    ("push.followTags", "false"),  # a branch push never carries a tag with it
    ("push.recurseSubmodules", "no"),
    ("fetch.prune", "false"),
    ("fetch.pruneTags", "false"),
    ("fetch.recurseSubmodules", "false"),
    ("log.showSignature", "false"),  # gpg's lines would land in parsed log output
    ("color.ui", "false"),
    ("core.quotePath", "false"),
    ("diff.noprefix", "false"),
    ("diff.mnemonicPrefix", "false"),
    ("diff.relative", "false"),
    ("diff.renames", "true"),  # patch ids: the same diff for every user
    ("i18n.logOutputEncoding", "UTF-8"),
    ("core.hooksPath", os.devnull),  # no client-side hook runs
    ("core.commentChar", "#"),  # another would strip the tag's "Made-by:" line, hide trailers
    ("trailer.separators", ":"),
    ("column.ui", "never"),
    ("gc.auto", "0"),
    ("advice.graftFileDeprecated", "false"),  # GIT_GRAFT_FILE is set, no grafts file is read
)
"""Settings fixed on every command, whatever the system, global or repository configuration."""

SCRUBBED = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_NAMESPACE",
        "GIT_REPLACE_REF_BASE",
        "GIT_EXEC_PATH",
        "GIT_SHALLOW_FILE",
        "GIT_EXTERNAL_DIFF",
        "GIT_DIFF_OPTS",
        "GIT_QUARANTINE_PATH",
        "GIT_PREFIX",
        "GIT_LITERAL_PATHSPECS",
        "GIT_GLOB_PATHSPECS",
        "GIT_NOGLOB_PATHSPECS",
        "GIT_ICASE_PATHSPECS",
    }
)
"""Variables that would point a command at another repository, store or meaning of paths.
Configuration given in the environment (``GIT_CONFIG_COUNT``, as CI runners pass credentials
and ``safe.directory``) is kept: it counts as the command line's, and :data:`FIXED`, given
after it, wins over it."""


class GitError(UserError):
    """A git command failed; the message carries git's own words."""

    exit_code = 1


def environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (this process's environment) without what would redirect git, and with
    replacement objects off."""
    env = {k: v for k, v in (os.environ if base is None else base).items() if k not in SCRUBBED}
    env["GIT_NO_REPLACE_OBJECTS"] = "1"
    env["GIT_GRAFT_FILE"] = os.devnull  # not .git/info/grafts: a commit's parents are its own
    return env


def argv(args: tuple[str, ...] | list[str]) -> list[str]:
    """The full command line of ``git args``: the fixed settings first."""
    fixed = [part for key, value in FIXED for part in ("-c", f"{key}={value}")]
    return ["git", *fixed, *args]


def shown(args: tuple[str, ...] | list[str]) -> list[str]:
    """``git args`` as a person would type it (dry runs print this; the settings are implied)."""
    return ["git", *args]


def call_git(
    root: Path, *args: str, input: str | None = None, errors: str | None = None
) -> CompletedProcess[str]:
    """Run ``git args`` in ``root``; its exit status and output, for callers that judge a
    failure themselves."""
    return call(argv(args), cwd=root, input=input, errors=errors, env=environment())


def run(
    root: Path,
    *args: str,
    check: bool = True,
    strip: bool = True,
    input: str | None = None,
    errors: str | None = None,
) -> str:
    """Run ``git args`` in ``root`` (``input`` on its stdin) and return its stdout (stripped
    unless ``strip`` is False: some outputs' leading spaces carry meaning);
    ``errors="surrogateescape"`` carries bytes that are not UTF-8 through unchanged."""
    proc = call_git(root, *args, input=input, errors=errors)
    if check and proc.returncode != 0:
        raise GitError(
            f"git {' '.join(args)} failed in {root} (exit {proc.returncode}): "
            f"{proc.stderr.strip() or proc.stdout.strip()}"
        )
    return proc.stdout.strip() if strip else proc.stdout


def run_bytes(root: Path, *args: str, input: bytes | None = None) -> CompletedProcess[bytes]:
    """Run ``git args`` whose output is read by byte offsets (``cat-file --batch``)."""
    return call_bytes(argv(args), cwd=root, input=input, env=environment())


def blob_bytes(root: Path, spec: str, *, filters: bool = False) -> bytes | None:
    """The bytes of ``REV:PATH`` or a blob SHA: as committed, or (``filters``) through the
    checkout filters, as a checkout writes them; None when it does not exist."""
    proc = run_bytes(root, "cat-file", "--filters" if filters else "blob", spec)
    return proc.stdout if proc.returncode == 0 else None


def is_repo(root: Path) -> bool:
    return run(root, "rev-parse", "--is-inside-work-tree", check=False) == "true"


@dataclass(frozen=True)
class Folders:
    """A work tree's git folders, asked of git in one ``rev-parse``: what :func:`git_dir` and
    :func:`common_dir` answer."""

    git_dir: Path
    common_dir: Path


def folders(root: Path) -> Folders | None:
    """The git folders of the work tree ``root``, or None where :func:`is_repo` is False (not
    inside a work tree): one command where a reader would ask three."""
    proc = call_git(root, "rev-parse", "--is-inside-work-tree", "--git-dir", "--git-common-dir")
    lines = [line.strip() for line in proc.stdout.strip().split("\n")]
    if proc.returncode != 0 or len(lines) != 3 or lines[0] != "true":
        return None
    return Folders((root / lines[1]).resolve(), (root / lines[2]).resolve())


def git_dir(root: Path) -> Path:
    """The worktree's own git folder (``.git``, or ``.git/worktrees/<name>`` for a linked
    worktree): where its index, HEAD and in-progress operations live."""
    return (root / run(root, "rev-parse", "--git-dir")).resolve()


def common_dir(root: Path) -> Path:
    """The git folder every worktree of the repository shares (``.git`` of the main one):
    where state that outlives a worktree lives (the content store)."""
    return (root / run(root, "rev-parse", "--git-common-dir")).resolve()


def is_shallow(root: Path) -> bool:
    """Whether this clone lacks history (``git clone --depth``, CI's default checkout)."""
    return run(root, "rev-parse", "--is-shallow-repository", check=False) == "true"


def require_history(root: Path, remote: str, question: str) -> None:
    """Refuse ``question`` (a history question: ancestry, merge bases, patch identity) in a
    shallow clone, where git answers it wrongly, with the command that deepens it."""
    if is_shallow(root):
        deepen = f"git fetch --unshallow {remote}" if remote else "git fetch --unshallow"
        raise PreconditionError(
            f"{question} needs the repository's history, and this clone is shallow (made with "
            f"--depth, as CI checkouts are): its answers would be wrong. Deepen it "
            f"(`{deepen}`; in GitHub Actions, `fetch-depth: 0`), then re-run."
        )


def remote_urls(root: Path, name: str) -> tuple[str, tuple[str, ...]]:
    """(the URL ``name`` is fetched from, the URLs it pushes to), ``insteadOf`` and
    ``pushInsteadOf`` applied, as git itself resolves them."""
    fetch = run(root, "remote", "get-url", name, check=False)
    pushes = run(root, "remote", "get-url", "--push", "--all", name, check=False)
    return fetch, tuple(u for u in pushes.splitlines() if u)


PROGRAM = "git"
"""The program this edge runs, as its command lines start (``mlrelease doctor`` looks for it)."""


TRANSPORT_KEYS = ("uploadpack", "receivepack", "mirror")
"""Remote settings that change what a read or a push talks to, or what a push sends."""


def remote_overrides(root: Path, name: str) -> list[str]:
    """``remote.NAME.KEY = value`` for each :data:`TRANSPORT_KEYS` setting of the remote (from
    any configuration file or the environment; the last value where a key has several, as
    ``git config --get`` reads it), read in one ``git config --get-regexp``."""
    out = run(root, "config", "-z", "--get-regexp", r"^remote\.", check=False, strip=False)
    values: dict[str, str] = {}
    for entry in out.split("\0"):
        key, _, value = entry.partition("\n")
        values[key] = value.strip()  # git lowers the section and key, keeps the remote's name
    found = []
    for key in TRANSPORT_KEYS:
        value = values.get(f"remote.{name}.{key}", "")
        if value and not (key == "mirror" and value.lower() in ("false", "no", "off", "0")):
            found.append(f"remote.{name}.{key} = {value}")
    return found


def head(root: Path) -> str | None:
    """The commit SHA of HEAD, or None outside a repository or before the first commit."""
    if not is_repo(root):
        return None
    return head_commit(root)


def head_commit(root: Path) -> str | None:
    """The commit SHA of HEAD in a repository (:func:`is_repo` known), or None before the
    first commit."""
    return run(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False) or None


def tags_at(root: Path, ref: str = "HEAD") -> list[str]:
    """Tags pointing at ``ref``."""
    out = run(root, "tag", "--points-at", ref, check=False)
    return [t for t in out.splitlines() if t]


def dirty_files(root: Path) -> list[str]:
    """Paths with uncommitted changes, untracked files included (``git status -z``: exact
    names, whatever characters they hold)."""
    # Unstripped: the first entry's leading space is part of it.
    out = run(root, "status", "--porcelain", "-z", "--untracked-files=normal", strip=False)
    entries = out.split("\0")
    files: list[str] = []
    i = 0
    while i < len(entries):
        entry = entries[i]
        i += 1
        if len(entry) < 4:
            continue
        files.append(entry[3:])
        if entry[0] in "RC":  # a rename or copy is followed by its source path
            i += 1
    return files


def current_branch(root: Path) -> str | None:
    """The checked-out branch, or None for a detached HEAD."""
    # Not --short: it says "heads/X" when a tag is also named X.
    ref = run(root, "symbolic-ref", "--quiet", "HEAD", check=False)
    return ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None


def hidden_files(root: Path) -> list[str]:
    """Tracked files whose changes ``git status`` does not show: marked ``--skip-worktree``
    (``S``) or ``--assume-unchanged`` (a lower-case status letter) in ``git ls-files -v``."""
    out = run(root, "ls-files", "-v", "-z", strip=False, check=False)
    return [e[2:] for e in out.split("\0") if len(e) > 2 and (e[0] == "S" or e[0].islower())]


def bare_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (this process's environment) without any ``GIT_`` variable, with no system or
    global configuration and no system attributes: git sees only the repository it runs in
    (its own ``.git/config``), whatever the user's setup. For repositories mlrelease makes
    (the reference's checkout) and for the builds run in them."""
    source = os.environ if base is None else base
    env = {k: v for k, v in source.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_ATTR_NOSYSTEM="1",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_TERMINAL_PROMPT="0",
    )
    return env


def call_bare(root: Path, *args: str, input: str | None = None) -> CompletedProcess[str]:
    """``git args`` in ``root``, a repository mlrelease made, under :func:`bare_environment`:
    no configuration but the repository's own, no filter or attribute from outside it."""
    return call(argv(args), cwd=root, input=input, env=bare_environment())


def run_bare(root: Path, *args: str, input: str | None = None, check: bool = True) -> str:
    """:func:`call_bare`'s stdout; a :class:`GitError` when it fails (unless not ``check``)."""
    proc = call_bare(root, *args, input=input)
    if check and proc.returncode != 0:
        raise GitError(
            f"git {' '.join(args)} failed in {root} (exit {proc.returncode}): "
            f"{proc.stderr.strip() or proc.stdout.strip()}"
        )
    return proc.stdout.strip()
