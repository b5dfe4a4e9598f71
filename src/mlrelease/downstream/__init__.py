"""Downstream verification: a release candidate is tested by its consumers before promotion.

As Rust's crater tests every crate with the old and the new compiler, and Debian's britney lets
a package migrate only when its reverse dependencies' autopkgtests do not regress, each
consumer listed in ``[tool.mlrelease.downstream]`` runs its own tests twice, in two isolated
environments that differ only by the project under test: the candidate (the RC's bound files,
or a version on a test index) and the baseline (the previous release). Only a test that passes
on the baseline, fails on the candidate and does so again when re-run is a regression.

Rooms: :mod:`.config` (the table), :mod:`.subjects` (the candidate and the baseline),
:mod:`.verdicts` (pure comparison), :mod:`.known` (the known-failures list), :mod:`.results`
(a run's results and their judgement), :mod:`.render` (summary, Markdown, JUnit),
:mod:`.matrix` (CI shards), :mod:`.envs` (uv environments cached by requirement hash),
:mod:`.sources` (the consumers' tests), :mod:`.runner` (one side run in the process edge, with
:mod:`.pytest_report` loaded into it), :mod:`.pair` (one consumer's paired run),
:mod:`.service` (every consumer's, cached, and its judgement: what the CLI and the gate call),
:mod:`.propose` (consumers ``mlrelease init`` proposes), :mod:`.cli` and :mod:`.gate`.
"""
