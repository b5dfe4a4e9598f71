"""The bisect planner over simulated rounds (``tests/helpers/bisect_sim.py``): how often it names a
commit that runs like neither side, and what naming costs in rounds (issue 51).

Two histories of 8 commits, each over ``--seeds`` worlds at each noise: ``pair-2`` (+20% from c4,
undone at c8, the 10% culprit at c6, so c4 runs 1.2x where the bad side runs 1.1x) and a single
10% change at c6. For each: the answers (``culprit:N`` names commit N) and the median of the rounds
a bisect timed, at the simulation's design (confidence 0.95, 3 looks, at most 24 pairs).

    python scripts/sim_bisect_naming.py              # the figures in docs/perf/bisect.md
    python scripts/sim_bisect_naming.py --seeds 100
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from helpers.bisect_sim import World, history, slowed_from  # type: ignore[import-not-found]

from mlrelease.perf.bisect.state import Side


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=30, help="worlds per history and noise")
    args = parser.parse_args()
    h = history(8)
    order = {sha: i for i, sha in enumerate((h.good, *h.commits))}

    def pair_2(side: Side) -> float:
        at = order[side.commit]
        return (1.10 if at >= 6 else 1.0) * (1.20 if 4 <= at < 8 else 1.0)

    for spread in (0.02, 0.04):
        for name, ratio in (("pair-2", pair_2), ("single at 6", slowed_from(h, 6))):
            answers: Counter[str] = Counter()
            rounds = []
            for seed in range(args.seeds):
                world = World(h, ratio, spread=spread, seed=seed)
                answer = world.run()
                named = f":{order[answer.culprit]}" if answer.culprit else ""
                answers[answer.verdict + named] += 1
                rounds.append(sum(len(r[0]) for r in world.facts.rounds.values()))
            print(
                f"noise {spread}, {name}: {dict(sorted(answers.items()))}, "
                f"median {statistics.median(rounds):g} rounds a bisect"
            )


if __name__ == "__main__":
    main()
