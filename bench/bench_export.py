"""The export of rounds: time and peak memory as the rounds grow (it must stay flat), against a
plain reference in the same run.

A SQLite database of the server's schema is filled with N rounds of one operator's players (by
one INSERT ... SELECT over a recursive count, in seconds), then each size is exported in a child
process of its own, so that its peak resident memory is its own:

- slotforge: ``slotforge.rgs.compliance.exports`` (batched reads, every amount exact text, CSV);
- reference: the same rows read by Python's sqlite3 with one cursor and written by the csv
  module with the raw integers, no conversion: the floor of any export in Python.

Run: ``python bench/bench_export.py`` (1, 3 and 10 million rounds) or ``--rounds 100000,300000``.
"""

from __future__ import annotations

import argparse
import csv
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RECORD = ('{"game":"dynasty","model":"dynasty/1.0:0123456789ab","code":"slotforge 0.1.0:0123456789ab",'
          '"bet":{"lines":20,"coins_per_line":1,"coin_value":"0.01"},"total_bet":"0.20","total_win":"0.00",'
          '"status":"complete","steps":[{"kind":"base","screen":[["A","K","Q","J","10"],["K","Q","J","10","9"],'
          '["Q","J","10","9","A"]],"wins":[],"events":[]}]}')


def fill(path: Path, count: int) -> None:
    """A database of the server's schema with ``count`` complete rounds of 1,000 players."""
    from slotforge.db import connect
    from slotforge.rgs.schema import migrate

    migrate(connect(f"sqlite:///{path}"))
    db = sqlite3.connect(path)
    db.execute("INSERT INTO operators (name, key_hash, created_at) VALUES ('casino-one', 'x', 0)")
    db.execute("""WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
                  INSERT INTO players (operator_id, external_id, currency, fun, balance, wallet, created_at)
                  SELECT 1, 'player-' || i, 'EUR', 0, 100000, 'internal', 0 FROM n""")
    db.execute("""WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
                  INSERT INTO sessions (token_hash, player_id, jurisdiction, created_at, last_seen)
                  SELECT 'token-' || i, i, 'default', 0, 0 FROM n""")
    db.execute("""WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                  INSERT INTO rounds (player_id, session_id, game, status, fun, currency, jurisdiction, stake, win,
                                      jackpot_win, balance_before, balance_after, record, started_at, finished_at)
                  SELECT 1 + i % 1000, 1 + i % 1000, 'dynasty', 'complete', 0, 'EUR', 'default', 20, (i % 7) * 10,
                         0, 100000, 100000 - 20 + (i % 7) * 10, ?, 1764547200000 + i * 250,
                         1764547200000 + i * 250 + 5 FROM n""", (count, RECORD))
    db.commit()
    db.close()


def child(kind: str, path: Path, out: Path) -> None:
    """One export in this process; prints its seconds, rows and peak resident memory (MiB)."""
    started = time.perf_counter()
    if kind == "slotforge":
        from slotforge.db import connect
        from slotforge.rgs.compliance import exports

        engine = connect(f"sqlite:///{path}")
        rows = 0
        with out.open("wb") as sink:
            for chunk in exports.encode(exports.ROUNDS, exports.ROUNDS.rows(engine, exports.Filters()), "csv"):
                sink.write(chunk)
        rows = sum(1 for _ in out.open()) - 1
    else:
        db = sqlite3.connect(path)
        cursor = db.execute("SELECT r.*, p.external_id, o.name FROM rounds r JOIN players p ON p.id = r.player_id "
                            "JOIN operators o ON o.id = p.operator_id ORDER BY r.id")
        with out.open("w", newline="") as sink:
            writer = csv.writer(sink)
            writer.writerow([d[0] for d in cursor.description])
            rows = 0
            for row in cursor:
                writer.writerow(row)
                rows += 1
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{time.perf_counter() - started:.3f} {rows} {peak_mib:.1f}")


def measure(kind: str, path: Path, out: Path) -> tuple[float, int, float]:
    done = subprocess.run([sys.executable, __file__, "--child", kind, str(path), str(out)], capture_output=True,
                          text=True, check=True)
    seconds, rows, peak = done.stdout.split()
    return float(seconds), int(rows), float(peak)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", default="1000000,3000000,10000000", help="sizes, comma separated")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]), Path(args.child[2]))
        return
    sizes = [int(size) for size in args.rounds.split(",")]
    print(f"{'rounds':>11} {'slotforge s':>12} {'rows/s':>10} {'peak MiB':>9} {'reference s':>12} "
          f"{'peak MiB':>9} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            path = Path(folder) / f"rounds-{size}.db"
            filled = time.perf_counter()
            fill(path, size)
            print(f"(filled {size:,} rounds in {time.perf_counter() - filled:.0f} s)", file=sys.stderr)
            ours = measure("slotforge", path, Path(folder) / "ours.csv")
            reference = measure("reference", path, Path(folder) / "reference.csv")
            assert ours[1] == reference[1] == size, (ours, reference)
            print(f"{size:>11,} {ours[0]:>12.1f} {size / ours[0]:>10,.0f} {ours[2]:>9.0f} {reference[0]:>12.1f} "
                  f"{reference[2]:>9.0f} {reference[0] / ours[0]:>6.2f}x", flush=True)
            path.unlink()
    print("ratio: the reference's time over slotforge's (1.00x: as fast as the plain read and write); the peak "
          "memory of each export is its process's whole resident set, interpreter included")


if __name__ == "__main__":
    main()
