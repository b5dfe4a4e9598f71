"""The stateful adversary of ``release rc`` under ``rc-model = "bump"`` with ``rc-tagged``
(issue 53, onnxoptimizer's practice): a Hypothesis ``RuleBasedStateMachine`` over a real
tensorflow-onnx-shaped repository (:func:`helpers.replayed.push_tf2onnx`, adopted, 1.17.0
prepared on main), its bare origin and a colleague's clone.

The maintainer runs ``release rc --execute --push``, possibly killed at one of its fault points,
re-runs after a kill, commits an unrelated fix, and takes origin's trunk. The colleague commits
a fix, bumps the version files to the next rc by hand, and pushes an RC tag by hand (on origin's
head or an older commit, possibly numbered above the files). After every maintainer step the
tag invariants are checked against origin (:func:`violations`); a colleague's own acts are the
adversary's, never violations.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from helpers.release_machine import copy_world, run, sh
from helpers.release_oracle import git, refs
from helpers.replayed import adopt, push_tf2onnx
from helpers.repo import mlrelease

VERSION = "1.17.0"
RC_TAG = re.compile(r"^refs/tags/v1\.17\.0rc(\d+)$")
KILLS = (
    "rc:after:journal",
    "rc:after:bump",
    "rc:after:commit",
    "rc:after:journal-end",
    "rc:after:tag",
    "rc:after:push",
)
"""Every fault point ``release rc`` passes under the tagged bump model (recorded with
``MLRELEASE_FAULT_RECORD``: the bump's journal, files, commit and journal end; the tag; the
push)."""

KILLED_OR_NOT = st.one_of(st.none(), st.sampled_from(KILLS))
"""No kill half the time; otherwise one of ``release rc``'s fault points."""


def make_template(base: Path) -> Path:
    """tensorflow-onnx adopted (``rc-model = "bump"``, ``rc-tagged = true``) with 1.17.0
    prepared on main and pushed; returns the folder holding ``work`` and ``origin.git``."""
    repo = push_tf2onnx(base)
    adopt(repo)
    done = mlrelease(repo.path, "release", "prepare", "--version", VERSION, "--execute", "--push")
    assert done.returncode == 0, done.stdout + done.stderr
    return base


def rc_tags(root: Path) -> dict[int, str]:
    """rc number -> tag object of 1.17.0's RC tags in ``root``."""
    found = {}
    for ref, obj in refs(root, "refs/tags").items():
        match = RC_TAG.match(ref)
        if match:
            found[int(match.group(1))] = obj
    return found


def files_version(root: Path, commit: str) -> str:
    return git(root, "show", f"{commit}:VERSION_NUMBER")


def tagged(root: Path, obj: str) -> str:
    """The commit tag object ``obj`` names."""
    return git(root, "rev-parse", f"{obj}^{{commit}}")


@dataclass
class Harness:
    """The template world and the figures of a run."""

    template: Path
    scratch: Path
    examples: int = 0
    steps: int = 0
    kills: int = 0
    reruns: int = 0
    refusals: int = 0
    tagged: int = 0
    checks: int = 0
    log: list[str] = field(default_factory=list)


def violations(
    origin: Path, before: dict[int, str], after: dict[int, str], made: dict[str, str]
) -> list[str]:
    """Invariants (1)-(3) for what one maintainer step did to origin's RC tags: ``before`` and
    ``after`` are origin's (rc number -> tag object), ``made`` the tag objects this clone's
    mlrelease made (object -> name)."""
    found = []
    for number, obj in before.items():
        if after.get(number) != obj:
            found.append(f"(2) v{VERSION}rc{number} on origin was moved or deleted")
    newest = max(before, default=0)
    for number, obj in after.items():
        if before.get(number) == obj:
            continue
        name = f"v{VERSION}rc{number}"
        commit = tagged(origin, obj)
        says = files_version(origin, commit)
        if says != f"{VERSION}rc{number}":
            found.append(f"(1) {name} was pushed on {commit[:12]}, whose files say {says}")
        if number <= newest:
            found.append(f"(2) {name} was pushed at or below origin's newest rc{newest}")
        if made.get(obj) != name:
            found.append(f"(3) {name} ({obj[:12]}) was pushed but this clone did not make it")
    return found


