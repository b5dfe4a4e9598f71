"""The release flow: status, branch cut, RC tags, promotion, cherry-pick tracking, checklist.

PyTorch's and ONNX's release steps as guarded, re-runnable commands (``mlrelease release ...``,
``invoke release.*``). Each mutating command builds a :class:`~mlrelease.release.plan.Plan` from
the repository's state, prints it (the exact git commands) and runs it only with ``--execute``;
a second run finds nothing to do.

Modules: :mod:`.settings` (the ``[tool.mlrelease.release]`` table and name patterns, pure),
:mod:`.repo` (git queries), :mod:`.plan` (actions, dry run, execution, edit journal),
:mod:`.flow` (cut, prepare, rc, promote, cherry-picks, status), :mod:`.checklist` (the resumable
runner, its ledger and the generated checklist page), :mod:`.gate` (gate ``git_state``) and
:mod:`.cli`. This package imports nothing at import time so ``mlrelease.config`` can use
:mod:`.settings`.
"""
