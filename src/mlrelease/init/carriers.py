"""Every other file that carries the version: the repository searched for the current version
string (Bazel's ``MODULE.bazel``, a C/C++ version macro, a Dockerfile, CMake, a conda recipe,
Sphinx's ``conf.py``), each place proposed as an exact bump-my-version search only where the
place says it is this project's version (a key naming a version, and no other project), or left
with the reason (a changelog's or the docs' history, a pin of another package, a CI entry such
as ``onnx_version``, a file git does not track); and the version split into C preprocessor
macros, one per part (``#define X_MAJOR_VERSION 2``), each moved with bump-my-version's own part
of the version (``{current_minor}`` -> ``{new_minor}``). Pure: the texts are read by
:func:`mlrelease.init.snapshot.texts_containing`."""

from __future__ import annotations

import re
from collections.abc import Mapping, Set
from dataclasses import dataclass, field

from packaging.version import InvalidVersion, Version

from mlrelease.init.version_source import VersionFile

_PIN = re.compile(r"(==|>=|<=|~=|!=|===|<|>|@)\s*v?$")
"""Just before the version: a requirement's operator (``torch==2.13.0``): another package's."""
_HISTORY = re.compile(r"^(changelog|changes|history|news|release[-_]?notes)\b", re.I)
_DOCS = (".md", ".rst", ".txt.in", ".html", ".rst.txt", ".md.txt")
"""Documentation, and Sphinx's copies of its sources in a built site (``_sources/*.rst.txt``:
Torch-TensorRT commits its site, with a program listing of ``macros.h``)."""
_LOCKS = (".lock", "-lock.json", "lock.yaml", "lock.yml")


@dataclass(frozen=True)
class Carriers:
    """The places to bump with the version, and the ones left, each with its reason."""

    files: list[VersionFile] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    split: list[str] = field(default_factory=list)
    """What each set of split part macros is, and how it moves (the findings' reason)."""


_KEY = re.compile(r"(?P<key>[A-Za-z0-9_.-]+)[^A-Za-z0-9_.-]*$")
"""The name just before the value (``onnx_version: '``, ``#define X_VERSION "``)."""
_SAYS = re.compile(r"version", re.I)
_GENERIC = frozenset(
    {
        *("", "the", "this", "my", "our", "package", "pkg", "project", "cmake_project"),
        *("module", "lib", "library", "app", "current", "release", "build", "full", "short"),
        *("long", "base"),
    }
)
"""Words before ``version`` in a key that name no other project (``PACKAGE_VERSION``)."""


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name.lower()).strip("_")


def _says_so(path: str, before: str, names: Set[str]) -> str | None:
    """Why the place before a version does not say it is this project's (``names``: its
    distribution and package names, normalised), or None when it does: a key naming a
    version (Sphinx's ``release`` in a ``conf.py`` too), and no other project."""
    found = _KEY.search(before)
    key = found["key"] if found else ""
    if path.rsplit("/", 1)[-1] == "conf.py" and key in ("release", "version"):
        return None  # Sphinx: the documented project's version
    words = _SAYS.split(key)
    if len(words) < 2:
        return "nothing before it says it is the version (no key naming a version)"
    owner = _normal(words[0])
    if owner in _GENERIC or owner in names or not names:
        return None
    return f"{key} names another project ({owner})"


_VENDORED = re.compile(
    r"(^|/)(_?vendor(ed)?|third[-_]?party|_?extern(al)?s?|node_modules|site-packages)/", re.I
)
"""A folder holding copies of other projects (pip's ``_vendor``, ``third_party``, ``extern``)."""

_BUMPVERSION_CONFIGS = (".bumpversion.cfg", ".bumpversion.toml")


