"""The maths below the games: exact calculators, the simulator's chunked runs on a cluster, statistics."""
