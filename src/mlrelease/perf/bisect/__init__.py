"""``mlrelease perf bisect``: from a perf regression to the commit or the dependency version that
caused it, sure of its noise.

A pure planner over one snapshot (:mod:`.plan`, with :mod:`.axes`, :mod:`.judging`,
:mod:`.search`; the statistics in :mod:`.paired`, the lock files in :mod:`.lock`, the data in
:mod:`.state`) and one executor (:mod:`.service`, carrying out :mod:`.steps`: builds and
environments from :mod:`.envs`, timed rounds from :mod:`mlrelease.perf.runner`), with a journal
(:mod:`.facts`) so a killed run resumes; :mod:`.reader` reads the history once, :mod:`.render`
writes the answer. The method and the benchmark's figures: ``docs/perf/bisect.md``.
"""
