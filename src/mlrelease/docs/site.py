"""The versioned site folder: one sub-folder per frozen version, ``switcher.json``, a root
redirect. Reading, checking and atomically replacing its parts; nothing else writes there.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from mlrelease.docs import switcher
from mlrelease.docs.switcher import Entry
from mlrelease.edges import git


def read_switcher(site: Path) -> list[Entry] | None:
    """The site's switcher entries (validated), or None when it has no switcher.json yet."""
    path = site / switcher.FILENAME
    if not path.is_file():
        return None
    return switcher.parse(path.read_text(encoding="utf-8"), str(path))


def problems(site: Path) -> list[str]:
    """What is wrong with a frozen site: an invalid switcher.json or a listed version whose
    folder (with an index.html) is missing. Empty when the site is sound."""
    path = site / switcher.FILENAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        return [f"{path.name}: not valid JSON ({exc})"]
    found = [f"{path.name}: {p}" for p in switcher.problems(data)]
    if found:
        return found
    for entry in data:
        folder = site / str(entry["version"])
        if not (folder / "index.html").is_file():
            found.append(
                f"{path.name} lists {entry['version']!r} but {folder.name}/index.html "
                "does not exist in the site"
            )
    return found


def write_text(path: Path, text: str) -> None:
    """Replace ``path`` atomically: a crash leaves the old file or the new, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.chmod(temporary, 0o644)  # mkstemp makes it private; a web server must read it
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def replace_folder(built: Path, target: Path) -> None:
    """Put the built HTML at ``target``, replacing what was there only once the copy is whole."""
    staging = target.with_name(f".{target.name}.new")
    retired = target.with_name(f".{target.name}.old")
    for leftover in (staging, retired):  # from an earlier crash
        if leftover.exists():
            shutil.rmtree(leftover)
    shutil.copytree(built, staging)
    if target.exists():
        target.rename(retired)
    staging.rename(target)
    if retired.exists():
        shutil.rmtree(retired)


def write_index(site: Path, entries: list[Entry]) -> None:
    """switcher.json, the root redirect and ``.nojekyll`` (GitHub Pages would otherwise hide
    Sphinx's ``_static`` folders)."""
    write_text(site / switcher.FILENAME, switcher.render(entries))
    write_text(site / "index.html", switcher.redirect_page(entries))
    (site / ".nojekyll").touch()


def is_checkout(site: Path) -> bool:
    """True when the site folder is itself the root of a git checkout (e.g. of gh-pages)."""
    return (site / ".git").exists()


def commit(site: Path, message: str) -> str | None:
    """Commit every change in a site checkout; the new commit's SHA, or None if nothing changed."""
    git.run(site, "add", "--all", ".")
    if not git.run(site, "status", "--porcelain"):
        return None
    git.run(site, "commit", "--quiet", "-m", message)
    return git.run(site, "rev-parse", "HEAD")
