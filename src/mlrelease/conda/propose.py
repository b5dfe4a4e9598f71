"""The feedstock change of a release (pure): the recipe and the release in, the changes and
what could not be decided out.

- The version and the source's ``sha256`` are the release's; the build number goes back to 0.
- **Run** requirements follow the wheels' ``Requires-Dist`` (PyPI names mapped to conda's):
  a requirement the recipe lacks is added; one the release dropped (it was in the previous
  release's metadata) is removed; a constraint upstream changed is followed where the recipe
  carried upstream's constraint, and where the recipe had none, only a new upper bound is
  added. A train sibling gets its pin (``pytorch >=2.13,<2.14``).
- **Host** requirements follow the sdist's ``[build-system] requires`` as a diff against the
  previous release's: added upstream, added; dropped upstream, removed. What the recipe holds
  beyond the metadata (a C library, a build tool) is the maintainers' and stays.
- An added requirement is written in the recipe's style: where the recipe carries no lower
  bounds, none is written (the lint still says the recipe is looser than the wheels).

What the metadata cannot tell is said, never guessed (:attr:`FeedstockChange.undecided`): a
requirement that reaches run only through a host package's ``run_exports``, a marker that splits
the platforms, a conditional item, a compiler or CUDA variant, a patch that no longer applies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mlrelease.conda import specs
from mlrelease.conda.recipe import Item, Recipe
from mlrelease.conda.release import ReleaseFacts
from mlrelease.conda.wanted import DEFAULT_ENVIRONMENTS, Environment, Want, Wants, key, wants

KEPT = ("python", "pip")
"""Requirements the metadata does not speak for (``Requires-Python`` is read apart)."""


@dataclass(frozen=True)
class Change:
    """One edit of the recipe: ``replace`` line ``line``, ``insert`` after it, ``delete`` it."""

    kind: str
    line: int
    text: str
    why: str
    section: str = ""


@dataclass(frozen=True)
class PlanOptions:
    """What the configuration says to the planner."""

    siblings: Mapping[str, str] = field(default_factory=dict)
    label: str = "main"
    """The channel label the build goes to (``main``, or the RC label)."""
    envs: Sequence[Environment] = DEFAULT_ENVIRONMENTS


@dataclass(frozen=True)
class FeedstockChange:
    """The change, what it leads to and what it could not decide."""

    version: str
    label: str
    changes: tuple[Change, ...]
    sections: dict[str, dict[str, str]]
    """Section -> conda name -> constraint, after the change (unconditional items)."""
    undecided: tuple[str, ...]
    notes: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not self.changes


@dataclass
class _Plan:
    recipe: Recipe
    changes: list[Change] = field(default_factory=list)
    undecided: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _plain(recipe: Recipe, section: str) -> dict[str, Item]:
    return {
        key(i.name): i
        for i in recipe.section(section)
        if not i.condition and not i.template and i.name not in KEPT
    }


def _conditional(recipe: Recipe, section: str) -> set[str]:
    return {key(i.name) for i in recipe.section(section) if i.condition and not i.template}


def _style(constraint: str, unpinned: bool) -> str:
    """The constraint as the recipe writes them: without lower bounds when it has none."""
    if not unpinned:
        return constraint
    return ",".join(p for p in constraint.split(",") if p.startswith("<") or p.startswith("!="))


def _line(plan: _Plan, item: Item, spec: str) -> str:
    """Item ``item``'s line with its spec replaced, its indentation and comment kept."""
    old = plan.recipe.lines[item.line]
    return old.replace(item.spec, spec, 1) if item.spec in old else old.replace(item.name, spec, 1)


