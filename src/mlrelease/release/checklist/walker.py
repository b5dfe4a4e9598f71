"""The release checklist's runner: resumable, with a ledger; the steps come from
:func:`~.fitting.steps_for`.

``release checklist --version X.Y.Z --execute`` walks the configured steps in order. Before a
step runs, the ledger (``build/release/X.Y.Z/ledger.json``, written atomically) marks it
``running``; after it succeeds and its evidence files exist, ``done``. A run interrupted at any
point resumes at the first step that is not done: a done step is never run again, and the step
that was running is run again, which is safe because every mutating release command converges
(it plans only what is still missing: an RC tag already on HEAD is not tagged twice).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from packaging.version import Version

from mlrelease.config import Config
from mlrelease.docs import published
from mlrelease.edges import git
from mlrelease.edges import proc as processes
from mlrelease.edges.faults import fault_env, fault_point
from mlrelease.errors import PreconditionError, UserError
from mlrelease.release import rules
from mlrelease.release.checklist.fitting import steps_for
from mlrelease.release.checklist.ledger import Ledger, StepRecord, now
from mlrelease.release.checklist.steps import (
    ChecklistStep,
    command_line,
    current_id,
)
from mlrelease.release.config import (
    TABLE,
    ReleaseConfig,
    parse_release,
    series,
    series_text,
)
from mlrelease.release.world import reader


def _check_ids(steps: list[ChecklistStep], source: str) -> None:
    seen: set[str] = set()
    for i, step in enumerate(steps):
        if step.id in seen:
            from mlrelease.errors import ConfigError

            raise ConfigError(
                f"{TABLE}.checklist[{i}].id", "a step id used once", repr(step.id), source=source
            )
        seen.add(step.id)


@dataclass
class ChecklistWalker:
    """Walks the checklist of one version."""

    config: Config
    version: Version
    out: Callable[[str], None]

    notes: list[str] = field(default_factory=list)
    """What fitting the steps to the project had to say (e.g. nox could not list sessions)."""

    @cached_property
    def steps(self) -> list[ChecklistStep]:
        """The project's steps, fitted once per command (nox and invoke are asked once)."""
        return steps_for(self.config, self.notes)

    def step_id(self, given: str, option: str) -> str:
        """A step named on the command line, by its current or its deprecated name."""
        new, note = current_id(given)
        if note:
            self.out(note.replace("checklist:", f"checklist {option}:", 1))
        return new

    @property
    def folder(self) -> Path:
        return self.config.path(
            self.config.table(ReleaseConfig).ledger_dir.format(version=self.version)
        )

    def ledger(self) -> Ledger:
        _check_ids(self.steps, str(self.config.pyproject_path))
        return Ledger.load(self.folder / "ledger.json", str(self.version), self.steps)

    def values(self, need_rc: bool) -> dict[str, str]:
        names, rel = self.config.names, self.config.table(ReleaseConfig)
        values = {
            "version": str(self.version),
            "series": series_text(series(self.version)),
            "branch": names.branch_for(series(self.version)),
            "final_tag": names.final_tag(self.version),
            "artifacts": rel.artifacts,
            "ledger_dir": str(self.folder),
            "rc_tag": "{rc_tag}",
            "index": rel.index,
            "rc_index": rel.rc_index,
        }
        if need_rc:  # resolved once here, and passed down to the step as --rc
            rcs = rules.rc_tags(reader.read(self.config), names, self.version)
            if not rcs:
                raise PreconditionError(
                    f"checklist: a step needs {{rc_tag}}, but {self.version} has no release "
                    "candidate yet; an earlier step (rc) should have made one."
                )
            values["rc_tag"] = rcs[max(rcs)][0]
        return values

    def command(self, step: ChecklistStep, resolve_rc: bool) -> list[str]:
        need_rc = resolve_rc and any("{rc_tag}" in a for a in step.run)
        values = self.values(need_rc)
        try:
            return [a.format(**values) for a in step.run]
        except (KeyError, IndexError, ValueError) as exc:
            raise UserError(
                f"{TABLE}.checklist step {step.id!r}: bad placeholder in {step.run!r} ({exc}); "
                f"known: {', '.join('{' + k + '}' for k in values)}."
            ) from None

    def show(self, ledger: Ledger) -> None:
        for i, (step, rec) in enumerate(zip(self.steps, ledger.steps, strict=True), 1):
            when = f" ({rec.finished})" if rec.status == "done" and rec.finished else ""
            what = command_line(self.command(step, False)) if step.run else "manual: " + step.shown
            self.out(f"[{i}/{len(self.steps)}] {rec.status:8} {step.id}: {step.title}{when}")
            if rec.status != "done":
                self.out(f"        {what}")

    def run(self, *, execute: bool, confirm: list[str], redo: list[str], reason: str = "") -> int:
        for note in self.notes if self.steps else ():  # fitting the steps writes the notes
            self.out(note)
        confirm = [self.step_id(s, "--confirm") for s in confirm]
        redo = [self.step_id(s, "--redo") for s in redo]
        ledger = self._opened(execute, confirm, redo)
        if not execute:
            self.show(ledger)
            self.out(
                f"Ledger: {ledger.path}. Dry run: nothing run. Re-run with --execute to "
                "run the steps that are not done, in order."
            )
            return 0
        total = len(self.steps)
        for i, (step, rec) in enumerate(zip(self.steps, ledger.steps, strict=True), 1):
            head = f"[{i}/{total}] {step.id}"
            if rec.status == "done":
                self.out(f"{head}: done {rec.finished or ''}; not repeated.")
                continue
            if not step.run and step.id not in confirm:
                ledger.save()
                self.out(
                    f"{head}: manual step: {step.title}. {step.shown}. When it is done, "
                    f"confirm it: `mlrelease release checklist --version {self.version} "
                    f"--execute --confirm {step.id}`."
                )
                return 0
            if step.id in confirm:
                self._confirmed(ledger, rec, head, step, reason)
                continue
            if not self._ran(ledger, rec, head, step):
                return 1
        self.out(f"Release {self.version}: all {total} steps done. Ledger: {ledger.path}")
        return 0

    def _opened(self, execute: bool, confirm: list[str], redo: list[str]) -> Ledger:
        """The ledger, with the site's word on the freeze step and ``--redo`` applied; refused
        when it would dirty the tree, or names an unknown or a mutating step to redo."""
        ledger = self.ledger()
        for step, rec in zip(self.steps, ledger.steps, strict=True):
            if published.is_freeze_step(step.run):  # the site is the truth, not the ledger
                frozen, rec.note = published.freeze_detected(self.config, str(self.version))
                if frozen:
                    rec.status = "done"
                elif rec.status == "done":
                    rec.status = "pending"
        # Only a run that writes the ledger needs it ignored; a dry run writes nothing.
        root = self.config.root
        if (
            execute
            and git.is_repo(root)  # the path is printed when it is ignored
            and not git.run(root, "check-ignore", "--no-index", str(ledger.path), check=False)
        ):
            raise PreconditionError(
                f"checklist: {self._display(ledger.path)} is not ignored by git, so the ledger "
                "would make the tree dirty and the release commands refuse to act. Add "
                f"{self.config.table(ReleaseConfig).ledger_dir.split('/')[0]}/ to .gitignore "
                f"({TABLE}.ledger-dir sets the folder)."
            )
        known = {s.id for s in self.steps}
        for step_id in [*confirm, *redo]:
            if step_id not in known:
                raise UserError(f"checklist: no step {step_id!r}; steps: {', '.join(known)}.")
        for step_id in redo:
            step = next(s for s in self.steps if s.id == step_id)
            if step.mutating:
                raise UserError(f"checklist --redo {step_id}: a mutating step is never repeated.")
            if execute:
                ledger.step(step_id).status = "pending"
        return ledger

    def _confirmed(
        self, ledger: Ledger, rec: StepRecord, head: str, step: ChecklistStep, reason: str
    ) -> None:
        """A manual step confirmed, or a step with a command the world shows done."""
        if not step.run:
            rec.status, rec.finished, rec.note = "done", now(), "confirmed by hand"
            ledger.save()
            self.out(f"{head}: confirmed by hand.")
            return
        if not reason.strip():
            raise UserError(
                f"checklist --confirm {step.id}: a step with a command is confirmed only "
                "with --reason saying what shows it done (it is kept in the ledger)."
            )
        rec.status, rec.finished, rec.note = "done", now(), f"confirmed: {reason}"
        ledger.save()
        self.out(f"{head}: confirmed by hand ({reason}).")

    def _ran(self, ledger: Ledger, rec: StepRecord, head: str, step: ChecklistStep) -> bool:
        """Run one step and record it; False when it failed (the checklist stops there)."""
        command = self.command(step, True)
        if rec.status == "running":
            self.out(
                f"{head}: was interrupted (started {rec.started}); running it again "
                "(release commands converge: what is done is not redone)."
            )
        rec.status, rec.started, rec.finished = "running", now(), None
        rec.command, rec.exit_code, rec.runs = command, None, rec.runs + 1
        ledger.save()
        self.out(f"{head}: {step.title}\n        $ {shlex.join(command)}")
        log = self.folder / "logs" / f"{step.id}.log"
        code = self._execute(command, log)
        rec.exit_code = code
        evidence = [a.format(version=self.version) for a in step.evidence]
        missing = [e for e in evidence if not self.config.path(e).exists()]
        if code != 0 or missing:
            rec.status = "failed"
            rec.note = f"exit {code}" if code else f"missing evidence: {', '.join(missing)}"
            ledger.save()
            self.out(
                f"{head}: failed ({rec.note}); log: {log}. Fix the cause and re-run: "
                f"the checklist resumes at {step.id}."
            )
            return False
        fault_point(f"checklist:after:{step.id}")
        rec.status, rec.finished, rec.note = "done", now(), ""
        rec.evidence = [self._display(log), *evidence]
        ledger.save()
        return True

    def _display(self, path: Path) -> str:
        try:
            return path.relative_to(self.config.root).as_posix()
        except ValueError:
            return str(path)

    def _execute(self, command: list[str], log: Path) -> int:
        """Run a step, echoing its output and keeping it in ``log``."""
        log.parent.mkdir(parents=True, exist_ok=True)
        env = fault_env()
        try:
            proc = processes.Popen(
                _resolve_argv(command),
                cwd=self.config.root,
                stdout=processes.PIPE,
                stderr=processes.STDOUT,
                env=env,
            )
        except FileNotFoundError as exc:
            log.write_text(f"cannot run {command[0]}: {exc}\n", encoding="utf-8")
            self.out(f"        cannot run {command[0]}: install it or fix the step's run.")
            return 127
        assert proc.stdout is not None
        with log.open("wb") as handle:
            for line in proc.stdout:
                handle.write(line)
                self.out("        " + line.decode(errors="replace").rstrip("\n"))
        return proc.wait()


def _resolve_argv(command: list[str]) -> list[str]:
    """``mlrelease ...`` runs with this interpreter (no PATH lookup); anything else as given."""
    if command and command[0] == "mlrelease":
        return processes.python_module("mlrelease", *command[1:])
    return command


def run_checklist(
    config: Config,
    version: str,
    *,
    execute: bool,
    confirm: list[str],
    redo: list[str],
    out: Callable[[str], None],
    reason: str = "",
) -> int:
    return ChecklistWalker(config, parse_release(version), out).run(
        execute=execute, confirm=confirm, redo=redo, reason=reason
    )
