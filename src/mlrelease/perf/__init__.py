"""Release performance sessions: models x input shapes x batch sizes x frameworks.

The parent process (CLI, gate) plans the combinations, runs each one in its own subprocess
(:mod:`mlrelease.perf.worker`), and turns the rows into JSON, CSV, Markdown and plots. It never
imports torch: only the workers do, so a crash, a hang or an out-of-memory kill in one
combination becomes that row's status instead of ending the session.

Core (pure): :mod:`.config`, :mod:`.catalog`, :mod:`.stats`, :mod:`.results`, :mod:`.compare`,
:mod:`.verdict`, :mod:`.history`, :mod:`.page`, :mod:`.harness` (the timing loop),
:mod:`.replies` (the workers' replies, typed). Edges: :mod:`.launch` (worker subprocesses, used
by :mod:`.runner`, with :mod:`.run_context` and :mod:`.rounds`, and by :mod:`.smoke`),
:mod:`.device` (machine facts), :mod:`.worker`, :mod:`.builders` and :mod:`.frameworks`
(torch / onnxruntime / TensorRT), :mod:`.plots`, :mod:`.progress` (a run's progress on the
console). Entry points: :mod:`.service` (what the
gate and the command line call), :mod:`.gate`, :mod:`.cli`. :mod:`.bisect` finds the commit or
the dependency version behind a regression (``mlrelease perf bisect``).
"""
