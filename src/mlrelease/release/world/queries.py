"""Git queries of the release world's reader (read-only; every mutation is a planned action).

Queries use plumbing (``for-each-ref``, ``rev-parse``, ``cat-file``, ``cherry``, ``patch-id``),
never ``git branch`` or ``git tag``, so a trace of the git commands a release command ran tells
its mutations apart from its reads. Short names are read as the branch of that name
(:func:`qualified`); both sides' refs are read by :mod:`.refs`.
"""

from __future__ import annotations

import re
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mlrelease import version_files
from mlrelease.edges import git
from mlrelease.errors import PreconditionError, UserError
from mlrelease.release.world.snapshot import BranchCommit, PickFacts

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


_SHA = re.compile(r"[0-9a-f]{7,64}")


def qualified(root: Path, ref: str) -> str:
    """``ref`` as one unambiguous name: a short name is the branch of that name when there is
    one (``refs/heads/release/1.12``, never a tag someone named ``release/1.12``), else the
    tag; full names, SHAs and revision expressions are taken as given."""
    if ref.startswith("refs/") or ref == "HEAD" or _SHA.fullmatch(ref) or set(ref) & set("^~:@"):
        return ref
    for prefix in ("refs/heads/", "refs/tags/"):
        if git.run(root, "rev-parse", "--verify", "--quiet", prefix + ref, check=False):
            return prefix + ref
    return ref


def commit_of(root: Path, ref: str) -> str | None:
    """The commit a ref (branch, tag, SHA) points at, peeled; None when it does not exist."""
    spec = f"{qualified(root, ref)}^{{commit}}"
    return git.run(root, "rev-parse", "--verify", "--quiet", spec, check=False) or None


def branch_exists(root: Path, name: str) -> bool:
    return commit_of(root, f"refs/heads/{name}") is not None


def tags(root: Path) -> dict[str, str]:
    """Every local tag and the commit it points at (annotated tags peeled)."""
    out = git.run(
        root,
        "for-each-ref",
        "--format=%(refname:strip=2) %(objectname) %(*objectname)",
        "refs/tags",
    )
    result: dict[str, str] = {}
    for line in out.splitlines():
        name, obj, *peeled = line.split(" ")
        result[name] = peeled[0] if peeled and peeled[0] else obj
    return result


def show(root: Path, ref: str, path: str) -> str | None:
    """A file's text at ``ref`` (its last newline restored); None when the file or the ref does
    not exist."""
    try:
        text = git.run(root, "show", f"{qualified(root, ref)}:{path}")
    except git.GitError:
        return None
    return text + "\n" if text else text


def ever_had(root: Path, path: str) -> bool:
    """Whether a commit of any branch or tag here ever had ``path`` (a file a later commit
    deleted, not a name nothing ever had)."""
    shown = git.run(root, "log", "-1", "--all", "--format=%H", "--", path, check=False)
    return bool(shown.strip())


def pyproject_at(root: Path, ref: str) -> Mapping[str, Any]:
    text = show(root, ref, "pyproject.toml")
    if text is None:
        raise PreconditionError(f"{ref} has no pyproject.toml; is it a commit of this project?")
    data: dict[str, Any] = tomllib.loads(text)
    return data


def hand_edit_at(root: Path, ref: str, files: Mapping[str, str]) -> str | None:
    """The one version the version files committed at ``ref`` carry when ``current_version``
    says another (a hand edit), read by bump-my-version's own search on a scratch copy;
    ``files``: each path as configured -> the file it is (a link followed). None otherwise."""
    with tempfile.TemporaryDirectory(prefix="mlrelease-versions-") as tmp:
        scratch = Path(tmp)
        for name, actual in files.items():
            text = show(root, ref, actual)
            if text is not None:
                (scratch / name).parent.mkdir(parents=True, exist_ok=True)
                (scratch / name).write_text(text, encoding="utf-8")
        try:
            data = tomllib.loads((scratch / "pyproject.toml").read_text(encoding="utf-8"))
            source = f"{ref}:pyproject.toml"
            current = str(version_files.bumpversion_table(data, source)["current_version"])
            found, problems = version_files.scan(scratch, data, source)
        except (OSError, tomllib.TOMLDecodeError, UserError):
            return None  # refused where the version is read, naming the problem
    return version_files.hand_edit(found, problems, current)


