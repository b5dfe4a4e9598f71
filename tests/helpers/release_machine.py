"""The stateful adversary of the release flow: a Hypothesis ``RuleBasedStateMachine`` over real
repositories (a bare origin, the maintainer's clone, a colleague's clone) and a package index
(pypiserver on 127.0.0.1, seen through three views that give sha256, md5 or no hash).

Rules play three actors. The maintainer runs mlrelease (cut, prepare, rc, build, bind, verify,
publish, promote, cherry-picks, the whole checklist), each possibly killed at a fault point.
A colleague pushes an RC tag by hand, force-pushes the release branch, pushes or moves a final
tag (also in the middle of the maintainer's command, after it read origin and before it pushes),
replaces a binding, uploads a foreign file, picks a fix by hand or reverts it. The
environment rebuilds or swaps ``dist/``, changes the index's hash algorithm, and the user edits
a file. After every step, every invariant is checked (:mod:`helpers.release_oracle`): what
mlrelease did in a maintainer's step must keep them.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from helpers import release_installers as installers
from helpers import release_oracle as oracle
from helpers import release_reference_rules as reference_rules
from helpers.dist import build_dist
from helpers.error_index import Proxy
from helpers.release import FILES, PYPROJECT, push_demo
from mlrelease.cli import main

RC_TAGS = ("v1.4.0-rc1", "v1.4.0-rc2")
FIX_LINE = "empty answers are handled"
MACHINE_STEPS = """
[[tool.mlrelease.release.checklist]]
id = "publish"
title = "Publish the bound files"
run = ["mlrelease", "release", "publish", "--rc", "{rc_tag}", "--execute"]

[[tool.mlrelease.release.checklist]]
id = "promote"
title = "Promote"
run = ["mlrelease", "release", "promote", "--rc", "{rc_tag}", "--repository-url", "{index}",
       "--execute", "--push"]
"""
KILLS = {
    "cut": ["cut:after:branch", "cut:after:journal", "cut:after:bump", "cut:after:commit-main",
            "cut:after:edit:README.md", "cut:after:commit-branch", "cut:after:push"],
    "prepare": ["prepare:after:journal", "prepare:after:bump", "prepare:after:changelog",
                "prepare:after:commit", "prepare:after:push"],
    "rc": ["rc:after:tag", "rc:after:push"],
    "bind": ["bind:after:store", "bind:after:object", "bind:after:ref", "bind:after:push"],
    "publish": ["publish:after:demo-1.4.0-py3-none-any.whl", "publish:after:publish"],
    "promote": ["promote:after:tag", "promote:after:push"],
    "checklist": ["checklist:after:cut", "checklist:after:prepare", "checklist:after:rc",
                  "checklist:after:bind", "checklist:after:publish", "cut:after:bump",
                  "bind:after:push", "publish:after:publish", "promote:after:tag"],
}  # fmt: skip


def killed_or_not(verb: str) -> st.SearchStrategy[str | None]:
    """No kill most of the time; otherwise one of the verb's fault points."""
    return st.one_of(st.just(None), st.sampled_from(KILLS[verb]))


def pyproject(index_url: str) -> str:
    """The demo project's pyproject, its checklist publishing to and checking ``index_url``."""
    text = PYPROJECT.replace(
        "[tool.mlrelease.release]\n", f'[tool.mlrelease.release]\nindex = "{index_url}"\n', 1
    )
    promote = text.index('[[tool.mlrelease.release.checklist]]\nid = "promote"')
    end = text.index("[tool.bumpversion]")
    return text[:promote] + MACHINE_STEPS.lstrip() + "\n\n" + text[end:]


def make_template(base: Path, index_url: str) -> Path:
    """The template world: the demo project (with NOTES.md) on main, pushed to a bare origin."""
    files = {**FILES, "pyproject.toml": pyproject(index_url), "NOTES.md": "# Notes\n\nfirst\n"}
    push_demo(base, files)
    return base


