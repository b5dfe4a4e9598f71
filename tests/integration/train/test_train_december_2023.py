"""The December 2023 overlap, replayed (pytorch/test-infra PR #4803): torch's 2.1.2 patch
candidates and 2.2.0's first candidate were in the test channel together, and the domain
libraries' 2.1.2 candidates were built against torch 2.2.0, the version string being the only
link. Here ``torchlet`` 2.1.2-rc1 and 2.2.0-rc1 are staged together, ``visionlet`` 0.16.2 is
built pinning 2.2.0 (as a build whose PYTORCH_VERSION resolved to the newest candidate stamps
it), and the train (torchlet 2.1.2, visionlet 0.16.2) refuses to bind it; bound without a
record, the version string alone, the train refuses to release it; rebuilt against 2.1.2 it is
bound to exactly torchlet's 2.1.2-rc1 files."""

from __future__ import annotations

from pathlib import Path

from helpers.train_rig import UPSTREAM, VISION, Indexes, git, make_rig, patch_release

from mlrelease.release.promotion.manifest import Manifest


def test_a_member_built_against_the_next_minor_candidate_is_refused(
    tmp_path: Path, indexes: Indexes
) -> None:
    indexes.empty()
    versions = {UPSTREAM: "2.1.2", VISION: "0.16.2"}
    rig = make_rig(
        tmp_path / "w",
        indexes.staging,
        indexes.release.url,
        "pytorch-2.1.2",
        versions,
        pins={VISION: "2.2.0"},
    )
    torch, vision = rig.work(UPSTREAM), rig.work(VISION)
    rig.ok(torch, "release", "cut", "--version", "2.1", "--execute", "--push")
    patch_release(torch, "release/2.1", ("v2.1.0", "v2.1.1"), UPSTREAM)
    rig.ok(torch, "release", "prepare", "--version", "2.1.2", "--execute", "--push")
    patch_rc = rig.tag(UPSTREAM)
    assert rig.bind(UPSTREAM, patch_rc)[0] == 0
    rig.stage(UPSTREAM, patch_rc)
    git(torch, "switch", "-q", "main")
    minor_rc = rig.candidate(UPSTREAM, "2.2.0")
    assert rig.bind(UPSTREAM, minor_rc)[0] == 0
    rig.stage(UPSTREAM, minor_rc)
    staged = sorted(p.name for p in indexes.staging_files.iterdir())
    assert staged == [
        f"torchlet-{v}{s}" for v in ("2.1.2", "2.2.0") for s in ("-py3-none-any.whl", ".tar.gz")
    ]

    rig.ok(vision, "train", "cut", "--train", str(rig.train), "--execute", "--push")
    patch_release(vision, "release/0.16", ("v0.16.0", "v0.16.1"), VISION)
    rig.ok(vision, "release", "prepare", "--version", "0.16.2", "--execute", "--push")
    wrong = rig.tag(VISION)
    code, out = rig.bind(VISION, wrong)
    assert code == 1 and "built against torchlet 2.2.0" in out and "releases torchlet 2.1.2" in out
    assert not git(rig.origin(VISION), "for-each-ref", "refs/mlrelease/bound")

    git(vision, "switch", "-q", "--detach", wrong)  # bound by the version string alone
    rig.ok(vision, "release", "bind", "--rc", wrong, "--execute", "--push")
    git(vision, "switch", "-q", "release/0.16")
    blocks = rig.status()[VISION]["blocks"]
    assert any("records no upstream torchlet" in b for b in blocks), blocks
    code, out = rig.mlr(rig.base, "train", "promote", "--train", str(rig.train), "--execute")
    assert code == 1 and "records no upstream torchlet" in out and indexes.release.uploaded == []

    pyproject = vision / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("torchlet==2.2.0", "torchlet==2.1.2"))
    git(vision, "commit", "-qam", "fix(release): build against torch 2.1.2")
    git(vision, "push", "-q", "origin", "release/0.16")
    right = rig.tag(VISION)
    code, out = rig.bind(VISION, right)
    assert code == 0, out
    found = git(
        rig.origin(VISION),
        "for-each-ref",
        "--format=%(objectname)",
        f"refs/mlrelease/bound/{right}",
    )
    (record,) = Manifest.parse(git(rig.origin(VISION), "cat-file", "blob", found), right).upstream
    assert (record.version, record.rc_tag) == ("2.1.2", patch_rc)
    assert {e.name for e in record.files} == {
        "torchlet-2.1.2-py3-none-any.whl",
        "torchlet-2.1.2.tar.gz",
    }
    assert not rig.status()[VISION]["blocks"]
