"""The steps every replayed release shares (:mod:`case_study_replay` sets the scene), for the
Torch-TensorRT case study (:mod:`case_study_torch_tensorrt_replay`) and the adoption corpus
(:mod:`adoption_corpus_replay`): each commit of the branch judged by ``release cherry-picks
--json`` (a pick, a commit made on the branch, a revert), and each RC tagged by ``release rc``
where the project tagged one, judged from what the command printed (its ``--json``) and the
refs it left on origin, against the history (:mod:`case_study_history`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from case_study_history import Commit, History
from case_study_judge import dev_pins, judge_rc, own, refusal, tags_of
from case_study_lib import git
from case_study_replay import IDENTITY, Step, rev, run

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
        self.whole: dict[str, list[str]] = {}
        """The project's commit -> its files landed whole, their change not merging."""
        self.runs = 0
        self.main_date = 0
        self.rcs_made = 0

    def command(self, *args: str) -> Any:
        self.runs += 1
        return run(self.work, *args)

    def _ahead(self, c: Commit) -> bool:
        """Whether every pull request ``c`` picks reached main only after main's state now."""
        prs = [o[1:] for o in c.origins if o.startswith("#")]
        later = [p for p in prs if self.h.pr_dates.get(p, 0) > self.main_date]
        return c.pick and len(later) == len(c.origins) > 0

    def landed_whole(self, c: Commit) -> str:
        """What the step's record says of ``c``'s files landed whole (none: nothing)."""
        files = self.whole.get(c.sha, [])
        return f" (landed whole: {', '.join(files)}; their change did not merge)" if files else ""

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
            (did or "no fix of main shown reverted") + self.landed_whole(c),
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
        ) + self.landed_whole(c)
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
