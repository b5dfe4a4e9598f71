"""What the train refuses, on the staged train (every member's first candidate bound and staged):
an upstream candidate rebuilt after a member bound to it, a member re-tagged in the middle of a
promotion, a colleague who moves the upstream's candidate tag, and a member released on its own
before its upstream. Each refusal names what and why, and nothing is sent."""

from __future__ import annotations

from helpers.train_rig import AUDIO, UPSTREAM, VISION, Indexes, Rig, git


def test_an_upstream_rebuilt_after_its_members_bound_blocks_them_until_they_rebind(
    train: Rig, indexes: Indexes
) -> None:
    rc2 = train.tag(UPSTREAM, "--rebuild")  # the upstream rebuilds: a new candidate
    code, out = train.bind(UPSTREAM, rc2)
    assert code == 0, out
    train.stage(UPSTREAM, rc2)  # the same bytes: staging holds them already
    status = train.status()
    for member in (VISION, AUDIO):
        assert any("newer candidate, v2.5.0-rc2" in b for b in status[member]["blocks"])
    code, out = train.mlr(train.base, "train", "promote", "--train", str(train.train), "--execute")
    assert code == 1 and "newer candidate, v2.5.0-rc2" in out and "Nothing was" in out
    assert indexes.release.uploaded == []
    for member in (VISION, AUDIO):  # each member builds against it, tags and binds again
        code, out = train.bind(member, train.tag(member, "--rebuild"))
        assert code == 0, out
    assert all(not row["blocks"] for row in train.status().values())
    train.ok(train.base, "train", "promote", "--train", str(train.train), "--execute")
    assert len(indexes.release.uploaded) == len(set(indexes.release.uploaded)) == 6


def test_a_member_released_alone_before_its_upstream_is_refused(
    train: Rig, indexes: Indexes
) -> None:
    args = ("--repository-url", indexes.release.url, "--execute", "--push")
    code, out = train.mlr(
        train.work(VISION), "release", "promote", "--rc", "v0.20.0-rc1", "--publish", *args
    )
    assert code == 1 and "torchlet 2.5.0 is not released yet" in out, out
    assert "train invariant T3" in out and indexes.release.uploaded == []
    assert not git(train.origin(VISION), "tag", "--list", "v0.20.0")


def test_a_colleague_who_moves_the_upstream_candidate_tag_blocks_the_members(
    train: Rig, indexes: Indexes
) -> None:
    colleague = train.colleague(UPSTREAM)
    git(colleague, "switch", "-q", "release/2.5")
    (colleague / "NOTES.md").write_text("moved\n", encoding="utf-8")
    git(colleague, "add", "NOTES.md")
    git(colleague, "commit", "-q", "-m", "docs: a note")
    git(colleague, "tag", "-f", "-a", "v2.5.0-rc1", "-m", "Made-by: mlrelease release rc")
    git(colleague, "push", "-q", "-f", "origin", "release/2.5", "refs/tags/v2.5.0-rc1")
    status = train.status()
    assert any("the tag was moved" in b for b in status[VISION]["blocks"]), status[VISION]
    code, out = train.mlr(train.base, "train", "promote", "--train", str(train.train), "--execute")
    assert code == 1 and "the tag was moved" in out
    assert indexes.release.uploaded == []


def test_a_member_re_tagged_during_the_promotion_is_named_and_restarted(
    train: Rig, indexes: Indexes
) -> None:
    args = ("train", "promote", "--train", str(train.train), "--execute")
    code, _ = train.mlr(train.base, *args, kill=f"train:after:{UPSTREAM}")
    assert code < 0  # killed after the upstream was released
    assert sorted(indexes.release.uploaded) == [
        "torchlet-2.5.0-py3-none-any.whl",
        "torchlet-2.5.0.tar.gz",
    ]
    rc2 = train.tag(VISION, "--rebuild")  # the colleague's re-tag: a newer candidate
    code, out = train.mlr(train.base, *args)
    assert code == 1 and f"origin's newest candidate is now {rc2}" in out and "--restart" in out
    assert len(indexes.release.uploaded) == 2
    code, out = train.bind(VISION, rc2)
    assert code == 0, out
    train.ok(train.base, *args, "--restart")
    uploaded = indexes.release.uploaded
    assert len(uploaded) == len(set(uploaded)) == 6
    commits = [git(train.origin(VISION), "rev-parse", f"{t}^{{commit}}") for t in (rc2, "v0.20.0")]
    assert commits[0] == commits[1]
