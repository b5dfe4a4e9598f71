"""The stateful adversary of a release train: a Hypothesis ``RuleBasedStateMachine`` over the
staged train of :mod:`helpers.train_rig` (three real repositories, their first candidates bound
and staged, pypiserver as the staging and release indexes).

Rules play the maintainers (``train promote``, possibly killed at any of its steps; an upstream
candidate rebuilt, bound and staged after its members bound to the previous one; an upstream
candidate that breaks its members' API; a member's newest candidate built and bound again, its
tests run against the upstream candidate) and a colleague (a member re-tagged: a new candidate
pushed from another clone). After every step the train's invariants are checked from outside
(:func:`helpers.train_rig.violations`): no file uploaded twice, no member public while its
upstream is not released, no member released bound to another upstream candidate than the
one released, or untested against it; no member bound against the API-breaking candidate; and
no command ends in a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from helpers.train_rig import (
    AUDIO,
    UPSTREAM,
    VERSIONS,
    VISION,
    Indexes,
    Rig,
    break_upstream_api,
    git,
    violations,
)

MEMBERS = (VISION, AUDIO)
KILLS = (
    "*",
    "train:after:journal",
    f"publish:after:{UPSTREAM}-2.5.0.tar.gz",
    "promote:after:tag",
    "promote:after:push",
    f"train:after:{UPSTREAM}",
    f"publish:after:{VISION}-0.20.0-py3-none-any.whl",
    f"train:after:{VISION}",
)
"""Where a promotion may be killed: at its first step (``*``: a resumed one, one step on), or
at a named point (the first a run passes)."""


@dataclass
class TrainHarness:
    """What every example shares, and the figures of the run."""

    restore: Callable[[], Rig]
    indexes: Indexes
    examples: int = 0
    steps: int = 0
    kills: int = 0
    refusals: int = 0
    breaks: int = 0
    """Upstream candidates that broke their members' API."""
    refused_after_break: int = 0
    """Members' bindings refused because their tests failed against such a candidate."""
    checks: int = 0
    log: list[str] = field(default_factory=list)


class TrainMachine(RuleBasedStateMachine):
    """One release of the train, played by its maintainers against a colleague and kills."""

    harness: TrainHarness

    @initialize(kill=st.sampled_from(KILLS))
    def fresh_train(self, kill: str) -> None:
        """A fresh copy of the staged train, its promotion begun and killed (so that every
        example, the shortest too, resumes one)."""
        self.harness.examples += 1
        self.rig = self.harness.restore()
        self.broken = ""
        self.promote(kill, False)

    def maintainer(self, *args: str, where: str = "", kill: str | None = None) -> int:
        """Run mlrelease as a maintainer (in the train's folder, or a member's clone)."""
        h = self.harness
        h.steps += 1
        root = self.rig.work(where) if where else self.rig.base
        code, out = self.rig.mlr(root, *args, kill=kill)
        h.kills += code < 0
        h.refusals += code > 0
        why = " ".join(out.split())[-200:] if code > 0 else ""
        h.log.append(f"{where or 'train'}: {' '.join(args)} kill={kill} -> {code} {why}")
        return code

    @rule(kill=st.one_of(st.none(), st.sampled_from(KILLS)), restart=st.booleans())
    def promote(self, kill: str | None, restart: bool) -> None:
        """``train promote --execute``, possibly killed, possibly choosing again."""
        extra = ("--restart",) if restart else ()
        args = ("train", "promote", "--train", str(self.rig.train), "--execute", *extra)
        self.maintainer(*args, kill=kill)

    @rule()
    def upstream_rebuilt(self) -> None:
        """The upstream's candidate rebuilt after its members bound: tagged, bound, staged."""
        if self._released(UPSTREAM):
            return
        rig = self.rig
        self.harness.steps += 1
        code, _ = rig.mlr(rig.work(UPSTREAM), "release", "rc", "--rebuild", "--execute", "--push")
        if code == 0:
            rc = self._newest(UPSTREAM)
            if rig.bind(UPSTREAM, rc)[0] == 0:
                rig.stage(UPSTREAM, rc)
        self.harness.log.append(f"{UPSTREAM}: rebuilt -> {code}")

    @rule()
    def upstream_breaks_its_api(self) -> None:
        """The upstream's next candidate renames a function its members call: bound, staged
        in place of the previous one's files; each member not released builds a candidate
        against it and binds it, refused (T6). Every later upstream candidate is built on it,
        so no member binds again."""
        if self._released(UPSTREAM) or self.broken:
            return
        self.harness.steps += 1
        self.harness.breaks += 1
        self.broken = break_upstream_api(self.rig, self.harness.indexes)
        self.harness.log.append(f"{UPSTREAM}: {self.broken} breaks its members' API")
        for member in MEMBERS:
            if not self._released(member):
                self._bind(member, self.rig.tag(member, "--rebuild"))

    @rule(member=st.sampled_from(MEMBERS))
    def colleague_retags(self, member: str) -> None:
        """A colleague tags a new candidate of ``member`` from another clone (unbound)."""
        if self._released(member):
            return
        clone = self.rig.colleague(member)
        branch = f"release/{'.'.join(VERSIONS[member].split('.')[:2])}"
        git(clone, "switch", "-q", branch)
        git(clone, "reset", "-q", "--hard", f"origin/{branch}")
        self.harness.steps += 1
        code, _ = self.rig.mlr(clone, "release", "rc", "--rebuild", "--execute", "--push")
        self.harness.log.append(f"colleague: {member} re-tagged -> {code}")

    @rule(member=st.sampled_from(MEMBERS))
    def member_rebinds(self, member: str) -> None:
        """The member's maintainer builds its newest candidate and binds it (``train bind``)."""
        rc = self._newest(member)
        bound = git(self.rig.origin(member), "for-each-ref", f"refs/mlrelease/bound/{rc}")
        if bound or self._released(member):
            return
        git(self.rig.work(member), "fetch", "-q", "--tags", "origin")
        self._bind(member, rc)

    def _bind(self, member: str, rc: str) -> None:
        """``train bind`` of ``member``'s ``rc``; refused once the upstream broke its API."""
        self.harness.steps += 1
        code, out = self.rig.bind(member, rc)
        self.harness.refusals += code > 0
        assert not (self.broken and code == 0), f"{member} bound after {self.broken}: {out}"
        self.harness.refused_after_break += bool(self.broken) and "tests failed against" in out
        self.harness.log.append(f"{member}: bind {rc} -> {code} {' '.join(out.split())[-200:]}")

    def _newest(self, name: str) -> str:
        pattern = f"v{VERSIONS[name]}-rc*"
        tags = git(self.rig.origin(name), "tag", "--list", pattern, "--sort=-v:refname")
        return tags.splitlines()[0]

    def _released(self, name: str) -> bool:
        return bool(git(self.rig.origin(name), "tag", "--list", f"v{VERSIONS[name]}"))

    @invariant()
    def invariants_hold(self) -> None:
        self.harness.checks += 1
        found = violations(self.rig, self.harness.indexes)
        assert not found, "\n".join([*found, *self.harness.log[-20:]])