def _file_left(path: str) -> str | None:
    """Why no version in the file ``path`` is the project's own to bump, or None."""
    name = path.rsplit("/", 1)[-1]
    vendored = _VENDORED.search(path)
    if vendored:
        return (
            f"a copy of another project (under {vendored[2]}/): its version is that project's, "
            "whatever number it shares"
        )
    if name in _BUMPVERSION_CONFIGS:
        return "bump-my-version's own configuration: its entries are carried into the table"
    if _HISTORY.match(name):
        return "changelog history: released versions stay as written"
    if name.lower().endswith(_DOCS):
        return "documentation: it names versions as history or instructions; edit by hand"
    if name.lower().endswith(_LOCKS):
        return "a lock file: pins of other packages"
    return None


def _why_left(path: str, before: str, names: Set[str]) -> str | None:
    """Why an occurrence of the version is not the project's own version, or None."""
    found = _file_left(path)
    if found is not None:
        return found
    if _PIN.search(before):
        return "a pin of another package that happens to share the number"
    if re.search(r"(^|[^\w])current_version\s*=\s*['\"]?$", before):
        return "bump-my-version's current_version: its own configuration, which it moves itself"
    return _says_so(path, before, names)


def _template(line: str, current: str, token: str) -> str:
    """The line as a bump-my-version search (``{`` and ``}`` escaped), the version a token."""
    escaped = line.strip().replace("{", "{{").replace("}", "}}")
    return escaped.replace(current.replace("{", "{{"), token)


def carriers(
    texts: Mapping[str, str], current: str, known: set[str], names: Set[str] = frozenset()
) -> Carriers:
    """The occurrences of ``current`` (a whole version, not a prefix of a longer one) in
    ``texts`` beyond the ``known`` version files: one exact search per line that says it is
    the version of the project ``names`` (its distribution and package names) names."""
    found = Carriers()
    owners = {_normal(n) for n in names}
    # Not a prefix of a longer version: 1.16.1.dev0, 1.16.1.post1, 1.16.1.2.
    longer = r"(?![\w]|\.(?:dev|post|rc|a|b)?\d)"
    token = re.compile(r"(?<![\w.])" + re.escape(current) + longer)
    for path in sorted(texts):
        if path in known:
            continue
        seen: set[str] = set()
        for number, line in enumerate(texts[path].splitlines(), 1):
            match = token.search(line)
            if match is None:
                continue
            why = _why_left(path, line[: match.start()], owners)
            if why is not None:
                found.left.append(f"{path}:{number}: {why}")
                continue
            search = _template(line, current, "{current_version}")
            if search in seen:
                continue
            seen.add(search)
            found.files.append(
                VersionFile(path, search, _template(line, current, "{new_version}"), line=number)
            )
    return found


def writer_of(path: str, writers: Mapping[str, str]) -> str | None:
    """The build file that opens ``path``'s name for writing on one line (tf2onnx's setup.py:
    ``with open(os.path.join(SRC_DIR, 'version.py'), 'w')``), if any."""
    base = re.escape(path.rsplit("/", 1)[-1])
    opened = re.compile(rf"""open\(.*['"/]{base}['"].*['"][wa]b?\+?['"]""")
    return next((w for w, t in sorted(writers.items()) if opened.search(t)), None)


def written(texts: Mapping[str, str], writers: Mapping[str, str]) -> tuple[set[str], list[str]]:
    """The tracked files a build file writes (committed output, stale between builds: tf2onnx's
    tf2onnx/version.py, left at 1.16.1 for 1.17.0), and why each is no version file."""
    found, left = set(), []
    for path in sorted(texts):
        writer = writer_of(path, writers)
        if writer:
            found.add(path)
            left.append(
                f"{path}: never a version file: {writer} writes it at each build (the version "
                f"comes from what {writer} reads)"
            )
    return found, left


