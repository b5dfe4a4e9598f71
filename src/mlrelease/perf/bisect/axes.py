"""The two axes of a bisect: the environment (which package, which version) and the
project's own commits (pure; called by :mod:`~mlrelease.perf.bisect.plan`)."""

from collections.abc import Callable, Sequence

from mlrelease.perf.bisect import lock
from mlrelease.perf.bisect.judging import (
    Ends,
    RowPick,
    answer,
    budget_of,
    judge,
    probe_cap,
    recorded,
    skip,
)
from mlrelease.perf.bisect.lock import PinChange
from mlrelease.perf.bisect.paired import BETWEEN, DIFFERENT, SAME
from mlrelease.perf.bisect.search import FoundSpan, JudgedPoint, bisect
from mlrelease.perf.bisect.state import (
    COMMIT_AXIS,
    CULPRIT,
    DEPENDENCY_AXIS,
    RANGE,
    UNKNOWN_VERDICT,
    BisectAnswer,
    BisectSnapshot,
    BisectStep,
    Side,
    Skipped,
    Step,
)


def environment(
    snap: BisectSnapshot, pick: RowPick, good: Side, bad: Side, records: list[BisectStep]
) -> Step | BisectAnswer | None:
    """The environment axis: None when the environment is not the cause. The good commit in
    the bad side's environment, timed against both sides."""
    history = snap.history
    label = "the good commit in the bad side's environment"
    moved = Side.of(history.good, history.locks[-1])
    outcome = judge(snap, pick, Ends(good, bad), moved, "environment", label, named=True)
    if not isinstance(outcome, JudgedPoint):
        return outcome
    records.append(outcome.record)
    if outcome.word == SAME:
        return None
    if outcome.word == DIFFERENT and outcome.record.beyond:
        return _unlike_both(snap, pick, records, "the environment", outcome, "environment")
    if outcome.word != DIFFERENT:
        why = outcome.record.error or _shown(outcome.record)
        share = (
            "the environment accounts for part of the regression and the commits for the rest"
            if outcome.record.beyond == BETWEEN
            else "the environment's share of the regression is undecided"
        )
        return answer(
            snap,
            pick,
            records,
            BisectAnswer(
                UNKNOWN_VERDICT,
                f"{share} ({outcome.word}: {why}); the commits were not bisected",
            ),
        )
    return _dependency(snap, pick, Ends(good, moved), records)


def _shown(step: BisectStep) -> str:
    """A step's two ratios: the subject against the good side, the bad side against it."""
    ahead = f"subject / good {step.interval.text()}" if step.interval else ""
    behind = f", bad / subject {step.versus_bad.text()}" if step.versus_bad else ""
    return ahead + behind


def _dependency(
    snap: BisectSnapshot, pick: RowPick, ends: Ends, records: list[BisectStep]
) -> Step | BisectAnswer:
    """Which changed package, then which of its versions, first runs like the bad side: each
    the good commit with some of the lock's changes, timed against the good side and the good
    commit with all of them (``ends.bad``: it ran like the bad side)."""
    history = snap.history
    base = history.locks[0]
    changes = lock.changes(base, history.locks[-1])

    def package(position: int, *, named: bool = False) -> Step | JudgedPoint:
        pins = lock.applied(base, changes[:position])
        label = f"the good commit with {', '.join(c.text() for c in changes[:position])}"
        subject = Side.of(history.good, pins)
        return judge(snap, pick, ends, subject, "package", label, named=named)

    found = _capped(len(changes), recorded(records, package))
    if not isinstance(found, FoundSpan):
        return found

    def applied(p: int) -> str:
        return changes[p - 1].text() if p else "the good side's pins"

    if not found.exact or found.untested:
        return _dependency_range(snap, pick, records, applied, found, "package")
    named = _timed_on(found, len(changes), package)
    if isinstance(named, JudgedPoint):
        return _unlike_both(snap, pick, records, applied(found.hi), named, DEPENDENCY_AXIS)
    if named is not None:
        return named
    guilty, before = changes[found.hi - 1], changes[: found.hi - 1]
    versions = lock.between(guilty, history.versions.get(guilty.name, ()))
    if not versions:  # the bad side no longer pins it: no version to walk
        return _dependency_culprit(snap, pick, records, guilty, ["(removed)"], 1)

    # The versions' bad end: the changes up to the guilty one's (it ran like the bad side).
    slow = Ends(ends.good, Side.of(history.good, lock.applied(base, changes[: found.hi])))

    def version(position: int, *, named: bool = False) -> Step | JudgedPoint:
        pins = lock.applied(base, before, (guilty.name, versions[position - 1]))
        label = f"{guilty.name}=={versions[position - 1]}"
        subject = Side.of(history.good, pins)
        return judge(snap, pick, slow, subject, "version", label, named=named)

    found = _capped(len(versions), recorded(records, version))
    if not isinstance(found, FoundSpan):
        return found
    names = [f"{guilty.name}=={guilty.old}", *(f"{guilty.name}=={v}" for v in versions)]
    if not found.exact or found.untested:
        return _dependency_range(snap, pick, records, names.__getitem__, found, "version")
    named = _timed_on(found, len(versions), version)
    if isinstance(named, JudgedPoint):
        return _unlike_both(snap, pick, records, names[found.hi], named, DEPENDENCY_AXIS)
    if named is not None:
        return named
    return _dependency_culprit(snap, pick, records, guilty, versions, found.hi)


def _timed_on(
    found: FoundSpan, count: int, probe: Callable[..., Step | JudgedPoint]
) -> Step | JudgedPoint | None:
    """Before the first position like the bad side is named: the step that times it on to the
    last look, its point when it then runs like neither side, or None when it may be named.
    Position ``count`` is the bad end itself, like the bad side by construction."""
    if found.hi >= count:
        return None
    named = probe(found.hi, named=True)
    if isinstance(named, JudgedPoint) and not named.record.beyond:
        return None
    return named


