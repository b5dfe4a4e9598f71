"""Release-only edits understood (:func:`release_edits.proposed_edits`, issue 53): found in
whichever commit of the branch made them, the upstream series a parameter, never a bare word,
never a fix picked from main, and an edit of a file main lacks left with the reason."""

from __future__ import annotations

from mlrelease.init import shape
from mlrelease.init.branch_history import CommitDiff
from mlrelease.init.release_edits import ProposedEdit, proposed_edits, widened

WHEELS = ".github/workflows/build.yml"
PIN = f"""\
--- a/{WHEELS}
+++ b/{WHEELS}
@@ -5 +5 @@ jobs:
-    uses: pytorch/test-infra/.github/workflows/build_wheels_linux.yml@main
+    uses: pytorch/test-infra/.github/workflows/build_wheels_linux.yml@release/2.2
@@ -9 +9 @@ jobs:
-      test-infra-ref: main
+      test-infra-ref: release/2.2
"""
MAIN = {WHEELS}


def _commit(diff: str, subject: str = "[RELEASE-ONLY CHANGES]", body: str = "") -> CommitDiff:
    return CommitDiff("a" * 40, subject, body, diff)


def test_the_upstream_series_is_a_placeholder_and_no_bare_word_is_proposed() -> None:
    typo = _commit(PIN.replace("@release/2.2", "@main ").replace("release/2.2", "main"), "typo")
    found = proposed_edits([typo, _commit(PIN)], "release/0.17", "0.17", set(), MAIN)
    assert found.edits == [
        ProposedEdit(
            WHEELS,
            "pytorch/test-infra/.github/workflows/build_wheels_linux.yml@main",
            "pytorch/test-infra/.github/workflows/build_wheels_linux.yml@release/{upstream_series}",
        ),
        ProposedEdit(WHEELS, "test-infra-ref: main", "test-infra-ref: release/{upstream_series}"),
    ]
    assert found.upstream == "2.2" and found.commits == ["aaaaaaa '[RELEASE-ONLY CHANGES]'"]


def test_picks_and_files_main_lacks_are_not_proposed() -> None:
    picked = _commit(PIN, "Fix a crash", "(cherry picked from commit " + "b" * 40 + ")")
    found = proposed_edits([picked], "release/0.17", "0.17", set(), MAIN)
    assert found.edits == [] and found.commits == []
    gone = proposed_edits([_commit(PIN)], "release/0.17", "0.17", set(), set())
    assert gone.edits == [] and gone.left == [
        f"{WHEELS}: aaaaaaa of release/0.17 edited it, but main no longer has it"
    ]


def test_a_line_that_is_one_word_is_left() -> None:
    """``- main`` -> ``- release/2.2`` in a YAML list: as a search, it matches every ``- main``
    of the file (the branches that trigger the workflow too)."""
    item = f"--- a/{WHEELS}\n+++ b/{WHEELS}\n@@ -3 +3 @@\n-      - main\n+      - release/2.2\n"
    found = proposed_edits([_commit(item)], "release/0.17", "0.17", set(), MAIN)
    assert found.edits == []
    assert found.left == [
        f"{WHEELS}: aaaaaaa of release/0.17 edited it, but '- main' is one word on its line, "
        "and would match unrelated lines"
    ]


def test_fixes_picked_by_hand_without_the_trailer_are_the_fixes_mode() -> None:
    picked = _commit("", "[release/2.13] Fix a crash (#1234)")
    assert shape.picks_mode([picked], "release/2.13")[0] == "fixes"
    marked = _commit("", "fix: a crash", "Release-Target: 2.13")
    assert shape.picks_mode([picked, marked], "release/2.13")[0] == "trailer"
    assert shape.picks_mode([], "release/2.13")[0] == "trailer"


def test_docs_pointing_at_viable_strict_move_to_the_release_branch() -> None:
    # executorch's release/1.0: '[RELEASE ONLY] Update viable/strict in the docs to point to
    # release/1.0'; viable/strict (PyTorch's green main) was not read as the development line,
    # so init proposed none of it and release/1.1's docs kept pointing at viable/strict.
    docs = """\
--- a/docs/README.md
+++ b/docs/README.md
@@ -3 +3 @@
-   git clone -b viable/strict https://github.com/pytorch/executorch.git
+   git clone -b release/1.0 https://github.com/pytorch/executorch.git
"""
    found = proposed_edits([_commit(docs)], "release/1.0", "1.0", set(), {"docs/README.md"})
    assert found.edits == [ProposedEdit("docs/README.md", "viable/strict", "{branch}")]


def test_only_an_upstream_pin_is_spread_to_a_workflow_main_added_since() -> None:
    """executorch 1.1: release/1.0 pinned test-infra (the upstream's series) and moved a
    scheduled job's ``refs/heads/main`` to its own branch; of the workflows main added since,
    the maintainers pinned every test-infra use and kept each ``refs/heads/main``. A workflow
    the branch had and left alone (docs.yml) stays too."""
    pin = ProposedEdit(
        WHEELS, "linux_job_v2.yml@main", "linux_job_v2.yml@release/{upstream_series}"
    )
    own = ProposedEdit(WHEELS, "'refs/heads/main'", "'refs/heads/{branch}'")
    both = "    uses: x/linux_job_v2.yml@main\n    if: github.ref == 'refs/heads/main'\n"
    texts = {WHEELS: both, CUDA: both, DOCS: both, "README.md": both}
    found = widened([pin, own], texts, had={WHEELS, DOCS})
    assert found == [pin, own, ProposedEdit(CUDA, pin.search, pin.replace)]


CUDA = ".github/workflows/cuda.yml"
DOCS = ".github/workflows/docs.yml"
