"""The stateful adversary (:mod:`helpers.release_machine`) in CI: a few examples of maintainer,
colleague, environment and kills interleaved over real repositories and pypiserver, every
invariant of docs/release/invariants.md checked after every step. ``scripts/release_machine.py``
runs many more."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from helpers import release_oracle as oracle
from helpers.error_index import proxied
from helpers.index import start, stop
from helpers.release import GIT_ENV
from helpers.release_installers import STATEMENTS
from helpers.release_machine import Harness, ReleaseMachine, make_template
from helpers.stateful import machine_settings
from hypothesis.stateful import run_state_machine_as_test

EXAMPLES = 6
STEPS = 15


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    """One template world and one index folder served three ways, for every example."""
    base = tmp_path_factory.mktemp("machine")
    saved = {k: os.environ.get(k) for k in (*GIT_ENV, "TWINE_USERNAME", "TWINE_PASSWORD")}
    os.environ.update({**GIT_ENV, "TWINE_USERNAME": "test", "TWINE_PASSWORD": "test"})
    servers = {algo: start(base / "index", algo) for algo in ("sha256", "md5", "off")}
    urls = {algo: url for algo, (_, url) in servers.items()}
    (base / "scratch").mkdir()
    try:
        with proxied(urls["sha256"]) as proxy:  # the index's one URL, whatever it serves
            template = make_template(base / "template", proxy.url)
            yield Harness(template, base / "index", urls, base / "scratch", proxy=proxy)
    finally:
        for server, _ in servers.values():
            stop(server)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def test_no_interleaving_breaks_an_invariant(harness: Harness) -> None:
    ReleaseMachine.harness = harness
    run_state_machine_as_test(
        ReleaseMachine,
        settings=machine_settings(EXAMPLES, STEPS),
    )
    assert harness.examples >= 1 and harness.steps >= 1
    print(
        f"release machine: {harness.examples} examples, {harness.checks} invariant checks, "
        f"{harness.steps} mlrelease steps ({harness.kills} killed, {harness.refusals} refused)"
    )
    print("\n".join(harness.log))


def test_the_machine_catches_a_broken_gatekeeper(harness: Harness, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The oracle is not vacuous: with the index check switched off, a foreign file on the
    index and a promotion that publishes anyway are a violation."""
    from helpers import release_oracle as oracle

    from mlrelease.release.promotion import gatekeeper

    monkeypatch.setattr(gatekeeper, "index_problem", lambda *a, **k: None)
    ReleaseMachine.harness = harness
    machine = ReleaseMachine()
    machine.fresh_world()
    try:
        for step in (machine.cut, machine.prepare, machine.rc):
            step(kill=None)
        machine.build()
        machine.bind(kill=None)
        machine.verify()
        machine.colleague_upload("build-tag")
        machine.promote(kill=None, publish=True)
        assert any(v.startswith("release promote") and "(a)" in v for v in machine.found)
        assert oracle.index_files(harness.index)  # it did publish
    finally:
        machine.teardown()


@pytest.mark.parametrize("act", ["final", "rc3", "rewind", "promote"])
def test_the_machine_sees_a_push_on_a_moved_origin(
    harness: Harness, monkeypatch: pytest.MonkeyPatch, act: str
) -> None:
    """The race is not vacuous: with the push gatekeeper off (and the push by name, with no
    lease: the second line that refuses a rewind), the colleague's act in the middle of ``rc``
    (a final tag, a newer RC), ``prepare`` (a rewind) or ``promote`` (a final tag in another
    spelling) is followed by a push that breaks (i), the numbering or (h); with it on, nothing
    is pushed and nothing is broken."""
    from mlrelease.release import pushes, rules

    def unleased(remote: str, planned: object, pushed: list[str], local: Any, *_: object) -> Any:
        """The push with no lease on its branches (tags as the gatekeeper read them)."""
        tags = {r: local.tags[r[len("refs/tags/") :]].tag_object for r in pushed if "tags/" in r}
        specs = [f"{tags[r]}:{r}" if r in tags else rules.refspec(r) for r in pushed]
        return ("push", "--atomic", remote, *specs)

    for broken in (True, False):
        with monkeypatch.context() as patch:
            if broken:
                patch.setattr(pushes, "before_push", lambda *a, **k: None)
                patch.setattr(pushes, "sent", unleased)
            if act == "promote":  # the colleague's final tag inside promote
                machine = _published(harness)
            else:
                ReleaseMachine.harness = harness
                machine = ReleaseMachine()
                machine.fresh_world()
                machine.cut(kill=None)
                if act != "rewind":
                    machine.prepare(kill=None)
            try:
                machine.maintainer_raced("final" if act == "promote" else act)
                said = [v for v in machine.found if "raced by" in v]
                assert bool(said) == broken, (broken, machine.found, harness.log[-1:])
                assert broken or machine.found == [], machine.found
            finally:
                machine.teardown()


