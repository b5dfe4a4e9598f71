"""Device keys: what a baseline is filed under."""

from __future__ import annotations

from mlrelease.perf.device import cpu_key, cpuinfo, device_slug, gpu_key

CPUINFO = """\
processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 106
model name\t: Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz

processor\t: 1
model name\t: something else
"""


def test_device_names_become_slugs() -> None:
    xeon = "Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz"
    assert device_slug(xeon) == "intel-xeon-platinum-8370c"
    assert device_slug("AMD EPYC 7763 64-Core Processor") == "amd-epyc-7763"
    assert device_slug("Apple M2") == "apple-m2"
    assert gpu_key("NVIDIA A100-SXM4-80GB") == "cuda-nvidia-a100-sxm4-80gb"


def test_cpu_key_uses_the_first_processor_and_counts_cores() -> None:
    info = cpuinfo(CPUINFO)
    assert info["model name"].startswith("Intel")
    assert cpu_key(info, cores=8) == "cpu-intel-xeon-platinum-8370c-f6m106-8c"
    assert cpu_key({"model name": "AMD EPYC"}, cores=2) == "cpu-amd-epyc-2c"
