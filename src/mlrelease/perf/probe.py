"""The ``probe`` task of a perf worker: which frameworks can run here (and why not), and the
environment (library versions found in this interpreter, threads, GPU, driver, clocks)."""

from __future__ import annotations

import sys
from typing import Any

from mlrelease.edges import onnxruntime as ort


def _call(function: Any) -> Any:
    """Call an untyped library function (keeps mypy strict elsewhere)."""
    return function()


def importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


DISTRIBUTIONS = {
    "torch": ("torch",),
    "transformers": ("transformers",),
    "onnx": ("onnx",),
    "onnxruntime": ("onnxruntime", "onnxruntime-gpu"),
    "onnxscript": ("onnxscript",),
    "numpy": ("numpy",),
    "tensorrt": ("tensorrt", "tensorrt-cu13", "tensorrt-cu12"),
    "torch_tensorrt": ("torch-tensorrt", "torch_tensorrt"),
    "triton": ("triton",),
}


def _versions() -> dict[str, str]:
    """Installed versions, from package metadata (no imports: torch alone takes seconds)."""
    from importlib import metadata

    found: dict[str, str] = {}
    for name, distributions in DISTRIBUTIONS.items():
        for distribution in distributions:
            try:
                found[name] = metadata.version(distribution)
                if distribution != name:
                    found[name] += f" ({distribution})"
                break
            except metadata.PackageNotFoundError:
                continue
    return found


def probe(task: dict[str, Any]) -> dict[str, Any]:
    from mlrelease.perf import device, frameworks

    facts: dict[str, Any] = {"host": device.host(), "libraries": _versions()}
    unavailable = {
        f: r
        for f in task["frameworks"]
        if (r := frameworks.unavailable(f, task["device"])) is not None
    }
    gpu: dict[str, Any] = {}
    # torch takes seconds to import: only a CUDA profile needs it here (the device's facts).
    if task["device"] == "cuda" and importable("torch"):
        import torch

        facts["torch_threads"] = torch.get_num_threads()
        if torch.cuda.is_available():
            props = torch.cuda.get_device_properties(0)
            gpu = {
                "name": props.name,
                "memory_gib": round(props.total_memory / 2**30, 1),
                "capability": f"{props.major}.{props.minor}",
                "cuda": getattr(torch.version, "cuda", None),
                "cudnn": _call(torch.backends.cudnn.version),
            }
    if ort.installed():
        facts["onnxruntime_providers"] = ort.available_providers()
    smi = device.nvidia_smi()
    if smi:
        gpu["nvidia_smi"] = smi
    facts["gpu"] = gpu
    if task["device"] == "cuda" and gpu.get("name"):
        key, name = device.gpu_key(gpu["name"]), gpu["name"]
    elif task["device"] == "cuda":
        key, name = "cuda-none", "no CUDA device"
    else:
        key, name = device.cpu_key(), device.cpu_name()
    return {
        "device_key": key,
        "device_name": name,
        "environment": facts,
        "unavailable": unavailable,
    }


def report(device: str) -> list[str]:
    """What this interpreter has for a ``device`` profile, as lines: the framework versions
    found (package metadata), the GPU, and each framework that cannot run here with why."""
    from mlrelease.perf.config import FRAMEWORKS

    found = probe({"device": device, "frameworks": list(FRAMEWORKS)})
    facts = found["environment"]
    lines = [f"interpreter: {sys.executable}", f"device: {found['device_name']}"]
    lines += [f"  {name} {version}" for name, version in sorted(facts["libraries"].items())]
    gpu = facts.get("gpu") or {}
    if gpu.get("name"):
        lines.append(f"GPU: {gpu['name']}, CUDA {gpu.get('cuda')}, cuDNN {gpu.get('cudnn')}")
    if facts.get("onnxruntime_providers"):
        lines.append(f"onnxruntime providers: {', '.join(facts['onnxruntime_providers'])}")
    for framework in FRAMEWORKS:
        reason = found["unavailable"].get(framework)
        lines.append(f"{framework}: {'runs here' if reason is None else 'unavailable: ' + reason}")
    return lines


if __name__ == "__main__":
    # python -m mlrelease.perf.probe [cpu|cuda]: what a perf run would find in this interpreter.
    print("\n".join(report(sys.argv[1] if len(sys.argv) > 1 else "cuda")))
