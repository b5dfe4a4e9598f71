"""A submission's README and licence: the sections the Model Zoo CI proposal asks for (pure
but for reading through the submission's open folder, :class:`~.safefile.Root`)."""

from __future__ import annotations

from mlrelease.models import safefile
from mlrelease.models.escaping import md_code, md_text
from mlrelease.models.safefile import Root

README_NAMES = ("README.md", "readme.md", "README.MD", "Readme.md")
SECTIONS: dict[str, tuple[str, ...]] = {
    "description": ("description", "overview", "model", "summary", "use case"),
    "license": ("license", "licence"),
    "dataset": ("dataset", "data set", "training data"),
    "accuracy": ("accuracy", "validation", "evaluation", "results", "metrics"),
}
"""Required README sections, each found by any heading containing one of its words."""
LICENSE_FILES = ("LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING")
MAX_HEADING_CHARS = 200
"""A longer line is text, not a heading (and is never scanned as one)."""


def heading_text(line: str) -> str | None:
    """The text of an ATX heading line (``## Title ##``), else None. Linear time, no regex."""
    if len(line) > MAX_HEADING_CHARS:
        return None
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith("#"):
        return None
    level = len(stripped) - len(stripped.lstrip("#"))
    rest = stripped[level:]
    if level > 6 or (rest and not rest[0].isspace()):
        return None
    return rest.strip().rstrip("#").strip()


def readme_sections(text: str) -> dict[str, str]:
    """Markdown headings (lower-cased) -> the text under them, up to the next heading.

    A heading that appears twice keeps the first non-empty text.
    """
    sections: dict[str, str] = {}
    current = None
    body: list[str] = []

    def close() -> None:
        if current is not None and (current not in sections or not sections[current]):
            sections[current] = "\n".join(body).strip()

    for line in text.splitlines():
        heading = heading_text(line)
        if heading is not None:
            close()
            current, body = heading.lower(), []
        elif current is not None:
            body.append(line)
    close()
    return sections


def check_readme(root: Root) -> tuple[list[str], list[str]]:
    """(reasons, found) for the README and the license, as Markdown."""
    names = {e.name for e in root.entries()}
    readme = next((n for n in README_NAMES if n in names), None)
    missing = "no README.md with the model's description, license, dataset and accuracy notes"
    if readme is None:
        return [missing], []
    try:
        text = root.read_text(readme, "README", safefile.MAX_README_BYTES)
    except safefile.UnsafeFile as exc:
        return [f"{missing}: {md_text(exc)}"], []
    sections = readme_sections(text)
    reasons, found = [], [md_code(readme)]
    license_file = next((n for n in LICENSE_FILES if n in names), None)
    license_problem = (
        root.check(license_file, "license file", safefile.MAX_README_BYTES)
        if license_file
        else None
    )
    if license_problem:
        reasons.append(md_text(license_problem))
        license_file = None
    for need, words in SECTIONS.items():
        matching = [h for h in sections if any(w in h for w in words)]
        # A title such as "# TinyAdd model" matches "model" but holds no text: an ordinary
        # README, so the first matching heading *with* text counts.
        heading = next((h for h in matching if sections[h]), matching[0] if matching else None)
        if heading is None:
            if need == "license" and license_file:
                found.append(md_code(license_file))
                continue
            reasons.append(
                f"README.md has no {need} section (a heading naming {' / '.join(words[:3])})"
            )
        elif not sections[heading]:
            reasons.append(f"README.md section '{md_text(heading)}' is empty")
        else:
            found.append(f"README {need} ('{md_text(heading)}')")
    return reasons, found
