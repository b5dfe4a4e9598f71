"""An ELF extension as the loader sees it, for comparing a rebuilt extension with a release's
(pure; pyelftools reads the file).

Two builds of one source by one compiler differ where the compiler writes the build folder:
the debug sections (``DW_AT_comp_dir``, ``.debug_line_str``) and the GNU build-id, a hash
over the output. :func:`image` keeps what the loader maps and runs: the ELF header (but where
the section table lies), the program headers, and every allocated section's name, type, flags,
address and bytes, the build-id note's bytes aside. Sections the loader never maps (debug info,
``.comment``, symbol tables) are left out: that is the normalisation, and the allowed class
``compiled-normalised`` names it.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Mapping
from typing import Any

from mlrelease.edges import installed

BUILD_ID = ".note.gnu.build-id"
HEADER = ("e_ident", "e_type", "e_machine", "e_version", "e_entry", "e_flags", "e_phnum")


def image(data: bytes) -> list[Any] | None:
    """What the loader maps of an ELF file (see the module); None when it is no ELF file."""
    installed.require("elftools", extra="wheels")
    from elftools.common.exceptions import ELFError
    from elftools.elf.constants import SH_FLAGS
    from elftools.elf.elffile import ELFFile

    try:
        elf = ELFFile(io.BytesIO(data))
        header = [_plain(elf.header[k]) for k in HEADER]
        segments = [sorted(_plain(s.header).items()) for s in elf.iter_segments()]
        sections = []
        for section in elf.iter_sections():
            if not section["sh_flags"] & SH_FLAGS.SHF_ALLOC:
                continue
            kept = section.name != BUILD_ID and section["sh_type"] != "SHT_NOBITS"
            body = section.data() if kept else b""
            where = (section["sh_type"], section["sh_flags"], section["sh_addr"])
            sections.append([section.name, *where, section["sh_size"], _sha(body)])
    except (ELFError, ValueError, KeyError, IndexError, OSError):
        return None
    return [header, segments, sections]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _plain(value: Any) -> Any:
    """pyelftools' containers as plain, comparable data."""
    if hasattr(value, "items"):  # a dict, or pyelftools' Container
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value if isinstance(value, (int, str, bytes, float)) or value is None else str(value)


def same_image(ours: bytes, ref: bytes) -> bool:
    """Whether two ELF files map the same image (False when either is not ELF)."""
    mine = image(ours)
    return mine is not None and mine == image(ref)


def image_digest(data: bytes) -> str:
    """SHA-256 of the bytes, or of the image for an ELF file: what a rebuild reproduces."""
    found = image(data) if data.startswith(b"\x7fELF") else None
    if found is None:
        return hashlib.sha256(data).hexdigest()
    return "elf:" + hashlib.sha256(repr(found).encode()).hexdigest()


def image_digests(data: Mapping[str, bytes]) -> dict[str, str]:
    """:func:`image_digest` of each value of ``data``, by key (an archive's members at once)."""
    return {name: image_digest(found) for name, found in data.items()}