class BumpTaggedMachine(RuleBasedStateMachine):
    """One release candidate train of 1.17.0, played by the maintainer against a colleague."""

    harness: Harness

    def __init__(self) -> None:
        super().__init__()
        h = self.harness
        h.examples += 1
        self.base, self.work, self.origin, self.colleague = copy_world(h.template, h.scratch)
        self.made: dict[str, str] = {}
        """Tag object -> name of every RC tag this clone's mlrelease made."""
        self.killed = False
        self.found: list[str] = []
        self.fixes = 0

    def teardown(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)

    @initialize(prefix=st.integers(1, 3), data=st.data())
    def train_started(self, prefix: int, data: st.DataObject) -> None:
        """The train already ``prefix`` runs of ``release rc`` along (pulled first, each
        possibly killed), so that short examples reach tagged candidates too."""
        for _ in range(prefix):
            self.rc_after_pull(data.draw(KILLED_OR_NOT, label="kill"))

    # --- the maintainer ---------------------------------------------------------------------

    def release_rc(self, kill: str | None) -> int:
        """``release rc --execute --push`` (killed at ``kill``), judged against origin; a run
        after a killed one is a re-run, judged by (4) too."""
        h, rerun = self.harness, self.killed
        h.steps += 1
        before, local = rc_tags(self.origin), rc_tags(self.work)
        code, out = run(self.work, "release", "rc", "--execute", "--push", kill=kill)
        after, mine = rc_tags(self.origin), rc_tags(self.work)
        for number, obj in mine.items():  # a tag new here that origin did not hold: made here
            if local.get(number) != obj and before.get(number) != obj:
                self.made[obj] = f"v{VERSION}rc{number}"
        found = violations(self.origin, before, after, self.made)
        if "Traceback" in out:
            found.append(f"a traceback: {out[-500:]}")
        if rerun:
            pushed = {n: o for n, o in after.items() if before.get(n) != o}
            found += self._rerun_judged(code, kill, out, pushed, mine)
        h.kills += code < 0
        h.refusals += code > 0
        h.tagged += len([n for n in after if before.get(n) != after[n]])
        said = " ".join(out.split())[-240:]
        h.log.append(f"rc kill={kill} rerun={rerun} -> {code} {said}")
        self.found += [f"rc (kill {kill}, rerun {rerun}): {v}" for v in found]
        self.killed = code < 0
        return code

    def _rerun_judged(
        self, code: int, kill: str | None, out: str, pushed: dict[int, str], mine: dict[int, str]
    ) -> list[str]:
        """(4): a re-run after a kill (unless ``kill``ed again itself) completes or explains
        itself; the RC tags it ``pushed`` (rc number -> object) tag no files that another of
        origin's RC tags already tags (a second tag for the same rc); and, done, it leaves no
        tag it made behind, unpushed, where origin has none of that name."""
        self.harness.reruns += 1
        found = []
        if kill is not None and code < 0:
            code = -1  # killed again at its own fault point: judged by its re-run
        elif code not in (0, 1) or (code == 1 and "rc:" not in out):
            found.append(f"(4) the re-run ended {code} without saying why: {out[-300:]}")
        after = rc_tags(self.origin)
        says = {n: files_version(self.origin, tagged(self.origin, o)) for n, o in after.items()}
        for number in pushed:
            twins = [n for n, v in says.items() if v == says[number] and n != number]
            found += [
                f"(4) rc{number} was pushed on files saying {says[number]}, tagged rc{n} already"
                for n in twins
            ]
        if code == 0:
            left = [n for n, o in mine.items() if o in self.made and n not in after]
            found += [f"(4) v{VERSION}rc{n} made here was left unpushed" for n in left]
        return found

    @rule(kill=KILLED_OR_NOT)
    def rc(self, kill: str | None) -> None:
        """``release rc`` as the clone is (behind origin, maybe, or dirty after a kill)."""
        self.release_rc(kill)

    @rule(kill=KILLED_OR_NOT)
    def rc_after_pull(self, kill: str | None) -> None:
        """The maintainer takes origin's main first, then runs ``release rc``."""
        self.sync()
        self.release_rc(kill)

    @precondition(lambda self: self.killed)
    @rule()
    def rerun(self) -> None:
        """The maintainer re-runs the killed ``release rc`` at once, unkilled."""
        self.release_rc(None)

    @rule()
    def maintainer_fix(self) -> None:
        """An unrelated fix on main, pushed (refused by git when origin moved on: left so)."""
        if sh(self.work, "status", "--porcelain").stdout:
            return
        self._fix(self.work, "maintainer")

    def sync(self) -> None:
        """The maintainer takes origin's main: a rebase of what is unpushed, else origin's."""
        if sh(self.work, "status", "--porcelain").stdout:
            return
        if sh(self.work, "pull", "-q", "--rebase", "origin", "main").returncode != 0:
            sh(self.work, "rebase", "--abort")
            sh(self.work, "reset", "-q", "--hard", "origin/main")

    @rule()
    def maintainer_hand_tag(self) -> None:
        """The maintainer tags HEAD by hand (``git tag``, not mlrelease) as the rc the files
        say: invariant (l), mlrelease must never push it."""
        head = git(self.work, "rev-parse", "HEAD")
        match = re.fullmatch(r"1\.17\.0rc(\d+)", files_version(self.work, head))
        if match is None or int(match.group(1)) in rc_tags(self.work):
            return
        sh(self.work, "tag", "-a", f"v{VERSION}rc{match.group(1)}", "-m", "by hand", head)

    # --- the colleague ----------------------------------------------------------------------

    def _fix(self, root: Path, who: str) -> None:
        self.fixes += 1
        path = root / "tf2onnx" / f"fix_{self.fixes}.py"
        path.write_text(f"FIXED_BY = {who!r}\n", encoding="utf-8")
        sh(root, "add", str(path))
        sh(root, "commit", "-q", "-m", f"Fix {self.fixes} ({who})")
        sh(root, "push", "-q", "origin", "main")

    def _colleague_current(self) -> None:
        sh(self.colleague, "fetch", "-q", "origin", "--tags", "--force")
        sh(self.colleague, "reset", "-q", "--hard", "origin/main")

    @rule()
    def colleague_fix(self) -> None:
        self._colleague_current()
        self._fix(self.colleague, "colleague")

    @rule()
    def colleague_bump(self) -> None:
        """The colleague sets the next rc by hand in both version files, and pushes."""
        self._colleague_current()
        now = (self.colleague / "VERSION_NUMBER").read_text(encoding="utf-8").strip()
        match = re.fullmatch(r"1\.17\.0(?:rc(\d+))?", now)
        if match is None:
            return
        new = f"{VERSION}rc{int(match.group(1) or 0) + 1}"
        (self.colleague / "VERSION_NUMBER").write_text(new + "\n", encoding="utf-8")
        pyproject = self.colleague / "pyproject.toml"
        text = pyproject.read_text(encoding="utf-8")
        pyproject.write_text(
            text.replace(f'current_version = "{now}"', f'current_version = "{new}"'),
            encoding="utf-8",
        )
        sh(self.colleague, "commit", "-q", "-am", f"Set version number to {new} (by hand)")
        sh(self.colleague, "push", "-q", "origin", "main")

    @rule(back=st.integers(0, 3), above=st.integers(0, 2))
    def colleague_tag(self, back: int, above: int) -> None:
        """The colleague tags origin's main ``back`` commits back by hand, as the rc its files
        say plus ``above`` (a candidate numbered past the files), and pushes the tag."""
        self._colleague_current()
        commit = git(self.colleague, "rev-parse", "-q", "--verify", f"origin/main~{back}")
        if not commit:
            return
        match = re.fullmatch(r"1\.17\.0(?:rc(\d+))?", files_version(self.colleague, commit))
        number = int(match.group(1) or 0) + above if match else 0
        if number < 1 or number in rc_tags(self.origin):
            return
        name = f"v{VERSION}rc{number}"
        sh(self.colleague, "tag", "-f", "-a", name, "-m", "by hand", commit)
        sh(self.colleague, "push", "-q", "origin", f"refs/tags/{name}")

    @invariant()
    def invariants_hold(self) -> None:
        self.harness.checks += 1
        assert not self.found, "\n".join(self.found)
