"""Machine facts: the device key of a baseline, and the environment recorded with results.

The device key names what the timings depend on. For a CPU profile it is the CPU model string
from ``/proc/cpuinfo`` (or ``platform.processor()``), normalised (lower case, trademarks,
"CPU" and the clock dropped, runs of other characters turned into ``-``), plus the CPU family
and model numbers (hypervisors often mask the name to ``AMD EPYC``) and the logical core count:
``cpu-amd-epyc-f26m2-2c``. For a CUDA profile it is the GPU name from the driver:
``cuda-nvidia-a100-sxm4-80gb``. Two machines with equal keys are compared on timings; others on
statuses only.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from mlrelease.edges.proc import TimeoutExpired, call

NOISE = re.compile(r"\((r|tm|c)\)|\bcpu\b|\bprocessor\b|\b\d+-core\b|@.*$", re.IGNORECASE)


def device_slug(name: str) -> str:
    """``Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz`` -> ``intel-xeon-platinum-8370c``."""
    text = NOISE.sub(" ", name.strip())
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "unknown"


def cpuinfo(text: str | None = None) -> dict[str, str]:
    """The first processor's fields of ``/proc/cpuinfo`` (empty where there is none)."""
    if text is None:
        try:
            text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return {}
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if fields:
                break
            continue
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    return fields


def cpu_name(info: dict[str, str] | None = None) -> str:
    info = cpuinfo() if info is None else info
    return info.get("model name") or platform.processor() or platform.machine() or "unknown CPU"


def cpu_key(info: dict[str, str] | None = None, cores: int | None = None) -> str:
    """The device key of this CPU (see the module docstring)."""
    info = cpuinfo() if info is None else info
    key = f"cpu-{device_slug(cpu_name(info))}"
    if info.get("cpu family") and info.get("model"):
        key += f"-f{info['cpu family']}m{info['model']}"
    return f"{key}-{cores or os.cpu_count() or 1}c"


def gpu_key(name: str) -> str:
    return f"cuda-{device_slug(name)}"


def nvidia_smi() -> list[dict[str, str]]:
    """GPU name, driver, memory and clocks from ``nvidia-smi`` (empty without a driver)."""
    exe = shutil.which("nvidia-smi")
    if not exe:
        return []
    fields = [
        "name",
        "driver_version",
        "memory.total",
        "clocks.sm",
        "clocks.mem",
        "clocks.max.sm",
        "clocks.max.mem",
        "power.limit",
        "persistence_mode",
        "mig.mode.current",
    ]
    try:
        proc = call([exe, f"--query-gpu={','.join(fields)}", "--format=csv,noheader"], timeout=30)
    except (OSError, TimeoutExpired):
        return []
    gpus = []
    for line in proc.stdout.strip().splitlines():
        values = [v.strip() for v in line.split(",")]
        if len(values) == len(fields):
            gpus.append(dict(zip(fields, values, strict=True)))
    return gpus


def host() -> dict[str, Any]:
    """Facts readable without torch: OS, Python, CPU, memory, load."""
    info = cpuinfo()
    facts: dict[str, Any] = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": cpu_name(info),
        "cpu_family_model": f"{info.get('cpu family', '?')}/{info.get('model', '?')}",
        "logical_cpus": os.cpu_count(),
        "cpu_mhz": info.get("cpu MHz"),
    }
    try:
        meminfo = Path("/proc/meminfo").read_text(encoding="utf-8").splitlines()
        facts["memory_gib"] = round(int(meminfo[0].split()[1]) / 2**20, 1)
    except (OSError, IndexError, ValueError):
        pass
    if hasattr(os, "getloadavg"):
        facts["load_average"] = [round(x, 2) for x in os.getloadavg()]
    governor = Path("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
    if governor.is_file():
        facts["cpu_governor"] = governor.read_text(encoding="utf-8").strip()
    facts["thread_env"] = {
        k: os.environ[k] for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS") if k in os.environ
    }
    return facts


def cpu_ticks(cpu: int | None) -> tuple[int, int, int] | None:
    """(busy, steal, total) clock ticks of one CPU (``None``: all) since boot, from
    ``/proc/stat``; None where it cannot be read."""
    name = "cpu" if cpu is None else f"cpu{cpu}"
    try:
        lines = Path("/proc/stat").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if fields and fields[0] == name:
            values = [int(v) for v in fields[1:]]
            idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
            steal = values[7] if len(values) > 7 else 0
            # guest time is already inside user time
            total = sum(values[:8])
            return total - idle, steal, total
    return None


def pin_to_one_cpu() -> int | None:
    """Pin this process to the last CPU it may run on; the CPU, or None where the OS does not
    allow it (one CPU for every worker of a run: both builds see the same core)."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    try:
        cpu = max(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
    except OSError:
        return None
    return cpu


def round_facts(
    cpu: int | None,
    before: tuple[int, int, int] | None,
    after: tuple[int, int, int] | None,
    own_cpu_s: float,
    runqueue_share: float | None,
) -> dict[str, Any]:
    """What the machine did during one round: load, the other tenants' share of the pinned
    CPU, the steal share (hypervisor), and the share of wall time this worker waited for a CPU.
    """
    facts: dict[str, Any] = {"cpu": cpu}
    if hasattr(os, "getloadavg"):
        facts["load_1m"] = round(os.getloadavg()[0], 2)
    if before and after and after[2] > before[2]:
        hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        busy, steal, total = (a - b for a, b in zip(after, before, strict=True))
        others = max(0.0, busy - own_cpu_s * hz) / total
        facts["others_share"] = round(min(others, 1.0), 3)
        facts["steal_share"] = round(steal / total, 3)
    if runqueue_share is not None:
        facts["runqueue_share"] = round(runqueue_share, 3)
    return facts


CPU_KEY = re.compile(r"^cpu-(?P<name>.+?)(?:-f(?P<family>\d+)m\d+)?-(?P<cores>\d+)c$")


def device_class(key: str) -> str:
    """The class of a device key, what baselines and history are kept per: for a CPU the vendor
    (first word of the model string), the CPU family number and the logical core count
    (``cpu-amd-epyc-f26m2-2c`` -> ``cpu-amd-f26-2c``): a new machine of the same family and size
    compares timings; for a GPU its model (the key itself)."""
    match = CPU_KEY.match(key)
    if not match:
        return key
    vendor = match["name"].split("-")[0]
    family = f"-f{match['family']}" if match["family"] else ""
    return f"cpu-{vendor}{family}-{match['cores']}c"
