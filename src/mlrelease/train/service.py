"""What the ``train`` commands (and the ``train`` gate) do: the train file and the store the
command reads, then per verb one train world (:mod:`mlrelease.train.gather`) and its pure decision.

``cut``, ``bind`` and ``promote`` act through the release commands of each member (``release
cut`` with the train's series parameters, ``release bind`` with the upstream record, ``release
promote --publish`` in each member's checkout), with the train's gatekeeper before each
irreversible act.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mlrelease.config import Config, Loader
from mlrelease.edges import journal
from mlrelease.edges.digests import sha256
from mlrelease.edges.files import Generated
from mlrelease.errors import PreconditionError, UserError
from mlrelease.release import service as release_service
from mlrelease.release.config import ReleaseConfig
from mlrelease.release.plan import Action, Plan
from mlrelease.release.promotion.manifest import Entry, Manifest, Upstream
from mlrelease.train import (
    consumer,
    declaration,
    gatekeeper,
    gather,
    matrix,
    metadata,
    promote,
    record,
    status,
)
from mlrelease.train.config import TrainConfig
from mlrelease.train.declaration import Member, Train
from mlrelease.train.world import TrainWorld


def train_of(config: Config, given: Path | None) -> Train:
    """The train file ``--train`` names, else the project's ``[tool.mlrelease.train] file``."""
    path = given if given is not None else config.path(config.table(TrainConfig).file)
    return declaration.load(path.resolve())


def store_of(config: Config) -> Path:
    """The bare repository the members' objects are fetched into: ``cache-dir``, else
    ``$MLRELEASE_CACHE_DIR/train``, else the user cache."""
    table = config.table(TrainConfig)
    if table.cache_dir:
        return config.path(table.cache_dir) / "objects.git"
    base = os.environ.get("MLRELEASE_CACHE_DIR")
    if base:
        return Path(base) / "train" / "objects.git"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "mlrelease" / "train" / "objects.git"


def world_of(config: Config, train: Train) -> TrainWorld:
    return gather.read(train, store_of(config))


def train_status(config: Config, given: Path | None) -> dict[str, Any]:
    """``train status``: the whole train, read from the members' origins and the indexes."""
    return status.status(world_of(config, train_of(config, given)))


def _member(config: Config, train: Train, verb: str) -> Member:
    """The member the project running the command is."""
    try:
        return train.member(config.project_name)
    except UserError:
        known = ", ".join(m.name for m in train.members)
        raise UserError(
            f"train {verb}: this project ({config.project_name or 'no [project] name'}, "
            f"{config.root}) is not a member of {train.name} ({known}); run it in a member's "
            "checkout."
        ) from None


def cut_plan(config: Config, given: Path | None, push: bool) -> Plan:
    """``train cut``: the member's ``release cut`` of the train's version, once its schedule
    allows (``cut-after``), its release-only edits given the train's series parameters."""
    train = train_of(config, given)
    member = _member(config, train, "cut")
    world = world_of(config, train)
    row = status.MemberStatus(member.name, member.version)
    status.cut_ready(world, member, row)
    if row.blocks:
        raise PreconditionError(f"train cut: {'; '.join(row.blocks)}. Nothing was cut.")
    version = world.of(member).version
    series = f"{version.major}.{version.minor}"
    return release_service.cut_plan(config, series, None, push, params=train.series)


def _guarded(plan: Plan, keys: tuple[str, ...], check: Callable[[], None]) -> Plan:
    """``plan`` with ``check`` run right before each action whose key is in ``keys`` (and
    before that action's own check)."""

    def chained(action: Action) -> Action:
        own = action.check

        def both() -> None:
            check()
            if own is not None:
                own()

        return dataclasses.replace(action, check=both)

    plan.actions = [chained(a) if a.key in keys else a for a in plan.actions]
    return plan


def bind_plan(
    config: Config,
    given: Path | None,
    asked: release_service.RcChoice,
    push: bool,
    say: Callable[[str], None] = print,
) -> Plan:
    """``train bind``: the member's RC bound with the upstream candidates its files were built
    against, resolved from the staging index (:mod:`mlrelease.train.record`), and the verdict of
    its own tests against each of them (:mod:`mlrelease.train.consumer`), behind the train's
    gatekeeper (T3, T6) when planned and again before the binding is pushed."""
    train = train_of(config, given)
    member = _member(config, train, "bind")
    world = world_of(config, train)
    folder = config.path(asked.artifacts or config.table(ReleaseConfig).artifacts)
    files = sorted(p for p in folder.glob("*") if p.name.endswith((".whl", ".tar.gz")))
    if not files:
        raise PreconditionError(
            f"train bind: {folder} holds no wheel or sdist; build the candidate there first."
        )
    entries = tuple(Entry(p.name, p.stat().st_size, sha256(p)) for p in files)
    records = record.resolve(world, member, [metadata.read(p) for p in files])
    rc = str(asked.rc)
    records = _bound_tests(world, member, rc, entries, records) or consumer.with_tests(
        config, world, member, records, files, say
    )
    gatekeeper.before_bind(world, member, Manifest(rc, "", entries, records))
    plan = release_service.bind_plan(config, asked, push, records)
    for tested in records:
        found = tested.tests
        note = f" ({found.note})" if found and found.note else ""
        plan.notes.append(f"{member.name}'s tests {status.tested_line(tested)}{note}.")

    def check() -> None:
        now = world_of(config, train)
        gatekeeper.before_bind(now, member, Manifest(rc, "", entries, records))

    return _guarded(plan, ("push",), check)


