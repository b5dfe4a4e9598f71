"""``train promote`` killed after each of its steps: every run is killed at the first fault
point it passes (``MLRELEASE_FAULT=*``), the next run resumes and is killed one step further,
until a run finishes. After every kill and at the end: no file uploaded twice, no member public
while its upstream is not released, no member released bound to another upstream candidate
than the one released (:func:`helpers.train_rig.violations`)."""

from __future__ import annotations

from helpers.train_rig import FINALS, Indexes, Rig, git, promoted, violations


def test_promotion_killed_after_each_step_resumes_without_a_duplicate_or_an_early_member(
    train: Rig, indexes: Indexes
) -> None:
    args = ("train", "promote", "--train", str(train.train), "--execute")
    kills, found = 0, []
    points = train.base / "points.txt"
    for _ in range(60):
        code, out = train.mlr(train.base, *args, kill="*", record=points)
        found += [f"after kill {kills + 1}: {v}" for v in violations(train, indexes)]
        if code == 0:
            break
        assert code < 0, out  # killed, never refused
        kills += 1
    assert code == 0 and "Traceback" not in out
    assert found == []
    passed = points.read_text(encoding="utf-8").split()
    assert len(passed) == kills, passed  # each run passed one point, and was killed there
    assert passed[0] == "train:after:journal" and passed[-1] == "train:after:journal-end", passed
    for name in ("torchlet", "visionlet", "audiolet"):
        version = FINALS[name][1:]
        step = passed[passed.index(f"publish:after:{name}-{version}-py3-none-any.whl") :]
        assert step[:4] == [  # its step is done once its tag is pushed
            f"publish:after:{name}-{version}-py3-none-any.whl",
            f"publish:after:{name}-{version}.tar.gz",
            "promote:after:tag",
            "promote:after:push",
        ], passed
    assert len(passed) == 1 + 3 * 4 + 1  # the journal, each member's four steps, its end
    assert len(indexes.release.uploaded) == len(set(indexes.release.uploaded)) == 6
    for name, final in FINALS.items():
        assert promoted(train, name) is not None, name
        assert git(train.origin(name), "tag", "--list", final) == final
    print(
        f"train promote killed after each of its {kills} steps: 0 duplicate uploads, "
        "0 public members with an unpublished upstream"
    )
