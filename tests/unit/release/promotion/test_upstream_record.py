"""A train member's upstream record (train invariant T3): current while its candidate is the newest
of its version on the upstream's origin, bound to exactly the recorded files, or the one the
final tag promoted; with ``final``, only the latter."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mlrelease.release.promotion import upstream
from mlrelease.release.promotion.manifest import TRAILER, Entry, Manifest, Upstream, Verdict
from mlrelease.release.world.snapshot import FINAL_MARKER, Refs, Tag, UpstreamOrigin

ORIGIN = "/origins/torch.git"
FILES = (
    Entry("torch-2.5.0-py3-none-any.whl", 10, "a" * 64),
    Entry("torch-2.5.0.tar.gz", 9, "b" * 64),
)
RC1 = Manifest("v2.5.0-rc1", "c" * 40, FILES)
RC2 = Manifest("v2.5.0-rc2", "d" * 40, (Entry("torch-2.5.0-py3-none-any.whl", 11, "e" * 64),))


def tag(name: str, message: str = "Made-by: mlrelease release rc") -> Tag:
    return Tag(name, "f" * 40, "c" * 40, True, message)


def origin(
    *manifests: Manifest, final: Manifest | None = None, extra: tuple[str, ...] = ()
) -> UpstreamOrigin:
    tags = {m.rc_tag: tag(m.rc_tag) for m in manifests}
    tags.update({name: tag(name) for name in extra})
    if final is not None:
        tags["v2.5.0"] = tag("v2.5.0", f"2.5.0\n\n{FINAL_MARKER}\n\n{TRAILER}: {final.digest}")
    bindings = {m.rc_tag: {m.digest: f"blob-{m.rc_tag}"} for m in manifests}
    blobs = {f"blob-{m.rc_tag}": (m.digest, m.text()) for m in manifests}
    return UpstreamOrigin(ORIGIN, Refs({}, tags, bindings), blobs)


def record(manifest: Manifest = RC1) -> Upstream:
    return Upstream(
        "torch",
        "2.5.0",
        manifest.rc_tag,
        manifest.digest,
        ORIGIN,
        "http://staging/",
        ("v{major}.{minor}.{patch}", "v{major}.{minor}.{patch}-rc{rc}"),
        manifest.files,
    )


def test_the_newest_bound_candidate_is_current() -> None:
    assert upstream.problem(record(), origin(RC1), final=False) is None


def test_a_newer_candidate_makes_the_record_stale_even_before_it_is_bound() -> None:
    assert "newer candidate, v2.5.0-rc2" in str(
        upstream.problem(record(), origin(RC1, RC2), final=False)
    )
    assert "newer candidate" in str(
        upstream.problem(record(), origin(RC1, extra=("v2.5.0-rc3",)), final=False)
    )


def test_released_means_the_final_tag_names_the_recorded_manifest() -> None:
    assert "not released yet" in str(upstream.problem(record(), origin(RC1), final=True))
    assert upstream.problem(record(), origin(RC1, RC2, final=RC1), final=True) is None
    found = upstream.problem(record(), origin(RC1, RC2, final=RC2), final=False)
    assert "does not name the manifest of v2.5.0-rc1" in str(found)


@pytest.mark.parametrize(
    ("seen", "words"),
    [
        (origin(RC2), "has no tag v2.5.0-rc1"),
        (UpstreamOrigin(ORIGIN, error="connection refused"), "connection refused"),
        (None, "was not read"),
    ],
)
def test_a_missing_candidate_or_origin_is_refused(seen: UpstreamOrigin | None, words: str) -> None:
    assert words in str(upstream.problem(record(), seen, final=False))


def test_a_rebound_or_replaced_candidate_is_refused() -> None:
    rebuilt = Manifest("v2.5.0-rc1", "c" * 40, RC2.files)
    assert "rebuilt or re-bound" in str(upstream.problem(record(), origin(rebuilt), final=False))
    seen = origin(RC1)
    swapped = UpstreamOrigin(ORIGIN, seen.refs, {"blob-v2.5.0-rc1": ("0" * 64, RC1.text())})
    assert "does not hash to its name" in str(upstream.problem(record(), swapped, final=False))


def test_a_moved_candidate_tag_is_refused() -> None:
    seen = origin(RC1)
    assert seen.refs is not None
    moved = Tag("v2.5.0-rc1", "f" * 40, "0" * 40, True, "Made-by: mlrelease release rc")
    refs = Refs({}, {"v2.5.0-rc1": moved}, seen.refs.bindings)
    found = upstream.problem(record(), UpstreamOrigin(ORIGIN, refs, seen.blobs), final=False)
    assert "the tag was moved" in str(found)


def test_a_manifest_with_an_upstream_round_trips_and_one_without_hashes_as_before() -> None:
    member = Manifest("v0.20.0-rc1", "9" * 40, FILES, (record(),))
    assert Manifest.parse(member.text(), "x") == member
    assert "upstream" not in RC1.text()


def test_the_verdict_of_the_members_tests_round_trips_and_changes_the_manifest() -> None:
    verdict = Verdict(
        "failed",
        FILES[0].name,
        FILES[0].sha256,
        "visionlet-0.20.0-py3-none-any.whl",
        "b" * 64,
        "",
        "3.12.7",
        2,
        note="no regression comparison was possible: the train's first",
        failing=("tests/test_core.py::test_api: AttributeError",),
    )
    tested = Manifest("v0.20.0-rc1", "9" * 40, FILES, (replace(record(), tests=verdict),))
    assert Manifest.parse(tested.text(), "x") == tested
    untested = Manifest("v0.20.0-rc1", "9" * 40, FILES, (record(),))
    assert '"tests"' not in untested.text() and tested.digest != untested.digest
