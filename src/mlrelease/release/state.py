"""One snapshot of the world a release command decides on: local and origin refs, every tag
with its target, type and annotation, and the manifests bound to release candidates.

Origin is the truth for tags: :func:`read_origin` lists origin's refs (``git ls-remote``) and
fetches the objects it names by SHA, without creating or moving a single local ref (a dry run
changes nothing), so origin's tags can be inspected (annotated? made by mlrelease?) and its
branch tips checked for reachability. The pure helpers below decide on that data only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mlrelease.edges import git
from mlrelease.edges import proc as processes
from mlrelease.errors import PreconditionError

RC_MARKER = "Made-by: mlrelease release rc"
"""The line ``release rc`` writes into every RC tag's annotation; promotion requires it."""
MANIFEST_PREFIX = "refs/mlrelease/manifests/"
"""``refs/mlrelease/manifests/<rc tag>``: the blob of the RC's artifact manifest."""


@dataclass(frozen=True)
class Tag:
    """A tag as one side sees it."""

    name: str
    object: str
    """The tag object (annotated) or the commit itself (lightweight)."""
    commit: str | None
    """The commit it points at (peeled); None when that object is not here."""
    annotated: bool
    message: str = ""

    @property
    def made_by_mlrelease(self) -> bool:
        return self.annotated and RC_MARKER in self.message.splitlines()


@dataclass
class Refs:
    """Branches, tags and manifest refs of one side (local, or origin)."""

    heads: dict[str, str] = field(default_factory=dict)
    tags: dict[str, Tag] = field(default_factory=dict)
    manifests: dict[str, str] = field(default_factory=dict)
    """RC tag name -> blob SHA of its manifest."""


@dataclass
class Remote:
    """Origin's refs, as read at the start of the command."""

    name: str
    refs: Refs

    @property
    def heads(self) -> dict[str, str]:
        return self.refs.heads

    @property
    def tags(self) -> dict[str, str]:
        """Tag name -> peeled commit."""
        return {n: t.commit or t.object for n, t in self.refs.tags.items()}

    @property
    def tag_objects(self) -> dict[str, str]:
        return {n: t.object for n, t in self.refs.tags.items()}


# --- reading (the edge) ---------------------------------------------------------------------


def _objects(root: Path, shas: list[str]) -> dict[str, tuple[str, str]]:
    """sha -> (type, raw content) for the objects present here (``git cat-file --batch``)."""
    if not shas:
        return {}
    proc = processes.call_bytes(
        ["git", "cat-file", "--batch"], cwd=root, input="".join(f"{s}\n" for s in shas).encode()
    )
    if proc.returncode != 0:
        raise git.GitError(f"git cat-file --batch failed: {proc.stderr.decode(errors='replace')}")
    out, pos, found = proc.stdout, 0, {}
    for sha in shas:
        end = out.index(b"\n", pos)
        header = out[pos:end].decode().split()
        pos = end + 1
        if len(header) < 3 or header[1] == "missing":
            continue
        size = int(header[2])
        found[sha] = (header[1], out[pos : pos + size].decode("utf-8", errors="replace"))
        pos += size + 1
    return found


def _tag_from(name: str, obj: str, peeled: str | None, seen: tuple[str, str] | None) -> Tag:
    kind, content = seen or ("", "")
    if kind != "tag":
        return Tag(name, obj, obj if kind == "commit" else peeled, False)
    head, _, message = content.partition("\n\n")
    target = next((ln[7:] for ln in head.splitlines() if ln.startswith("object ")), None)
    return Tag(name, obj, peeled or target, True, message.split("-----BEGIN PGP")[0])


def read_local(root: Path) -> Refs:
    """The local branches, tags (with type and annotation) and manifest refs."""
    out = git.run(
        root,
        "for-each-ref",
        "--format=%(refname) %(objectname) %(*objectname)",
        "refs/heads",
        "refs/tags",
        MANIFEST_PREFIX.rstrip("/"),
    )
    listed: dict[str, str] = {}
    peeled: dict[str, str] = {}
    for line in out.splitlines():
        ref, obj, *rest = line.split(" ")
        listed[ref] = obj
        if rest and rest[0]:
            peeled[ref] = rest[0]
    return _refs(root, listed, peeled)