# --- #48: the index as installers read it, a fork's tags (helpers.release_installers) ------


def _published(harness: Harness) -> ReleaseMachine:
    """A fresh machine whose maintainer has cut, bound, verified and published 1.4.0's RC,
    breaking nothing."""
    ReleaseMachine.harness = harness
    machine = ReleaseMachine()
    machine.fresh_world()
    for step in (machine.cut, machine.prepare, machine.rc):
        step(kill=None)
    machine.build()
    machine.bind(kill=None)
    machine.verify()
    machine.publish(kill=None)
    assert not machine.found, machine.found
    return machine


def test_the_machine_sees_the_index_as_installers_do(harness: Harness, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The installers' view is not vacuous: with the index check off, a foreign wheel that the
    index lists as ``demo-1.4.0.asc`` (its folder holding only the bound files) and a
    promotion that tags anyway are a violation that only that view sees."""
    from mlrelease.release.promotion import gatekeeper

    monkeypatch.setattr(gatekeeper, "index_problem", lambda *a, **k: None)
    machine = _published(harness)
    try:
        machine.index_entry_url("asc")
        machine.promote(kill=None, publish=False)
        assert any("was pushed while installers got" in v for v in machine.found), machine.found
    finally:
        machine.teardown()


@pytest.mark.parametrize("own_commit", [False, True])
def test_the_machine_sees_a_forks_tag_pushed_or_advised(
    harness: Harness, monkeypatch: pytest.MonkeyPatch, own_commit: bool
) -> None:
    """With "made here" read from the annotation again, a fork's RC tag fetched here is
    pushed (at HEAD) or its push advised (on the fork's commit): both are violations. The push
    gatekeeper reads the record of the tags made here on its own, and would refuse that push
    at the last moment: it is switched off too, so the planner's mistake reaches origin."""
    from mlrelease.release import pushes
    from mlrelease.release.world.snapshot import World

    monkeypatch.setattr(World, "made_here", lambda self, name, marker: True)
    monkeypatch.setattr(pushes, "before_push", lambda *a, **k: None)
    ReleaseMachine.harness = harness
    machine = ReleaseMachine()
    machine.fresh_world()
    try:
        machine.cut(kill=None)
        machine.prepare(kill=None)
        machine.fork_rc_tag(own_commit)
        machine.rc(kill=None)
        said = "was advised" if own_commit else "was pushed to origin"
        assert any(said in v for v in machine.found), machine.found
    finally:
        machine.teardown()


@pytest.mark.parametrize("kind", STATEMENTS)
def test_the_machine_sees_what_the_index_states(harness: Harness, kind: str) -> None:
    """#48, the fifth adversary: the index states a wrong ``#sha512=`` or MD5, or a
    ``requires-python`` of ``<3``, for the bound wheel. promote said the index "holds exactly
    the bound files" and pushed the tag, a violation of the installers' view (they get no
    bound wheel); now it refuses, and the tag stays unpushed."""
    machine = _published(harness)
    try:
        machine.index_states(kind)
        machine.promote(kill=None, publish=False)
        assert not machine.found, machine.found
        assert "refs/tags/v1.4.0" not in oracle.refs(machine.origin, "refs/tags")
        assert "v1.4.0 was not tagged" in machine.harness.log[-1], machine.harness.log[-1]
    finally:
        machine.teardown()
