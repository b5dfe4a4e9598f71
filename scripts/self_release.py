"""Release mlrelease itself, for real, in a temporary clone; write its case-study page.

    python scripts/self_release.py [--version 0.1.0] [--keep DIR]
    python scripts/self_release.py --check     # release again; fail when the page is stale

The committed HEAD of this checkout is cloned into a temporary folder, with a bare clone of it as
``origin``; two pypiserver instances on 127.0.0.1 stand in for the test index (the RC channel)
and PyPI. One committed edit in the clone, before ``cut``, adapts it to the rehearsal
(:data:`ADAPTATIONS`); then ``mlrelease release checklist --version X.Y.Z --execute`` runs every
step, from ``cut`` to ``docs-freeze``, with the clone's own mlrelease, and the manual ``announce``
step is confirmed with ``--confirm announce``. The published wheel is installed from the local
index into a clean venv and smoke-tested. Every process gets a fresh HOME, no git configuration
(``GIT_CONFIG_GLOBAL=/dev/null``) and a fixed identity; only uv's download cache is shared.

The run's facts are kept in ``docs/case-studies/self-release.json`` and the page is rendered
from them (``scripts/self_release_page.py``). ``--check`` rehearses again, writes the new page
to a temporary file and compares the deterministic parts of both (steps, statuses, commands,
evidence, file names, smoke output, the page's structure): times, dates, ports, commits and
hashes are masked, so the check is stable from run to run; a stale page or a failed step fails
it with the reason.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "scripts"))

from helpers.index import start, stop  # type: ignore[import-not-found]  # noqa: E402
from self_release_page import page  # noqa: E402

PAGE = ROOT / "docs" / "case-studies" / "self-release.md"
DATA = ROOT / "docs" / "case-studies" / "self-release.json"
DROPPED_GATES = {
    "tests": "the whole test suite: about 10 minutes on two cores, and the checklist runs "
    "`release_verify` twice (`verify`, `rc-verify`)",
    "perf": "its status probe exports and runs 24 models through torch (about 90 s a run) "
    "and then reports *skip* on a machine without a timing run: timing is `nox -s perf`",
}
"""Gates left out of the clone's ``[tool.mlrelease] gates``, and why (shown on the page)."""
IDENTITY = {
    "GIT_AUTHOR_NAME": "mlrelease self-release",
    "GIT_AUTHOR_EMAIL": "self-release@example.invalid",
    "GIT_COMMITTER_NAME": "mlrelease self-release",
    "GIT_COMMITTER_EMAIL": "self-release@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}
DROPPED_VARIABLES = (
    "VIRTUAL_ENV",
    "PYTHONPATH",
    "MLRELEASE_FAULT",
    "GITHUB_STEP_SUMMARY",
    "XDG_CACHE_HOME",
)
"""The caller's: the clone imports its own code and its own environment's, nothing else."""
TOOL_GROUPS = ("release", "wheels", "docs")
"""The clone's own environment: the release tools, twine and build, nox and invoke."""


class StepFailed(RuntimeError):
    """A command of the rehearsal failed; the message names it and where its output is."""


class Rehearsal:
    """One temporary clone with a bare origin; runs commands there and records them."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.clone, self.origin = base / "mlrelease", base / "origin.git"
        self.commands: list[dict[str, Any]] = []
        self.env = environment(base, self.clone)

    def shown(self, text: str) -> str:
        """``text`` with this run's folders named as the page names them."""
        for path, name in ((self.clone, "$CLONE"), (self.base, "$WORK"), (ROOT, "$SOURCE")):
            text = text.replace(str(path), name)
        return text

    def sh(self, *argv: str | Path, cwd: Path | None = None, echo: bool = False) -> str:
        """Run ``argv`` (in the clone by default); its output, or :class:`StepFailed`."""
        words = [str(a) for a in argv]
        began = time.monotonic()
        proc = subprocess.Popen(
            words,
            cwd=cwd or self.clone,
            env=self.env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if echo:
                sys.stderr.write(line)
        code = proc.wait()
        output = "".join(lines)
        line = self.shown(shlex.join(words))
        self.commands.append({"command": line, "exit_code": code, "seconds": _since(began)})
        if code != 0:
            log = self.base / f"failed-{len(self.commands)}.log"
            log.write_text(output, encoding="utf-8")
            raise StepFailed(f"`{line}` exited {code}; its output: {log}")
        return output


def _since(began: float) -> float:
    return round(time.monotonic() - began, 1)


def environment(base: Path, clone: Path) -> dict[str, str]:
    """The variables every process of the rehearsal gets: a fresh HOME, no git configuration,
    a fixed identity, the clone's tools first on PATH, uv's download cache kept (a cache, not
    configuration: it spares downloading torch again)."""
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_VARIABLES}
    tools = [str(clone / ".venv" / "bin"), str(Path(sys.executable).parent)]
    uv = shutil.which("uv", path=os.pathsep.join([*tools, env.get("PATH", "")]))
    if uv is None:
        raise StepFailed("uv is not on PATH nor beside this Python: `pip install uv`")
    cache = subprocess.run([uv, "cache", "dir"], capture_output=True, text=True, check=True)
    home = base / "home"
    home.mkdir(parents=True, exist_ok=True)
    env.update(IDENTITY)
    env.update(
        HOME=str(home),
        UV_CACHE_DIR=cache.stdout.strip(),
        PATH=os.pathsep.join([*tools, env.get("PATH", "")]),
        TWINE_USERNAME="self-release",
        TWINE_PASSWORD="self-release",
        COLUMNS="80",  # argparse wraps --help to the terminal: the same on every machine
    )
    return env


def make_clone(r: Rehearsal) -> str:
    """A copy of this checkout's HEAD on ``main``, a bare clone of it as origin, and the
    clone's own environment; the commit released."""
    r.sh("git", "clone", "--quiet", "--no-local", ROOT, r.clone, cwd=r.base)
    r.sh("git", "switch", "--quiet", "-C", "main")
    commit = r.sh("git", "rev-parse", "HEAD").strip()
    r.sh("git", "clone", "--quiet", "--bare", r.clone, r.origin, cwd=r.base)
    r.sh("git", "remote", "set-url", "origin", r.origin)
    r.sh("git", "fetch", "--quiet", "origin")
    r.sh("git", "branch", "--quiet", "--set-upstream-to", "origin/main")
    r.sh("uv", "venv", "--quiet", "--python", sys.executable, r.clone / ".venv")
    groups = [w for g in TOOL_GROUPS for w in ("--group", g)]
    r.sh("uv", "pip", "install", "--quiet", "--python", r.clone / ".venv", "-e", ".", *groups)
    return commit


def adapt(r: Rehearsal, index: str, rc_index: str) -> str:
    """The one committed edit before ``cut``: fewer gates, the local indexes; the generated
    pages that depend on them regenerated. Returns the edit's diff of pyproject.toml."""
    path = r.clone / "pyproject.toml"
    text = path.read_text(encoding="utf-8")
    block = re.search(r"^gates = \[(.*?)\]", text, re.M | re.S)
    if block is None:
        raise StepFailed(f"{path}: no `gates = [...]` under [tool.mlrelease] to adapt")
    kept = [g for g in re.findall(r'"(\w+)"', block[1]) if g not in DROPPED_GATES]
    listed = textwrap.fill(
        ", ".join(f'"{g}"' for g in kept) + ",", 98, initial_indent="  ", subsequent_indent="  "
    )
    gates = f"gates = [\n{listed}\n]"
    note = "# Self-release rehearsal (scripts/self_release.py): "
    dropped = f"no {' or '.join(DROPPED_GATES)} gate.\n"
    text = text[: block.start()] + note + dropped + gates + text[block.end() :]
    header = "[tool.mlrelease.release]\n"
    indexes = f'{note}local indexes.\nindex = "{index}"\nrc-index = "{rc_index}"\n'
    text = text.replace(header, header + indexes, 1)
    path.write_text(text, encoding="utf-8")
    mlrelease = r.clone / ".venv" / "bin" / "mlrelease"
    r.sh(mlrelease, "gates", "doc", "--execute")
    r.sh(mlrelease, "release", "checklist-doc", "--execute")
    r.sh("git", "commit", "--quiet", "-am", "chore: adapt the self-release rehearsal")
    r.sh("git", "push", "--quiet", "origin", "main")
    return r.sh("git", "show", "--format=", "HEAD", "--", "pyproject.toml")


def release(r: Rehearsal, version: str) -> dict[str, Any]:
    """The checklist, executed to the manual step, that step confirmed, then shown."""
    mlrelease = str(r.clone / ".venv" / "bin" / "mlrelease")
    checklist = [mlrelease, "release", "checklist", "--version", version]
    began = time.monotonic()
    ran = r.sh(*checklist, "--execute", echo=True)
    confirmed = r.sh(*checklist, "--execute", "--confirm", "announce", echo=True)
    seconds = _since(began)
    ledger_path = r.clone / "build" / "release" / version / "ledger.json"
    ledger = json.loads(ledger_path.read_text(encoding="utf-8"))
    if not ledger["complete"]:
        raise StepFailed(f"the checklist did not finish; ledger: {ledger_path}")
    heads = [r.shown(x) for x in (ran + confirmed).splitlines() if re.match(r"\[\d+/\d+\]", x)]
    return {
        "transcript": heads,
        "ledger": json.loads(r.shown(json.dumps(ledger))),
        "shown": r.shown(r.sh(*checklist)).rstrip().splitlines(),
        "seconds": seconds,
    }


def index_files(folder: Path) -> list[dict[str, Any]]:
    """The files an index folder holds: name, size, SHA-256."""
    import hashlib

    return [
        {
            "name": f.name,
            "size": f.stat().st_size,
            "sha256": hashlib.sha256(f.read_bytes()).hexdigest(),
        }
        for f in sorted(folder.iterdir())
        if f.is_file()
    ]


def smoke(r: Rehearsal, url: str, version: str) -> list[dict[str, str]]:
    """The published wheel installed from the local index into a clean venv, then run.

    The local index is searched first (``--extra-index-url`` comes before the default index
    in uv, and uv's first-index strategy never looks further for a name it found there), so
    mlrelease comes from it; its dependencies come from PyPI."""
    venv = r.base / "smoke"
    r.sh("uv", "venv", "--quiet", "--python", sys.executable, venv, cwd=r.base)
    r.sh(
        "uv",
        "pip",
        "install",
        "--quiet",
        "--no-cache",
        "--python",
        venv,
        "--extra-index-url",
        f"{url}simple/",
        f"mlrelease=={version}",
        cwd=r.base,
    )
    runs = []
    for args in (["--version"], ["--help"]):
        output = r.sh(venv / "bin" / "mlrelease", *args, cwd=r.base)
        runs.append({"command": f"mlrelease {' '.join(args)}", "output": output.rstrip()})
    return runs


def rehearse(version: str, keep: Path | None) -> dict[str, Any]:
    """Release ``version`` of this checkout's HEAD in a temporary clone; the run's facts."""
    base = Path(tempfile.mkdtemp(prefix="self-release-", dir=keep))
    began, started = time.monotonic(), time.strftime("%Y-%m-%d", time.gmtime())
    r = Rehearsal(base)
    servers = {name: start(base / "indexes" / name) for name in ("rc", "release")}
    try:
        commit = make_clone(r)
        diff = adapt(r, servers["release"][1], servers["rc"][1])
        result = release(r, version)
        runs = smoke(r, servers["release"][1], version)
    finally:
        for server, _ in servers.values():
            stop(server)
    data = {
        "version": version,
        "date": started,
        "commit": commit,
        "python": ".".join(map(str, sys.version_info[:3])),
        "cores": os.cpu_count(),
        "adaptation": r.shown(diff).splitlines(),
        "dropped_gates": DROPPED_GATES,
        **result,
        "indexes": {n: index_files(base / "indexes" / n) for n in servers},
        "smoke": runs,
        "commands": r.commands,
        "wall_seconds": _since(began),
    }
    if keep is None:
        shutil.rmtree(base, ignore_errors=True)
    return data


VOLATILE_KEYS = {
    "date",
    "commit",
    "seconds",
    "wall_seconds",
    "started",
    "finished",
    "created",
    "updated",
    "sha256",
    "size",
    "python",
    "cores",
}
VOLATILE_TEXT = [
    (re.compile(r"127\.0\.0\.1:\d+"), "127.0.0.1:PORT"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\+00:00|Z)"), "TIME"),
    (re.compile(r"\b[0-9a-f]{64}\b"), "SHA256"),
    (re.compile(r"\b[0-9a-f]{7,40}\b"), "COMMIT"),
    (re.compile(r"/self-release-\w+"), "/self-release-TMP"),
]


def masked(value: Any, key: str = "") -> Any:
    """``value`` with what varies from run to run replaced: times, dates, hashes, ports."""
    if key in VOLATILE_KEYS:
        return "-"
    if isinstance(value, dict):
        return {k: masked(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [masked(v) for v in value]
    if isinstance(value, str):
        for pattern, replacement in VOLATILE_TEXT:
            value = pattern.sub(replacement, value)
    return value


def check(version: str, keep: Path | None) -> int:
    """Rehearse again; fail when the committed page differs from the new one beyond what
    varies from run to run, or was not generated from the committed facts."""
    committed = json.loads(DATA.read_text(encoding="utf-8"))
    if page(committed) != PAGE.read_text(encoding="utf-8"):
        print(
            f"{PAGE} is not the page of {DATA.name}: run python scripts/self_release.py",
            file=sys.stderr,
        )
        return 1
    fresh = rehearse(version, keep)
    out = Path(tempfile.mkstemp(prefix="self-release-", suffix=".md")[1])
    out.write_text(page(fresh), encoding="utf-8")
    old, new = page(masked(committed)), page(masked(fresh))
    if old != new:
        diff = difflib.unified_diff(old.splitlines(), new.splitlines(), "committed", "now", n=1)
        print("\n".join(diff), file=sys.stderr)
        print(
            f"{PAGE} is stale (the new page: {out}): run python scripts/self_release.py",
            file=sys.stderr,
        )
        return 1
    print(f"{PAGE.relative_to(ROOT)} is current (the new page: {out})", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Needs git, uv, pypiserver and the network (PyPI) for the smoke venv's "
        "dependencies; takes about 8 minutes on two cores.",
    )
    parser.add_argument(
        "--version", default="0.1.0", metavar="X.Y.Z", help="the release X.Y.Z (default 0.1.0)"
    )
    parser.add_argument(
        "--keep", type=Path, metavar="DIR", help="make the clone under DIR and keep it"
    )
    parser.add_argument(
        "--check", action="store_true", help="release again and fail when the page is stale"
    )
    args = parser.parse_args(argv)
    keep = args.keep.resolve() if args.keep else None
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
    try:
        if args.check:
            return check(args.version, keep)
        data = rehearse(args.version, keep)
    except StepFailed as exc:
        print(f"self-release failed: {exc}", file=sys.stderr)
        return 1
    DATA.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    PAGE.write_text(page(data), encoding="utf-8")
    print(
        f"wrote {PAGE.relative_to(ROOT)} and {DATA.relative_to(ROOT)} "
        f"({data['wall_seconds']:.0f} s)",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