def _refs(root: Path, listed: dict[str, str], peeled: dict[str, str]) -> Refs:
    """Refs from ref -> object and ref -> peeled commit (tags' objects read in one batch)."""
    seen = _objects(root, sorted({o for r, o in listed.items() if r.startswith("refs/tags/")}))
    refs = Refs()
    for ref, obj in listed.items():
        if ref.startswith("refs/heads/"):
            refs.heads[ref[len("refs/heads/") :]] = obj
        elif ref.startswith("refs/tags/"):
            name = ref[len("refs/tags/") :]
            refs.tags[name] = _tag_from(name, obj, peeled.get(ref), seen.get(obj))
        elif ref.startswith(MANIFEST_PREFIX):
            refs.manifests[ref[len(MANIFEST_PREFIX) :]] = obj
    return refs


def read_origin(root: Path, name: str) -> Remote | None:
    """Origin's refs, with their objects fetched (by SHA; no local ref moves); None when no
    remote is configured. An unreachable remote is refused: its tags must count."""
    if not name or name not in git.run(root, "remote").split():
        return None
    proc = processes.call(["git", "ls-remote", name], cwd=root)
    if proc.returncode != 0:
        raise PreconditionError(
            f"cannot list the refs of remote {name!r}: {proc.stderr.strip()}. Fix the connection, "
            'or set [tool.mlrelease.release] remote = "" to work on local refs only.'
        )
    listed: dict[str, str] = {}
    peeled: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        sha, _, ref = line.partition("\t")
        if ref.endswith("^{}"):
            peeled[ref[:-3]] = sha
        elif ref.startswith(("refs/heads/", "refs/tags/", MANIFEST_PREFIX)):
            listed[ref] = sha
    wanted = sorted(set(listed.values()))
    have = _objects(root, wanted)
    lacking = [s for s in wanted if s not in have]
    if lacking:
        fetched = processes.call(
            ["git", "fetch", "-q", "--no-tags", "--no-write-fetch-head", name, *lacking], cwd=root
        )
        if fetched.returncode != 0:
            raise PreconditionError(
                f"cannot fetch the objects of {name}'s refs ({fetched.stderr.strip()}); did "
                f"someone move them while this command read them? Re-run it."
            )
    return Remote(name, _refs(root, listed, peeled))


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


# --- decisions (pure) -----------------------------------------------------------------------


def short(sha: str | None) -> str:
    return sha[:12] if sha else "?"


def tag_conflicts(local: Refs, remote: Remote | None, names: set[str]) -> list[str]:
    """Tags in ``names`` that exist on both sides with different objects, as sentences."""
    if remote is None:
        return []
    found = []
    for name in sorted(names):
        mine, theirs = local.tags.get(name), remote.refs.tags.get(name)
        if mine and theirs and mine.object != theirs.object:
            found.append(
                f"tag {name} is {short(mine.commit)} here but {short(theirs.commit)} on "
                f"{remote.name} ({remote.name} is the truth: `git tag -d {name} && git fetch "
                f"{remote.name} tag {name}`)"
            )
    return found


def rc_problem(tag: Tag | None, name: str, where: str, branch: str, reachable: bool) -> str | None:
    """Why the RC tag ``name`` cannot be promoted (or bound), or None when it can."""
    if tag is None:
        return (
            f"there is no tag {name} on {where}; push it (`mlrelease release rc --execute "
            "--push`) or list the candidates with `mlrelease release status`."
        )
    if not tag.annotated:
        return (
            f"{name} on {where} is a lightweight tag, not an annotated release candidate made by "
            "`mlrelease release rc`; delete it and tag the candidate with that command."
        )
    if not tag.made_by_mlrelease:
        return (
            f"{name} on {where} was not made by `mlrelease release rc` (its annotation lacks "
            f"{RC_MARKER!r}); delete it and tag the candidate with that command."
        )
    if not reachable:
        return (
            f"{name} ({short(tag.commit)}) is not on {where}'s {branch}: a release candidate is "
            f"a commit of the release branch. Tag one on {branch} with `mlrelease release rc`."
        )
    return None
