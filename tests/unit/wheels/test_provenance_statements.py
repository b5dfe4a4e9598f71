"""The provenance statements of wheel builds (issue 48, compiled code with evidence): the
statement `mlrelease wheels provenance` writes is the one bind reads, and accepted only for the
wheel's bytes, the RC's commit and the source digest of its tree; `SHA256SUMS` covers the
statements, `wheels collect` carries a project's statements, and `wheels build` drops the
statements of the files it replaces."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from helpers.dist import make_dist

from mlrelease import config
from mlrelease.wheels import artifacts, build, evidence, service
from mlrelease.wheels.artifacts import FileProblem
from mlrelease.wheels.project import from_config

WHEEL = "demo-1.4.0-cp312-cp312-manylinux_2_28_x86_64.whl"
COMMIT = "c0ffee" * 6 + "c0ff"
SOURCE = "sha256:" + "ab" * 32
RUN = "https://github.com/org/demo/actions/runs/12/attempts/1"
BYTES = "5e" * 32


def _evidence(**changes: str) -> evidence.Evidence:
    """What bind has: the statement `wheels provenance` writes (fields changed by
    ``changes``), the RC's commit, its tree's source digest and the wheel's SHA-256."""
    fields = {"sha256": BYTES, "commit": COMMIT, "source": SOURCE, "run": RUN, **changes}
    data = evidence.statement(WHEEL, **fields)
    (found,) = evidence.parse(json.loads(json.dumps(data)), f"{WHEEL}{evidence.SUFFIX}")
    return evidence.Evidence(COMMIT, SOURCE, {WHEEL: found}, sha256={WHEEL: BYTES})


def test_the_statement_written_is_the_one_bind_reads_and_accepts() -> None:
    data = evidence.statement(WHEEL, BYTES, COMMIT, SOURCE, RUN)
    (found,) = evidence.parse(data, "s.intoto.json")
    assert found == evidence.Provenance(WHEEL, BYTES, COMMIT, SOURCE[7:], RUN, "s.intoto.json")
    dependency = data["predicate"]["buildDefinition"]["resolvedDependencies"][0]
    assert dependency == {"uri": "git+https://github.com/org/demo", "digest": {"gitCommit": COMMIT}}
    detail, why = _evidence().provenance(WHEEL, "demo/_speedups.so")
    assert why == "" and detail == f"built by {RUN} from {COMMIT[:12]}, source {'ab' * 8}..."


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"commit": "1" * 40}, "built from 111111111111, not the RC's commit"),
        ({"source": "sha256:" + "cd" * 32}, "names the source digest cdcdcdcdcdcdcdcd"),
        ({"sha256": "00" * 32}, "names the SHA-256 0000000000000000..., not the file's"),
        ({"run": ""}, "names no workflow run"),
    ],
)
def test_a_statement_of_other_bytes_another_commit_or_tree_is_refused(
    change: dict[str, str], named: str
) -> None:
    detail, why = _evidence(**change).provenance(WHEEL, "demo/_speedups.so")
    assert detail == "" and named in why


def _statement(folder: Path, wheel: Path) -> Path:
    data = evidence.statement(
        wheel.name, hashlib.sha256(wheel.read_bytes()).hexdigest(), COMMIT, SOURCE, RUN
    )
    path = folder / f"{wheel.name}{evidence.SUFFIX}"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _dist(tmp_path: Path, folder: str, name: str = "demo") -> list[Path]:
    (tmp_path / "src" / name).mkdir(parents=True, exist_ok=True)
    (tmp_path / "src" / name / "__init__.py").write_text('"""x."""\n', encoding="utf-8")
    return make_dist(
        tmp_path, tmp_path / folder, "1.4.0", name=name, tag="cp312-cp312-linux_x86_64"
    )


def test_sha256sums_covers_the_statements(tmp_path: Path) -> None:
    wheel, sdist = _dist(tmp_path, "dist")
    statement = _statement(tmp_path / "dist", wheel)
    artifacts.write_sums(tmp_path / "dist")
    listed = artifacts.read_sums(tmp_path / "dist" / artifacts.SUMS)
    assert sorted(listed) == sorted([wheel.name, sdist.name, statement.name])
    assert artifacts.verify_sums(tmp_path / "dist") == []
    statement.write_text("{}", encoding="utf-8")
    (problem,) = artifacts.verify_sums(tmp_path / "dist")
    assert problem.file == statement.name and "tampered" in problem.message


def test_collect_carries_the_statements_of_the_projects_wheels_only(tmp_path: Path) -> None:
    (wheel, _) = _dist(tmp_path, "job")
    (other, _) = _dist(tmp_path, "job", name="other")
    ours, theirs = _statement(tmp_path / "job", wheel), _statement(tmp_path / "job", other)
    (tmp_path / "job" / f"broken{evidence.SUFFIX}").write_text("not json", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "1.4.0"\n')
    project = from_config(config.load(tmp_path, {}))
    problems: list[FileProblem] = []
    assert service.statements_of(project, tmp_path / "job", problems) == [ours]
    assert theirs.is_file()
    (problem,) = problems
    assert problem.file == f"job/broken{evidence.SUFFIX}"
    assert "not an in-toto statement mlrelease reads" in problem.message


def test_a_build_drops_the_statement_of_the_wheel_it_replaces(tmp_path: Path) -> None:
    (old, _) = _dist(tmp_path, "dist")
    statement = _statement(tmp_path / "dist", old)
    (new, _) = _dist(tmp_path, "out")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "1.4.0"\n')
    project = from_config(config.load(tmp_path, {}))
    assert build._publish(project, "1.4.0", [new]) == [tmp_path / "dist" / new.name]
    assert not statement.exists()  # it named the bytes of the build replaced
