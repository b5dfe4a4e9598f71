"""``mlrelease wheels provenance``: the in-toto statement of each wheel a build made, written
beside it (``<wheel>.intoto.json``) in the format :mod:`mlrelease.wheels.evidence` reads at
bind.

The wheel workflow runs it after the build, in the checkout the wheels were built from: each
statement names the wheel's SHA-256, the commit checked out, the source digest of that
commit's tree (computed from git objects, as the reference build of ``release bind`` computes
it) and the workflow run. So compiled code this machine cannot rebuild (a manylinux,
Windows or macOS wheel) is bound on the provenance of the build that made it, and a statement
of another commit or tree is refused there.

The statements are what the build vouches for, so the folder is checked first: the checkout
must be at the commit (no tracked file changed) and the folder must match its
``SHA256SUMS``, which is then written again over the artifacts and the statements (what
``wheels collect`` verifies after the artifact hop). Writing again gives the same bytes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from mlrelease.edges import git
from mlrelease.edges.digests import sha256
from mlrelease.errors import PreconditionError, UserError
from mlrelease.wheels import artifacts, evidence, reference

RUN_URL = re.compile(r"^https?://\S+$")


@dataclass(frozen=True)
class Attested:
    """What ``wheels provenance`` wrote."""

    folder: Path
    commit: str
    source: str
    """The source digest of the commit's tree (``sha256:...``)."""
    run: str
    statements: tuple[Path, ...] = ()
    sums: Path | None = None
    """The folder's ``SHA256SUMS``, written again over the statements too (None: it has none)."""


def write(root: Path, folder: Path, rev: str, run: str) -> Attested:
    """Write the statement of each wheel of ``folder``, built in the checkout ``root`` at
    ``rev`` by the workflow run ``run`` (its URL)."""
    if not RUN_URL.match(run):
        raise UserError(
            f"--run-url {run!r}: expected the URL of the workflow run that built the wheels, "
            "e.g. $GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID/attempts/"
            "$GITHUB_RUN_ATTEMPT on GitHub Actions."
        )
    if not folder.is_dir():
        raise UserError(f"{folder}: no such folder; build the wheels into it first.")
    commit = _checked_out(root, rev)
    if (folder / artifacts.SUMS).is_file():
        wrong = artifacts.verify_sums(folder)
        if wrong:
            raise PreconditionError(
                f"{folder} does not match its {artifacts.SUMS}, so its wheels are not the "
                f"ones the build wrote: {'; '.join(str(w) for w in wrong)}. Build them again "
                "(`mlrelease wheels build`); no statement was written."
            )
    _, source = reference.source_digest(root, commit)
    written = []
    for wheel in (p for p in artifacts.collect(folder) if p.name.endswith(".whl")):
        data = evidence.statement(wheel.name, sha256(wheel), commit, source, run)
        target = folder / f"{wheel.name}{evidence.SUFFIX}"
        partial = folder / f".{target.name}.partial"
        partial.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        partial.replace(target)
        written.append(target)
    sums = artifacts.write_sums(folder) if (folder / artifacts.SUMS).is_file() else None
    return Attested(folder, commit, source, run, tuple(written), sums)


def _checked_out(root: Path, rev: str) -> str:
    """The commit ``rev`` names, which must be the checkout's, with no tracked file changed:
    what the wheels were built from."""
    commit = git.run(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False)
    if not commit:
        raise UserError(f"--commit {rev!r}: no such commit in {root}.")
    head = git.head(root)
    if head != commit:
        raise PreconditionError(
            f"--commit {rev} is {commit[:12]}, but the checkout in {root} is at "
            f"{(head or 'no commit')[:12]}: a statement names the commit the wheels were built "
            "from. Run it in the build's checkout, after the build."
        )
    status = git.run(root, "status", "--porcelain", "--untracked-files=no", strip=False)
    changed = [line[3:] for line in status.splitlines() if line.strip()]
    if changed:
        files = ", ".join(changed[:5]) + (" ..." if len(changed) > 5 else "")
        raise PreconditionError(
            f"tracked files of {root} differ from {commit[:12]} ({files}): the wheels were not "
            f"built from that commit's tree. Build them from a clean checkout; no statement was "
            "written."
        )
    return commit
