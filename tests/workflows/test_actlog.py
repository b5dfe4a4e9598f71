"""Reading act's ``--json`` log: the cause of a failure is the first error line of the failing
step (of the actions it uses too), not the last line nor act's exit status; a leg act never
started keeps the runs-on label it lacked. The lines are act's own shape (tests/workflows
runs record them in act.log)."""

from __future__ import annotations

import json

from actlog import parse


def line(step: str, sid: list[str], **more: object) -> str:
    entry = {
        "job": "ci/lint (ubuntu-latest)-1",
        "jobID": "session",
        "level": "info",
        "matrix": {"os": "ubuntu-latest"},
        "stage": "Main",
        "step": step,
        "stepID": sid,
    }
    return json.dumps({**entry, **more})


def output(step: str, sid: list[str], text: str) -> str:
    return line(step, sid, msg=text + "\n", raw_output=True)


def failing(step: str, lines: list[str], sid: tuple[str, ...] = ("2",)) -> list[str]:
    return [
        line(step, ["2"], msg=f"⭐ Run Main {step}"),
        *(output(step, list(sid), text) for text in lines),
        line(step, ["2"], msg=f"❌  Failure - Main {step}", stepResult="failure"),
        line(step, ["2"], level="error", msg="exit status 1"),
    ]


def test_nox_names_the_session_it_did_not_find() -> None:
    step = 'nox -s "$SESSION"'
    lines = ["nox > Error while collecting sessions.", "nox > Sessions not found: lnt"]
    (job,) = parse(failing(step, lines))
    assert job.steps == [(step, "failure")]
    assert job.cause() == "nox > Sessions not found: lnt"


def test_an_action_s_own_step_gives_the_cause() -> None:
    lines = [
        "Run python3 standins.py upload",
        "upload-artifact: an artifact named 'dist' already exists",
    ]
    (job,) = parse(failing("actions/upload-artifact@ea16", lines, ("2", "0")))
    assert job.cause() == "upload-artifact: an artifact named 'dist' already exists"


def test_actionlint_s_line_beats_the_session_s_summary() -> None:
    lines = [
        "nox > Running session lint",
        "nox > actionlint",
        '.github/workflows/ci.yml:40:9: property "sesion" is not defined [expression]',
        "nox > Command actionlint failed with exit code 1",
        "nox > Session lint failed.",
    ]
    (job,) = parse(failing('nox -s "$SESSION"', lines))
    assert job.cause().startswith('.github/workflows/ci.yml:40:9: property "sesion"')


def test_a_python_exception_beats_its_traceback() -> None:
    lines = [
        "\x04Traceback (most recent call last):",
        '  File "x.py", line 1',
        "ModuleNotFoundError: No module named 'rich'",
    ]
    (job,) = parse(failing("invoke docs.freeze", lines))
    assert job.cause() == "ModuleNotFoundError: No module named 'rich'"


def test_a_leg_act_never_started_keeps_the_first_label_it_lacked() -> None:
    skip = "🚧  Skipping unsupported platform -- Try running with `-P {}=...`"
    leg = {"job": "perf-gpu/device-1", "jobID": "device", "matrix": {"device": "a100"}}
    lines = [json.dumps({**leg, "msg": skip.format(label)}) for label in ("self-hosted", "gpu")]
    (job,) = parse(lines)
    assert (job.unsupported, job.steps, job.result) == ("self-hosted", [], "")
