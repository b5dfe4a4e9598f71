"""Model verification: manifests, the untrusted-input sandbox, per-step verdicts, Model Zoo mode.

The pieces, by layer:

- pure: :mod:`.config` (configuration tables), :mod:`.manifest` (``models/manifest.toml``),
  :mod:`.verdicts` (per-step verdicts and their rendering), :mod:`.escaping` (submitted text
  made inert for Markdown and the console), :mod:`.compat` (judging IR/opset against probed
  runtime limits), :mod:`.budget` (nodes counted on a model's bytes), :mod:`.readme` and
  :mod:`.zoo` (submission artifacts and the ACCEPT/DECLINE comment);
- edges: :mod:`.safefile` and :mod:`.descriptors` (a submission opened once; the only way a
  submitted file is read), :mod:`.runtimes` (the runtimes that execute models, and what each
  really loads), :mod:`.sandbox` (one subprocess per model through
  :mod:`mlrelease.edges.proc`, with memory and time limits), :mod:`.worker` (what runs inside
  it: :mod:`.staging` reads the model once into a private copy, :mod:`.integrity` checks it,
  :mod:`.steps` use the copy), :mod:`.cache` (the ``models`` gate's verdict cache);
- entry points: :mod:`.service` (what the gates and the command line call: model sets
  verified, the compat judgement), :mod:`.verification` (the decision of ``models verify
  PATH``, a submission's ACCEPT or DECLINE included), :mod:`.gate` (gates ``compat`` and
  ``models``), :mod:`.cli` (prints what those return).

Importing this package imports neither onnx nor onnxruntime.
"""
