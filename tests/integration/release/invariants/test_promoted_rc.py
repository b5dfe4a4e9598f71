"""``release promoted-rc``: the release candidate a final tag promoted, for the release workflow
that downloads and publishes its files. It is read from origin by construction (the final tag's
annotation names the manifest's SHA-256, origin's binding names the RC), never taken as the
newest RC tag this clone happens to have: the command it replaces (``wheels rc-tag``) answered
with any newer, even local-only, RC tag, and the publish then refused the genuine release."""

from __future__ import annotations

from helpers.invariants import RC, binding_refs
from helpers.release import Repo


def promote(mlr) -> None:  # type: ignore[no-untyped-def]
    code, _, err = mlr(
        "release", "promote", "--rc", RC, "--published-elsewhere", "--execute", "--push"
    )
    assert code == 0, err


def test_the_rc_a_final_tag_promoted_is_read_from_origin(
    candidate: Repo, colleague: Repo, mlr, mlr_at
) -> None:  # type: ignore[no-untyped-def]
    promote(mlr)
    # After the promotion: a colleague pushes a newer RC tag, and this clone has one of its own.
    colleague.git("fetch", "-q", "--tags", "origin")
    colleague.git("tag", "v1.4.0-rc2", "v1.4.0^{commit}")
    colleague.git("push", "-q", "origin", "v1.4.0-rc2")
    candidate.git("tag", "v1.4.0-rc9", "v1.4.0^{commit}")
    code, out, err = mlr("release", "promoted-rc", "v1.4.0")
    assert (code, out.strip()) == (0, RC), err
    # A fresh clone (CI's checkout) has no refs/mlrelease/: it reads them from origin.
    assert colleague.git("for-each-ref", "refs/mlrelease/") == ""
    code, out, err = mlr_at(colleague, "release", "promoted-rc", "v1.4.0")
    assert (code, out.strip()) == (0, RC), err


def test_a_final_tag_promote_did_not_make_names_no_rc(
    candidate: Repo, colleague: Repo, mlr
) -> None:  # type: ignore[no-untyped-def]
    # GitHub's "create release" makes a tag by hand: no manifest, so no candidate is proven.
    colleague.git("fetch", "-q", "--tags", "origin")
    colleague.git("tag", "-a", "-m", "v1.4.0", "v1.4.0", f"{RC}^{{commit}}")
    colleague.git("push", "-q", "origin", "v1.4.0")
    code, out, err = mlr("release", "promoted-rc", "v1.4.0")
    assert code == 1 and out == ""
    assert "v1.4.0 on origin was not made by `release promote`" in err
    assert "Mlrelease-Manifest-SHA256" in err


def test_a_tag_only_this_clone_has_decides_nothing(candidate: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    candidate.git("tag", "v1.4.0", f"{RC}^{{commit}}")
    code, out, err = mlr("release", "promoted-rc", "v1.4.0")
    assert code == 1 and out == "" and "origin has no tag v1.4.0" in err


def test_a_binding_removed_after_promotion_is_refused(
    candidate: Repo, colleague: Repo, mlr
) -> None:  # type: ignore[no-untyped-def]
    promote(mlr)
    for ref in binding_refs(colleague):
        colleague.git("push", "-q", "origin", f":{ref}")
    code, out, err = mlr("release", "promoted-rc", "v1.4.0")
    assert code == 1 and out == ""
    assert "origin binds it to no release candidate" in err


def test_the_argument_must_be_a_final_tag_of_the_configured_pattern(candidate: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    code, out, err = mlr("release", "promoted-rc", RC)
    assert code != 0 and out == ""
    assert "not a final release tag of the configured pattern" in err and "'v{major}" in err


def test_a_second_binding_of_the_manifest_or_a_moved_rc_is_refused(
    candidate: Repo, colleague: Repo, mlr
) -> None:  # type: ignore[no-untyped-def]
    promote(mlr)
    (ref, blob), *_ = binding_refs(colleague).items()
    digest = ref.rsplit("/", 1)[1]
    # The same manifest bound to a second candidate's name: which one was promoted is unknown.
    colleague.git("push", "-q", "origin", f"{blob}:refs/mlrelease/bound/v1.4.0-rc2/{digest}")
    code, out, err = mlr("release", "promoted-rc", "v1.4.0")
    assert code == 1 and out == "" and "more than one release candidate" in err, err
    colleague.git("push", "-q", "origin", f":refs/mlrelease/bound/v1.4.0-rc2/{digest}")
    assert mlr("release", "promoted-rc", "v1.4.0")[:2] == (0, f"{RC}\n")
    # The RC tag moved to another commit after the promotion.
    colleague.git("commit", "-q", "--allow-empty", "-m", "after the release")
    colleague.git("push", "-q", "--force", "origin", f"HEAD:refs/tags/{RC}")
    code, out, err = mlr("release", "promoted-rc", "v1.4.0")
    assert code == 1 and out == "" and f"promoted {RC}, but origin's {RC} is at" in err, err


def test_a_moved_final_tag_is_not_blamed_on_the_rc(candidate: Repo, colleague: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """The colleague moves v1.4.0 (promote's annotation copied) to a commit of theirs; the RC
    tag stands. The refusal named the RC as moved and asked to restore it (an adversary given
    the docs); now it says one of the two moved, and how to tell which."""
    promote(mlr)
    colleague.git("fetch", "-q", "origin")
    message = colleague.git("tag", "-l", "--format=%(contents)", "v1.4.0")
    colleague.git("commit", "-q", "--allow-empty", "-m", "theirs")
    colleague.git("tag", "-f", "-a", "-m", message, "v1.4.0", "HEAD")
    colleague.git("push", "-q", "--force", "origin", "refs/tags/v1.4.0")
    code, out, err = mlr("release", "promoted-rc", "v1.4.0")
    assert code == 1 and out == "" and "one of the two tags was moved" in err, err
    assert "git cat-file -p" in err and "Restore it as" not in err
