"""Invariant (a) before the final tag: promote always reads the index the files were published
to (#44, the onnxruntime 1.16.2 incident), and ``release status`` lists what it lacks and what
is foreign there. pypiserver on 127.0.0.1 stands in for PyPI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers.invariants import RC, hashes, other_build
from helpers.release import Repo

WHEEL, SDIST = "demo-1.4.0-py3-none-any.whl", "demo-1.4.0.tar.gz"


def test_promote_reads_the_index_publish_recorded(
    candidate: Repo, mlr, index, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """#44: files were published with --repository-url and no index in the configuration;
    promote, run without the URL, tagged the final release while the index lacked a file, and
    `release status` said "next: promote" with no word of it."""
    url, packages = index
    code, _, err = mlr("release", "publish", "--rc", RC, "--repository-url", url, "--execute")
    assert code == 0, err
    (packages / SDIST).unlink()  # a partial upload: the index lacks the sdist
    theirs = other_build(candidate, tmp_path / "theirs")
    shutil.copy(theirs / WHEEL, packages / "demo-1.4.0+local-py3-none-any.whl")
    code, out, _ = mlr("release", "status", "--json")
    assert code == 0
    held = json.loads(out)["index"]
    assert held["url"] == f"{url}simple/demo/" and "recorded" in held["source"]
    assert held["missing"] == [SDIST]
    assert held["foreign"] == ["demo-1.4.0+local-py3-none-any.whl"]
    code, _, err = mlr("release", "promote", "--rc", RC, "--execute", "--push")
    assert code == 1 and "demo-1.4.0+local-py3-none-any.whl" in err, err
    assert candidate.tag_everywhere("v1.4.0") == ("", "")
    (packages / "demo-1.4.0+local-py3-none-any.whl").unlink()
    code, _, err = mlr("release", "promote", "--rc", RC, "--execute", "--push")
    assert code == 1 and f"lacks {SDIST}: publish first" in err, err
    assert candidate.tag_everywhere("v1.4.0") == ("", "")
    code, _, err = mlr("release", "publish", "--rc", RC, "--repository-url", url, "--execute")
    assert code == 0, err
    code, _, err = mlr("release", "promote", "--rc", RC, "--execute", "--push")
    assert code == 0, err
    assert sorted(hashes(packages)) == [WHEEL, SDIST]


def test_with_no_index_known_promote_refuses_unless_told(candidate: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    code, _, err = mlr("release", "promote", "--rc", RC, "--execute", "--push")
    assert code == 1 and "no index is known for v1.4.0-rc1" in err, err
    assert "--published-elsewhere" in err
    assert candidate.tag_everywhere("v1.4.0") == ("", "")
    code, _, err = mlr("release", "promote", "--rc", RC, "--published-elsewhere", "--execute")
    assert code == 0, err
