"""One release of the adoption corpus replayed with the commands users run
(``adoption_corpus.py``), on :mod:`case_study_replay`'s scene and
:mod:`case_study_torch_tensorrt_replay`'s steps: a bare ``origin`` holding what the project had
when the release started, a clone adopting mlrelease there, the project's own commits landed
as they were, and each command run as a subprocess where the maintainers did the same act.

- Both kinds: ``mlrelease init --execute`` (the ``init`` step: it succeeds, changes only
  ``pyproject.toml`` and proposes the project's release model; a different model is set to the
  project's, once, so that the steps after it measure the rest), and at the end
  ``release promote --rc <newest RC> --published-elsewhere --json``, a dry run.
- A release branch (:class:`BranchReplay`): ``release cut`` where the branch forks, the
  project's commits landed one by one, ``release cherry-picks --json`` and ``release rc``
  (``--rebuild`` on the same commit again) before each of the project's RC tags.
- A release on main (:class:`TrunkReplay`): where the maintainers changed the version file, the
  command that does it (``release prepare --version X.Y.Z``, or ``release rc`` when init proposed
  version-bump RCs for a pre-release), then their commit; ``release rc`` where they tagged an RC
  (where they made none, once before the final tag: mlrelease's flow promotes an RC).

A refusal that names its repair is followed as a user would: its ``--json`` refusal carries the
repair (``repair``: a command such as ``mlrelease bump --sync --execute``, or keys of
``[tool.mlrelease.release]`` to set, such as ``rc-model = "bump"``), which is made, committed
and pushed, and the command run again, as often as each attempt names a new repair; the step
shows every attempt (:meth:`Corpus.command`), and the steps after it run under the
configuration so repaired. Another refused command is recorded and the history's own act made
by hand (the branch, the tag), so that the replay goes on as history did.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from adoption_corpus_key import Project, key, text_at, version_in, version_of
from adoption_corpus_repair import carried, make
from case_study_history import Commit, History
from case_study_judge import refusal as shorten
from case_study_judge import tags_of
from case_study_lib import git
from case_study_replay import (
    IDENTITY,
    Refused,
    Step,
    adopt,
    as_dict,
    follow_main,
    land,
    rev,
    setup,
)
from case_study_torch_tensorrt_replay import Replay

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

ADAPTED = "chore: leave the tests gate out (adoption corpus: the project's suite is not run)"
MODELLED = "chore: the release model the project uses (adoption corpus)"
UNBOUND = "no artifact manifest is bound"
"""promote's refusal when no files were bound: the corpus builds none (not a verdict)."""


class _Steps(list[Step]):
    """The steps recorded; the next one after a repair the replay ran says the refusal and the
    repair before what the command then did."""

    repaired = ""

    def append(self, step: Step) -> None:
        if self.repaired:
            step = dataclasses.replace(step, did=self.repaired + step.did)
            self.repaired = ""
        super().append(step)


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


def refusal(message: str) -> str:
    """A refusal as the page shows it: from its ``error:`` on (without the lines an executed
    command echoed before it), shortened."""
    return shorten(message[message.find("error:") :] if "error:" in message else message)


