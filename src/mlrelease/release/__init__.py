"""The release flow: status, branch cut, RC tags, cherry-pick tracking, binding, publishing,
promotion, checklist.

PyTorch's and ONNX's release steps as guarded, re-runnable commands (``mlrelease release ...``,
``invoke release.*``). Each mutating command reads one world (:mod:`.world.reader`), plans on
it with a pure planner (a :class:`~mlrelease.release.plan.Plan`: the exact git commands), prints
it and runs it only with ``--execute``; a second run finds nothing to do. Every irreversible act
goes through the gatekeeper of docs/release/invariants.md.

Modules: :mod:`.config` (the ``[tool.mlrelease.release]`` table, pure; branch and tag names are
:mod:`mlrelease.naming`'s), :mod:`.world` (the immutable world, its reader, refs and queries),
:mod:`.asks` (what each verb asks the reader for), :mod:`.rules` (checks the planners share),
:mod:`.pushes` (every branch and tag push, planned and gated), :mod:`.wanted` (the fixes a release
wants), :mod:`.pins` (pins on nightly builds), :mod:`.publishers` with :mod:`.expressions` (what
the project's own workflows publish, and when) and :mod:`.own_publishing` (an RC tag they would
publish as final), :mod:`.branch_edits` (the release-only edits a branch lacks), :mod:`.cut`,
:mod:`.candidates`, :mod:`.bump_model` and :mod:`.picks` (planners), :mod:`.edits` (journalled,
atomic file edits), :mod:`.promotion` (manifest, store, index, gatekeeper, bind, publish, promote),
:mod:`.plan` (actions, dry run, execution), :mod:`.checklist` (the resumable checklist: its steps,
ledger, runner and generated page), :mod:`.status`, :mod:`.service` (what the CLI calls),
:mod:`.gate` (gate ``git_state``) and :mod:`.cli`.
"""
