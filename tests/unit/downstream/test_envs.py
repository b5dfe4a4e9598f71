"""Environment keys, uv's resolver output, lock pins (no uv is run here)."""

from __future__ import annotations

import dataclasses

from mlrelease.downstream import envs

UV_FAILURE = """\
  x No solution found when resolving dependencies:
  ╰─▶ Because onnxconverter-common==1.14.0 depends on protobuf==3.20.2 and onnx==1.23.0
      depends on protobuf>=6.31.1, we can conclude that your requirements are unsatisfiable.
"""


def test_key_is_stable_and_sensitive() -> None:
    spec = envs.EnvSpec(python="/usr/bin/python3", python_version="3.11.7", requirements=("a==1",))
    same = dataclasses.replace(spec, python="/elsewhere/python3")
    assert spec.key() == same.key()
    changes = [
        {"requirements": ("a==2",)},
        {"identity": ("x.whl 00",)},
        {"prefer": ("b==1",)},
        {"python_version": "3.12.1"},
        {"find_links": ("/l",)},
    ]
    for change in changes:
        assert dataclasses.replace(spec, **change).key() != spec.key()  # type: ignore[arg-type]


def test_reason_keeps_the_resolvers_words() -> None:
    text = envs.reason(UV_FAILURE)
    assert "protobuf==3.20.2" in text and "╰─▶" not in text
    assert envs.reason("") == "uv failed without saying why"


def test_pins_of_a_lock() -> None:
    lock = "numpy==2.3.0\n    # via onnx\nOnnx_IR==0.1.0 ; python_version >= '3.9'\nx @ file:///p\n"
    assert envs.pins(lock) == {"numpy": "2.3.0", "onnx-ir": "0.1.0"}


def test_an_install_failure_says_why_in_one_line_and_how_to_see_it_again() -> None:
    command = [
        "uv",
        "pip",
        "compile",
        "--quiet",
        "requirements.in",
        "-o",
        "lock.txt",
        "--python",
        "/tmp/.build-x/venv/bin/python",
        "--index-url",
        "https://i/simple",
    ]
    failure = envs.InstallFailure(
        envs.reason(UV_FAILURE),
        command=command,
        requirements=["onnx==1.23.0", "a b"],
        python="/usr/bin/python3",
    )
    assert failure.why.startswith("Because onnxconverter-common==1.14.0 depends on")
    assert failure.reproduce == (
        "printf '%s\\n' onnx==1.23.0 'a b' | uv pip compile --quiet - --python /usr/bin/python3 "
        "--index-url https://i/simple"
    )


def test_overrides_change_the_key_and_the_reproduction_names_them() -> None:
    spec = envs.EnvSpec(python="/usr/bin/python3", python_version="3.11.7", requirements=("a",))
    forced = dataclasses.replace(spec, overrides=("torch==2.4.1",))
    assert forced.key() != spec.key()
    assert "overrides" not in spec.key()  # a key of no override is the key made before them
    failure = envs.InstallFailure(
        "No solution found",
        command=["uv", "pip", "compile", "requirements.in", "--override", "overrides.txt"],
        requirements=["visionlet @ file:///w.whl"],
        overrides=["torch==2.4.1"],
    )
    assert failure.reproduce == (
        "printf '%s\\n' 'visionlet @ file:///w.whl' | uv pip compile - "
        "--override <(printf '%s\\n' torch==2.4.1)"
    )