class Corpus(Replay):
    """What both kinds of release share: the adoption and the final promote dry run."""

    def __init__(
        self,
        project: Project,
        mirror: Path,
        h: History,
        scene: tuple[Path, Path],
        key: dict[str, Any],
    ) -> None:
        super().__init__(mirror, h, *scene)
        self.steps: _Steps = _Steps()
        self.project, self.key = project, key
        self.kinds = {c["sha"]: c["kind"] for c in key["commits"]}
        self.adoption = ""
        self.based = h.fork
        """The project's commit whose ``pyproject.toml`` the adoption is appended to."""

    def command(self, *args: str) -> Any:
        """A command run as a user runs it: where it refuses and its ``--json`` refusal carries
        the repair (``repair``: a command such as ``mlrelease bump --sync --execute``, or keys
        of ``[tool.mlrelease.release]`` to set), the repair is made, committed and pushed, and
        the command run again, as long as each attempt names a new repair; the next step
        recorded says every refusal and repair before what the command then did
        (:class:`_Steps`)."""
        said = super().command(*args)
        done: list[dict[str, Any]] = []
        told = ""
        while said.code and (repair := carried(said.data)) and repair not in done:
            named = self._repair(repair)
            if named is None:
                break
            done.append(repair)
            told += f"refused: {refusal(said.message)} Then {named} (the repair it names), "
            told += "committed, and again: "
            said = super().command(*args)
        if told:
            self.steps.repaired = told
        return said

    def _repair(self, repair: dict[str, Any]) -> str | None:
        """Make ``repair`` (:func:`adoption_corpus_repair.make`), commit and push it."""
        named = make(self.work, repair, lambda *a: super(Corpus, self).command(*a).code)
        if named is None:
            return None
        branch = git(self.work, "branch", "--show-current")
        subject = f"chore: {named.strip('`')} (the repair a refusal named; replay)"
        git(self.work, "commit", "-q", "-am", subject, env=IDENTITY)
        git(self.work, "push", "-q", "origin", f"HEAD:refs/heads/{branch}")
        self.refresh()
        return named

    def table(self) -> dict[str, Any]:
        """``[tool.mlrelease.release]`` as the clone's ``pyproject.toml`` has it now."""
        text = (self.work / "pyproject.toml").read_text(encoding="utf-8")
        data: dict[str, Any] = tomllib.loads(text)
        release: dict[str, Any] = data.get("tool", {}).get("mlrelease", {}).get("release", {})
        return release

    def start(self) -> bool:
        """``init --execute``, judged; False when it refused (no command can run after it)."""
        args = "mlrelease init --execute"
        history = f"the project releases on {self.project.model} model"
        try:
            self.adoption = adopt(self.work, ADAPTED, self.h.main)
        except Refused as refused:
            did = f"refused: {refusal(refused.said.message)}"
            self.steps.append(Step("init", history, args, did, False, id="init"))
            return False
        self.runs += 1
        changed = git(self.work, "diff", "--name-only", self.h.fork, "HEAD").split()
        rel = self.table()
        files = list(dict.fromkeys(re.findall(r'^filename = "([^"]+)"', self.adoption, re.M)))
        version = re.search(r'^current_version = "([^"]*)"', self.adoption, re.M)
        did = (
            f"model {rel.get('model', 'branch')}, branch {rel.get('branch', '(default)')}, tags "
            f"{rel.get('tag', '(default)')} / {rel.get('rc-tag', '(default)')}, rc-model "
            f"{rel.get('rc-model', 'tag')}, picks {rel.get('picks', 'trailer')}; version "
            f"{version[1] if version else '(none)'} in {', '.join(files) or 'no file'}; "
            f"changed {', '.join(changed)}"
        )
        same = rel.get("model", "branch") == self.project.model and changed == ["pyproject.toml"]
        self.steps.append(Step("init", history, args, did, same, id="init"))
        if rel.get("model", "branch") != self.project.model:
            self._set_model()
        return True

    def _set_model(self) -> None:
        path = self.work / "pyproject.toml"
        text = path.read_text(encoding="utf-8")
        line = f'model = "{self.project.model}"'
        text, n = re.subn(r'^model = "\w+"$', line, text, count=1, flags=re.M)
        if not n:
            text = text.replace("[tool.mlrelease.release]\n", f"[tool.mlrelease.release]\n{line}\n")
        path.write_text(text, encoding="utf-8")
        git(self.work, "commit", "-q", "-am", MODELLED, env=IDENTITY)
        git(self.work, "push", "-q", "origin", f"HEAD:refs/heads/{self.h.main}")
        self.refresh()

    def refresh(self) -> None:
        """The adoption as the clone has it now (a command may have moved its version), kept
        by the project's commits that land after."""
        text = (self.work / "pyproject.toml").read_text(encoding="utf-8")
        base = text_at(self.mirror, self.based, "pyproject.toml")
        base = base + "\n" if base else ""
        if text.startswith(base):
            self.adoption = text[len(base) :]

    def land_one(self, c: Commit) -> str | None:
        made = land(self.work, self.mirror, c.sha, self.adoption, self.fixes, self.based)
        self.ours[c.sha] = made or git(self.work, "rev-parse", "HEAD")
        self.based = c.sha
        return made

    def final_tag_name(self) -> str:
        v = self.h.version
        spelled = str(self.table().get("tag", "v{major}.{minor}.{patch}"))
        return spelled.format(major=v.major, minor=v.minor, patch=v.micro, rc="")

    def first_rc(self, commit: str) -> None:
        """The project tagged its release without an RC; mlrelease promotes one, so a user
        tags one first (on the final tag's commit, landed)."""
        args = ("release", "rc", "--execute", "--push", "--json")
        said = self.command(*args)
        head = git(self.work, "rev-parse", "HEAD")
        tags = tags_of(said.data, 3)
        did = f"tagged {', '.join(tags)}" if said.code == 0 and tags else ""
        did = did or f"refused: {refusal(said.message)}"
        history = f"no RC: the project tagged {self.h.final_tag} directly"
        command = "mlrelease " + " ".join(args)
        self.steps.append(Step("rc tag", history, command, did, False, id="rc:none"))
        if said.code == 0 and tags:
            self.last_rc = (tags[0], head, commit)

    def final_step(self) -> None:
        """``release promote --version X.Y.Z --published-elsewhere --json``, a dry run: the
        final tag's name and commit, planned or (at the binding, which the corpus does not
        make) by promote's rule, exactly the newest RC's commit."""
        h = self.h
        if h.final_tag is None or h.final_commit is None:
            return
        history = f"{h.final_tag} on {h.final_commit[:9]}"
        if not self.rcs_made:
            self.first_rc(h.final_commit)
        args = ("release", "promote", "--version", str(h.version), "--published-elsewhere")
        said = self.command(*args, "--json")
        command = "mlrelease " + " ".join(args) + " --json"
        unbound = re.search(rf"{UNBOUND} to (\S+) on", said.message)
        planned = tags_of(said.data, 3)
        if said.code == 0 and planned:
            spelled, on, rule = planned[0], tags_of(said.data, 4)[0], ""
            if on.startswith("-"):  # no commit named (rc-model bump): the tag is made on HEAD
                on = rev(self.work, "HEAD")
        elif unbound:
            spelled, on = self.final_tag_name(), rev(self.work, f"refs/tags/{unbound[1]}")
            rule = "dry run stops at the binding (the corpus builds no files); by promote's rule: "
        else:
            did = f"refused: {refusal(said.message)}"
            self.steps.append(Step("final tag", history, command, did, False, id="final"))
            return
        theirs = {ours: project for project, ours in self.ours.items()}.get(on, on)
        did = f"{rule}{spelled} on {theirs[:9]}"
        same = spelled == h.final_tag and on == self.ours.get(h.final_commit)
        self.steps.append(Step("final tag", history, command, did, same, id="final"))


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
        )
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

    def version_step(self, c: Commit) -> None:
        """The command that sets the version the maintainers' commit ``c`` sets, before it."""
        h, file = self.h, self.project.shape.version_file
        theirs = version_in(text_at(self.mirror, c.sha, file))
        wanted = version_of(theirs)
        if wanted is None or version_of(wanted.base_version) != h.version:
            return  # another release's version
        bump = self.table().get("rc-model") == "bump" and wanted.is_prerelease
        verb = ["rc"] if bump else ["prepare", "--version", str(h.version)]
        args = ("release", *verb, "--execute", "--push", "--json")
        before = git(self.work, "rev-parse", "HEAD")
        said = self.command(*args)
        ours = version_in(text_at(self.work, "HEAD", file))
        mine = _added(self.work, before, "HEAD", ours or theirs) - {"CHANGELOG.md"}
        parent = git(self.mirror, "rev-parse", f"{c.sha}^")
        done = _added(self.mirror, parent, c.sha, theirs) - {"CHANGELOG.md"}
        if said.code:
            did = f"refused: {refusal(said.message)}"
        elif git(self.work, "rev-parse", "HEAD") == before:
            did = f"nothing to do: {file} says {ours}"
        else:
            did = f"{file} says {ours}; the version written in {', '.join(sorted(mine)) or '-'}"
        same = said.code == 0 and version_of(ours) == wanted and mine == done
        history = f"{c.subject} ({c.sha[:9]}): {file} -> {theirs} in {', '.join(sorted(done))}"
        command = "mlrelease " + " ".join(args)
        self.steps.append(Step("version", history, command, did, same, id=f"version:{c.sha[:9]}"))
        self.refresh()


def replay(project: Project, mirror: Path) -> dict[str, Any]:
    """The release of ``project`` replayed from where it started, with the commands."""
    began = time.monotonic()
    h, answer = key(mirror, project)
    kind = BranchReplay if project.model == "branch" else TrunkReplay
    with tempfile.TemporaryDirectory(prefix=f"corpus-{project.name}-") as tmp:
        r = kind(project, mirror, h, setup(mirror, Path(tmp), h, project.name), answer)
        r.run()
    return {
        "name": project.name,
        "steps": as_dict(r.steps),
        "commands": r.runs,
        "seconds": round(time.monotonic() - began, 1),
        "key": answer,
    }
