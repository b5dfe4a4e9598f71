"""The train's gatekeeper: the train invariants (docs/release/invariants.md, "Trains"), checked
before each irreversible act of a member, on the train world read just before it (pure).

- (T1) promotion order and (T2) no public member with an unpublished upstream:
  :func:`released_problem` of each upstream, before each upload of a member's files to the
  release index and before its final tag is pushed.
- (T3) no member bound to a wrong upstream: :func:`bound_problems`, before a member's binding
  is pushed (``train bind``) and before each of its release acts.
- (T4) no duplicate upload: the member's files are uploaded by the one publish path, which
  sends only what the index lacks, read again just before each file; :func:`before_release`
  refuses a file the release index already holds with other bytes.
- (T5) no missing variant: :func:`variant_problems`, before each release act.
- (T6) no member untested against its upstream candidate: :func:`tested_problems`, before a
  member's binding is pushed and before each of its release acts.

:func:`candidate_problems` is T3 and T6 together: what ``train status``, the ``train`` gate and
the promotion plan check of each member's candidate.

Each member's own release invariants are kept by :mod:`mlrelease.release.promotion.gatekeeper`,
which the same acts pass after this one.
"""

from __future__ import annotations

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from mlrelease.edges.index import simple_url
from mlrelease.release.promotion import gatekeeper as release_gatekeeper
from mlrelease.release.promotion import upstream
from mlrelease.release.promotion.manifest import NOT_RUN, PASSED, Manifest, Upstream, Verdict
from mlrelease.train import variants
from mlrelease.train.declaration import Member
from mlrelease.train.world import MemberWorld, TrainWorld

Violation = release_gatekeeper.Violation


def released_problem(up: MemberWorld) -> str | None:
    """Why the upstream ``up`` is not released: its final tag on origin, made by ``release
    promote``, names a bound manifest, and the release index holds exactly its files."""
    name = f"{up.member.name} {up.member.version}"
    if up.error:
        return f"{name}: its origin could not be read ({up.error})"
    final = up.final()
    if final is None:
        return f"{name} is not released (its origin has no final tag)"
    promoted = up.promoted()
    if promoted is None:
        return (
            f"{name}: origin's {final.name} was not made by `release promote` (it names no "
            "bound manifest), so nothing proves which files it released"
        )
    problem = release_gatekeeper.index_problem(up.released, promoted, complete=True)
    if up.released is None:
        problem = "the release index was not read"
    return f"{name} is not public: {problem}" if problem else None


def _recorded(
    world: TrainWorld, manifest: Manifest, edge: Requirement
) -> tuple[str, Upstream | None, MemberWorld]:
    """(why ``manifest`` does not record the edge's upstream as the train says, "" when it
    does; the record; the upstream)."""
    train = world.train
    up = world.of(train.member(edge.name))
    found = [r for r in manifest.upstream if canonicalize_name(r.project) == up.member.key]
    if len(found) != 1:
        return (
            f"{manifest.rc_tag} records {len(found) or 'no'} upstream {up.member.name}: bind it "
            "with `mlrelease train bind`, which records the files it was built against",
            None,
            up,
        )
    record = found[0]
    try:
        inside = edge.specifier.contains(Version(record.version), prereleases=True)
    except InvalidVersion:
        inside = False
    problem = ""
    if not inside:
        problem = (
            f"{manifest.rc_tag} was built against {record.project} {record.version} "
            f"({record.rc_tag}), which the train's edge {edge} excludes: the wrong upstream"
        )
    elif record.origin != up.member.origin:
        problem = f"{manifest.rc_tag} records {record.origin}, not the train's {up.member.origin}"
    elif simple_url(record.index) != simple_url(train.staging_index):
        problem = (
            f"{manifest.rc_tag} resolved {record.project} from {record.index}, not from the "
            f"train's staging index {train.staging_index}"
        )
    return problem, record, up


def bound_problems(
    world: TrainWorld, member: Member, manifest: Manifest, *, final: bool
) -> list[str]:
    """(T3) Why ``manifest`` is not bound to the upstream candidates the train's edges name,
    current on their origins (``final``: released); an upstream record the edges do not name
    is refused too."""
    problems = []
    edges = {canonicalize_name(r.name) for r in member.edges()}
    for found in manifest.upstream:
        if canonicalize_name(found.project) not in edges:
            problems.append(f"{manifest.rc_tag} records {found.project}, not an upstream edge")
    for edge in member.edges():
        problem, record, up = _recorded(world, manifest, edge)
        if not problem and record is not None:
            judged = upstream.problem(record, up.origin(), final=final)
            problem = f"{manifest.rc_tag}'s upstream: {judged}" if judged else ""
        if problem:
            problems.append(problem)
    return problems