def version_at(root: Path, ref: str) -> str:
    """``[tool.bumpversion] current_version`` as committed at ``ref``."""
    table = pyproject_at(root, ref).get("tool", {}).get("bumpversion", {})
    version = table.get("current_version") if isinstance(table, Mapping) else None
    if not isinstance(version, str):
        missing = f"pyproject.toml at {ref} has no [tool.bumpversion] current_version"
        if _uncommitted_version(root, ref):
            raise PreconditionError(
                f"{missing}: the working tree's pyproject.toml has it, not committed yet. Commit "
                "it (`git add pyproject.toml && git commit`); the release flow reads the "
                "committed version."
            )
        raise PreconditionError(
            f"{missing}; add it (the release flow reads the version from there)."
        )
    return version


def _uncommitted_version(root: Path, ref: str) -> bool:
    """Whether ``ref`` is the checked-out commit and the working tree's pyproject.toml has
    ``[tool.bumpversion] current_version`` (an adoption not committed yet)."""
    path = root / "pyproject.toml"
    if not path.is_file() or commit_of(root, ref) != commit_of(root, "HEAD"):
        return False
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False
    bump = table.get("bumpversion") if isinstance(table, Mapping) else None
    return isinstance(bump, Mapping) and isinstance(bump.get("current_version"), str)


def is_ancestor(root: Path, ancestor: str, descendant: str) -> bool:
    try:
        git.run(
            root,
            "merge-base",
            "--is-ancestor",
            qualified(root, ancestor),
            qualified(root, descendant),
        )
    except git.GitError:  # exit 1: not an ancestor (or not a commit here)
        return False
    return True


def tree_entries(root: Path, ref: str) -> dict[str, tuple[str, str]]:
    """path -> (mode, blob SHA) of every file of ``ref``'s tree."""
    out = git.run(root, "ls-tree", "-r", "-z", qualified(root, ref), strip=False)
    entries: dict[str, tuple[str, str]] = {}
    for item in out.split("\0"):
        if item:
            meta, _, path = item.partition("\t")
            mode, _, sha = meta.split(" ")
            entries[path] = (mode, sha)
    return entries


def cherry(root: Path, upstream: str, head: str) -> list[tuple[bool, str]]:
    """``git cherry upstream head``: commits of ``head`` not in ``upstream``; True when an
    equivalent patch (same patch id) is already in ``upstream``."""
    out = git.run(root, "cherry", upstream, head)
    return [(line[0] == "-", line[2:].strip()) for line in out.splitlines() if line]


def patch_ids(root: Path, revisions: str | list[str]) -> dict[str, str]:
    """patch id -> commit for the commits in ``revisions`` (a range, or a list of commits)
    (``git patch-id --stable``)."""
    # A patch's bytes need not be UTF-8: carried through as they are, or its id would change.
    raw = "surrogateescape"
    args = ["log", "-p", "--no-color", "--no-ext-diff", "--format=commit %H"]
    if isinstance(revisions, str):
        log = git.run(root, *args, revisions, errors=raw)
    elif revisions:
        listed = "\n".join(revisions) + "\n"
        log = git.run(root, *args, "--no-walk=unsorted", "--stdin", input=listed, errors=raw)
    else:
        return {}
    result: dict[str, str] = {}
    for line in git.run(root, "patch-id", "--stable", input=log + "\n", errors=raw).splitlines():
        patch, _, sha = line.partition(" ")
        result.setdefault(patch, sha)
    return result


def commits_info(
    root: Path, shas: list[str], trailer: str
) -> dict[str, tuple[str, tuple[str, ...]]]:
    """commit -> (subject, values of ``trailer``) for ``shas``, in one ``git log``."""
    if not shas:
        return {}
    fmt = f"%H%x00%s%x00%(trailers:key={trailer},valueonly,separator=%x01)%x02"
    out = git.run(
        root,
        "log",
        "--no-walk=unsorted",
        "--stdin",
        f"--format={fmt}",
        input="\n".join(shas) + "\n",
    )
    found: dict[str, tuple[str, tuple[str, ...]]] = {}
    for entry in out.split("\x02"):
        sha, _, rest = entry.strip().partition("\x00")
        if sha:
            subject, _, values = rest.partition("\x00")
            found[sha] = (subject, tuple(v.strip() for v in values.split("\x01") if v.strip()))
    return found


def merge_base(root: Path, a: str, b: str) -> str | None:
    return git.run(root, "merge-base", qualified(root, a), qualified(root, b), check=False) or None


PICKED = re.compile(r"\(cherry picked from commit ([0-9a-f]{7,40})\)")
REVERTS = re.compile(r"This reverts commit ([0-9a-f]{7,40})")


