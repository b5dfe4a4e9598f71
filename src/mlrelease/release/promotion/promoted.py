"""Which release candidate a final tag promoted, read from origin's refs (pure): the final tag's
annotation names the SHA-256 of the manifest ``release promote`` checked (``TRAILER``), and
``refs/mlrelease/bound/<rc>/<that SHA-256>`` names the RC it was bound to. Never from a tag's
spelling, or from whichever RC tag happens to be newest in this clone: an RC tagged after the
promotion, or a tag only this clone has, decides nothing."""

from __future__ import annotations

from mlrelease.errors import PreconditionError, UserError
from mlrelease.naming import Names
from mlrelease.release.promotion.manifest import TRAILER, named_digest
from mlrelease.release.world.snapshot import BOUND_PREFIX, FINAL_MARKER, World, short


def candidate_promoted_by(world: World, names: Names, final: str, *, bump: bool = False) -> str:
    """The RC tag whose bound manifest origin's final tag ``final`` names; a
    :class:`PreconditionError` saying what is missing on origin otherwise. Under ``rc-model =
    "bump"`` the files were bound to the final tag itself: it is its own candidate."""
    parsed = names.parse_tag(final)
    if parsed is None or parsed[1] is not None:
        raise UserError(
            f"{final!r}: not a final release tag of the configured pattern "
            f"{names.tag.template!r} (tool.mlrelease.release.tag), e.g. "
            f"{names.final_tag(parsed[0]) if parsed else names.tag.template}."
        )
    remote = world.origin()
    if remote is None:
        raise PreconditionError(
            f"no remote to read {final} from: the RC a final tag promoted is read from origin's "
            "refs (the tag's annotation and refs/mlrelease/bound/). Add the remote named by "
            "[tool.mlrelease.release] remote, then re-run."
        )
    tag = remote.refs.tags.get(final)
    if tag is None:
        raise PreconditionError(
            f"origin has no tag {final}: push the final tag `release promote` made, then re-run."
        )
    if bump:
        if not remote.refs.bindings.get(final):
            raise PreconditionError(
                f"origin binds no files to {final} ({BOUND_PREFIX}{final}/<sha256>): under "
                'rc-model = "bump" the final tag\'s files are bound to it by `release bind`.'
            )
        return final
    digest = named_digest(tag.message) if tag.made_by(FINAL_MARKER) else None
    if digest is None:
        raise PreconditionError(
            f"{final} on origin was not made by `release promote`: its annotation names no "
            f"manifest ({TRAILER}), so no release candidate's files are proven to be its files. "
            "A published tag is never moved: release the next patch version through `release "
            "promote --rc <RC tag>`."
        )
    bound = sorted(rc for rc, digests in remote.refs.bindings.items() if digest in digests)
    if len(bound) != 1:
        found = ", ".join(f"{BOUND_PREFIX}{rc}/{digest}" for rc in bound) or "none"
        raise PreconditionError(
            f"{final} names the manifest {digest}, but origin binds it to "
            f"{'no' if not bound else 'more than one'} release candidate ({found}): the "
            "bindings were changed after promotion. Restore the binding `release bind` pushed."
        )
    rc = bound[0]
    rc_tag = remote.refs.tags.get(rc)
    if rc_tag is None or rc_tag.commit != tag.commit:
        if rc_tag is None:
            raise PreconditionError(
                f"{final} (at {short(tag.commit)}) promoted {rc}, but origin has no {rc}: an RC "
                "tag is never deleted. Restore it as `release rc` made it."
            )
        blob = remote.refs.bindings[rc][digest]
        raise PreconditionError(
            f"{final} (at {short(tag.commit)}) promoted {rc}, but origin's {rc} is at "
            f"{short(rc_tag.commit)}: one of the two tags was moved, and a release tag never "
            f"is. The manifest bound to {rc} names the commit its files were built from (`git "
            f"cat-file -p {blob}`): the tag that is not on that commit is the one moved. Put it "
            "back as the release command made it."
        )
    return rc
