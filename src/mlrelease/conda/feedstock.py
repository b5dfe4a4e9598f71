"""The feedstock's git repository (the edge's reads and writes, through :mod:`mlrelease.edges.git`).

The recipe is read from the remote's branch (fetched first: origin is the truth), never from
the clone's working tree; the change is written as a commit on a new branch made from that
branch with git's plumbing (the clone's checkout, index and working tree are left alone), then
pushed with one named refspec. Writing is safe to run twice and resumes after a kill: a branch
already holding the same tree on the same base is reused, the push of a branch origin already
has at that commit is skipped, and a branch holding anything else is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from mlrelease.conda.recipe import META, V1
from mlrelease.edges import git
from mlrelease.errors import PreconditionError, UserError

RECIPES = ("recipe/recipe.yaml", "recipe/meta.yaml")
VARIANT_FOLDER = ".ci_support"


@dataclass(frozen=True)
class Feedstock:
    """The feedstock at the remote branch's commit."""

    clone: Path
    remote: str
    branch: str
    commit: str
    recipe_path: str
    recipe_text: str
    patches: dict[str, str] = field(default_factory=dict)
    """Patch path in the repository -> its text."""
    variants: tuple[dict[str, str], ...] = ()
    """The first value of each key of each ``.ci_support/*.yaml`` (the rendered variants)."""
    variants_text: str | None = None
    """``recipe/variants.yaml`` (v1) or ``recipe/conda_build_config.yaml`` (meta.yaml)."""

    @property
    def kind(self) -> str:
        return V1 if self.recipe_path.endswith(V1) else META

    @property
    def variants_path(self) -> str:
        name = "variants.yaml" if self.kind == V1 else "conda_build_config.yaml"
        return str(PurePosixPath(self.recipe_path).parent / name)


def _text(clone: Path, commit: str, path: str) -> str | None:
    data = git.blob_bytes(clone, f"{commit}:{path}")
    return None if data is None else data.decode("utf-8", "replace")


def variant_values(text: str) -> dict[str, str]:
    """The first list item of each top-level key of a conda-smithy variant file."""
    found: dict[str, str] = {}
    current = ""
    for line in text.splitlines():
        if line and not line[0].isspace() and line.rstrip().endswith(":"):
            current = line.rstrip()[:-1]
        elif current and line.lstrip().startswith("- ") and current not in found:
            found[current] = line.lstrip()[2:].strip().strip("\"'")
    return found


def fetch(clone: Path, remote: str, branch: str) -> str:
    """Fetch ``remote``'s ``branch`` into its remote-tracking ref; its commit."""
    if not git.is_repo(clone):
        raise UserError(
            f"{clone}: not a git repository. Clone the feedstock there, or point "
            "[tool.mlrelease.conda] feedstock at its clone."
        )
    tracking = f"refs/remotes/{remote}/{branch}"
    proc = git.call_git(clone, "fetch", "--no-tags", remote, f"+refs/heads/{branch}:{tracking}")
    if proc.returncode != 0:
        raise PreconditionError(
            f"cannot fetch {branch} from the feedstock's remote {remote!r} ({clone}): "
            f"{proc.stderr.strip()}. Fix the remote ([tool.mlrelease.conda] remote, branch)."
        )
    return git.run(clone, "rev-parse", f"{tracking}^{{commit}}")


def read(clone: Path, remote: str, branch: str, recipe: str = "") -> Feedstock:
    """The feedstock as its remote's ``branch`` holds it."""
    commit = fetch(clone, remote, branch)
    candidates = (recipe,) if recipe else RECIPES
    for path in candidates:
        text = _text(clone, commit, path)
        if text is not None:
            break
    else:
        raise PreconditionError(
            f"{remote}/{branch} of the feedstock {clone} has no {' or '.join(candidates)}: set "
            "[tool.mlrelease.conda] recipe to the recipe's path."
        )
    listed = git.run(clone, "ls-tree", "-r", "--name-only", commit).splitlines()
    folder = str(PurePosixPath(path).parent)
    patches = {p: _text(clone, commit, p) or "" for p in listed if _is_patch(p, folder)}
    variants = tuple(
        variant_values(_text(clone, commit, p) or "")
        for p in listed
        if p.startswith(f"{VARIANT_FOLDER}/") and p.endswith(".yaml") and "/migrations/" not in p
    )
    stock = Feedstock(clone, remote, branch, commit, path, text, patches, variants)
    return Feedstock(
        **{**stock.__dict__, "variants_text": _text(clone, commit, stock.variants_path)}
    )


