"""Promotion needs the whole verdict: a report of some gates only (--only, a shard) is refused."""

from __future__ import annotations

import json

from helpers.release import Repo


def test_partial_or_sharded_report_is_refused(candidate: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    assert mlr("verify", "--only", "changelog")[0] == 0
    code, _, err = mlr(
        "release", "promote", "--rc", "v1.4.0-rc1", "--published-elsewhere", "--execute"
    )
    assert code == 1 and "is a partial report: it lacks git_state" in err
    assert mlr("verify")[0] == 0
    path = candidate.path / "build/release-verify/report.json"
    data = json.loads(path.read_text())
    data["shard"] = {"index": 1, "count": 2}
    path.write_text(json.dumps(data))
    code, _, err = mlr(
        "release", "promote", "--rc", "v1.4.0-rc1", "--published-elsewhere", "--execute"
    )
    assert code == 1 and "is a shard 1/2 report" in err
    assert candidate.tag_everywhere("v1.4.0") == ("", "")