def _bound_tests(
    world: TrainWorld,
    member: Member,
    rc: str,
    entries: tuple[Entry, ...],
    records: tuple[Upstream, ...],
) -> tuple[Upstream, ...] | None:
    """The records origin already binds ``rc`` with, when they are these files and these
    upstream candidates, their tests run: a second ``train bind`` binds the same manifest
    without running the tests again."""
    bound, _ = world.of(member).manifest(rc)
    if bound is None or set(bound.files) != set(entries):
        return None
    if [dataclasses.replace(r, tests=None) for r in bound.upstream] != list(records):
        return None
    return bound.upstream if all(r.tests is not None for r in bound.upstream) else None


def _journal_path(config: Config, train: Train) -> Path:
    return store_of(config).parent / "promotions" / f"{train.name}.json"


def promote_plan(
    config: Config,
    given: Path | None,
    workspace: Path | None,
    load: Loader,
    *,
    restart: bool = False,
    echo: Callable[[str], None] = print,
) -> Plan:
    """``train promote``: every member released in dependency order
    (:mod:`mlrelease.train.promote`), each through ``release promote --publish`` in its checkout
    (``workspace/<member name>``)."""
    train = train_of(config, given)
    where = (workspace or Path(train.source).parent).resolve()
    state = _journal_path(config, train)
    if restart:
        state.unlink(missing_ok=True)
    world = world_of(config, train)

    def record(chosen: dict[str, str] | None) -> Callable[[], None]:
        if chosen is None:
            return lambda: state.unlink(missing_ok=True)
        return lambda: journal.write_state(state, {"train": train.name, "chosen": chosen})

    def act(step: promote.MemberStep) -> Callable[[], None]:
        return lambda: _promote_member(config, train, where, load, step, echo)

    return promote.plan_promote(world, journal.read_state(state), where, record, act)


def _promote_member(
    config: Config,
    train: Train,
    workspace: Path,
    load: Loader,
    step: promote.MemberStep,
    echo: Callable[[str], None],
) -> None:
    """One member's ``release promote --publish``, the train's gatekeeper before each upload
    and before the push of its final tag, on the world read right then."""
    checkout = workspace / step.member.name
    if not (checkout / "pyproject.toml").is_file():
        raise PreconditionError(
            f"train promote: no checkout of {step.member.name} at {checkout} (the workspace "
            f"holds one folder per member, named after it; --workspace names the workspace)."
        )
    member_config = release_service.config_at(checkout, load)
    act = f"release {step.member.name} {step.member.version}"

    def check() -> None:
        now = world_of(config, train)
        gatekeeper.before_release(now, step.member, step.manifest, act)

    check()
    made = release_service.promote_plan(
        member_config,
        release_service.RcChoice(rc=step.rc),
        push=True,
        publish=True,
        repository_url=train.release_index,
    )
    _guarded(made, ("publish", "push"), check).execute(echo=echo)


def matrix_page(config: Config, given: Path | None) -> Generated:
    """The compatibility matrix page of the train and the earlier ones the project lists."""
    table = config.table(TrainConfig)
    paths = [config.path(p) for p in table.trains]
    rows: list[matrix.Released] = []
    for path in [*paths, None]:
        train = declaration.load(path.resolve()) if path else train_of(config, given)
        world = world_of(config, train)
        for member in train.ordered():
            mine = world.of(member)
            unread = mine.error or (mine.released.error if mine.released else "not read")
            if unread:
                raise UserError(
                    f"train matrix: {member.name} of {train.name} ({train.source}): {unread}; "
                    "the page says what was released, so nothing is written until it is read."
                )
            promoted = mine.promoted()
            names = {e.name for e in promoted.files} if promoted else set()
            found = gather.declared(store_of(config), mine.released, names) if mine.released else ()
            ups = tuple(train.upstreams(member))
            rows.append(matrix.Released(train.name, member, ups, promoted, found))
    return Generated(config.path(table.matrix), matrix.page(rows), label=table.matrix)


def problems(config: Config) -> tuple[Train, list[str]]:
    """(the project's train, what keeps its members' newest candidates from being released
    with it: not bound to the upstream candidates the edges name (T3), their tests not passed
    against them (T6), a variant an upstream ships and the member lacks (T5))."""
    train = train_of(config, None)
    world = world_of(config, train)
    found = []
    for member in train.ordered():
        row = status.member_status(world, member)
        found += [f"{member.name} {member.version}: {b}" for b in row.blocks]
    return train, found
