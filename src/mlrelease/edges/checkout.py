"""A commit's tree as a fresh clone's checkout writes it, from git objects alone (issue 48).

The reference build of a commit reads this tree, never the clone's view of it: ``git archive``
applied the clone's filters (a smudge filter given through ``GIT_CONFIG_COUNT``), its attribute
files (``.git/info/attributes``: ``export-ignore``) and its eol conversion
(``core.autocrlf``), and left submodules and the repository out. Here the tree is checked out
in a repository of its own:

- its objects are the clone's (``objects/info/alternates``), its configuration only what
  ``git init`` writes, and git runs under :func:`mlrelease.edges.git.bare_environment` (no
  ``GIT_`` variable, no system or global configuration, no system attributes): no filter
  driver exists, nothing converts line endings but the commit's own ``.gitattributes``, as on
  a CI runner's fresh checkout;
- ``export-ignore`` and ``export-subst`` do not apply: they are for ``git archive``, and the
  project's own build sees every file of the commit;
- HEAD is detached at the commit and the clone's tags are its tags, so a build that asks git
  (``git rev-parse HEAD`` into ``version.py``, setuptools-scm's ``git describe``) gets what
  it gets in CI's checkout;
- each submodule is checked out the same way at the commit the tree records, from the
  clone's ``.git/modules/<name>``.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from mlrelease.edges import git
from mlrelease.errors import PreconditionError

GITLINK = "160000"


@dataclass(frozen=True)
class Source:
    """Where a repository's objects are, and where its submodules' git folders are."""

    objects: Path
    modules: Path


def export(root: Path, commit: str, into: Path) -> None:
    """Check ``commit`` of the clone at ``root`` out into ``into`` (see the module)."""
    common = git.common_dir(root)
    source = Source(common / "objects", common / "modules")
    tags = git.run(root, "for-each-ref", "--format=%(objectname) %(refname)", "refs/tags")
    _checkout(source, commit, into, tags.splitlines(), "")


def _checkout(source: Source, commit: str, into: Path, tags: list[str], where: str) -> None:
    into.mkdir(parents=True, exist_ok=True)
    git.run_bare(into, "init", "-q", "--template=", ".")
    info = into / ".git" / "objects" / "info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "alternates").write_text(f"{source.objects}\n", encoding="utf-8")
    if tags:
        present = _present(into, [line.split(" ", 1)[0] for line in tags])
        lines = [f"create {ref} {obj}\n" for obj, ref in (t.split(" ", 1) for t in tags)]
        kept = [line for line in lines if line.split(" ")[2].strip() in present]
        git.run_bare(into, "update-ref", "--stdin", input="".join(kept))
    done = git.call_bare(into, "checkout", "-q", "--detach", commit)
    if done.returncode != 0:
        what = f"submodule {where} at {commit[:12]}" if where else f"commit {commit[:12]}"
        raise PreconditionError(
            f"the reference build cannot check out the {what} from this clone's objects "
            f"({done.stderr.strip()[-300:]}). Fetch it (`git fetch origin`, `git submodule "
            "update --init --recursive`; a partial or shallow clone lacks objects), then re-run."
        )
    for path, name, sha in _submodules(into):
        if name is None:
            raise PreconditionError(
                f"{commit[:12]} records the submodule {where}{path} at {sha[:12]}, and its "
                ".gitmodules has no entry for that path: CI's recursive checkout fails there too "
                "(no URL to fetch it from). Add the entry (`git submodule add URL PATH`) or remove "
                "the link (`git rm --cached PATH`), commit, and tag a new candidate."
            )
        module = source.modules / name
        if not (module / "objects").is_dir():
            raise PreconditionError(
                f"{commit[:12]} records the submodule {where}{path} ({name}) at {sha[:12]}, and "
                f"this clone has no {module}: run `git submodule update --init --recursive` (a "
                "submodule whose git folder sits in the work tree: `git submodule "
                "absorbgitdirs`), then re-run (the reference builds what CI's recursive checkout "
                "builds)."
            )
        inner = Source(module / "objects", module / "modules")
        _checkout(inner, sha, into / path, [], f"{where}{path}/")


def _present(into: Path, objects: list[str]) -> set[str]:
    """The object ids of ``objects`` the repository at ``into`` has."""
    listed = git.run_bare(into, "cat-file", "--batch-check", input="\n".join(objects) + "\n")
    return {line.split(" ", 1)[0] for line in listed.splitlines() if " missing" not in line}


def _submodules(into: Path) -> list[tuple[str, str | None, str]]:
    """(path, name, commit) of each submodule the checked-out tree records; the name is None
    where ``.gitmodules`` has no entry for the path."""
    staged = git.run_bare(into, "ls-files", "--stage", "-z")
    links = {}
    for entry in staged.split("\0"):
        meta, _, path = entry.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[0] == GITLINK:
            links[path] = parts[1]
    if not links:
        return []
    names = {}
    if (into / ".gitmodules").is_file():
        pattern = r"^submodule\..*\.path$"
        listed = git.run_bare(
            into, "config", "-f", ".gitmodules", "--get-regexp", pattern, check=False
        )
        for line in listed.splitlines():
            key, _, path = line.partition(" ")
            names[path] = key[len("submodule.") : -len(".path")]
    return [(path, names.get(path), sha) for path, sha in sorted(links.items())]


def digest(into: Path) -> str:
    """The source digest of a checked-out tree: SHA-256 over every file and link, git's own
    ``.git`` aside, one ``path NUL kind NUL sha256`` line each in path order (what the
    provenance of a wheel's build names; ``mlrelease wheels source-digest`` prints it)."""
    lines = []
    for folder, dirs, files in os.walk(into):
        base = Path(folder)
        entries = [*files, *(d for d in dirs if (base / d).is_symlink())]
        dirs[:] = [d for d in dirs if d != ".git" and not (base / d).is_symlink()]
        for name in entries:
            path = base / name
            if name == ".git":
                continue
            if path.is_symlink():
                kind, data = "link", os.readlink(path).encode()
            else:
                kind = "exec" if path.stat().st_mode & 0o111 else "file"
                data = path.read_bytes()
            rel = path.relative_to(into).as_posix()
            lines.append(f"{rel}\0{kind}\0{hashlib.sha256(data).hexdigest()}\n")
    return "sha256:" + hashlib.sha256("".join(sorted(lines)).encode()).hexdigest()


def unlike_worktree(root: Path, commit: str) -> list[str]:
    """The files of the clone's working tree at ``root`` whose bytes are not what a fresh
    checkout of ``commit`` writes, though ``git status`` may be clean: git compares content
    cleaned by the attributes (``ident``, ``eol``, a filter, ``core.autocrlf``), so a file
    written before a committed ``.gitattributes`` applied to it stays as it was. A build of
    this working tree then cannot match the reference, wherever it writes its files."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="mlrelease-worktree-") as tmp:
        fresh = Path(tmp) / "tree"
        export(root, commit, fresh)
        unlike = []
        for folder, dirs, files in os.walk(fresh):
            dirs[:] = [d for d in dirs if d != ".git"]
            for name in files:
                path = Path(folder) / name
                rel = path.relative_to(fresh).as_posix()
                mine = root / rel
                if path.is_symlink() or name == ".git":
                    continue
                if not mine.is_file() or mine.read_bytes() != path.read_bytes():
                    unlike.append(rel)
        return sorted(unlike)
