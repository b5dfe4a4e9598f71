"""Variants read from wheel names: the torch 2.5.0 train's real file names (PyPI)."""

from __future__ import annotations

from mlrelease.train import variants
from mlrelease.train.declaration import Gap

TORCH = [
    f"torch-2.5.0-cp{py}-{abi}-{plat}.whl"
    for py in ("39", "310", "311", "312")
    for abi, plat in (
        (f"cp{py}", "manylinux1_x86_64"),
        (f"cp{py}", "manylinux2014_aarch64"),
        (f"cp{py}", "win_amd64"),
        ("none", "macosx_11_0_arm64"),
    )
] + ["torch-2.5.0-cp313-cp313-manylinux1_x86_64.whl"]
VISION = [
    f"torchvision-0.20.0-cp{py}-cp{py}-{plat}.whl"
    for py in ("39", "310", "311", "312")
    for plat in ("manylinux1_x86_64", "manylinux2014_aarch64", "win_amd64", "macosx_11_0_arm64")
] + [f"torchvision-0.20.0-1-cp{py}-cp{py}-manylinux2014_aarch64.whl" for py in ("39", "310")]
CUDA = {"linux-x86_64": "cu124"}


def test_the_platform_of_a_tag_is_the_machine_whatever_the_policy() -> None:
    assert variants.platforms("manylinux1_x86_64") == ["linux-x86_64"]
    assert variants.platforms("manylinux_2_28_aarch64") == ["linux-aarch64"]
    assert variants.platforms("musllinux_1_2_x86_64") == ["linux-musl-x86_64"]
    assert variants.platforms("macosx_10_9_universal2") == ["macos-x86_64", "macos-arm64"]
    assert variants.platforms("win_amd64") == ["windows-amd64"]


def test_torch_ships_cp313_on_linux_only_and_vision_lacks_it() -> None:
    shipped = variants.shipped(TORCH, CUDA)
    assert len(shipped) == 17
    assert variants.Variant("3.13", "linux-x86_64", "cu124") in shipped
    assert variants.Variant("3.10", "macos-arm64", "cpu") in shipped
    lacking, declared = variants.missing(shipped, VISION, CUDA, [], "torch")
    assert [v.name for v in lacking] == ["3.13-linux-x86_64-cu124"]
    gap = Gap("3.13-*", "3.13 is experimental in torch 2.5")
    lacking, declared = variants.missing(shipped, VISION, CUDA, [gap], "torch")
    assert lacking == [] and [v.name for v, _ in declared] == ["3.13-linux-x86_64-cu124"]


def test_a_gap_of_another_upstream_excuses_nothing() -> None:
    shipped = variants.shipped(TORCH, CUDA)
    gap = Gap("3.13-*", "not ours", upstream="onnx")
    lacking, _ = variants.missing(shipped, VISION, CUDA, [gap], "torch")
    assert [v.name for v in lacking] == ["3.13-linux-x86_64-cu124"]


def test_a_member_built_for_another_accelerator_lacks_the_upstreams() -> None:
    shipped = variants.shipped(TORCH, CUDA)
    lacking, _ = variants.missing(shipped, VISION, {}, [], "torch")  # vision built for CPU
    assert {v.accelerator for v in lacking} == {"cu124"} and len(lacking) == 5


def test_pure_abi3_and_local_labels() -> None:
    shipped = variants.shipped(["up-1.0-cp310-cp310-manylinux1_x86_64.whl"], {})
    assert variants.missing(shipped, ["m-1.0-py3-none-any.whl"], {}, [], "up")[0] == []
    assert (
        variants.missing(shipped, ["m-1.0-cp39-abi3-manylinux1_x86_64.whl"], {}, [], "up")[0] == []
    )
    assert variants.missing(shipped, ["m-1.0-cp311-abi3-manylinux1_x86_64.whl"], {}, [], "up")[0]
    labelled = variants.shipped(["up-1.0+cu121-cp310-cp310-linux_x86_64.whl"], {})
    assert labelled == {variants.Variant("3.10", "linux-x86_64", "cu121")}
    assert variants.shipped(["up-1.0-py3-none-any.whl", "up-1.0.tar.gz"], {}) == set()
    assert variants.shipped(["up-1.0-cp313-cp313t-win_amd64.whl"], {}) == {
        variants.Variant("3.13t", "windows-amd64", "cpu")
    }
