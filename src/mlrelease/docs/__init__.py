"""Versioned documentation: build, generated pages, freeze per release, version switcher.

- :mod:`~mlrelease.docs.config`: ``[tool.mlrelease.docs]``.
- :mod:`~mlrelease.docs.switcher`: the version switcher's ``switcher.json`` (pure).
- :mod:`~mlrelease.docs.pages` and :mod:`~mlrelease.docs.modules`: the generated pages (nox
  sessions, invoke tasks, the architecture page's module map).
- :mod:`~mlrelease.docs.site`: the versioned site folder; :mod:`~mlrelease.docs.published`:
  the published site against the release tags.
- :mod:`~mlrelease.docs.sphinx_run`: the Sphinx edge (build, link check, autobuild).
- :mod:`~mlrelease.docs.freeze`: freezing one version's docs from its release tag.
- :mod:`~mlrelease.docs.service`: what the ``docs`` gate and the command line both call;
  :mod:`~mlrelease.docs.gate`: the ``docs`` gate; :mod:`~mlrelease.docs.cli`: the
  ``mlrelease docs`` commands.
"""
