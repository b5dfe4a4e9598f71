"""Wheels for every platform: plan, build, audit, smoke-test, checksum, promote.

The pieces, from the pure core to the edges:

- :mod:`~mlrelease.wheels.config` -- ``[tool.mlrelease.wheels]`` (what a good artifact holds).
- :mod:`~mlrelease.wheels.matrix` -- cibuildwheel's build identifiers per platform, grouped into
  the job matrix of ``.github/workflows/wheels.yml``; the required-platform check.
- :mod:`~mlrelease.wheels.platforms` -- the platforms a project declares it builds (its
  ``[tool.cibuildwheel]`` and its wheel workflows).
- :mod:`~mlrelease.wheels.artifacts` -- file-name parsing, expected contents, ``SHA256SUMS``.
- :mod:`~mlrelease.wheels.audit` -- twine, check-wheel-contents and abi3audit on each file.
- :mod:`~mlrelease.wheels.build` -- ``python -m build`` + ``auditwheel repair`` (or
  cibuildwheel on a CI runner), then audits and clean-venv smoke tests.
- :mod:`~mlrelease.wheels.fileset` -- the release's file set, declared once and checked as a set.
- :mod:`~mlrelease.wheels.reference` and :mod:`~mlrelease.wheels.compare` -- the reference
  build of a commit, and a candidate file compared whole with it.
- :mod:`~mlrelease.wheels.evidence` and :mod:`~mlrelease.wheels.attest` -- the in-toto
  statement of a wheel's build (the run, the commit, its source digest): read at bind for
  compiled code not rebuilt here, written by ``mlrelease wheels provenance`` after the build.
- :mod:`~mlrelease.wheels.promote` -- checks of a release candidate's artifact set (against
  ``SHA256SUMS``, complete, at the final version, nothing dropped); it uploads nothing:
  ``mlrelease release publish`` does, from the files bound to the RC.
- :mod:`~mlrelease.wheels.project` -- a project whose artifacts the commands handle;
  :mod:`~mlrelease.wheels.service` -- what the gate and the commands both call;
  :mod:`~mlrelease.wheels.gate` -- the ``wheels`` gate.
- :mod:`~mlrelease.wheels.cli` -- the ``mlrelease wheels`` sub-commands: each turns its options
  into one :mod:`~mlrelease.wheels.arguments` value, makes one call into
  :mod:`~mlrelease.wheels.verbs` (what each command decides) and prints what it returns.

Pure-Python projects (``kind = "pure"``, such as mlrelease itself) build one
``py3-none-any`` wheel. Their ``[tool.cibuildwheel]`` table still names the platforms and
CPython versions the release supports: the plan turns it into one smoke-test job per platform
(the single wheel installed and run there) instead of one build job per platform, and the gate
checks the required platforms against it exactly as for a native project.

Release candidates carry the *final* version in their artifact names: ``v1.4.0-rc2`` (files
at ``1.4.0rc2``) is built as ``1.4.0`` in a temporary copy of the tree, so that promotion to
``v1.4.0`` publishes the very files that were tested, byte for byte.
"""
