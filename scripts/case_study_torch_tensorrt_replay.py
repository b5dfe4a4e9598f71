"""One Torch-TensorRT release replayed (:mod:`case_study_replay` sets the scene,
:mod:`case_study_replay_steps` judges the picks and the RCs): the cut, main's move, each
commit reaching the branch (a release-only one against the edits ``release cut`` made), and
the final tag (``release bind`` and ``release promote``), each judged from what the command
printed (its ``--json``) and the refs it left on origin, against the history
(:mod:`case_study_history`)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from case_study_history import Commit, History, read
from case_study_judge import REVIEWED, refusal, tags_of
from case_study_lib import git
from case_study_replay import (
    Step,
    adopt,
    as_dict,
    follow_main,
    land,
    rev,
    setup,
    stand_in_build,
)
from case_study_replay_steps import Replay


class TensorRTReplay(Replay):
    """A Torch-TensorRT release replayed: the steps of :class:`Replay`, and the cut, main's
    move, the release-only edit and the final tag as this case study judges them."""

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
        r = TensorRTReplay(mirror, h, origin, work)
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
