"""The steps of one replayed release (:mod:`case_study_replay` sets the scene): the cut, main's
move, each commit reaching the branch, each RC, the final tag, each judged from what the
command printed (its ``--json``) and the refs it left on origin, against the history
(:mod:`case_study_history`)."""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path
from typing import Any

from case_study_history import Commit, History, read
from case_study_judge import REVIEWED, dev_pins, judge_rc, own, refusal, tags_of
from case_study_lib import git
from case_study_replay import (
    IDENTITY,
    Step,
    adopt,
    as_dict,
    follow_main,
    land,
    rev,
    run,
    setup,
    stand_in_build,
)

CARRYING = ("picked", "adapted", "same-pr", "marked", "reverted")
"""States of ``cherry-picks --json`` in which a branch commit carries (or reverted) a fix."""


class Replay:
    """One release replayed: the history, the temporary origin and clone, and what is known
    so far (the replayed commit of each of the project's, the steps)."""

    def __init__(self, mirror: Path, history: History, origin: Path, work: Path) -> None:
        self.mirror, self.h, self.origin, self.work = mirror, history, origin, work
        self.ours: dict[str, str] = {}
        self.steps: list[Step] = []
        self.pending: list[Commit] = []
        self.cut_files: set[str] = set()
        self.last_rc: tuple[str, str, str] | None = None
        """(name, the replay's commit, the project's commit) of the newest RC."""
        self.fixes: list[tuple[str, str, str]] = []
        """(file, text, replacement) of the pins fixed as ``release rc`` asked."""
        self.carrying: dict[str, list[dict[str, Any]]] = {}
        """The project's commit -> the fixes ``cherry-picks`` found it carrying."""
        self.runs = 0
        self.main_date = 0
        self.rcs_made = 0

    def command(self, *args: str) -> Any:
        self.runs += 1
        return run(self.work, *args)

    def cut(self) -> None:
        h, work = self.h, self.work
        adopted = git(work, "rev-parse", "HEAD")
        args = ("release", "cut", "--version", h.series, "--execute", "--push", "--json")
        said = self.command(*args)
        if said.code != 0 or said.data is None:
            raise SystemExit(f"release cut refused at the fork point: {said.message}")
        branch = rev(self.origin, f"refs/heads/{h.branch}")
        edits = git(work, "rev-list", "--reverse", f"{adopted}..{branch}").split()
        for sha in edits:
            self.cut_files |= set(git(work, "show", "--format=", "--name-only", sha).split())
        made = ", ".join(sorted(self.cut_files)) or "none"
        on_fork = h.fork in git(work, "rev-list", "--first-parent", "-n", "3", adopted).split()
        self.steps.append(
            Step(
                "cut",
                f"branch {h.branch} forks from main at {h.fork[:9]} (carrying {h.fork_version})",
                "mlrelease " + " ".join(args),
                f"branch {h.branch} on origin at the adoption of {h.fork[:9]}; release-only "
                f"edits committed on it: {made}",
                bool(branch) and on_fork,
            )
        )
        self.steps.append(self._main_moves(git(self.origin, "rev-parse", "refs/heads/main")))

    def _main_moves(self, bumped: str) -> Step:
        h = self.h
        ours = git(self.work, "show", f"{bumped}:version.txt")
        files = set(git(self.work, "show", "--format=", "--name-only", bumped).split())
        if h.main_move is None:
            return Step("main moves on", "main not moved on yet", "", f"{ours}", None)
        sha, subject, theirs, days, their_files = h.main_move
        missed = sorted(set(their_files) - files)
        same = ours == theirs and not any(REVIEWED.get(f, (True, ""))[0] for f in missed)
        why = ""
        if ours != theirs:
            why = f"mlrelease moved main to {ours}, the project to {theirs}"
        elif missed:
            wrong = any(REVIEWED.get(f, (True, ""))[0] for f in missed)
            why = (
                ("mlrelease wrong: " if wrong else "")
                + "the project's move also changed "
                + "; ".join(f"{f}: {REVIEWED.get(f, (None, 'unreviewed'))[1]}" for f in missed)
            )
        elif days:
            why = (
                f"the same version; the project moved main by its own pull request {days} "
                "day(s) later, `release cut` in the run that cuts the branch"
            )
        return Step(
            "main moves on",
            f"{theirs}: {subject} ({sha[:9]}; files {', '.join(sorted(their_files))})",
            "(the same `release cut`)",
            f"main at {ours} (files {', '.join(sorted(files))})",
            same,
            why,
        )

    def land(self, c: Commit, adoption: str) -> None:
        """The project's commit ``c`` reaches the branch; main follows the project's."""
        follow_main(self.origin, self.work, self.h.main_at(c.date), self.h.main)
        self.main_date = c.date
        before = git(self.work, "rev-parse", "HEAD")
        made = land(self.work, self.mirror, c.sha, adoption, self.fixes)
        self.ours[c.sha] = made or before
        touched = set(git(self.mirror, "show", "--format=", "--name-only", c.sha).split())
        if self.cut_files and touched & self.cut_files and not c.pick:
            self.steps.append(self._edit_step(c, made, before))
            self.cut_files = set()
            return
        self.pending.append(c)

    def _edit_step(self, c: Commit, made: str | None, before: str) -> Step:
        """The project's release-only commit, against the edits ``release cut`` made."""
        left = git(self.work, "diff", "--stat=200", before, made).splitlines() if made else []
        return Step(
            "release-only edit",
            f"{c.subject} ({c.sha[:9]})",
            "(the same `release cut`: the edits init proposed)",
            "the branch already had this content" if made is None else "partly made",
            made is None,
            ""
            if made is None
            else "mlrelease partly wrong: init proposed the edits the newest release branch's "
            f"first commit made ({', '.join(sorted(self.cut_files))}), and `release cut` made "
            "them; the project's cut commit also changed "
            + "; ".join(" ".join(x.split()) for x in left[:-1])
            + " (the pins of this series' torch/torchvision builds, which an edit copied from "
            "the previous series cannot name)",
        )

    def _ahead(self, c: Commit) -> bool:
        """Whether every pull request ``c`` picks reached main only after main's state now."""
        prs = [o[1:] for o in c.origins if o.startswith("#")]
        later = [p for p in prs if self.h.pr_dates.get(p, 0) > self.main_date]
        return c.pick and len(later) == len(c.origins) > 0

    def judge_picks(self, last: bool = False) -> None:
        """``release cherry-picks --json`` on the branch: each pending commit judged (a pick of
        a pull request main has not merged yet waits for a later run, unless ``last``)."""
        if not self.pending:
            return
        said = self.command("release", "cherry-picks", "--json")
        if said.data is None:
            raise SystemExit(f"release cherry-picks failed: {said.message}")
        carried: dict[str, list[dict[str, Any]]] = {}
        for p in said.data["picks"]:
            if p["state"] in CARRYING and p["on_branch"]:
                carried.setdefault(p["on_branch"], []).append(p)
        prs = {own(p["subject"]): p for p in said.data["picks"] if p["state"] in CARRYING}
        waiting = [c for c in self.pending if not last and self._ahead(c)]
        for c in self.pending:
            if c in waiting:
                continue
            found = carried.get(self.ours[c.sha], [])
            self.carrying[c.sha] = found
            if c.reverts is not None:
                self.steps.append(self._revert_step(c, found))
            else:
                self.steps.append(self._pick_step(c, found, prs))
        self.pending = waiting

    def _revert_step(self, c: Commit, found: list[dict[str, Any]]) -> Step:
        """A revert on the branch: a fix the reverted commit carried shows ``reverted``."""
        undone = self.carrying.get(c.reverts or "", [])
        shown = [p for p in found if p["state"] == "reverted"]
        did = "; ".join(f"reverted: {p['subject']} ({p['commit'][:9]})" for p in shown)
        return Step(
            "revert",
            f"{c.subject} ({c.sha[:9]}): reverts {(c.reverts or '')[:9]}",
            "mlrelease release cherry-picks --json",
            did or "no fix of main shown reverted",
            bool(shown) == bool(undone),
            ""
            if undone
            else "the reverted commit carried no fix of its own (a second pick, above): the fix "
            "stays picked by its first carrier, as the report says",
            f"revert:{c.sha[:9]}",
        )

    def _pick_step(
        self, c: Commit, found: list[dict[str, Any]], prs: dict[str | None, dict[str, Any]]
    ) -> Step:
        did = (
            "; ".join(
                f"{p['state']}: {p['subject']} ({p['commit'][:9]}), by {p['evidence']}"
                for p in found
            )
            or "carries no commit of main"
        )
        history = f"{c.subject} ({c.sha[:9]})" + (
            f": picks {', '.join(c.origins)}" if c.pick else ": made on the branch"
        )
        match = bool(found) == c.pick
        why = ""
        twice = [prs[o[1:]] for o in c.origins if o[1:] in prs]
        if c.pick and not found and twice:
            why = (
                "mlrelease partly wrong: the fix was on the branch already ("
                + ", ".join(f"{p['subject']} by {p['on_branch'][:9]}" for p in twice)
                + "); this is a second pick of it. `cherry-picks` lists the fix once, as picked "
                "(right), but does not name this commit: a fix reaching the branch twice by "
                "hand (invariant (e)) goes unreported"
            )
        elif c.pick and not found:
            why = (
                "mlrelease wrong: the project picked it (" + ", ".join(c.origins) + ") and "
                "`cherry-picks` does not see it"
            )
        elif found and not c.pick and any(own(p["subject"]) == own(c.subject) for p in found):
            why = (
                f"mlrelease right: main's #{own(c.subject)} picked by hand (the same subject and "
                "pull request number, the patch adapted); the history's rule leaves a commit's "
                "own number out, and misses it"
            )
        elif found and not c.pick:
            why = "mlrelease finds a pick the history's rule misses: review"
        kind = "pick" if c.pick else "direct commit"
        return Step(
            kind,
            history,
            "mlrelease release cherry-picks --json",
            did,
            match,
            why,
            f"pick:{c.sha[:9]}",
        )

    def rc(self, c: Commit, number: int, name: str) -> None:
        """``release rc`` where the project tagged ``name``; when it refuses a development pin,
        the maintainer does what the refusal asks (one commit, kept for the commits that
        follow) and runs it again; another refusal leaves the project's tag made by hand."""
        rebuild = self.last_rc is not None and self.last_rc[2] == c.sha
        args = ["release", "rc", "--execute", "--push", "--json", *(["--rebuild"] * rebuild)]
        history = f"{name} on {c.sha[:9]}" + (" (the same commit again)" if rebuild else "")
        said = self.command(*args)
        pin = dev_pins(said.message) if said.code else []
        refused = bool(pin)
        if refused:
            self.steps.append(
                Step(
                    "rc refused",
                    history,
                    "mlrelease " + " ".join(args),
                    f"refused: {refusal(said.message)}",
                    False,
                    judge_rc(said.message, []),
                    f"rc-refused:{name}",
                )
            )
        for _ in range(3):  # each refusal names what is left; the maintainer fixes it all
            if not pin:
                break
            self._unpin(pin)
            said = self.command(*args)
            pin = dev_pins(said.message) if said.code else []
        head = git(self.work, "rev-parse", "HEAD")
        made = rev(self.origin, f"refs/tags/{name}")
        fixed = " (on the pin fixed as it asked)" if refused else ""
        if said.code == 0 and made == head:
            self.steps.append(
                Step(
                    "rc tag",
                    history,
                    "mlrelease " + " ".join(args),
                    f"tagged {name}{fixed}",
                    True,
                    id=f"rc:{name}",
                )
            )
        else:
            tags = tags_of(said.data, 3)
            did = f"tagged {', '.join(tags)}" if tags else f"refused: {refusal(said.message)}"
            self.steps.append(
                Step(
                    "rc tag",
                    history,
                    "mlrelease " + " ".join(args),
                    did,
                    False,
                    judge_rc(said.message, tags),
                    f"rc:{name}",
                )
            )
            if not made:  # the project's tag, by hand, so that the replay goes on as history
                git(self.work, "tag", "-a", name, "-m", f"{name} (by hand)", head, env=IDENTITY)
                git(self.work, "push", "-q", "origin", f"refs/tags/{name}")
        self.last_rc = (name, head, c.sha)
        self.rcs_made += 1

    def _unpin(self, pins: list[tuple[str, str]]) -> None:
        """The fix ``release rc`` asks for: each named requirement without its ``.dev`` bound,
        in the file it names, committed and pushed once, and kept in the project's later
        versions of those files."""
        for file, requirement in pins:
            released = re.sub(r"(\d+(?:\.\d+)*)\.dev\d*", r"\1", requirement)
            path = self.work / file
            path.write_text(path.read_text("utf-8").replace(requirement, released), "utf-8")
            self.fixes.append((file, requirement, released))
        shown = ", ".join(sorted({f for f, _ in pins}))
        message = f"fix: require released builds in {shown}, as `release rc` asks (replay)"
        git(self.work, "commit", "-q", "-am", message, env=IDENTITY)
        git(self.work, "push", "-q", "origin", "HEAD")

    def final(self) -> None:
        h = self.h
        if h.final_commit is None or self.last_rc is None:
            return
        name, rc_commit, rc_project = self.last_rc
        status = self.command("release", "status", "--json")
        work = self.work
        git(work, "switch", "-q", "--detach", name)
        stand_in_build(work / "dist", str(h.version))
        bind = ("release", "bind", "--rc", name, "--execute", "--push", "--json")
        bound = self.command(*bind)
        if bound.code != 0:
            self.steps.append(
                Step(
                    "final tag",
                    f"{h.final_tag} on {h.final_commit[:9]}",
                    "mlrelease " + " ".join(bind),
                    f"refused: {refusal(bound.message)}",
                    None,
                    _unbound(h, name, rc_project),
                )
            )
            return
        self.command("verify")
        args = ("release", "promote", "--rc", name, "--published-elsewhere", "--json")
        said = self.command(*args)
        tags = tags_of(said.data, 4)
        target = tags[0] if tags else None
        theirs = self.ours.get(h.final_commit, h.final_commit)
        if target and target == rc_commit and rc_project == h.final_commit:
            theirs = target  # the RC's commit: the project's, plus the fixes the replay made
        after = [c.subject for c in h.commits if c.sha == h.final_commit]
        why = ""
        if target and target != theirs:
            why = (
                f"mlrelease right: the project's {h.final_tag} sits on a commit no RC built "
                f"({after[0] if after else h.final_commit[:9]}), so the released source was never "
                f"a candidate; promote tags only {name}'s commit, and that change would have been "
                "one more RC first"
            )
        self.steps.append(
            Step(
                "final tag",
                f"{h.final_tag} on {h.final_commit[:9]}",
                "mlrelease " + " ".join(args),
                f"plans {h.final_tag} on {name}'s commit"
                if target
                else f"refused: {refusal(said.message)}",
                target == theirs,
                why,
            )
        )
        self.status_after_last_rc = status.data


