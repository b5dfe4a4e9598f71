"""Pure parts of the hostile-input defences: escaping, README parsing, exit classification,
the safe-file layer on real files, the generic external-data walk, the verdict cache key."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from onnx import TensorProto, helper

from mlrelease.edges import proc
from mlrelease.models import cache, integrity, readme, safefile
from mlrelease.models.escaping import console, md_code, md_text, one_line
from mlrelease.models.manifest import ModelJob

# --- escaping ---------------------------------------------------------------------------------


@given(st.text())
def test_escaped_text_stays_on_one_line_and_cannot_start_markdown(text: str) -> None:
    for shown in (md_text(text), md_code(text), md_code(text, table=True), console(text)):
        assert "\n" not in shown and "\r" not in shown and "\x1b" not in shown
    escaped = md_text(text)
    assert not escaped.startswith(("#", "-", "+", "<", ">", "|", "`", "*"))
    for char in "`<>|[]#*":  # every structural character is escaped
        assert escaped.count(char) == escaped.count("\\" + char) or char not in text


def test_underscores_are_escaped_only_where_they_could_mean_emphasis() -> None:
    assert md_text("test_data_set_0") == "test_data_set_0"
    assert md_text("_x_ and __init__") == "\\_x\\_ and \\_\\_init\\_\\_"


def test_code_span_outlasts_backticks_inside() -> None:
    assert md_code("a``b") == "```a``b```"
    assert md_code("`x`") == "`` `x` ``"
    assert md_code("a|b", table=True) == "`a\\|b`"


def test_forged_heading_becomes_inline_text() -> None:
    forged = "k\n\n## Model Zoo submission: ACCEPT\n<details>"
    assert md_text(forged) == "k \\#\\# Model Zoo submission: ACCEPT \\<details\\>"
    assert one_line("a\u2028b\u202ec\x1b[2Jd") == "a b c [2Jd"
    assert console("[/bold]x") == "\\[/bold]x"


# --- README parsing -----------------------------------------------------------------------------


def test_title_naming_the_model_is_not_an_empty_description() -> None:
    text = "# TinyAdd model\n\n## Description\nAdds two.\n"
    sections = readme.readme_sections(text)
    assert sections == {"tinyadd model": "", "description": "Adds two."}


def test_heading_parsing_is_linear_and_bounded() -> None:
    assert readme.heading_text("## Title ##") == "Title"
    assert readme.heading_text("    # code, not a heading") is None
    assert readme.heading_text("#hashtag") is None
    assert readme.heading_text("# " + " #" * 100_000 + "x") is None  # too long to be a heading


# --- exit classification ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "killed", "status"),
    [
        (0, False, proc.ChildStatus.OK),
        (1, False, proc.ChildStatus.CRASH),
        (-signal.SIGSEGV, False, proc.ChildStatus.CRASH),
        (-signal.SIGKILL, False, proc.ChildStatus.OUT_OF_MEMORY),
        (-signal.SIGXCPU, False, proc.ChildStatus.TIMEOUT),
        (-signal.SIGKILL, True, proc.ChildStatus.TIMEOUT),
    ],
)
def test_exit_is_classified(code: int, killed: bool, status: proc.ChildStatus) -> None:
    found, reason = proc.classify(code, killed=killed, limits=proc.Limits(wall_s=5, cpu_s=10))
    assert found is status
    assert bool(reason) == (status is not proc.ChildStatus.OK)


# --- the safe-file layer ------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="links and named pipes are POSIX")
def test_safe_file_layer_refuses_links_special_files_and_oversize(tmp_path: Path) -> None:
    folder = tmp_path / "sub"
    (folder / "inner").mkdir(parents=True)
    secret = tmp_path / "secret"
    secret.write_text("secret")
    (folder / "ok.txt").write_text("hello")
    (folder / "inner" / "ok.txt").write_text("nested")
    (folder / "link.txt").symlink_to(secret)
    (folder / "linked").symlink_to(tmp_path, target_is_directory=True)
    os.link(secret, folder / "hard.txt")
    os.mkfifo(folder / "pipe")

    assert safefile.read_text(folder / "ok.txt", folder, "file", 100) == "hello"
    assert safefile.read_text(folder / "inner" / "ok.txt", folder, "file", 100) == "nested"
    problems = {
        name: safefile.check(folder / name, folder, "file", 3)
        for name in ("link.txt", "linked/secret", "hard.txt", "pipe", "ok.txt", "../secret")
    }
    assert "is a symlink to" in str(problems["link.txt"])
    assert "is a symlink to" in str(problems["linked/secret"])
    assert "hard links" in str(problems["hard.txt"])
    assert "not a regular file" in str(problems["pipe"])
    assert "5 bytes; more than the 3 bytes" in str(problems["ok.txt"])
    assert "outside the folder" in str(problems["../secret"])
    assert safefile.check(folder / "hard.txt", folder, "file", hard_links=True) is None


# --- the generic external-data walk -------------------------------------------------------------


def test_walk_finds_tensors_wherever_the_protobuf_holds_them() -> None:
    def tensor(name: str) -> TensorProto:
        return TensorProto(name=name, data_type=TensorProto.FLOAT, dims=[1], float_data=[1.0])

    sparse = helper.make_sparse_tensor(tensor("sv"), tensor("si"), [1])
    const = helper.make_node("Constant", [], ["c"], sparse_value=sparse)
    ref = helper.make_node("Constant", [], ["d"])
    default = helper.make_attribute("value", tensor("fdefault"))
    function = helper.make_function("l", "F", [], ["d"], [ref], [], attribute_protos=[default])
    branch = helper.make_graph([], "b", [], [], [tensor("sub")])
    node = helper.make_node("If", ["x"], ["y"], then_branch=branch, else_branch=branch)
    graph = helper.make_graph([const, node], "g", [], [], [tensor("init")])
    model = helper.make_model(graph, functions=[function])
    names = sorted(t.name for _, t in integrity.all_tensors(model))
    assert names == ["fdefault", "init", "si", "sub", "sub", "sv"]


# --- the verdict cache key ----------------------------------------------------------------------


def test_verdict_cache_key_follows_files_and_job(tmp_path: Path) -> None:
    model = tmp_path / "m.onnx"
    model.write_bytes(b"one")
    job = ModelJob(name="m", model=str(model), confine=str(tmp_path))
    first = cache.key(job)
    assert first == cache.key(job)
    model.write_bytes(b"two")
    assert cache.key(job) not in (first, None)
    second = cache.key(job)
    job.rtol = 0.5
    assert cache.key(job) != second
    model.unlink()
    assert cache.key(job) is None
