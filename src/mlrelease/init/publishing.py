"""What the project's own workflows publish, for ``mlrelease init`` (pure): each publishing
job said (trigger, tool, index: :mod:`mlrelease.release.publishers`), and the RC model under
which no RC tag publishes a final version, or why none can (tensorflow-onnx publishes every
``v*`` tag to PyPI: its release candidates are version bumps, ``1.17.0rc1``)."""

from __future__ import annotations

from mlrelease.init.shape import RcModel, TagScheme
from mlrelease.init.snapshot import Snapshot
from mlrelease.init.version_source import VersionSource
from mlrelease.release import publishers


def rc_model(
    snap: Snapshot, tags: TagScheme, rc: RcModel, version: VersionSource, main: str
) -> tuple[RcModel, list[str]]:
    """The RC model to propose given the workflows that publish, and what init says of them."""
    texts = {p: t for p, t in snap.texts.items() if p.startswith(".github/workflows/")}
    found = publishers.read(texts)
    notes = [f"publishing: {p.said()}." for p in found]
    final = [p for p in found if publishers.same_index(p.index, publishers.PYPI)]
    every_push = next((p for p in final if p.on_branch(main)), None)
    if every_push is not None:
        notes.append(
            f"publishing: {every_push.workflow} publishes to {every_push.where} on every push to "
            f"{main}: no RC model keeps a final version off {every_push.where}, since every "
            f"commit of {main} publishes the version it carries. Restrict its publishing job to "
            "tags (`if: startsWith(github.ref, 'refs/tags/')`)."
        )
        return rc, notes
    if version.from_tags or version.built_from_tag or rc.name == "bump":
        return rc, notes  # the tag is the RC's version, or no RC is tagged
    sample = tags.rc_tag.format(major=1, minor=2, patch=3, rc=1)
    tagged = next((p for p in final if p.on_tag(sample)), None)
    if tagged is None:
        return rc, notes
    why = (
        f"{tagged.said()}: an RC tag such as {sample} on a commit carrying the final version "
        "1.2.3 would publish 1.2.3 as a final release, so release candidates are version "
        "bumps (1.2.3rc1), each tagged on a commit that says it (rc-tagged: the workflow "
        f"builds and publishes {sample} as 1.2.3rc1)"
    )
    return RcModel("bump", why, tagged=True), [*notes, f"release candidates: {why}."]
