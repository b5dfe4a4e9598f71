"""The release machine's race (:mod:`helpers.release_machine`): a colleague moves origin while
the maintainer's command runs, after it read origin and before it pushes.

The colleague acts right after the maintainer's ``git tag`` (``release rc``, ``release promote``)
or ``git commit`` (``cut``, ``prepare``); only that moment is arranged (``mlrelease.edges.git.run``
wrapped for the one in-process command), the acts and the pushes are real. Origin is read at that
moment, and what mlrelease pushed after it is judged against it (docs/release/invariants.md, "One
gatekeeper before each irreversible act"):

- (i): no RC tag pushed while origin held a final tag of its version, in any spelling, and no
  final tag pushed beside another spelling of it;
- numbering: no RC tag pushed below an RC of its version origin already held;
- (h): a branch the colleague rewound is not pushed forward again over the rewind.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import strategies as st
from hypothesis.stateful import rule

from helpers import release_oracle as oracle
from helpers.release_adversary import RARE, _fresh, _sh
from mlrelease.edges import git

TRIGGER = {"rc": "tag", "cut": "commit", "prepare": "commit", "promote": "tag"}
ARGS = {
    "cut": ("release", "cut", "--version", "1.4", "--execute", "--push"),
    "prepare": ("release", "prepare", "--version", "1.4.0", "--execute", "--push"),
    "rc": ("release", "rc", "--execute", "--push"),
    "promote": ("release", "promote", "--version", "1.4.0", "--execute", "--push"),
}
RC = re.compile(r"refs/tags/v1\.4\.0-rc(\d+)$")
FINALS = ("refs/tags/v1.4.0", "refs/tags/1.4.0")


@contextmanager
def acting_after(verb: str, act: Callable[[], None]) -> Iterator[list[str]]:
    """Let ``act`` run once, right after the next ``git VERB`` that mlrelease runs in this
    process succeeds (after the command planned, before it pushes); yields the list that says
    whether it ran."""
    real = git.run
    acted: list[str] = []

    def run(root: Path, *args: str, **kwargs: Any) -> Any:
        out = real(root, *args, **kwargs)
        if args and args[0] == verb and not acted:
            acted.append(verb)
            act()
        return out

    with mock.patch.object(git, "run", run):
        yield acted


def colleague_acts(self: Any, act: str) -> None:
    """``final``: a lightweight ``1.4.0`` (the spelling without ``v``) on origin's release
    branch; ``rc3``: an RC tag by hand above any mlrelease makes here; ``rewind``: the release
    branch force-pushed back one commit."""
    clone = _fresh(self)
    if _sh(clone, "rev-parse", "-q", "--verify", "origin/release/1.4~1").returncode != 0:
        return
    if act == "rewind":
        _sh(clone, "push", "-q", "--force", "origin", "origin/release/1.4~1:refs/heads/release/1.4")
        return
    name = {"final": "1.4.0", "rc3": "v1.4.0-rc3"}[act]
    _sh(clone, "tag", "-f", name, "origin/release/1.4")
    _sh(clone, "push", "-q", "--force", "origin", f"refs/tags/{name}")


@rule(act=st.sampled_from(["final", "rc3", "rewind"]), rare=RARE)
def maintainer_raced(self: Any, act: str, rare: int = 0) -> None:
    """The release's next step (cut, prepare, rc or promote), with the colleague's ``act`` in
    the middle of it; what it pushed after the act is judged against origin as the act left it."""
    verb = self.next_verb()
    if rare or verb not in TRIGGER:
        return
    start, seen = oracle.refs(Path(self.origin)), {}

    def acts() -> None:
        colleague_acts(self, act)
        seen.update(oracle.refs(Path(self.origin)))

    args = ARGS[verb] + (("--repository-url", self.index_url()) if verb == "promote" else ())
    with acting_after(TRIGGER[verb], acts):
        self.maintainer(*args)
    if seen:
        after = oracle.refs(Path(self.origin))
        found = judged(Path(self.origin), (start, seen, after))
        self.found += [f"release {verb} raced by {act}: {v}" for v in found]


def judged(origin: Path, moments: tuple[dict[str, str], ...]) -> list[str]:
    """What the maintainer pushed after origin was ``seen`` (``moments``: origin's refs when
    the step began, when the colleague had acted, after the step), against it."""
    start, seen, after = moments
    pushed = {r: o for r, o in after.items() if seen.get(r) != o}
    out = []
    finals = [f for f in FINALS if f in seen]
    held = [int(m[1]) for r in seen if (m := RC.match(r))]
    for ref in pushed:
        m = RC.match(ref)
        if m and finals:
            out.append(f"(i) {ref} was pushed while origin held {finals[0]}")
        others = [f for f in finals if f != ref]
        if ref in FINALS and others:
            out.append(f"(i) {ref} was pushed while origin held {others[0]}")
        if m and held and int(m[1]) < max(held):
            out.append(f"{ref} was pushed below origin's v1.4.0-rc{max(held)}")
    branch = "refs/heads/release/1.4"
    dropped, tip = start.get(branch), seen.get(branch)
    if (
        branch in pushed
        and dropped
        and tip
        and dropped != tip
        and _contains(origin, after[branch], dropped)
    ):
        out.append(
            f"(h) release/1.4 was pushed over the colleague's rewind: {dropped[:12]} is back"
        )
    return out


def _contains(origin: Path, tip: str, commit: str) -> bool:
    return bool(_sh(origin, "merge-base", "--is-ancestor", commit, tip).returncode == 0)
