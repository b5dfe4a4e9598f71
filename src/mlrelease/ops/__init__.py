"""Measured operator support: the ONNX node conformance suite run against backends.

The pieces, in the order a run uses them:

- :mod:`~mlrelease.ops.config`: ``[tool.mlrelease.ops]`` (backends, case sets, files).
- :mod:`~mlrelease.ops.cases`: the cases (model + inputs + expected outputs), generated
  from the installed ``onnx`` and cached on disk by onnx version, plus adopters' case folders.
- :mod:`~mlrelease.ops.policy`: tolerance overrides and known failures (``ci/*.toml``).
- :mod:`~mlrelease.ops.runner`: worker processes, one case at a time each, so a crashing
  kernel marks its case ``crash`` and a hanging one ``timeout`` while the run goes on.
- :mod:`~mlrelease.ops.backends`: what a worker runs a case on (onnxruntime with an
  execution provider, the onnx reference evaluator, any ``onnx.backend.base.Backend``).
- :mod:`~mlrelease.ops.index`, :mod:`~mlrelease.ops.diff`,
  :mod:`~mlrelease.ops.render`: the index (pure data), its diff against a previous
  release and its Markdown page.
- :mod:`~mlrelease.ops.service` ties them together for the CLI (``mlrelease ops``) and
  the ``ops_index`` gate; :mod:`~mlrelease.ops.staleness` decides whether the committed index
  and page are current (``mlrelease ops index --check``).
- :mod:`~mlrelease.ops.verbs` holds what each ``mlrelease ops`` command decides, given its
  :mod:`~mlrelease.ops.arguments` value; :mod:`~mlrelease.ops.cli` makes that one call and
  prints what it returns, with :mod:`~mlrelease.ops.progress` showing the run.
"""
