"""Issue 48, deny by default: every member of every bound file, and every field of METADATA,
PKG-INFO and WHEEL, equals the reference build of the RC's commit or falls in a class of allowed
difference the project accepts; an extra member, file or wheel is refused like a missing one.
Each test is a doctored ``dist/`` that the comparison of issue 44 bound (real repositories, real
builds with pypa/build and gcc, the RECORD of every doctored wheel kept true)."""

from __future__ import annotations

from pathlib import Path

from helpers.reference_builds import (
    CP,
    SDIST,
    WHEEL,
    Members,
    refused,
    rewrite_sdist,
    rewrite_wheel,
    shared_object,
)
from helpers.release import Repo

INFO = "demo-1.4.0.dist-info"


def test_an_import_hook_named_like_a_library_is_refused(demo_built: Repo) -> None:
    """``demo_speedups.so.pth`` rode in an otherwise exact pure wheel: a name holding ``.so.``
    counted as compiled code. It runs at every interpreter start."""
    hook = b"import os; os.environ.setdefault('PWNED', '1')\n"

    def add(members: Members) -> None:
        members["demo_speedups.so.pth"] = hook

    rewrite_wheel(demo_built.path / "dist" / WHEEL, add)
    refused(demo_built, WHEEL, "demo_speedups.so.pth", "not in the reference wheel")


def test_a_bare_extension_beside_the_committed_module_is_refused(
    demo_built: Repo, tmp_path: Path
) -> None:
    """A real shared object ``demo/core.so`` in the pure wheel: Python imports it ahead of the
    committed ``demo/core.py``."""
    compiled = shared_object(tmp_path / "cc", "core", "int PyInit_core(void) { return 0; }")

    def add(members: Members) -> None:
        members["demo/core.so"] = compiled

    rewrite_wheel(demo_built.path / "dist" / WHEEL, add)
    refused(demo_built, WHEEL, "demo/core.so", "not in the reference wheel")


def _pointer(text: str) -> str:
    head, _, _ = text.partition("\n\n")
    return (
        head
        + "\nSummary: moved: install demo-ng instead\n"
        + "Project-URL: Homepage, https://evil.example/demo-ng\n"
        + "Description-Content-Type: text/markdown\n\n# demo moved\n\n`pip install demo-ng`\n"
    )


def test_metadata_fields_beyond_the_five_are_compared(demo_built: Repo) -> None:
    """METADATA's and PKG-INFO's Summary, Project-URL and description replaced with a pointer
    to another package: the five compared fields unchanged."""

    def point(members: Members) -> None:
        member = f"{INFO}/METADATA"
        members[member] = _pointer(members[member].decode()).encode()

    rewrite_wheel(demo_built.path / "dist" / WHEEL, point)
    out = refused(demo_built, WHEEL, "METADATA", "Summary", "Project-URL")
    assert "description" in out, out


def test_a_pkg_info_pointing_elsewhere_is_refused(demo_built: Repo) -> None:
    rewrite_sdist(demo_built.path / "dist" / SDIST, "demo-1.4.0/PKG-INFO", _pointer)
    refused(demo_built, SDIST, "PKG-INFO", "Summary", "Project-URL")


def test_a_wheel_that_no_installer_reads_is_refused(demo_built: Repo) -> None:
    """``.dist-info/WHEEL`` says ``Wheel-Version: 9.0``: the published wheel cannot be
    installed."""

    def future(members: Members) -> None:
        member = f"{INFO}/WHEEL"
        members[member] = members[member].replace(b"Wheel-Version: 1.0", b"Wheel-Version: 9.0")

    rewrite_wheel(demo_built.path / "dist" / WHEEL, future)
    refused(demo_built, WHEEL, "WHEEL", "Wheel-Version", '"9.0"', '"1.0"')


def test_an_extra_native_wheel_in_a_pure_release_is_refused(
    demo_built: Repo, tmp_path: Path
) -> None:
    """A pure project's CI adds a ``cp311-manylinux`` wheel: the pure wheel plus a native
    module. pip prefers it over the pure wheel."""
    compiled = shared_object(tmp_path / "cc", "_fast", "int PyInit__fast(void) { return 0; }")
    dist = demo_built.path / "dist"
    extra = dist / "extra.whl"
    extra.write_bytes((dist / WHEEL).read_bytes())
    tag = f"{CP}-{CP}-manylinux_2_17_x86_64"

    def native(members: Members) -> None:
        members[f"demo/_fast.{CP.replace('cp', 'cpython-')}-x86_64-linux-gnu.so"] = compiled
        wheel = members[f"{INFO}/WHEEL"].decode()
        wheel = wheel.replace("Root-Is-Purelib: true", "Root-Is-Purelib: false")
        members[f"{INFO}/WHEEL"] = wheel.replace("Tag: py3-none-any", f"Tag: {tag}").encode()

    rewrite_wheel(extra, native, f"demo-1.4.0-{tag}.whl")
    refused(demo_built, f"demo-1.4.0-{tag}.whl", "not in the release's file set")


def test_an_extra_sdist_member_and_a_symbolic_link_are_refused(demo_built: Repo) -> None:
    """An sdist member that is a symbolic link was passed over (only regular files were
    read)."""
    import io
    import tarfile

    sdist = demo_built.path / "dist" / SDIST
    raw = io.BytesIO()
    with tarfile.open(sdist) as source, tarfile.open(fileobj=raw, mode="w:gz") as target:
        for info in source.getmembers():
            target.addfile(info, source.extractfile(info) if info.isfile() else None)
        link = tarfile.TarInfo("demo-1.4.0/src/demo/settings.py")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        target.addfile(link)
    sdist.write_bytes(raw.getvalue())
    from mlrelease.wheels.artifacts import write_sums

    write_sums(sdist.parent)
    refused(demo_built, SDIST, "src/demo/settings.py")
