"""Invariant (d): a manifest, once bound, cannot be replaced unnoticed by any clone, fresh CI
clones included (docs/release/invariants.md)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.invariants import RC, binding_refs, hashes, other_build
from helpers.release import Repo


def replace_binding(colleague: Repo, files: Path) -> None:
    """Force-push, over every ref of origin that binds the RC, a manifest naming ``files``
    (the same RC and commit, other SHA-256s): the attack a fresh clone must notice."""
    theirs = hashes(files)
    sizes = {p.name: p.stat().st_size for p in files.iterdir()}
    for ref, sha in binding_refs(colleague).items():
        colleague.git("fetch", "-q", "origin", ref)
        data = json.loads(colleague.git("cat-file", "blob", sha))
        for entry in data["files"]:
            entry["sha256"], entry["size"] = theirs[entry["name"]], sizes[entry["name"]]
        blob = colleague.git("hash-object", "-w", forged(colleague, data))
        colleague.git("push", "-q", "--force", "origin", f"{blob}:{ref}")


def forged(colleague: Repo, data: object) -> str:
    """A file holding the forged manifest (for `git hash-object -w`)."""
    path = colleague.path / ".git" / "forged-manifest.json"
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return str(path)


def test_a_forced_update_of_the_binding_is_noticed_everywhere(
    candidate: Repo, colleague: Repo, mlr, mlr_at, index, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Class 12: a forced update of the manifest ref on origin was accepted by a fresh clone,
    and the refusal in the maintainer's clone advised deleting the genuine binding."""
    url, packages = index
    theirs = other_build(colleague, tmp_path / "theirs")
    replace_binding(colleague, theirs)
    # A fresh clone (CI) at the RC, verified there, promoting the files it was handed.
    colleague.git("switch", "-q", "--detach", RC)
    assert mlr_at(colleague, "verify")[0] == 0
    code, _, err = mlr_at(
        colleague, "release", "promote", "--rc", RC, "--publish", "--artifacts", str(theirs),
        "--repository-url", url, "--execute", "--push",
    )  # fmt: skip
    assert code == 1 and RC in err
    assert hashes(packages) == {} and colleague.git("ls-remote", "--tags", "origin", "v1.4.0") == ""
    # The clone that bound refuses too, and never advises deleting its own, genuine binding.
    code, _, err = mlr("release", "promote", "--rc", RC, "--publish", "--repository-url", url)
    assert code == 1 and RC in err and "update-ref -d" not in err
    assert candidate.git("for-each-ref", "refs/mlrelease") != ""


def test_an_rc_tag_moved_on_origin_is_not_deleted_here_on_advice(
    candidate: Repo, colleague: Repo, mlr
) -> None:  # type: ignore[no-untyped-def]
    """A colleague force-moves origin's v1.4.0-rc1 to a commit of theirs, keeping the
    ``Made-by`` line. The clone whose record says it made the tag was told "origin is the
    truth: git tag -d ..." (an adversary given the docs): the advice deleted the tag that was
    made. Now it says origin's was moved and keeps this clone's."""
    colleague.git("fetch", "-q", "origin")
    message = colleague.git("tag", "-l", "--format=%(contents)", RC)
    colleague.git("commit", "-q", "--allow-empty", "-m", "theirs")
    colleague.git("tag", "-f", "-a", "-m", message, RC, "HEAD")
    colleague.git("push", "-q", "--force", "origin", f"refs/tags/{RC}")
    made = candidate.git("rev-parse", f"refs/tags/{RC}")
    code, _, err = mlr("release", "promote", "--rc", RC, "--published-elsewhere", "--execute")
    assert code == 1 and "was moved" in err and "git tag -d" not in err, err
    assert candidate.git("rev-parse", f"refs/tags/{RC}") == made
