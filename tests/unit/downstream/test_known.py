"""The known-downstream-failures list: parsing, matching, expiry, stale entries."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from mlrelease.downstream import known
from mlrelease.errors import ConfigError

TODAY = dt.date(2026, 11, 24)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "known.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_load_match_and_expiry(tmp_path: Path) -> None:
    entries = known.load(
        write(
            tmp_path,
            """
[[failure]]
consumer = "skl2onnx"
test = "tests/test_pipe.py::*"
owner = "@rm"
reason = "fixed upstream in skl2onnx main"
expires = 2026-12-31

[[failure]]
consumer = "pinned"
owner = "@rm"
reason = "pins onnx<1.23 until its next release"
expires = "2026-11-01"
""",
        )
    )
    assert [e.test for e in entries] == ["tests/test_pipe.py::*", "*"]
    hit = known.match(entries, "skl2onnx", "tests/test_pipe.py::T::test_a", TODAY)
    assert hit.accepted and hit.entry is entries[0]
    assert not known.match(entries, "skl2onnx", "tests/test_other.py::t", TODAY).accepted
    late = known.match(entries, "pinned", known.INSTALL, TODAY)
    assert not late.accepted and late.expired is entries[1]
    notes = known.stale(entries, [entries[0]], TODAY)
    assert notes == ["known failure pinned `*` expired on 2026-11-01 (@rm)"]
    assert known.stale(entries, [], dt.date(2026, 10, 1))[0].endswith("matched nothing: remove it?")


def test_missing_file_is_an_empty_list(tmp_path: Path) -> None:
    assert known.load(tmp_path / "absent.toml") == []


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ('consumer = "a"\nowner = "@x"\nreason = "r"', "failure[0].expires"),
        ('consumer = "a"\nowner = ""\nreason = "r"\nexpires = 2026-01-01', "failure[0].owner"),
        ('consumer = "a"\nowner = "@x"\nreason = "r"\nexpires = "soon"', "failure[0].expires"),
        (
            'consumer = "a"\nowner = "@x"\nreason = "r"\nexpires = 2026-01-01\nwho = 1',
            "failure[0].who",
        ),
    ],
)
def test_mistakes_name_the_key(tmp_path: Path, body: str, key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        known.load(write(tmp_path, "[[failure]]\n" + body + "\n"))
    assert caught.value.key == key


def test_flaky_entries_are_their_own_kind(tmp_path: Path) -> None:
    entries = known.load(
        write(
            tmp_path,
            """
[[flaky]]
consumer = "spox"
test = "tests/test_random.py::*"
owner = "@spox-dev"
reason = "seeds from the clock"
expires = 2026-12-31
""",
        )
    )
    assert [e.kind for e in entries] == [known.FLAKY]
    nodeid = "tests/test_random.py::test_a"
    assert not known.match(entries, "spox", nodeid, TODAY).accepted  # not a known failure
    assert known.match(entries, "spox", nodeid, TODAY, known.FLAKY).accepted
    assert known.stale(entries, [], dt.date(2027, 1, 1)) == [
        "declared flaky test spox `tests/test_random.py::*` expired on 2026-12-31 (@spox-dev)"
    ]