def _tested_problem(member: Member, manifest: Manifest, record: Upstream) -> str:
    """Why ``record`` does not prove that ``member``'s tests passed against its files ("" when
    it does)."""
    against = f"{record.project} {record.version} ({record.rc_tag})"
    found = record.tests
    if found is None:
        return (
            f"{manifest.rc_tag} records no run of {member.name}'s tests against {against}: "
            "it was bound without them. Tag a new candidate and bind it with `mlrelease train "
            "bind`, which runs them"
        )
    file = f"{found.upstream_file} (sha256 {found.upstream_sha256})"
    if found.verdict == NOT_RUN:
        return (
            f"{member.name}'s tests did not run against {against}, file {file}: "
            f"{found.why.rstrip('.')}. "
            "A member whose tests did not run is not verified"
        )
    upstream_files = {(e.name, e.sha256) for e in record.files}
    if (found.upstream_file, found.upstream_sha256) not in upstream_files:
        return f"{member.name}'s tests ran against {file}, which is not a file of {against}"
    mine = {(e.name, e.sha256) for e in manifest.files}
    if (found.member_file, found.member_sha256) not in mine:
        return (
            f"{member.name}'s tests ran on {found.member_file} (sha256 "
            f"{found.member_sha256}), which is not one of {manifest.rc_tag}'s files"
        )
    if found.verdict != PASSED:
        return f"{member.name}'s tests failed against {against}, file {file}{_failing(found)}"
    return ""


def _failing(found: Verdict) -> str:
    compared = f", and passed against {found.baseline}" if found.baseline else f" ({found.note})"
    shown = "; ".join(found.failing) or "no test named"
    return f"{compared}: {shown}"


def tested_problems(member: Member, manifest: Manifest) -> list[str]:
    """(T6) Why ``manifest`` does not prove that ``member``'s own tests, run on its bound
    wheel, passed against each upstream candidate it records (``train bind`` runs them)."""
    problems = [_tested_problem(member, manifest, r) for r in manifest.upstream]
    return [p for p in problems if p]


def candidate_problems(
    world: TrainWorld, member: Member, manifest: Manifest, *, final: bool
) -> list[str]:
    """(T3, T6) Why ``manifest`` is not bound to current upstream candidates its own tests
    passed against."""
    return bound_problems(world, member, manifest, final=final) + tested_problems(member, manifest)


def shipped_by(up: MemberWorld) -> Manifest | None:
    """The upstream's files members must match: its released manifest, else its newest RC's."""
    promoted = up.promoted()
    if promoted is not None:
        return promoted
    rc = up.newest_rc()
    return up.manifest(rc)[0] if rc else None


def variant_problems(world: TrainWorld, member: Member, manifest: Manifest) -> list[str]:
    """(T5) The variants an upstream ships that ``manifest``'s files do not, undeclared."""
    problems = []
    names = [e.name for e in manifest.files]
    for up in world.upstreams(member):
        theirs = shipped_by(up)
        if theirs is None:
            continue
        wanted = variants.shipped((e.name for e in theirs.files), up.member.accelerators)
        lacking, _ = variants.missing(
            wanted, names, member.accelerators, member.gaps, up.member.key
        )
        if lacking:
            shown = ", ".join(v.name for v in lacking)
            problems.append(
                f"{member.name} {member.version} lacks {shown}, which {up.member.name} ships: "
                f"build them, or declare the gap in the train file ({world.train.source}: "
                f"gaps = [{{ variant = ..., reason = ... }}])"
            )
    return problems


def before_bind(world: TrainWorld, member: Member, manifest: Manifest) -> None:
    """Before a member's binding is pushed (and when ``train bind`` plans it): (T3) its
    upstream candidates current, (T6) its tests passed against them."""
    problems = candidate_problems(world, member, manifest, final=False)
    if problems:
        raise Violation(f"train bind: {'; '.join(problems)}. Nothing was bound.")


def release_problems(world: TrainWorld, member: Member, manifest: Manifest) -> list[str]:
    """(T1, T2, T3, T5, T6) Why ``member``'s files may not be released yet."""
    problems = [p for up in world.upstreams(member) if (p := released_problem(up))]
    problems += candidate_problems(world, member, manifest, final=True)
    return problems + variant_problems(world, member, manifest)


def before_release(world: TrainWorld, member: Member, manifest: Manifest, act: str) -> None:
    """Before ``act`` (an upload of one of ``member``'s files, the push of its final tag):
    every train invariant, on the world read just now (T4: a bound file the release index
    holds with other bytes is refused, as by the member's own gatekeeper)."""
    problems = release_problems(world, member, manifest)
    held = world.of(member).released
    problem = release_gatekeeper.index_problem(held, manifest, complete=False)
    if problem:
        problems.append(problem)
    if problems:
        raise Violation(f"train promote: {act}: {'; '.join(problems)}. Nothing was sent.")
