"""A scripted multi-release run: a dynamic history of the bundled Adult data,
published release after release into a DuckDB file, audited, and reported.

    python examples/project_run.py [DB] [--releases N] [--m M]

DB (default ``project_run.duckdb``) must be a new file. Afterwards the file
opens in the DuckDB shell and in ``sqlanon status / audit / report``; the
report is written next to it (``<DB>_report.html``). Exit status 0 when the
audit finds nothing, 1 when it finds attacks, 2 on bad input. A progress bar
shows on a terminal.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import sqlanon
import sqlanon.histories as histories
import sqlanon.report
from sqlanon.datasets import load_adult

QI = ["age", "sex", "race", "education", "marital_status", "native_country"]
SA = "occupation"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("db", nargs="?", default="project_run.duckdb")
    ap.add_argument("--releases", type=int, default=6)
    ap.add_argument("--m", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    db = Path(args.db)
    if db.exists():
        print(f"project_run.py: {db} exists; remove it or name a new file", file=sys.stderr)
        return 2
    con = sqlanon.connect(db)  # a file the DuckDB shell opens too (docs/shell.md)
    try:
        load_adult(con, "adult", part="both", complete=True)
        pool = con.sql(f"SELECT id, {', '.join(QI)}, {SA} FROM adult ORDER BY id").df()
        # the source as it is at each release: persons leave, come back, arrive, change occupation
        frames = histories.history(pool, "id", SA, releases=args.releases, start=30000, seed=args.seed)
        try:
            results = histories.publish(con, "adult", frames, source="adult_now", id="id", qi=QI, sa=SA,
                                        m=args.m, seed=args.seed)
        except sqlanon.SqlanonError as exc:
            print(f"project_run.py: {exc}", file=sys.stderr)
            return 2
        for r in results:
            print(r.line())
        rep = sqlanon.report.build(con, "adult")  # the audit runs with the ledger's m
        out = db.with_name(db.stem + "_report.html")
        out.write_text(rep.to_html(), encoding="utf-8")
        print(rep.audit.summary())
        print(f"wrote {out}; the project: sqlanon status {db} adult")
        return 0 if rep.audit.verdict == "safe" else 1
    finally:
        con.close()


if __name__ == "__main__":
    sys.exit(main())
