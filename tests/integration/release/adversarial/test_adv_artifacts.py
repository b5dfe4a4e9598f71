"""Artifacts are bound to the RC, and published from the store filled at bind time: a tampered
or rebuilt dist/ is never published; a tampered store object stops publishing before anything
irreversible, dry run and execute."""

from __future__ import annotations

import hashlib
import os

from helpers.release import Repo


def test_a_tampered_store_object_stops_promotion_before_publish_and_tag(
    candidate: Repo, mlr, index
) -> None:  # type: ignore[no-untyped-def]
    url, packages = index
    wheel = candidate.path / "dist/demo-1.4.0-py3-none-any.whl"
    stored = (
        candidate.path / ".git/mlrelease/store" / hashlib.sha256(wheel.read_bytes()).hexdigest()
    )
    os.chmod(stored, 0o644)
    data = stored.read_bytes()
    stored.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # one bit, same size
    args = ("release", "promote", "--rc", "v1.4.0-rc1", "--publish", "--repository-url", url)
    code, _, err = mlr(*args, "--execute", "--push")
    assert code == 1 and "demo-1.4.0-py3-none-any.whl" in err and "changed on disk" in err
    assert "Nothing was published" in err
    assert candidate.tag_everywhere("v1.4.0") == ("", "")
    assert list(packages.iterdir()) == []


def test_a_tampered_dist_is_not_what_is_published(candidate: Repo, mlr, index) -> None:  # type: ignore[no-untyped-def]
    url, packages = index
    wheel = candidate.path / "dist/demo-1.4.0-py3-none-any.whl"
    bound = hashlib.sha256(wheel.read_bytes()).hexdigest()
    wheel.write_bytes(wheel.read_bytes() + b"\0")
    args = ("release", "promote", "--rc", "v1.4.0-rc1", "--publish", "--repository-url", url)
    code, _, err = mlr(*args, "--execute", "--push")
    assert code == 0, err
    published = packages / wheel.name
    assert hashlib.sha256(published.read_bytes()).hexdigest() == bound


def test_rebuild_from_a_later_commit_is_not_bound(candidate: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    candidate.commit_file("src/demo/core.py", "def answer() -> int:\n    return 7\n", "fix: 7")
    candidate.build()  # fresh files and a fresh, consistent SHA256SUMS
    # Binding the rebuild instead is refused: HEAD is not the RC, and the RC is bound.
    code, _, err = mlr("release", "bind", "--rc", "v1.4.0-rc1", "--execute", "--push")
    assert code == 1 and "HEAD is" in err and "git switch --detach v1.4.0-rc1" in err
    candidate.git("switch", "-q", "--detach", "v1.4.0-rc1")
    code, _, err = mlr("release", "bind", "--rc", "v1.4.0-rc1", "--execute", "--push")
    assert code == 1 and "src/demo/core.py differs from" in err
    assert candidate.tag_everywhere("v1.4.0") == ("", "")