def _capped(count: int, probe: Callable[[int], Step | JudgedPoint]) -> Step | FoundSpan:
    probes: list[int] = []

    def counted(position: int) -> Step | JudgedPoint:
        probes.append(position)
        return probe(position)

    return bisect(count, counted, may_probe=lambda _: len(probes) < probe_cap(count))


def _dependency_culprit(
    snap: BisectSnapshot,
    pick: RowPick,
    records: list[BisectStep],
    guilty: PinChange,
    versions: Sequence[str],
    at: int,
) -> BisectAnswer:
    history = snap.history
    previous = guilty.old if at == 1 else versions[at - 2]
    slow = versions[at - 1]
    if guilty.new is None:  # the first lock without it
        index = next((i for i, p in enumerate(history.locks[1:]) if guilty.name not in p), None)
    else:
        index = lock.first_pinning(history.locks[1:], guilty.name, slow, guilty.old)
    commit = history.commits[index] if index is not None else None
    brought = f"; commit {commit} brought it into the lock" if commit else ""
    return answer(
        snap,
        pick,
        records,
        BisectAnswer(
            CULPRIT,
            f"the environment: {guilty.name} {slow} is the first version that runs like the bad "
            f"side ({guilty.name} {previous} runs like the good side){brought}",
            axis=DEPENDENCY_AXIS,
            culprit=commit,
            dependency={"name": guilty.name, "version": slow, "previous": previous or ""},
        ),
    )


def _dependency_range(
    snap: BisectSnapshot,
    pick: RowPick,
    records: list[BisectStep],
    name: Callable[[int], str],
    found: FoundSpan,
    kind: str,
) -> BisectAnswer:
    """A range of packages or versions: the skipped ones between, each with its reason."""
    skipped = [skip(name(p), found.judged[p]) for p in found.skipped()]
    skipped += [Skipped(name(p), "not tested: the probe budget is spent") for p in found.untested]
    return answer(
        snap,
        pick,
        records,
        BisectAnswer(
            RANGE,
            f"the environment: the first {kind} that runs like the bad side is after "
            f"{name(found.lo)} and at or before {name(found.hi)}; the {kind}s between could not "
            "be placed",
            axis=DEPENDENCY_AXIS,
            after=name(found.lo),
            through=name(found.hi),
            skipped=tuple(skipped),
        ),
    )


def commits(
    snap: BisectSnapshot, pick: RowPick, bad: Side, records: list[BisectStep]
) -> Step | BisectAnswer:
    """The project's own commits, in the bad side's environment, each timed against the good
    commit in that environment and the bad side."""
    history = snap.history
    ends = Ends(Side.of(history.good, history.locks[-1]), bad)
    count = len(history.commits)
    budget = snap.budget or budget_of(history)

    def commit(position: int, *, named: bool = False) -> Step | JudgedPoint:
        sha = history.commits[position - 1]
        label = f"commit {sha[:12]} ({position} of {count}): {history.titles.get(sha, '')}"
        subject = Side(sha, bad.pins)
        return judge(snap, pick, ends, subject, COMMIT_AXIS, label.rstrip(": "), named=named)

    def may_build(position: int) -> bool:
        built = snap.facts.built
        return history.commits[position - 1] in built or len(built) < budget

    found = bisect(count, recorded(records, commit), may_probe=may_build)
    if not isinstance(found, FoundSpan):
        return found

    def name(position: int) -> str:
        return history.good if position == 0 else history.commits[position - 1]

    if found.exact:
        named = _timed_on(found, count, commit)
        if isinstance(named, JudgedPoint):
            what = f"commit {name(found.hi)}"
            return _unlike_both(snap, pick, records, what, named, COMMIT_AXIS)
        if named is not None:
            return named
        return _commit_culprit(snap, pick, records, name(found.lo), name(found.hi))
    skipped = [skip(name(p), found.judged[p]) for p in found.skipped()]
    skipped += [Skipped(name(p), "not tested: the build budget is spent") for p in found.untested]
    return answer(
        snap,
        pick,
        records,
        BisectAnswer(
            RANGE,
            f"the first commit that runs like the bad side is after {name(found.lo)} and at or "
            f"before {name(found.hi)}; {len(skipped)} commit(s) between could not be placed",
            axis=COMMIT_AXIS,
            after=name(found.lo),
            through=name(found.hi),
            skipped=tuple(skipped),
        ),
    )


def _commit_culprit(
    snap: BisectSnapshot, pick: RowPick, records: list[BisectStep], before: str, culprit: str
) -> BisectAnswer:
    return answer(
        snap,
        pick,
        records,
        BisectAnswer(
            CULPRIT,
            f"commit {culprit} is the first that runs like the bad side; {before} runs like the "
            "good side",
            axis=COMMIT_AXIS,
            culprit=culprit,
        ),
    )


def _unlike_both(
    snap: BisectSnapshot,
    pick: RowPick,
    records: list[BisectStep],
    what: str,
    judged: JudgedPoint,
    axis: str,
) -> BisectAnswer:
    """No culprit: the first subject that runs slower runs like neither side, timed to the
    last look (slower than the bad side, or between the two), so more than one change lies
    between the sides."""
    return answer(
        snap,
        pick,
        records,
        BisectAnswer(
            UNKNOWN_VERDICT,
            f"the first that runs slower, {what}, is {judged.record.beyond} "
            f"({_shown(judged.record)}, against the regression {pick.regression.text()}): more "
            "than one change lies between the two sides",
            axis=axis,
        ),
    )
