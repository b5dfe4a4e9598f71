"""What both kinds of release of the adoption corpus share when replayed
(:mod:`adoption_corpus_replay`), on :mod:`case_study_replay_steps`'s steps: the adoption
(``mlrelease init --execute``, judged, and the project's release model set where init proposed
another), each command run as a user runs it (a refusal that names its repair followed:
:meth:`Corpus.command`), the project's commits landed with the adoption kept, and the final
``release promote --published-elsewhere --json`` dry run."""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path
from typing import Any

from adoption_corpus_key import Project, text_at
from adoption_corpus_repair import carried, make
from case_study_history import Commit, History
from case_study_judge import refusal as shorten
from case_study_judge import tags_of
from case_study_lib import git
from case_study_replay import IDENTITY, Refused, Step, adopt, land, rev
from case_study_replay_steps import Replay

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

ADAPTED = "chore: leave the tests gate out (adoption corpus: the project's suite is not run)"
MODELLED = "chore: the release model the project uses (adoption corpus)"
REPAIR_SUBJECT = "(the repair a refusal named; replay)"
"""The end of the subject of a repair's commit (:meth:`Corpus.command`)."""
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
            self.steps.repaired += told
        return said

    def _repair(self, repair: dict[str, Any]) -> str | None:
        """Make ``repair`` (:func:`adoption_corpus_repair.make`), commit and push it."""
        named = make(self.work, repair, lambda *a: super(Corpus, self).command(*a).code)
        if named is None:
            return None
        branch = git(self.work, "branch", "--show-current")
        subject = f"chore: {named.strip('`')} {REPAIR_SUBJECT}"
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
        whole: list[str] = []
        made = land(self.work, self.mirror, c.sha, self.adoption, self.fixes, self.based, whole)
        if whole:
            self.whole.setdefault(c.sha, []).extend(whole)
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
