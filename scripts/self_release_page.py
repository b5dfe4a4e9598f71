"""The page of ``scripts/self_release.py``: docs/case-studies/self-release.md from a run's facts
(pure: the same facts give the same page, byte for byte)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from mlrelease.markdown import LEFT, RIGHT, table

INTRO = """
mlrelease releases itself here: every step of its own release checklist, from `cut` to
`docs-freeze`, runs for real on mlrelease's repository, with the commands a release manager
runs. Nothing is a dry run: the release branch is cut and pushed, the version bumped and the
changelog written, the release candidate tagged, the wheel and sdist built, audited and bound,
the candidate verified, published to a test index and to the release index, promoted to the
final tag, and the docs frozen from that tag. Only the places differ: the repository is a
temporary clone of this one whose `origin` is a bare repository beside it (nothing is pushed
to GitHub), and the two indexes are pypiserver on 127.0.0.1 (nothing reaches PyPI). The
published wheel is then installed from the local index into a clean venv and run.
"""

ADAPTED = """
- **One committed edit before `cut`** (the diff below), made in the clone on `main` and pushed
  to its origin, so that every step, the verdict included, sees it as the project's own
  configuration; mlrelease's source is not changed:
  - `[tool.mlrelease] gates` leaves out the gates listed below. Every other gate runs, and the
    report that promotion reads is complete for the gates configured at the release candidate
    (a report made with `--only`/`--skip` would be refused, rightly). The generated pages
    that list the gates and the steps (`mlrelease gates doc`, `mlrelease release
    checklist-doc`) are regenerated in the same commit, as the `exit_criteria_doc` gate
    requires.
{dropped}
  - `[tool.mlrelease.release] index` and `rc-index` name the two local indexes. Setting
    `rc-index` is also what adds the `rc-channel` step (the RC published to the test index);
    mlrelease's own configuration sets neither, so its checklist publishes to PyPI and has no
    RC channel.
- **`announce` is confirmed by hand**, with `mlrelease release checklist --version {version}
  --execute --confirm announce`: it is manual by design (GitHub release notes, the project's
  channels), so the checklist stops there and waits for a person. Nothing was announced.
- **`docs-freeze`** writes the frozen site to the clone's `build/site/{version}/` (the default
  `--site`), not to a gh-pages checkout.
- **The environment**: every process runs with a fresh, empty `HOME`, `GIT_CONFIG_GLOBAL=/dev/null`
  and a fixed author and committer; the checklist runs the clone's own mlrelease (a venv in
  the clone with the `release`, `wheels` and `docs` groups), so the code that releases is the
  code released. Only uv's download cache is shared with the machine (it spares downloading
  torch again); the nox sessions' environments are made fresh in the clone.
- **The smoke venv**'s dependencies (packaging, rich) come from PyPI: the local index holds only
  mlrelease, and uv searches it first and never looks elsewhere for a name it holds there.
"""


def _duration(record: dict[str, Any]) -> str:
    if not record.get("started") or not record.get("finished"):
        return "-"
    try:
        began = dt.datetime.fromisoformat(record["started"])
        ended = dt.datetime.fromisoformat(record["finished"])
    except ValueError:  # masked
        return "-"
    return f"{(ended - began).total_seconds():.0f} s"


def _code(words: list[str] | str) -> str:
    text = " ".join(words) if isinstance(words, list) else words
    return f"`{text}`" if text else "-"


def steps_section(data: dict[str, Any]) -> list[str]:
    rows = [
        [
            i,
            f"`{s['id']}`",
            s["status"],
            s["runs"],
            _duration(s),
            _code(s["command"]) if s["command"] else f"manual ({s['note']})",
            ", ".join(f"`{e}`" for e in s["evidence"]) or "-",
        ]
        for i, s in enumerate(data["ledger"]["steps"], 1)
    ]
    header = ["#", "step", "status", "runs", "took", "command", "evidence"]
    return [
        "## The steps",
        "",
        f"From the ledger, `build/release/{data['version']}/ledger.json` in the clone "
        "(times are the step's own, from the ledger's start and finish stamps, to the second).",
        "",
        *table(header, rows, align=[RIGHT, LEFT, LEFT, RIGHT, RIGHT]),
        "",
        "What the checklist printed for each step (`--execute`, then `--confirm announce`):",
        "",
        "```text",
        *data["transcript"],
        "```",
        "",
        "The ledger as `mlrelease release checklist --version "
        f"{data['version']}` (no `--execute`) shows it afterwards:",
        "",
        "```text",
        *data["shown"],
        "```",
    ]


def commands_section(data: dict[str, Any]) -> list[str]:
    rows = [
        [i, _code(c["command"]), c["exit_code"], f"{c['seconds']} s"]
        for i, c in enumerate(data["commands"], 1)
    ]
    return [
        "## The commands",
        "",
        "Every command the script ran, in order (`$SOURCE`: this checkout; `$WORK`: the "
        "temporary folder; `$CLONE`: the clone in it). The checklist runs the steps' own "
        "commands, listed above.",
        "",
        *table(["#", "command", "exit", "took"], rows, align=[RIGHT, LEFT, RIGHT, RIGHT]),
        "",
        "The committed edit in the clone, before `cut` (`pyproject.toml`):",
        "",
        "```diff",
        *data["adaptation"],
        "```",
    ]


def index_section(data: dict[str, Any]) -> list[str]:
    lines = ["## The indexes", ""]
    titles = {
        "rc": "The test index (the RC channel, step `rc-channel`)",
        "release": "The release index (steps `publish` and `promote`)",
    }
    for name, files in data["indexes"].items():
        rows = [[f"`{f['name']}`", f["size"], f"`{f['sha256']}`"] for f in files]
        lines += [f"{titles.get(name, name)}:", ""]
        lines += [*table(["file", "bytes", "SHA-256"], rows, align=[LEFT, RIGHT]), ""]
    return lines


def smoke_section(data: dict[str, Any]) -> list[str]:
    version = data["version"]
    lines = [
        "## The smoke test",
        "",
        "A clean venv (`uv venv`), then `uv pip install --extra-index-url "
        f"http://127.0.0.1:PORT/simple/ mlrelease=={version}` from the release index:",
        "",
    ]
    for run in data["smoke"]:
        lines += ["```console", f"$ {run['command']}", run["output"], "```", ""]
    return lines


def page(data: dict[str, Any]) -> str:
    """The case-study page for one run's facts."""
    version = data["version"]
    minutes = data["wall_seconds"] / 60 if isinstance(data["wall_seconds"], float) else 0
    lines = [
        "# Case study: mlrelease releases itself",
        "",
        "<!-- Generated by `python scripts/self_release.py` from self-release.json; do not edit."
        " `python scripts/self_release.py --check` releases again and compares. -->",
        "",
        INTRO.strip(),
        "",
        f"Released: **{version}** from commit `{data['commit']}`, on {data['date']}, Python "
        f"{data['python']}, {data['cores']} shared cores; the whole rehearsal took "
        f"{minutes:.1f} min, the checklist {data['seconds']} s.",
        "",
        "## What the rehearsal adapts",
        "",
        ADAPTED.strip().format(
            version=version,
            dropped="\n".join(f"    - `{g}`: {why};" for g, why in data["dropped_gates"].items()),
        ),
        "",
        *steps_section(data),
        "",
        *index_section(data),
        *smoke_section(data),
        *commands_section(data),
    ]
    return "\n".join(lines) + "\n"