def _follow(plan: _Plan, section: str, item: Item, want: Want, before: Want | None) -> None:
    """A requirement both sides have: follow upstream where the recipe followed it."""
    have = item.constraint
    if want.sibling:
        if have != want.constraint:
            spec = f"{item.name} {want.constraint}"
            plan.changes.append(
                Change("replace", item.line, _line(plan, item, spec), "train sibling pin", section)
            )
        return
    if before is None or before.constraint == want.constraint:
        if before is None and specs.stricter(have, want.constraint):
            plan.undecided.append(
                f"{section}: {item.spec} allows less than the release's {want.pypi} "
                f"({'; '.join(specs.stricter(have, want.constraint))}); no previous release "
                "tells whether the recipe followed upstream: kept"
            )
        return
    if not have:  # the recipe writes no lower bound: only a new upper bound is followed
        upper = _style(want.constraint, True)
        if upper and upper != _style(before.constraint, True):
            spec = f"{item.name} {upper}"
            why = f"upstream bounds it now ({want.pypi})"
            plan.changes.append(Change("replace", item.line, _line(plan, item, spec), why, section))
    elif have == before.constraint:
        spec = f"{item.name} {want.constraint}".strip()
        why = f"upstream changed {before.pypi} to {want.pypi}"
        plan.changes.append(Change("replace", item.line, _line(plan, item, spec), why, section))
    else:
        plan.undecided.append(
            f"{section}: {item.spec} is neither upstream's previous {before.pypi} nor its new "
            f"{want.pypi}: kept, the maintainers' pin"
        )


def _section(
    plan: _Plan, section: str, now: Wants, before: Wants | None, *, add_missing: bool
) -> None:
    """Diff one section of the recipe against the release's wants."""
    recipe = plan.recipe
    have = _plain(recipe, section)
    conditional = _conditional(recipe, section)
    unpinned = bool(have) and all(not i.constraint for i in have.values())
    host = _plain(recipe, "host")
    for split in now.split:
        plan.undecided.append(
            f"{section}: {split}: its marker holds on some of the feedstock's platforms only; "
            "a selector or an `if:` is the maintainers' to write"
        )
    added: list[str] = []
    for k, want in sorted(now.by_name.items()):
        was = before.by_name.get(k) if before else None
        if k in have:
            _follow(plan, section, have[k], want, was)
        elif k in conditional:
            plan.undecided.append(
                f"{section}: {want.name} is required ({want.pypi}) but the recipe has it under "
                "a condition only: kept"
            )
        elif section == "run" and k in host and not want.sibling:
            plan.undecided.append(
                f"run: {want.name} ({want.pypi}) is in host, not in run: it reaches run only "
                "through its package's run_exports, which cannot be read offline: not added"
            )
        elif add_missing or was is None:
            constraint = want.constraint if want.sibling else _style(want.constraint, unpinned)
            added.append(f"{want.name} {constraint}".strip())
            if not want.mapped:
                plan.notes.append(
                    f"{section}: {want.name}: not in the PyPI-to-conda mapping; the PyPI "
                    "spelling was kept"
                )
    for k, item in sorted(have.items()):
        if k in now.by_name:
            continue
        if before is not None and k in before.by_name:
            plan.changes.append(
                Change("delete", item.line, "", f"upstream dropped {item.name}", section)
            )
    _insert(plan, section, added)


def _insert(plan: _Plan, section: str, specs_: list[str]) -> None:
    if not specs_:
        return
    recipe = plan.recipe
    end = recipe.end_of(section)
    if end is None:
        plan.undecided.append(
            f"{section}: the recipe has no {section} section to add {', '.join(specs_)} to"
        )
        return
    indent = recipe.item_indent(section)
    for spec in specs_:
        line = f"{indent}- {spec}"
        plan.changes.append(Change("insert", end - 1, line, "required by the release", section))


def _header(plan: _Plan, release: ReleaseFacts) -> None:
    recipe = plan.recipe
    version = str(release.version)
    if recipe.version is None:
        plan.undecided.append("the recipe's version was not found (context or {% set %})")
    elif recipe.version.text != version:
        old = recipe.lines[recipe.version.line]
        plan.changes.append(
            Change(
                "replace",
                recipe.version.line,
                old.replace(recipe.version.text, version, 1),
                f"version {version}",
            )
        )
    if len(recipe.sha256) != 1:
        plan.undecided.append(
            f"the recipe has {len(recipe.sha256)} sha256 lines; which source is the release's "
            "is the maintainers' to say"
        )
    elif recipe.sha256[0].text != release.source_sha256:
        at = recipe.sha256[0]
        line = recipe.lines[at.line].replace(at.text, release.source_sha256, 1)
        plan.changes.append(Change("replace", at.line, line, f"sha256 of {release.source_name}"))
    fresh = recipe.version is not None and recipe.version.text != version
    if recipe.number is not None and fresh and recipe.number.text != "0":
        line = recipe.lines[recipe.number.line].replace(recipe.number.text, "0", 1)
        plan.changes.append(Change("replace", recipe.number.line, line, "new version: build 0"))


