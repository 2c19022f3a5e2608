"""The simulator locally and on a local Dask cluster, in the same run: rounds per second and the
cluster's overhead.

    python bench/bench_cluster.py [--game dynasty] [--rounds N] [--workers W]

Runs the same simulation (same seed, same rounds) twice: on W local worker processes, then on
a Dask ``LocalCluster`` of W worker processes (``--cluster local:W``). Both must give the same
figures (the benchmark checks it); the ratio of their speeds is what the cluster costs. Start-up
(the cluster, loading the round functions) is reported apart from the rounds' speed, as the
simulator does. Wall time is what a user waits for: start-up plus rounds.

A billion Dynasty rounds on two cores: ``python bench/bench_cluster.py --rounds 1000000000``.
"""

from __future__ import annotations

import argparse
import time

from slotforge.reports.simulate import available_cores, simulate

SAME = ("rounds", "total_win_units", "hit_frequency", "max_win", "std", "features")


def measure(game: str, rounds: int, **where: object) -> tuple[dict, float]:
    """One simulation and its wall time (start-up included)."""
    started = time.perf_counter()
    result = simulate(game, rounds, seed=1, **where)
    return result, time.perf_counter() - started


def line(label: str, result: dict, wall: float) -> str:
    return (
        f"{label:22} {result['rounds_per_second']:>14,.0f} rounds/s   rounds {result['seconds']:7.2f} s   "
        f"start-up {result['compile_seconds']:6.2f} s   wall {wall:7.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="dynasty")
    parser.add_argument("--rounds", type=int, default=200_000_000)
    parser.add_argument("--workers", type=int, default=min(2, available_cores()))
    args = parser.parse_args()
    local, local_wall = measure(args.game, args.rounds, workers=args.workers)
    dask, dask_wall = measure(args.game, args.rounds, cluster=f"local:{args.workers}")
    print(
        f"{args.game}: {args.rounds:,} rounds, seed 1, {args.workers} worker processes "
        f"({available_cores()} cores available to this process)"
    )
    print(line(f"local pool ({args.workers})", local, local_wall))
    print(line(f"Dask local:{args.workers}", dask, dask_wall))
    print(
        f"cluster overhead: rounds/s local / Dask = {local['rounds_per_second'] / dask['rounds_per_second']:.3f}; "
        f"wall Dask / local = {dask_wall / local_wall:.3f}"
    )
    same = all(local[k] == dask[k] for k in SAME)
    print(f"same figures on both: {'yes' if same else 'NO'} (RTP {local['rtp']:.6%})")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
