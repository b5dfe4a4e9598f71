"""conda-forge on release: the feedstock change generated from the bound release.

- :mod:`~mlrelease.conda.config`: ``[tool.mlrelease.conda]``.
- :mod:`~mlrelease.conda.release`: what a release says about itself (version, source hash,
  each wheel's ``Requires-Dist`` and ``Requires-Python``, the sdist's build requirements).
- :mod:`~mlrelease.conda.bound`: that, read from the bound release (manifest and store).
- :mod:`~mlrelease.conda.recipe`: a feedstock recipe, recipe v1 (``recipe.yaml``) or
  conda-build's ``meta.yaml``, read with the lines each value sits on.
- :mod:`~mlrelease.conda.names`: PyPI names to conda-forge names (conda-pypi's mapping).
- :mod:`~mlrelease.conda.specs`: version constraints, PEP 440 to conda, compared by bounds.
- :mod:`~mlrelease.conda.propose`: the pure planner (release + recipe -> the change, and what
  it could not decide); :mod:`~mlrelease.conda.edit` writes it into the recipe's text.
- :mod:`~mlrelease.conda.lint`: what breaks feedstocks (run_exports, loose pins, dropped
  variants).
- :mod:`~mlrelease.conda.feedstock` (the feedstock's git repository, through the git edge),
  :mod:`~mlrelease.conda.patches` (``git apply --check`` on the release's sources),
  :mod:`~mlrelease.conda.render` (rattler-build, offline).
- :mod:`~mlrelease.conda.service`, :mod:`~mlrelease.conda.gate` (gate ``conda``),
  :mod:`~mlrelease.conda.cli` (``mlrelease conda``).
"""