def history(root: Path, revisions: str) -> list[BranchCommit]:
    """The commits of ``revisions``, newest first: subject, the commits their ``-x`` lines name
    and the commits they revert (every ``git revert`` line; a reverted merge's own commits)."""
    out = git.run(root, "log", "--format=%H%x00%s%x00%B%x01", revisions)
    found = []
    for entry in out.split("\x01"):
        sha, _, rest = entry.strip().partition("\x00")
        if not sha:
            continue
        subject, _, body = rest.partition("\x00")
        named = [m[1] for m in REVERTS.finditer(body)]
        reverts = tuple(dict.fromkeys(r for n in named for r in (n, *merged_by(root, n))))
        picked = tuple(m[1] for m in PICKED.finditer(body))
        found.append(BranchCommit(sha, subject, picked, reverts))
    return found


def merged_by(root: Path, sha: str) -> list[str]:
    """The commits merge ``sha`` brought in (none when it is no merge, or not here)."""
    full, *parents = git.run(
        root, "rev-list", "--parents", "-n", "1", sha, check=False
    ).split() or [""]
    if len(parents) < 2:
        return []
    brought = git.run(root, "rev-list", f"{parents[0]}..{full}", check=False).split()
    return [c for c in brought if c != full]


def overrides(root: Path, revisions: str, key: str) -> dict[str, tuple[str, str]]:
    """source commit -> (state, reason) from ``key: <sha> <state>`` and ``Reason:`` trailers of
    the commits in ``revisions`` (the newest record of a commit wins)."""
    fmt = f"%(trailers:key={key},valueonly,separator=%x01)%x00%(trailers:key=Reason,valueonly)%x02"
    found: dict[str, tuple[str, str]] = {}
    for entry in git.run(root, "log", f"--format={fmt}", revisions).split("\x02"):
        values, _, reason = entry.strip().partition("\x00")
        for value in values.split("\x01"):
            sha, _, state = value.strip().partition(" ")
            if sha and state:
                found.setdefault(sha, (state.strip(), reason.strip()))
    return found


def pick_facts(root: Path, branch: str, main: str, trailer: str, override: str) -> PickFacts:
    """What ``release cherry-picks`` decides on: main's commits against the branch's
    (``branch`` and ``main`` fully qualified refs or commits: never a tag of the same name)."""
    base = merge_base(root, branch, main)
    span = f"{base}..{branch}" if base else branch
    candidates = tuple(cherry(root, branch, main))
    info = commits_info(root, [sha for _, sha in candidates], trailer)
    own: dict[str, tuple[str, ...]] = {}
    # Only the commits `git cherry` found equivalent: main's diffs since the fork can run to
    # hundreds of megabytes (Torch-TensorRT's regenerated docs), a pick's are small.
    equivalents = [sha for equivalent, sha in candidates if equivalent]
    for patch, sha in patch_ids(root, equivalents).items():
        own[sha] = (*own.get(sha, ()), patch)
    reverts: dict[str, str] = {}
    for commit in history(root, f"{base}..{main}" if base else main):
        for reverted in commit.reverts:
            reverts.setdefault(reverted, commit.sha)
    return PickFacts(
        candidates=candidates,
        info=info,
        on_branch=patch_ids(root, span),
        own_patches=own,
        branch_commits=tuple(history(root, span)),
        main_reverts=reverts,
        marked=overrides(root, span, override),
    )


_OPERATIONS = {
    "CHERRY_PICK_HEAD": ("a cherry-pick", "git cherry-pick --continue", "git cherry-pick --abort"),
    "REVERT_HEAD": ("a revert", "git revert --continue", "git revert --abort"),
    "MERGE_HEAD": ("a merge", "git commit", "git merge --abort"),
    "rebase-merge": ("a rebase", "git rebase --continue", "git rebase --abort"),
    "rebase-apply": ("a rebase or `git am`", "git rebase --continue", "git rebase --abort"),
    "BISECT_LOG": ("a bisect", "git bisect reset", "git bisect reset"),
}


def in_progress(git_dir: Path) -> str | None:
    """A git operation left unfinished here (by a person or a killed run), as a sentence."""
    for name, (what, finish, undo) in _OPERATIONS.items():
        if (git_dir / name).exists():
            return (
                f"{what} is in progress in this repository ({git_dir / name} exists); finish it "
                f"(`{finish}`) or undo it (`{undo}`), then re-run."
            )
    return None