def untracked(texts: Mapping[str, str], ignored: Set[str], writers: Mapping[str, str]) -> list[str]:
    """Why each file git does not track is no version file, whatever it says: the build
    writes it (``writers``: a tracked build file that names it) or nobody committed it."""
    left = []
    for path in sorted(texts):
        base = path.rsplit("/", 1)[-1]
        writer = next((w for w, t in sorted(writers.items()) if base in t), None)
        how = "git ignores it" if path in ignored else "git does not track it"
        made = f", and {writer} writes it (the version comes from what {writer} reads)"
        left.append(f"{path}: never a version file: {how}" + (made if writer else ""))
    return left


_PART_MACRO = re.compile(
    r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w*?(?P<part>MAJOR|MINOR|PATCH|MICRO)\w*)"
    r"[ \t]+(?P<value>\d+)(?![\w.])",
    re.M | re.I,
)
"""A C preprocessor macro holding one part of a version (``#define TORCH_TENSORRT_MINOR_VERSION
13``): the part's word anywhere in the name."""
_PART_OF = {"major": "major", "minor": "minor", "patch": "patch", "micro": "patch"}
PARTS = ("major", "minor", "patch")
"""The release parts of the ``parse`` pattern ``init`` proposes (bump-my-version's context
names them ``current_<part>`` and ``new_<part>``)."""


def _release(current: str) -> tuple[int, int, int] | None:
    """The three release numbers of ``current``, or None when it has not exactly three."""
    try:
        release = Version(current).release
    except InvalidVersion:
        return None
    return (release[0], release[1], release[2]) if len(release) == 3 else None


def _macro_sets(text: str) -> dict[tuple[str, str], dict[str, re.Match[str]]]:
    """The part macros of ``text`` grouped by name around the part's word: (before, after) ->
    part -> the first macro of that part."""
    sets: dict[tuple[str, str], dict[str, re.Match[str]]] = {}
    for m in _PART_MACRO.finditer(text):
        name, at = m["name"], m.start("name")
        stem = (name[: m.start("part") - at], name[m.end("part") - at :])
        sets.setdefault(stem, {}).setdefault(_PART_OF[m["part"].lower()], m)
    return sets


def split_macros(texts: Mapping[str, str], current: str) -> Carriers:
    """The version written as one macro per part: every file whose major, minor and patch
    macros of one name (``X_{MAJOR,MINOR,PATCH}_VERSION``) hold the parts of ``current``, each
    macro proposed with its part as bump-my-version renders it; a complete set that holds
    another version is left with what it says (another package's, or stale)."""
    found = Carriers()
    release = _release(current)
    if release is None:
        return found
    for path in sorted(texts):
        text = texts[path]
        for (head, tail), macros in _macro_sets(text).items():
            if len(macros) < 3:
                continue
            names = f"{head}{{MAJOR,MINOR,PATCH}}{tail}"
            values = tuple(int(macros[p]["value"]) for p in PARTS)
            first = _line(text, macros["major"].start())
            why = _file_left(path)
            if why is not None:
                found.left.append(f"{path}:{first}: {why}")
                continue
            if values != release:
                said = ".".join(map(str, values))
                found.left.append(
                    f"{path}:{first}: split version macros {names} say {said}, not {current}: "
                    "another package's version, or stale (bump them by hand if they are ours)"
                )
                continue
            for part in PARTS:
                found.files.append(_part_entry(path, text, macros[part], part))
            found.split.append(
                f"{path}:{first} splits the version into macros {names}: each moves with its "
                "part ({current_major} -> {new_major}, and so on)"
            )
    return found


def _part_entry(path: str, text: str, m: re.Match[str], part: str) -> VersionFile:
    """The macro's line as a bump-my-version search, its value the part's token."""
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.end())
    line = text[start : end if end >= 0 else len(text)]
    head = line[: m.start("value") - start].lstrip().replace("{", "{{").replace("}", "}}")
    tail = line[m.end("value") - start :].rstrip().replace("{", "{{").replace("}", "}}")
    return VersionFile(
        path,
        f"{head}{{current_{part}}}{tail}",
        f"{head}{{new_{part}}}{tail}",
        line=_line(text, m.start()),
    )


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1
