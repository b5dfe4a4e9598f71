"""The pure parts of a paired run: pinning the consumer, what moved on the candidate side."""

from __future__ import annotations

from mlrelease.downstream import pair


def test_the_consumer_is_pinned_with_its_extras() -> None:
    assert pair._pin("skl2onnx[x,a]>=1.19; python_version>'3'", "1.20.0") == "skl2onnx[a,x]==1.20.0"
    assert pair._pin("spox", "0.18.2") == "spox==0.18.2"


def test_changes_leave_the_project_out() -> None:
    before = {"onnx": "1.22.0", "protobuf": "5.29.4", "numpy": "2.3.0", "gone": "1"}
    after = {"onnx": "1.23.0", "protobuf": "6.31.1", "numpy": "2.3.0", "ml-dtypes": "0.6.0"}
    assert pair.changes(before, after, "ONNX") == [
        "gone 1 -> (absent)",
        "ml-dtypes (absent) -> 0.6.0",
        "protobuf 5.29.4 -> 6.31.1",
    ]