def requirements_after(recipe: Recipe, changes: Sequence[Change], section: str) -> dict[str, str]:
    """The section's unconditional requirements once ``changes`` apply."""
    found = {
        key(i.name): i.constraint
        for i in recipe.section(section)
        if not i.condition and not i.template
    }
    names = {key(i.name): i.name for i in recipe.section(section)}
    for change in changes:
        if change.section != section:
            continue
        item = next((i for i in recipe.section(section) if i.line == change.line), None)
        if change.kind == "delete" and item is not None:
            found.pop(key(item.name), None)
        else:
            name, _, constraint = change.text.strip().lstrip("- ").partition(" ")
            name = names.get(key(name), name) if change.kind == "replace" else name
            found[key(name)] = constraint.split("#")[0].strip().replace(" ", "")
    return dict(sorted(found.items()))


def propose(
    recipe: Recipe,
    release: ReleaseFacts,
    previous: ReleaseFacts | None,
    options: PlanOptions,
    patch_problems: Mapping[str, str] | None = None,
) -> FeedstockChange:
    """The change that makes ``recipe`` package ``release``."""
    plan = _Plan(recipe)
    _header(plan, release)
    siblings, envs = options.siblings, options.envs
    _section(
        plan,
        "run",
        wants(release.run_requirements(), siblings=siblings, envs=envs),
        wants(previous.run_requirements(), siblings=siblings, envs=envs) if previous else None,
        add_missing=True,
    )
    _section(
        plan,
        "host",
        wants(release.host_requirements(), siblings=siblings, envs=envs),
        wants(previous.host_requirements(), siblings=siblings, envs=envs) if previous else None,
        add_missing=False,
    )
    if previous is not None:
        _cmake(plan, release, previous)
    for patch, problem in sorted((patch_problems or {}).items()):
        plan.undecided.append(
            f"patch {patch} no longer applies to the release's sources: {problem}"
        )
    plan.undecided += _build_undecided(recipe, release)
    if previous is None:
        plan.notes.append(
            "no previous release's metadata: dropped requirements and changed pins are said, "
            "not changed"
        )
    changes = tuple(plan.changes)
    return FeedstockChange(
        version=str(release.version),
        label=options.label,
        changes=changes,
        sections={s: requirements_after(recipe, changes, s) for s in ("host", "run")},
        undecided=tuple(plan.undecided),
        notes=tuple(plan.notes),
    )


def _cmake(plan: _Plan, release: ReleaseFacts, previous: ReleaseFacts) -> None:
    """A host package the sources' CMake stopped finding is removed; one it finds newly is
    said (which conda package provides a CMake package is not in the sources)."""
    before = {key(n): n for n in previous.cmake_packages}
    now = {key(n): n for n in release.cmake_packages}
    host = _plain(plan.recipe, "host")
    deleted = {c.line for c in plan.changes if c.kind == "delete"}
    for k in sorted(set(before) - set(now)):
        item = host.get(k)
        if item is not None and item.line not in deleted:
            why = f"the sources' CMake no longer finds {before[k]}"
            plan.changes.append(Change("delete", item.line, "", why, "host"))
    every = {key(i.name) for i in plan.recipe.items}
    for k in sorted(set(now) - set(before)):
        if k not in every:
            plan.undecided.append(
                f"host: the sources' CMake finds {now[k]} since this release; which conda "
                "package provides it is the maintainers' to say"
            )


def _build_undecided(recipe: Recipe, release: ReleaseFacts) -> list[str]:
    """What the metadata cannot say about the build: a compiler, a CUDA variant."""
    found = []
    compiled = [w.name for w in release.wheels if any("-none-" not in t for t in w.tags)]
    has_compiler = any(i.template and "compiler(" in i.name for i in recipe.section("build"))
    if compiled and not has_compiler:
        found.append(
            f"compiler: the wheels are compiled ({compiled[0]}) but the recipe's build section "
            "names no compiler; which ones (c, cxx, cuda) is not in the release's metadata"
        )
    cuda = sorted({r.split(";")[0] for r in release.requires if r.lower().startswith("nvidia-")})
    if cuda or any("+cu" in w.name for w in release.wheels):
        found.append(
            "CUDA variant: the release ships CUDA builds ("
            + (", ".join(cuda[:3]) or "+cu wheels")
            + "); conda-forge's CUDA variants come from its cuda_compiler_version pinning, "
            "not from wheel metadata"
        )
    return found
