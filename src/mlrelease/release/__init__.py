"""The release flow: status, branch cut, RC tags, promotion, cherry-pick tracking, checklist.

PyTorch's and ONNX's release steps as guarded, re-runnable commands (``mlrelease release ...``,
``invoke release.*``). Each mutating command builds a :class:`~mlrelease.release.plan.Plan` from
the repository's state, prints it (the exact git commands) and runs it only with ``--execute``;
a second run finds nothing to do.

Modules: :mod:`.config` (the ``[tool.mlrelease.release]`` table, pure; branch and tag names
are :mod:`mlrelease.naming`'s), :mod:`.repo` (git queries), :mod:`.plan` (actions, dry run,
execution through the edit journal of :mod:`mlrelease.edges.journal`), :mod:`.flow` (what the
verbs share), :mod:`.checklist` (the resumable runner, its ledger and the generated checklist
page), :mod:`.gate` (gate ``git_state``) and :mod:`.cli`.
"""
