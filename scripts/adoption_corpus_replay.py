"""One release of the adoption corpus replayed with the commands users run
(``adoption_corpus.py``), on :mod:`case_study_replay`'s scene and
:mod:`case_study_replay_steps`'s steps: a bare ``origin`` holding what the project had
when the release started, a clone adopting mlrelease there, the project's own commits landed
as they were, and each command run as a subprocess where the maintainers did the same act.

- Both kinds: ``mlrelease init --execute`` (the ``init`` step: it succeeds, changes only
  ``pyproject.toml`` and proposes the project's release model; a different model is set to the
  project's, once, so that the steps after it measure the rest), and at the end
  ``release promote --rc <newest RC> --published-elsewhere --json``, a dry run.
- A release branch (:class:`adoption_corpus_kinds.BranchReplay`): ``release cut`` where the
  branch forks, the project's commits landed one by one, ``release cherry-picks --json`` and
  ``release rc`` (``--rebuild`` on the same commit again) before each of the project's RC tags.
- A release on main (:class:`adoption_corpus_kinds.TrunkReplay`): where the maintainers changed
  the version file, the command that does it (``release prepare --version X.Y.Z``, or ``release
  rc`` when init proposed version-bump RCs for a pre-release), then their commit; ``release rc``
  where they tagged an RC (where they made none, once before the final tag: mlrelease's flow
  promotes an RC).

A refusal that names its repair is followed as a user would: its ``--json`` refusal carries the
repair (``repair``: a command such as ``mlrelease bump --sync --execute``, or keys of
``[tool.mlrelease.release]`` to set, such as ``rc-model = "bump"``), which is made, committed
and pushed, and the command run again, as often as each attempt names a new repair; the step
shows every attempt (:meth:`adoption_corpus_shared.Corpus.command`), and the steps after it
run under the configuration so repaired. Another refused command is recorded and the history's
own act made by hand (the branch, the tag), so that the replay goes on as history did.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from adoption_corpus_key import Project, key
from adoption_corpus_kinds import BranchReplay, TrunkReplay
from case_study_replay import as_dict, setup


def replay(project: Project, mirror: Path) -> dict[str, Any]:
    """The release of ``project`` replayed from where it started, with the commands."""
    began = time.monotonic()
    h, answer = key(mirror, project)
    kind = BranchReplay if project.model == "branch" else TrunkReplay
    with tempfile.TemporaryDirectory(prefix=f"corpus-{project.name}-") as tmp:
        r = kind(project, mirror, h, setup(mirror, Path(tmp), h, project.name), answer)
        r.run()
    return {
        "name": project.name,
        "steps": as_dict(r.steps),
        "commands": r.runs,
        "seconds": round(time.monotonic() - began, 1),
        "key": answer,
    }
