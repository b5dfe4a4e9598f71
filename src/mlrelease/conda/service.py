"""What ``mlrelease conda`` and the ``conda`` gate both do: read the bound release and the
feedstock, plan the change (:mod:`~mlrelease.conda.propose`), check the patches, render and lint
the result; and, for ``--execute``, write it as a branch of the feedstock."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import Version

from mlrelease.conda import bound, edit, feedstock, lint, patches, propose, render
from mlrelease.conda import recipe as recipes
from mlrelease.conda.config import TABLE, CondaConfig
from mlrelease.conda.names import MAPPING, conda_name
from mlrelease.conda.release import ReleaseFacts
from mlrelease.conda.wanted import environments
from mlrelease.config import Config
from mlrelease.errors import ConfigError


@dataclass(frozen=True)
class Outcome:
    """The feedstock change of one release, and whether it is ready to merge."""

    package: str
    release: ReleaseFacts
    stock: feedstock.Feedstock
    proposal: propose.FeedstockChange
    findings: tuple[lint.LintFinding, ...]
    rendered: render.Rendered
    build: str
    files: dict[str, str] = field(default_factory=dict)
    """Repository path -> new text, for each file the change writes."""
    previous: str = ""
    """The version whose metadata the diff is against ("" when none could be read)."""

    @property
    def branch(self) -> str:
        label = f"-{self.proposal.label}" if self.proposal.label != "main" else ""
        return f"mlrelease/{self.package}-{self.release.version}{label}"

    @property
    def blockers(self) -> list[str]:
        """Why the change is not ready (empty: ready)."""
        found = list(self.release.problems) + list(self.proposal.undecided)
        found += [f"lint {f.rule}: {f.text}" for f in lint.errors(self.findings)]
        found += [f"render: {p}" for p in self.rendered.problems]
        return found

    @property
    def ready(self) -> bool:
        return not self.blockers

    def diff(self) -> str:
        """The change as a unified diff of each file it writes."""
        out: list[str] = []
        for path, text in sorted(self.files.items()):
            before = (
                self.stock.recipe_text
                if path == self.stock.recipe_path
                else (self.stock.variants_text or "")
            )
            out += difflib.unified_diff(
                before.splitlines(keepends=True),
                text.splitlines(keepends=True),
                f"a/{path}",
                f"b/{path}",
            )
        return "".join(out)


def options(config: Config) -> CondaConfig:
    """The table, refused when it names no feedstock."""
    table = config.table(CondaConfig)
    if not table.feedstock:
        raise ConfigError(
            f"{TABLE}.feedstock",
            "the folder of a clone of the project's conda-forge feedstock",
            "no value",
            source=str(config.pyproject_path),
            hint="Clone the feedstock (e.g. beside the project) and set feedstock = "
            '"../<name>-feedstock".',
        )
    return table


def package_name(config: Config) -> str:
    table = config.table(CondaConfig)
    return table.package or conda_name(config.project_name)[0]


def plan(config: Config, version: Version | None = None, rc: str | None = None) -> Outcome:
    """The feedstock change of the bound final release ``version``, or of the bound release
    candidate ``rc`` (nothing is written)."""
    table = options(config)
    stock = feedstock.read(config.path(table.feedstock), table.remote, table.branch, table.recipe)
    release = bound.read(config, version, rc)
    current = recipes.parse(stock.recipe_text, stock.kind)
    before = None
    if current.version is not None and current.version.text != str(release.version):
        before = bound.previous(config, current.version.text)
    return change(config, stock, release, before)


def change(
    config: Config, stock: feedstock.Feedstock, release: ReleaseFacts, before: ReleaseFacts | None
) -> Outcome:
    """The change, once the release, the feedstock and the previous release are read."""
    table = config.table(CondaConfig)
    package = package_name(config)
    current = recipes.parse(stock.recipe_text, stock.kind)
    label = (table.rc_label or f"{package}_rc") if release.is_rc else "main"
    problems = patches.check(stock.patches, [p.text for p in current.patches], release.sources)
    opts = propose.PlanOptions(table.siblings, label, environments(stock.variants))
    proposal = propose.propose(current, release, before, opts, problems)
    text = edit.apply(stock.recipe_text, proposal.changes)
    files = {stock.recipe_path: text} if text != stock.recipe_text else {}
    targets = edit.channel_targets(stock.variants_text, label)
    if targets is not None and targets != stock.variants_text:
        files[stock.variants_path] = targets
    findings = lint.lint(proposal, release, stock.variants, table.siblings, current.noarch)
    rendered = render.render(stock.kind, text, stock.variants)
    output = config.path("build/conda") / package
    built = (
        render.build(stock.kind, text, table.channel, output)
        if table.channel
        else render.NO_CHANNEL
    )
    return Outcome(
        package,
        release,
        stock,
        proposal,
        tuple(findings),
        rendered,
        built,
        files,
        previous=str(before.version) if before else "",
    )


def execute(outcome: Outcome, *, push: bool) -> list[str]:
    """Write the change as a branch of the feedstock (and push it); what was done."""
    if not outcome.files:
        return [f"the feedstock already packages {outcome.release.version}: nothing to write"]
    message = (
        f"{outcome.package} {outcome.release.version}\n\n"
        f"Generated by mlrelease conda from the bound release ({outcome.release.source_name}, "
        f"sha256 {outcome.release.source_sha256[:16]}...); names mapped by {MAPPING}.\n"
    )
    return feedstock.write(outcome.stock, outcome.branch, outcome.files, message, push=push)


def gate_version(config: Config) -> Version | None:
    """The final version the project is releasing (None: a development or pre-release)."""
    version = Version(config.version)
    return None if version.is_prerelease or version.is_devrelease else version


def output_folder(config: Config) -> Path:
    return config.path("build/conda")


def summary(outcome: Outcome) -> dict[str, object]:
    """The outcome as plain data (``mlrelease conda --json``, bots)."""
    proposal = outcome.proposal
    return {
        "package": outcome.package,
        "version": str(outcome.release.version),
        "label": proposal.label,
        "source": {"name": outcome.release.source_name, "sha256": outcome.release.source_sha256},
        "previous": outcome.previous or None,
        "feedstock": {
            "remote": outcome.stock.remote,
            "branch": outcome.stock.branch,
            "commit": outcome.stock.commit,
            "recipe": outcome.stock.recipe_path,
        },
        "branch": outcome.branch,
        "changes": [
            {"kind": c.kind, "line": c.line + 1, "text": c.text, "why": c.why}
            for c in proposal.changes
        ],
        "requirements": proposal.sections,
        "undecided": list(proposal.undecided),
        "notes": list(proposal.notes),
        "findings": [f.__dict__ for f in outcome.findings],
        "rendered": list(outcome.rendered.variants),
        "render_problems": list(outcome.rendered.problems),
        "render_skipped": outcome.rendered.skipped or None,
        "build": outcome.build,
        "ready": outcome.ready,
        "blockers": outcome.blockers,
        "diff": outcome.diff(),
    }