def _unbound(h: History, name: str, rc_project: str) -> str:
    """Why the final tag is not compared, and what promote's rule says of the project's."""
    on = h.final_commit == rc_project
    later = [c.subject for c in h.commits if c.sha == h.final_commit]
    return (
        "not compared: `release bind` rebuilds the RC's sdist for reference before anything is "
        "bound, and Torch-TensorRT's build needs torch and CUDA, which this machine lacks; "
        f"without a binding promote refuses. Its rule (`release promote --help`) tags exactly "
        f"{name}'s commit: "
        + (
            "the project's too"
            if on
            else f"the project tagged a commit no RC built ({later[0] if later else ''}), so "
            "with mlrelease that commit is one more RC first (mlrelease right: the released "
            "source was never a candidate)"
        )
    )


def replay(mirror: Path, release: str, rcs: int | None = None) -> dict[str, Any]:
    """Release ``release`` (``X.Y.0``) replayed from its fork point with the commands; with
    ``rcs``, only up to its ``rcs``-th RC tag (no final tag)."""
    began = time.monotonic()
    h = read(mirror, release)
    with tempfile.TemporaryDirectory(prefix="replay-trt-") as tmp:
        origin, work = setup(mirror, Path(tmp), h)
        adoption = adopt(work)
        r = Replay(mirror, h, origin, work)
        r.cut()
        for c in h.commits:
            if rcs is not None and r.rcs_made >= rcs:
                break
            r.land(c, adoption)
            for number, name in c.rc_tags:
                r.judge_picks()
                r.rc(c, number, name)
        r.judge_picks(last=True)
        if rcs is None:
            r.final()
    counted = [s for s in r.steps if s.match is not None]
    return {
        "release": release,
        "branch": h.branch,
        "fork": h.fork,
        "adopted": adoption,
        "steps": as_dict(r.steps),
        "matched": sum(1 for s in counted if s.match),
        "counted": len(counted),
        "commands": r.runs,
        "status_after_last_rc": getattr(r, "status_after_last_rc", None),
        "seconds": round(time.monotonic() - began, 1),
    }
