"""Torch-TensorRT: the docs of a release were never frozen (backfilled later)."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest
from helpers.defects import text, verify
from helpers.projects import configure, single_gate, write
from helpers.repo import git

from mlrelease.cli import main
from mlrelease.docs import published, switcher
from mlrelease.registry import load_config

INCIDENT = {
    "title": "A release is tagged but its docs are never frozen into the versioned site",
    "year": 2020,
    "project": "TRTorch (Torch-TensorRT) 0.1.0",
    "source": (
        "seeds/torch-tensorrt-release-process.md (step 4: generate frozen docs for the new "
        "version, by hand); https://github.com/pytorch/TensorRT/pull/201 (the v0.1.0 docs "
        "checked in after the release)"
    ),
    "gate": "docs",
    "reconstruction": (
        "v0.0.3 and v0.1.0 are tagged; the gh-pages branch holds 0.0.3/ and a switcher that "
        "lists only 0.0.3 (preferred). The docs build is clean and the site is self-consistent."
    ),
    "message": (
        "release v0.1.0 is not frozen on the published site origin/gh-pages: no frozen folder "
        "0.1.0/index.html and no entry for 0.1.0 in switcher.json"
    ),
}


def _project(tmp_path: Path, frozen: list[str]) -> Path:
    """Tags v0.0.3 and v0.1.0, and an origin whose gh-pages holds ``frozen``."""
    origin, root = tmp_path / "origin.git", tmp_path / "demo"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    write(root, single_gate.docs())
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "feat: demo")
    git(root, "tag", "v0.0.3")
    git(root, "commit", "-q", "--allow-empty", "-m", "feat: more")
    git(root, "tag", "v0.1.0")
    git(root, "remote", "add", "origin", str(origin))
    git(root, "push", "-q", "origin", "main", "--tags")
    git(root, "checkout", "-q", "--orphan", "gh-pages")
    git(root, "rm", "-rq", "--cached", ".")
    pages = tmp_path / "pages"
    files = {f"{v}/index.html": f"<html>{v}</html>\n" for v in frozen}
    files[switcher.FILENAME] = switcher.render(switcher.entries(frozen, "/", dev=False))
    write(pages, files)
    for name in files:
        git(root, f"--work-tree={pages}", "add", name)
    git(root, f"--work-tree={pages}", "commit", "-qm", "docs: site")
    git(root, "push", "-q", "origin", "gh-pages")
    git(root, "checkout", "-q", "-f", "main")
    git(root, "branch", "-D", "gh-pages")
    git(root, "fetch", "-q", "origin")
    return root


def test_caught(tmp_path: Path) -> None:
    root = _project(tmp_path, ["0.0.3"])
    result = verify(root, "docs")
    assert result["status"] == "fail"
    assert INCIDENT["message"] in text(result)
    assert (
        "switcher.json on origin/gh-pages marks 0.0.3 as preferred; the newest final release "
        "is 0.1.0 (v0.1.0)" in text(result)
    )


def test_clean_twin(tmp_path: Path) -> None:
    root = _project(tmp_path, ["0.0.3", "0.1.0"])
    result = verify(root, "docs")
    assert result["status"] == "pass", result
    assert (
        "every final release (2) is frozen and listed on origin/gh-pages, 0.1.0 preferred"
        in (result["summary"])
    )


@pytest.mark.parametrize("frozen", [["0.0.3"], ["0.0.3", "0.1.0"]])
def test_release_status_and_the_checklist_read_the_site(
    tmp_path: Path, frozen: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The docs-freeze step is done when the site has the release, whatever the ledger says."""
    root = _project(tmp_path, frozen)
    state = published.state(load_config(root))
    assert state.released == ["0.0.3", "0.1.0"] and state.frozen == frozen
    done = "0.1.0" in frozen
    assert published.freeze_detected(load_config(root), "0.1.0")[0] is done
    assert published.describe(state.to_dict()).startswith(
        f"{len(frozen)}/2 final releases frozen on origin/gh-pages"
    )
    assert main(["--root", str(root), "release", "checklist", "--version", "0.1.0"]) == 0
    captured = capsys.readouterr()
    out = captured.out + captured.err
    line = next(x for x in out.splitlines() if "docs-freeze" in x)
    assert ("done" if done else "pending") in line


def test_the_published_switcher_is_read_from_base_url(tmp_path: Path) -> None:
    """No pages branch: the site served at ``base-url`` (a local server here) is the truth."""
    root = _project(tmp_path, ["0.0.3"])
    git(root, "branch", "-rd", "origin/gh-pages")
    served = write(
        tmp_path / "served",
        {"switcher.json": switcher.render(switcher.entries(["0.0.3"], "/", dev=False))},
    )
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        configure(root, "tool.mlrelease.docs", {"base-url": url})
        state = published.state(load_config(root))
    finally:
        server.shutdown()
        server.server_close()
    assert state.source == f"{url}switcher.json"
    assert state.frozen == ["0.0.3"]
    assert state.problems[0].startswith(
        f"release v0.1.0 is not frozen on the published site {url}switcher.json: no entry for "
        "0.1.0 in switcher.json"
    )


def test_releases_before_frozen_since_need_no_frozen_docs(tmp_path: Path) -> None:
    root = _project(tmp_path, ["0.1.0"])
    assert published.state(load_config(root)).problems[0].startswith("release v0.0.3 is not frozen")
    configure(root, "tool.mlrelease.docs", {"frozen-since": "0.1.0"})
    state = published.state(load_config(root))
    assert state.released == ["0.1.0"] and state.problems == []
