"""``mlrelease init``: read a repository and describe it in ``[tool.mlrelease]`` +
``[tool.bumpversion]``.

:mod:`~mlrelease.init.snapshot` reads the repository once (files, git tags and branches, commit
subjects, git through :mod:`mlrelease.edges.git`); :mod:`~mlrelease.init.detect` draws
conclusions from that snapshot (pure), its release practice (tags, branches, release
candidates, changelog, commit style) in :mod:`~mlrelease.init.shape`;
:mod:`~mlrelease.init.propose` turns them into the TOML it proposes, each part with the reason;
:mod:`~mlrelease.init.service` does the whole of ``init`` and :mod:`~mlrelease.init.cli`
shows it (dry run) or appends it to ``pyproject.toml``; :mod:`~mlrelease.init.replay`
replays a past release against the adopted config.
"""
