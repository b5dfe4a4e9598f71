"""Promotion of a release candidate and of its artifacts: the one owner of the manifest, the
content-addressed store, what an index holds, the gatekeeper before each irreversible act, and
the one publish path (docs/release/invariants.md).

:mod:`.manifest` (the bound file list, pure), :mod:`.store` (the files' bytes, by SHA-256),
:mod:`.index` (an index's files, proven by SHA-256), :mod:`.provenance` (the files are this
release's, built from the RC's commit), :mod:`.facts` (what the reader gathers for these
verbs), :mod:`.gatekeeper` (the invariants, checked before each act on the exact bytes),
:mod:`.bind`, :mod:`.publish` and :mod:`.final` (the planners of ``release bind``,
``release publish`` and ``release promote``).
"""
