"""The two kinds of release of the adoption corpus, replayed (:mod:`adoption_corpus_replay`)
on what they share (:class:`adoption_corpus_shared.Corpus`): a release cut to a branch
(:class:`BranchReplay`: the cut, main's move, ``release prepare``, the project's commits
landed, the picks and the RCs) and a release made on main (:class:`TrunkReplay`: the
version commits and the RC tags there)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from adoption_corpus_key import text_at, version_in, version_of
from adoption_corpus_shared import REPAIR_SUBJECT, Corpus, refusal
from case_study_history import Commit
from case_study_lib import git
from case_study_replay import Step, follow_main, land, rev


def _added(repo: Path, a: str, b: str, text: str) -> set[str]:
    """Files whose diff from ``a`` to ``b`` adds a line holding ``text`` (bump-my-version's own
    ``current_version`` left out)."""
    files: set[str] = set()
    name = ""
    for line in git(repo, "diff", "-U0", a, b).splitlines():
        if line.startswith("+++ "):
            name = line[6:] if line.startswith("+++ b/") else ""
        elif line.startswith("+") and text in line and "current_version" not in line:
            files.add(name)
    return files - {""}


class BranchReplay(Corpus):
    """A release cut to a branch, with RCs tagged there."""

    def run(self) -> None:
        h = self.h
        if not self.start():
            return
        self.cut_branch()
        self.prepare()
        date = int(git(self.mirror, "log", "-1", "--format=%ct", h.fork))
        fork = Commit(h.fork, "(the fork point)", date, list(h.fork_rc_tags))
        self.ours[h.fork] = git(self.work, "rev-parse", "HEAD")
        for number, name in h.fork_rc_tags:
            self.rc(fork, number, name)
        for c in h.commits:
            self.land(c, self.adoption)
            for number, name in c.rc_tags:
                self.judge_picks()
                self.rc(c, number, name)
        self.judge_picks(last=True)
        self.final_step()

    def cut_branch(self) -> None:
        h, work = self.h, self.work
        adopted = git(work, "rev-parse", "HEAD")
        args: tuple[str, ...] = ("release", "cut", "--version", h.series)
        if self.project.shape.upstream and self.table().get("upstream"):
            args += ("--upstream", self.project.shape.upstream)  # as the user pairs it
        args += ("--execute", "--push", "--json")
        said = self.command(*args)
        history = (
            f"branch {h.branch} forks from {h.main} at {h.fork[:9]} ({version_in(h.fork_version)})"
        )
        command = "mlrelease " + " ".join(args)
        branch = git(work, "rev-parse", "--abbrev-ref", "HEAD")
        if said.code != 0 or branch == h.main:
            did = f"refused: {refusal(said.message)}"
            self.steps.append(Step("cut", history, command, did, False, id="cut"))
            git(work, "switch", "-q", "-c", h.branch)  # the branch by hand, as history made it
            git(work, "push", "-q", "origin", f"HEAD:refs/heads/{h.branch}")
        else:
            for sha in git(work, "rev-list", "--reverse", f"{adopted}..HEAD").split():
                self.cut_files |= set(git(work, "show", "--format=", "--name-only", sha).split())
            base = git(work, "merge-base", adopted, "HEAD") == adopted
            made = ", ".join(sorted(self.cut_files)) or "none"
            did = f"branch {branch} at the adoption of {h.fork[:9]}; edits on it: {made}"
            theirs = {f for c in self.key["commits"] for f in c.get("files", [])}
            foreign = sorted(self.cut_files - theirs - {"pyproject.toml"})
            did += f"; never edited by the project's release-only commits: {', '.join(foreign)}"
            did = did if foreign else did.rsplit("; never", 1)[0]
            same = branch == h.branch and base and bool(rev(self.origin, f"refs/heads/{branch}"))
            same = same and not foreign
            self.steps.append(Step("cut", history, command, did, same, id="cut"))
        self.steps.append(self.main_step())

    def main_step(self) -> Step:
        """Main's version after the cut, against the version the maintainers gave main next
        (:func:`adoption_corpus_key.key`'s ``main_next``)."""
        h, after = self.h, self.key["main_next"]
        file = self.project.shape.version_file
        ours = version_in(text_at(self.work, rev(self.origin, f"refs/heads/{h.main}"), file))
        did = f"main at {ours or '(no ' + file + ')'}"
        command = "(the same `release cut`)"
        if after is None:
            return Step("main moves on", "main never moved", command, did, None, id="main")
        theirs = after["version"]
        history = f"main next at {theirs} ({after['commit'][:9]}: {after['subject']})"
        same = ours == theirs or (version_of(ours) or ours) == version_of(theirs)
        return Step("main moves on", history, command, did, same, id="main")

    def prepare(self) -> None:
        """``release prepare --version X.Y.Z`` on the new branch (the checklist's step after
        the cut), against the version the branch said at the project's first RC."""
        h, file = self.h, self.project.shape.version_file
        tagged = [c.sha for c in h.commits if c.rc_tags]
        first = h.fork if h.fork_rc_tags else next(iter(tagged), h.final_commit or h.fork)
        theirs = version_in(text_at(self.mirror, first, file))
        before = git(self.work, "rev-parse", "HEAD")
        args = ("release", "prepare", "--version", str(h.version), "--execute", "--push")
        said = self.command(*args, "--json")
        ours = version_in(text_at(self.work, "HEAD", file))
        if said.code:
            did = f"refused: {refusal(said.message)}"
        else:
            done = "nothing to do" if git(self.work, "rev-parse", "HEAD") == before else "committed"
            did = f"{done}: {file} says {ours}"
        same = said.code == 0 and (version_of(ours) or ours) == (version_of(theirs) or theirs)
        history = f"{file} says {theirs} at the first RC or the release ({first[:9]})"
        command = "mlrelease " + " ".join(args) + " --json"
        self.steps.append(Step("prepare", history, command, did, same, id="prepare"))
        self.refresh()

    def land(self, c: Commit, adoption: str) -> None:
        """The project's commit ``c`` reaches the branch; main follows the project's. A
        release-only commit is judged at once (had ``release cut`` made it?), the others by
        ``cherry-picks`` before the next RC."""
        follow_main(self.origin, self.work, self.h.main_at(c.date), self.h.main)
        self.main_date = c.date
        before = git(self.work, "rev-parse", "HEAD")
        made = self.land_one(c)
        if self.kinds[c.sha] != "release-only":
            self.pending.append(c)
            return
        left = git(self.work, "diff", "--name-only", before, made).split() if made else []
        did = (
            "the branch already had this content"
            if made is None
            else f"release cut had not made it: {', '.join(left)}"
        ) + self.landed_whole(c)
        history = f"{c.subject} ({c.sha[:9]})"
        command = "(the same `release cut`: the edits init proposed)"
        self.steps.append(
            Step("release-only edit", history, command, did, made is None, id=f"edit:{c.sha[:9]}")
        )


class TrunkReplay(Corpus):
    """A release made on main: version commits and tags there."""

    def run(self) -> None:
        h = self.h
        if not self.start():
            return
        for c in h.commits:
            kind = self.kinds[c.sha]
            if kind == "version":
                self.version_step(c)
            if kind == "version" or c.rc_tags or c.sha == h.final_commit:
                self.land_one(c)
            for number, name in c.rc_tags:
                self.rc(c, number, name)
            if c.sha == h.final_commit:
                self.final_step()

    def land_first(self, c: Commit) -> None:
        """The maintainers' version commit ``c`` as a user of mlrelease makes it: their own
        edits first, landed as a commit of theirs, then the command that sets the version
        (:meth:`version_step`), then the rest of their change. Held back to land after the
        command: the files where their change adds the version they set, the version file,
        the changelog and ``pyproject.toml`` (mlrelease's configuration, and
        bump-my-version's). tensorflow-onnx's 2e4f0716f (one commit of its own, e188879f)
        adds the job that publishes every ``v*`` tag and sets 1.17.0rc1: the command runs on
        the tree with the workflow the release will run."""
        theirs = version_in(text_at(self.mirror, c.sha, self.project.shape.version_file))
        changed = set(
            git(self.work, "diff", "--name-only", "--no-renames", self.based, c.sha).split()
        )
        held = _added(self.mirror, self.based, c.sha, theirs) if theirs else set()
        held |= {self.project.shape.version_file, "pyproject.toml", "CHANGELOG.md"}
        held |= set(re.findall(r'^filename = "([^"]+)"', self.adoption, re.M))
        if not changed - held:
            return
        whole: list[str] = []
        land(
            self.work,
            self.mirror,
            c.sha,
            self.adoption,
            self.fixes,
            self.based,
            whole,
            frozenset(held & changed),
        )
        if whole:
            self.whole.setdefault(c.sha, []).extend(whole)

    def version_step(self, c: Commit) -> None:
        """The command that sets the version the maintainers' commit ``c`` sets, before it
        (their own edits of that commit landed first: :meth:`land_first`). Where a refusal's
        repair made release candidates version bumps and they set a candidate's version, the
        command that sets it under that model, ``release rc``, runs next, as the checklist has
        it."""
        h, file = self.h, self.project.shape.version_file
        theirs = version_in(text_at(self.mirror, c.sha, file))
        wanted = version_of(theirs)
        if wanted is None or version_of(wanted.base_version) != h.version:
            return  # another release's version
        self.land_first(c)
        bumped = self.table().get("rc-model") == "bump"
        verb = (
            ["rc"] if bumped and wanted.is_prerelease else ["prepare", "--version", str(h.version)]
        )
        args = ("release", *verb, "--execute", "--push", "--json")
        before = git(self.work, "rev-parse", "HEAD")
        said = self.command(*args)
        did = self._outcome(said, before)
        command = "mlrelease " + " ".join(args)
        repaired = not bumped and self.table().get("rc-model") == "bump"
        if said.code == 0 and repaired and wanted.is_prerelease:
            then = ("release", "rc", "--execute", "--push", "--json")
            at = git(self.work, "rev-parse", "HEAD")
            said = self.command(*then)
            command += "; then mlrelease " + " ".join(then)
            did += "; then, release candidates being version bumps now, `mlrelease "
            did += f"{' '.join(then)}`: {self._outcome(said, at)}"
        ours = version_in(text_at(self.work, "HEAD", file))
        mine = _added(self.work, before, "HEAD", ours or theirs) - {"CHANGELOG.md"}
        parent = git(self.mirror, "rev-parse", f"{c.sha}^")
        done = _added(self.mirror, parent, c.sha, theirs) - {"CHANGELOG.md"}
        same = said.code == 0 and version_of(ours) == wanted and mine == done
        history = f"{c.subject} ({c.sha[:9]}): {file} -> {theirs} in {', '.join(sorted(done))}"
        self.steps.append(Step("version", history, command, did, same, id=f"version:{c.sha[:9]}"))
        self.refresh()

    def _outcome(self, said: Any, before: str) -> str:
        """What a version command did since ``before``, as the step says it."""
        file = self.project.shape.version_file
        ours = version_in(text_at(self.work, "HEAD", file))
        if said.code:
            return f"refused: {refusal(said.message)}"
        made = git(self.work, "log", "--format=%s", f"{before}..HEAD").splitlines()
        if all(REPAIR_SUBJECT in subject for subject in made):  # the repairs' commits only
            return f"nothing to do: {file} says {ours}"
        mine = _added(self.work, before, "HEAD", ours) - {"CHANGELOG.md"} if ours else set()
        return f"{file} says {ours}; the version written in {', '.join(sorted(mine)) or '-'}"
