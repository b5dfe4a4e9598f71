"""[tool.mlrelease.perf]: profiles, device defaults, errors that name the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlrelease.errors import ConfigError
from mlrelease.perf.config import PerfConfig
from mlrelease.registry import load_config


def project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        f'[project]\nname = "x"\n\n{table}\n', encoding="utf-8"
    )
    return tmp_path


def test_builtin_profiles_resolve_by_device(tmp_path: Path) -> None:
    config = load_config(project(tmp_path, ""))
    cpu = config.table(PerfConfig).profile("cpu")
    gpu = config.table(PerfConfig).profile("gpu")
    assert (cpu.iters, cpu.min_time_s, cpu.unstable_cov, cpu.threshold) == (30, 0.0, 0.10, 0.07)
    assert (gpu.iters, gpu.min_time_s, gpu.unstable_cov, gpu.threshold) == (100, 3.0, 0.02, 0.05)
    assert cpu.layers == {"bert": 2} and cpu.threads == 1
    assert gpu.batch_sizes == [1, 4, 8, 16, 32] and gpu.p2_shapes


def test_project_profile_replaces_and_adds(tmp_path: Path) -> None:
    config = load_config(
        project(
            tmp_path,
            """
[tool.mlrelease.perf.profiles.cpu]
batch-sizes = [1, 2]
iters = 50
[tool.mlrelease.perf.profiles.mine]
device = "cuda"
models = ["resnet50"]
""",
        )
    )
    cpu = config.table(PerfConfig).profile("cpu")
    assert cpu.batch_sizes == [1, 2] and cpu.iters == 50 and cpu.layers == {}
    assert config.table(PerfConfig).profile("mine").threshold == 0.05
    assert config.table(PerfConfig).profile("gpu").device == "cuda"  # built-in, still there


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            '[tool.mlrelease.perf.profiles.cpu]\nframeworks = ["tensorflow"]',
            "profiles.cpu.frameworks[0]: expected one of pytorch",
        ),
        ("[tool.mlrelease.perf.profiles.cpu]\nbatch-size = [1]", "Did you mean 'batch-sizes'?"),
        (
            "[tool.mlrelease.perf.profiles.cpu]\nbatch-sizes = [0]",
            "batch-sizes[0]: expected a batch",
        ),
        ('[tool.mlrelease.perf.profiles.cpu]\ndevice = "tpu"', "expected one of 'cpu', 'cuda'"),
    ],
)
def test_bad_profiles_name_the_key(tmp_path: Path, table: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_config(project(tmp_path, table)).table(PerfConfig).profile("cpu")


def test_unknown_profile(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="expected one of cpu, gpu"):
        load_config(project(tmp_path, "")).table(PerfConfig).profile("gpus")


def test_precision_policy_sets_the_parity_tolerance(tmp_path: Path) -> None:
    config = load_config(
        project(
            tmp_path,
            """
[tool.mlrelease.perf.profiles.fast]
device = "cuda"
precision = "tf32"
[tool.mlrelease.perf.profiles.loose]
device = "cuda"
precision = "tf32"
parity-tolerance = 0.2
""",
        )
    )
    perf = config.table(PerfConfig)
    assert perf.profile("gpu").precision == "strict"  # the built-ins state IEEE fp32
    assert perf.profile("gpu").parity_tolerance == 1e-2
    assert perf.profile("cpu").parity_tolerance == 1e-3
    assert perf.profile("fast").parity_tolerance == 0.15
    assert perf.profile("loose").parity_tolerance == 0.2  # an explicit tolerance wins


def test_gpu_only_precision_on_the_cpu_names_the_key(tmp_path: Path) -> None:
    config = load_config(
        project(tmp_path, '[tool.mlrelease.perf.profiles.mine]\nprecision = "fp16"\n')
    )
    with pytest.raises(ConfigError) as caught:
        config.table(PerfConfig).profile("mine")
    message = str(caught.value)
    assert "tool.mlrelease.perf.profiles.mine.precision" in message and "'fp16'" in message
