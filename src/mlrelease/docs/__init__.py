"""Versioned documentation: build, generated pages, freeze per release, version switcher.

The modules here are small and separate so that :mod:`mlrelease.config` can import the
configuration table (:mod:`mlrelease.docs.config`) without pulling in the rest:

- :mod:`~mlrelease.docs.config`: ``[tool.mlrelease.docs]``.
- :mod:`~mlrelease.docs.switcher`: the version switcher's ``switcher.json`` (pure).
- :mod:`~mlrelease.docs.pages`: the generated pages listing nox sessions and invoke tasks.
- :mod:`~mlrelease.docs.sphinx_run`: the Sphinx edge (build, link check, autobuild).
- :mod:`~mlrelease.docs.freeze`: freezing one version's docs from its release tag.
- :mod:`~mlrelease.docs.cli`: the ``mlrelease docs`` commands.
"""
