"""Edges: one module per outside system; the core never touches one directly.

:mod:`~mlrelease.edges.git` (every git call), :mod:`~mlrelease.edges.proc` (every process) and
:mod:`~mlrelease.edges.python` (every Python subprocess), :mod:`~mlrelease.edges.web` (every URL
opened) and :mod:`~mlrelease.edges.index` (every package index read, and what "a file of this
release" is), :mod:`~mlrelease.edges.files` (generated files), :mod:`~mlrelease.edges.digests`
(a file's SHA-256), :mod:`~mlrelease.edges.onnxruntime` (every onnxruntime session),
:mod:`~mlrelease.edges.reuse` (a passing verdict reused for the same tree and environment), and
the crash safety of mutating commands: :mod:`~mlrelease.edges.journal` (the edit journal) and
:mod:`~mlrelease.edges.faults` (fault points). Edges import only the utilities and the core.
"""
