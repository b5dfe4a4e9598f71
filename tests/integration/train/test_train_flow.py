"""A train from the cut to the release, as its maintainers run it: three real repositories
(``torchlet`` upstream, ``visionlet`` and ``audiolet`` pinning it), bare origins, pypiserver as
the staging and release indexes, the mlrelease CLI and pypa/build."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.train_rig import (
    AUDIO,
    UPSTREAM,
    VISION,
    Indexes,
    bound_manifest,
    git,
    make_rig,
    stage_all,
)

from mlrelease.release.promotion.manifest import named_digest


def test_a_train_from_the_cut_to_the_release(tmp_path: Path, indexes: Indexes) -> None:
    indexes.empty()
    rig = make_rig(tmp_path / "w", indexes.staging, indexes.release.url)
    status = rig.status()
    assert status[UPSTREAM]["next"].startswith("cut release/2.5")
    assert status[VISION]["next"] == "wait"
    assert "torchlet has no bound candidate" in status[VISION]["blocks"][0]
    code, out = rig.mlr(
        rig.work(VISION), "train", "cut", "--train", str(rig.train), "--execute", "--push"
    )
    assert code == 1 and "cut waits" in out and "Nothing was cut" in out
    assert not git(rig.origin(VISION), "branch", "--list", "release/0.20")

    rcs = stage_all(rig)  # the members cut once torchlet's candidate is staged

    readme = git(rig.origin(VISION), "show", "release/0.20:README.md")
    assert "torchlet@release/2.5" in readme  # the series parameter reached the release-only edit
    staged = {
        line.split()[1]: line.split()[0]
        for line in (rig.work(UPSTREAM) / "dist" / "SHA256SUMS").read_text().splitlines()
    }
    upstream = bound_manifest(rig.origin(UPSTREAM), rcs[UPSTREAM])
    for member in (VISION, AUDIO):
        (record,) = bound_manifest(rig.origin(member), rcs[member]).upstream
        assert (record.project, record.version, record.rc_tag) == (UPSTREAM, "2.5.0", "v2.5.0-rc1")
        assert record.manifest == upstream.digest
        assert {e.name: e.sha256 for e in record.files} == staged  # by SHA-256, from staging
    status = rig.status()
    assert status[VISION]["upstream"] == ["torchlet 2.5.0 (v2.5.0-rc1)"]
    assert all(not row["blocks"] for row in status.values())

    dry = rig.ok(rig.base, "train", "promote", "--train", str(rig.train))
    order = [dry.index(f"promote {name} ") for name in (UPSTREAM, VISION, AUDIO)]
    assert order == sorted(order) and "dry run" in dry
    assert indexes.release.uploaded == [] and not git(
        rig.origin(UPSTREAM), "tag", "--list", "v2.5.0"
    )

    rig.ok(rig.base, "train", "promote", "--train", str(rig.train), "--execute")
    uploaded = indexes.release.uploaded
    assert len(uploaded) == len(set(uploaded)) == 6, uploaded
    assert [n.split("-")[0] for n in uploaded[::2]] == [UPSTREAM, VISION, AUDIO]
    for member, final in ((UPSTREAM, "v2.5.0"), (VISION, "v0.20.0"), (AUDIO, "v2.5.0")):
        message = git(rig.origin(member), "tag", "-l", "--format=%(contents)", final)
        assert named_digest(message) == bound_manifest(rig.origin(member), rcs[member]).digest
    assert all(row["next"] == "released" for row in rig.status().values())

    again = rig.ok(rig.base, "train", "promote", "--train", str(rig.train), "--execute")
    assert "nothing to do" in again and len(indexes.release.uploaded) == 6

    rig.ok(rig.base, "train", "matrix", "--train", str(rig.train), "--execute")
    page = (rig.base / "docs/release/compatibility.md").read_text(encoding="utf-8")
    row = "| visionlet | 0.20.0 | v0.20.0-rc1 | `torchlet==2.5.0` | torchlet 2.5.0 (v2.5.0-rc1,"
    assert f"{row} manifest `{upstream.digest[:12]}`)" in page
    code, out = rig.mlr(rig.base, "train", "matrix", "--train", str(rig.train), "--check")
    assert code == 0, out
    data = json.loads(rig.ok(rig.base, "train", "status", "--train", str(rig.train), "--json"))
    assert data["train"] == "pytorch-2.5" and data["series"] == {"upstream_series": "2.5"}