@dataclass
class Harness:
    """What every example shares: the template world, the index folder and its three views."""

    template: Path
    index: Path
    urls: dict[str, str]
    scratch: Path
    steps: int = 0
    examples: int = 0
    kills: int = 0
    refusals: int = 0
    checks: int = 0
    """Invariant checks: one after every step of every actor (and one at the start)."""
    log: list[str] = field(default_factory=list)
    proxy: Proxy | None = None
    """The index's one URL (the configured ``index``): a proxy in front of the view of the
    moment, answering error pages while the environment says so."""


def run(root: Path, *args: str, kill: str | None = None) -> tuple[int, str]:
    """``mlrelease --root ROOT ARGS``: in this process (fast), or killed at ``kill`` in a child."""
    if kill is None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = main(["--root", str(root), *args])
        return code, out.getvalue()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLRELEASE_FAULT")}
    env["MLRELEASE_FAULT"] = kill
    done = subprocess.run(
        [sys.executable, "-m", "mlrelease", "--root", str(root), *args],
        cwd=root, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    return done.returncode, done.stdout + done.stderr


def sh(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)


def copy_world(template: Path, scratch: Path) -> tuple[Path, Path, Path, Path]:
    """A new world for one example: ``template`` copied into a new folder under ``scratch``,
    its maintainer's clone pointed at the copy's bare origin, and a colleague's clone of that
    origin; as (folder, maintainer's clone, origin, colleague's clone)."""
    base = Path(tempfile.mkdtemp(dir=scratch))
    shutil.copytree(template, base / "w", symlinks=True)
    work, origin = base / "w/work", base / "w/origin.git"
    sh(work, "remote", "set-url", "origin", str(origin))
    colleague = base / "colleague"
    subprocess.run(["git", "clone", "-q", str(origin), str(colleague)], check=True)
    return base, work, origin, colleague


class ReleaseMachine(RuleBasedStateMachine):
    """One release of the demo project, 1.4.0, played by the maintainer against the others."""

    harness: Harness

    @initialize(prefix=st.integers(0, 8), data=st.data())
    def fresh_world(self, prefix: int = 0, data: st.DataObject | None = None) -> None:
        """A new world, the release already ``prefix`` steps along, each possibly killed (so
        that every example, the short ones too, reaches binding, publishing and promotion)."""
        self._fresh()
        for _ in range(prefix):
            self.next_step(data)

    def _fresh(self) -> None:
        h = self.harness
        h.examples += 1
        self.base, self.work, self.origin, self.colleague = copy_world(h.template, h.scratch)
        for path in h.index.iterdir():
            path.unlink()
        self.view = "sha256"
        self.error_pages: str | None = None
        self.genuine = oracle.Genuine()
        self.marks: dict[str, str] = {}
        self.found: list[str] = []
        installers.reset(self)

    def teardown(self) -> None:
        reference_rules.forget(self)
        shutil.rmtree(self.base, ignore_errors=True)

    # --- the maintainer ---------------------------------------------------------------------

    def maintainer(self, *args: str, kill: str | None = None) -> int:
        """Run mlrelease as the maintainer and judge what it did (before and after)."""
        return self.maintainer_in(self.work, *args, kill=kill)

    def maintainer_in(self, where: Path, *args: str, kill: str | None = None) -> int:
        """:meth:`maintainer` in ``where`` (the clone, or a linked worktree of it)."""
        h = self.harness
        h.steps += 1
        before = oracle.take(self.work, self.origin, h.index, self.marks)
        if h.proxy is not None:  # the index as the environment left it
            h.proxy.upstream, h.proxy.mode = h.urls[self.view], self.error_pages
        seen = installers.before(self)  # #48: the index as installers read it, fork tags
        fork = self.base / "fork.git"
        forked = oracle.refs(fork) if fork.exists() else {}
        code, out = run(where, *args, kill=kill)
        if fork.exists() and oracle.refs(fork) != forked:
            self.found.append(f"{' '.join(args)}: pushed to the fork {fork}, not origin")
        h.kills += code < 0
        h.refusals += code > 0
        assert "Traceback" not in out, out
        self._learn_bindings()
        after = oracle.take(self.work, self.origin, h.index, self.marks)
        found = oracle.violations(
            self.work, self.origin, before, after, self.genuine, self.build_of
        )
        found += installers.after(self, seen, out)
        self.found += [f"{' '.join(args)} (kill {kill}): {v}" for v in found]
        why = " ".join(out.split())[-300:] if code > 0 else ""
        h.log.append(f"{' '.join(args)} kill={kill} -> {code} {why}")
        return code

    def _learn_bindings(self) -> None:
        for ref, blob in oracle.refs(self.work, "refs/mlrelease/bound").items():
            rc, digest = ref[len(oracle.BOUND) :].rsplit("/", 1)
            if rc not in self.genuine.bindings:
                self.genuine.bindings[rc] = (digest, oracle.manifest_files(self.work, blob))

    def build_of(self, commit: str) -> dict[str, str]:
        """The demo build of ``commit``'s tree (deterministic), by name and SHA-256: exported
        from origin, with no configuration from the environment (whatever this clone's setup:
        its filters, attributes and line endings are the adversary's)."""
        if commit not in self.genuine.builds:
            with tempfile.TemporaryDirectory(dir=self.harness.scratch) as tmp:
                tree = Path(tmp) / "tree"
                tree.mkdir()
                env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_CONFIG_")}
                env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
                archive = subprocess.run(
                    ["git", "archive", commit],
                    cwd=self.origin,
                    env=env,
                    capture_output=True,
                    check=True,
                ).stdout
                subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
                built = build_dist(tree, Path(tmp) / "dist")
                self.genuine.builds[commit] = oracle.index_files(built[0].parent)
        return self.genuine.builds[commit]

    def newest_rc(self) -> str:
        tags = oracle.refs(self.origin, "refs/tags")
        return next((t for t in reversed(RC_TAGS) if f"refs/tags/{t}" in tags), RC_TAGS[0])

    def next_verb(self) -> str:
        """The next step of the release as the world shows it (the maintainer's own order)."""
        tags = oracle.refs(self.origin, "refs/tags")
        if "refs/heads/release/1.4" not in oracle.refs(self.work, "refs/heads"):
            return "cut"
        if '"1.4.0"' not in oracle.git(
            self.work, "show", "refs/heads/release/1.4:src/demo/__init__.py"
        ):
            return "prepare"
        if not any(f"refs/tags/{t}" in tags for t in RC_TAGS):
            return "rc"
        if not oracle.refs(self.origin, "refs/mlrelease/bound"):
            return "bind"
        if not (self.work / "build/release-verify/report.json").exists():
            return "verify"
        return "publish" if not oracle.index_files(self.harness.index) else "promote"

    @rule(data=st.data())
    def next_step(self, data: st.DataObject | None) -> None:
        """The next step of the release, so that short examples reach promotion too; killed
        at one of its own fault points a third of the time."""
        verb = self.next_verb()
        kill = data.draw(killed_or_not(verb), label="kill") if data and verb in KILLS else None
        if verb == "bind":
            self.build()
        if verb == "verify":
            return self.verify()
        if verb == "promote":
            return self.promote(kill, False)
        getattr(self, verb)(kill)

    @rule(kill=killed_or_not("cut"))
    def cut(self, kill: str | None) -> None:
        self.maintainer("release", "cut", "--version", "1.4", "--execute", "--push", kill=kill)

    @rule(kill=killed_or_not("prepare"))
    def prepare(self, kill: str | None) -> None:
        args = ("release", "prepare", "--version", "1.4.0", "--execute", "--push")
        self.maintainer(*args, kill=kill)

    @rule(kill=killed_or_not("rc"))
    def rc(self, kill: str | None) -> None:
        self.maintainer("release", "rc", "--execute", "--push", kill=kill)

    @rule()
    def build(self) -> None:
        """The maintainer builds the checked-out tree into dist/ (the wheels step: pypa/build)."""
        shutil.rmtree(self.work / "dist", ignore_errors=True)
        build_dist(self.work, self.work / "dist")

    @rule(kill=killed_or_not("bind"))
    def bind(self, kill: str | None) -> None:
        rc = self.newest_rc()
        sh(self.work, "switch", "-q", "--detach", rc)
        self.maintainer("release", "bind", "--rc", rc, "--execute", "--push", kill=kill)
        sh(self.work, "switch", "-q", "release/1.4")

    @rule()
    def verify(self) -> None:
        self.maintainer("verify")

    @rule(kill=killed_or_not("publish"))
    def publish(self, kill: str | None) -> None:
        url = self.index_url()
        args = ("release", "publish", "--version", "1.4.0", "--repository-url", url, "--execute")
        self.maintainer(*args, kill=kill)

    @rule(kill=killed_or_not("promote"), publish=st.booleans())
    def promote(self, kill: str | None, publish: bool) -> None:
        url = self.index_url()
        extra = ("--publish",) if publish else ()
        args = ("release", "promote", "--version", "1.4.0", "--repository-url", url, *extra)
        self.maintainer(*args, "--execute", "--push", kill=kill)

    def index_url(self) -> str:
        """The URL the maintainer gives: the index's one URL (the proxy), else the view's."""
        proxy = self.harness.proxy
        return proxy.url if proxy is not None else self.harness.urls[self.view]

    @rule(kill=killed_or_not("checklist"))
    def checklist(self, kill: str | None) -> None:
        self.maintainer("release", "checklist", "--version", "1.4.0", "--execute", kill=kill)

    @rule()
    def cherry_picks(self) -> None:
        self.maintainer("release", "cherry-picks", "--branch", "release/1.4", "--execute", "--push")

    @rule()
    def sync(self) -> None:
        """The maintainer takes origin's branches (a fast-forward, or origin's after a force)."""
        sh(self.work, "fetch", "-q", "origin")
        if sh(self.work, "status", "--porcelain").stdout:
            return
        for branch in ("main", "release/1.4"):
            if sh(self.work, "rev-parse", "-q", "--verify", f"origin/{branch}").returncode == 0:
                sh(self.work, "branch", "-f", branch, f"origin/{branch}")
        sh(self.work, "switch", "-q", "release/1.4")
        sh(self.work, "reset", "-q", "--hard", "HEAD")

    from helpers.release_adversary import (
        colleague_change,
        colleague_final_tag,
        colleague_fix_on_main,
        colleague_force_push,
        colleague_hand_pick,
        colleague_push_rc,
        colleague_replace_binding,
        colleague_revert_pick,
        colleague_upload,
        index_error_pages,
        index_hash,
        rebuild_dist,
        user_edit,
        user_resolve,
    )
    from helpers.release_environment import (
        bind_in_worktree,
        clone_shape,
        fork_tags,
        tag_like_branch,
        user_git_config,
    )

    # --- #48: the index as installers read it, a fork's tags (helpers.release_installers) ---
    from helpers.release_installers import (
        drop_fork_tags,
        fork_rc_tag,
        index_entry_url,
        index_states,
    )

    # --- the push gatekeeper: a colleague moves origin inside a command (helpers.release_races)
    from helpers.release_races import maintainer_raced

    # --- #48: what bind compares (helpers.release_reference_rules): doctored dist/, the
    # clone's configuration, writes to the reference cache ---
    from helpers.release_reference_rules import (
        clone_configuration,
        dist_doctored,
        reference_cache_written,
    )

    @invariant()
    def invariants_hold(self) -> None:
        self.harness.checks += 1
        found = self.found + oracle.standing(self.work, self.origin, FIX_LINE)
        assert not found, "\n".join(found)
