"""The release checklist: the steps, fitted to the project, walked resumably with a ledger.

:mod:`.steps` (what a step is, the default list modelled on the seeds; pure), :mod:`.runners`
(the nox sessions and invoke tasks the project really has), :mod:`.fitting` (the project's own
steps: the configured ones, or the defaults fitted to its models, gates and runners),
:mod:`.ledger` (``build/release/X.Y.Z/ledger.json``), :mod:`.walker` (``release checklist``:
runs the steps in order, resuming at the first unfinished one), :mod:`.doc` (the generated
page, ``release checklist-doc``) and :mod:`.cli` (the two commands).
"""
