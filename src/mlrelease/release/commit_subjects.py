"""What a commit's subject says about the change it carries: the pull request it came from, the
pull requests a back-port names, and the subject without what back-ports add or drop. Pure: the
cherry-picks (:mod:`.picks`) read subjects through it."""

from __future__ import annotations

import re

_PR = re.compile(r"\(#(\d+)\)\s*$|^Merge pull request #(\d+)")


def pr_number(subject: str) -> str | None:
    """The pull request a subject names (GitHub's ``(#123)`` suffix or merge subject)."""
    found = _PR.search(subject)
    return (found[1] or found[2]) if found else None


_NAMED = re.compile(r"#(\d+)\b|\bcherry[- ]?picks?\b((?:[\s,&]+(?:and\s+)?\d{3,}\b)+)", re.I)


def named_prs(subject: str) -> set[str]:
    """Pull requests a pick's subject names: its own ``(#123)``, another ``#N`` (PyTorch's
    ``[cherry-pick][release/2.13] fix (#4321) (#4373)``, ``cherrypick: PRs #4371, #4387``) and
    bare numbers after ``cherry pick`` (``cherry pick 4247 4256 from main``)."""
    found: set[str] = set()
    for m in _NAMED.finditer(subject):
        found |= {m[1]} if m[1] else set(re.findall(r"\d{3,}", m[2]))
    return found


def normalised(subject: str) -> str:
    """A subject without what back-ports add or drop: case, spacing, a ``[1.4]``-style prefix,
    a ``cherry-pick:``/``backport:`` prefix, the ``(#123)`` suffix, a final period."""
    text = re.sub(r"\(#\d+\)\s*$", "", subject)
    text = re.sub(r"^\s*\[[^\]]*\]\s*", "", text)
    text = re.sub(r"^\s*(cherry[- ]pick(ed)?|back[- ]?port)\s*[:\-]?\s*", "", text, flags=re.I)
    return " ".join(text.lower().split()).rstrip(".")