def _is_patch(path: str, folder: str) -> bool:
    return path.startswith(f"{folder}/") and path.endswith((".patch", ".diff"))


def _tree(clone: Path, base: str, prefix: str, files: dict[str, str]) -> str:
    """The tree ``base:prefix`` with ``files`` (paths under ``prefix``) written into it."""
    spec = f"{base}:{prefix}" if prefix else f"{base}^{{tree}}"
    listing = git.call_git(clone, "ls-tree", "-z", spec).stdout
    entries = {}
    for entry in filter(None, listing.split("\0")):
        meta, _, name = entry.partition("\t")
        entries[name] = meta
    here = {p: t for p, t in files.items() if "/" not in p}
    below: dict[str, dict[str, str]] = {}
    for path, text in files.items():
        if "/" in path:
            top, rest = path.split("/", 1)
            below.setdefault(top, {})[rest] = text
    for name, text in here.items():
        blob = git.run(clone, "hash-object", "-w", "--stdin", input=text)
        entries[name] = f"100644 blob {blob}"
    for top, inner in below.items():
        sub = _tree(clone, base, f"{prefix}{top}/", inner)
        entries[top] = f"040000 tree {sub}"
    text = "".join(f"{meta}\t{name}\0" for name, meta in sorted(entries.items()))
    return git.run(clone, "mktree", "-z", input=text)


def write(
    stock: Feedstock, branch: str, files: dict[str, str], message: str, *, push: bool
) -> list[str]:
    """Commit ``files`` on ``branch`` made from the feedstock's base commit (and push it);
    what was done, one line each."""
    clone, done = stock.clone, []
    tree = _tree(clone, stock.commit, "", files)
    ref = f"refs/heads/{branch}"
    have = git.call_git(
        clone, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"
    ).stdout.strip()
    if have:
        same = git.run(clone, "rev-parse", f"{have}^{{tree}}") == tree
        parent = git.call_git(clone, "rev-parse", f"{have}^").stdout.strip()
        if not same or parent != stock.commit:
            raise PreconditionError(
                f"the feedstock clone {clone} already has a branch {branch} holding another "
                f"change (or made from another commit than {stock.remote}/{stock.branch}). "
                f"Delete it (`git branch -D {branch}`) or keep it, then re-run."
            )
        done.append(f"branch {branch} already holds this change ({have[:12]})")
        commit = have
    else:
        commit = git.run(clone, "commit-tree", tree, "-p", stock.commit, "-m", message)
        git.run(clone, "update-ref", ref, commit, "0" * 40)
        done.append(f"branch {branch} written at {commit[:12]} (from {stock.commit[:12]})")
    if push:
        done.append(_push(stock, branch, commit))
    return done


def _push(stock: Feedstock, branch: str, commit: str) -> str:
    ref = f"refs/heads/{branch}"
    listed = git.run(stock.clone, "ls-remote", stock.remote, ref).split()
    if listed and listed[0] == commit:
        return f"{stock.remote} already has {branch} at {commit[:12]}"
    if listed:
        raise PreconditionError(
            f"the feedstock's remote {stock.remote!r} has a branch {branch} at {listed[0][:12]}, "
            f"not this change ({commit[:12]}): someone pushed another change there. Look at it; "
            "delete it on the remote to replace it."
        )
    git.run(stock.clone, "push", stock.remote, f"{ref}:{ref}")
    return f"pushed {branch} to {stock.remote}"
