"""The release gate's cost as a share of the release (issue 13; goal <= 25%).

The gate (sql/_gate/gate.sql.j2) is timed inside the release by a Publisher
subclass that times its ``_gate`` call; share = gate seconds / release seconds,
both from the same release. Settings:

- Adult: 30,162 complete rows of adult.data, QI age..native-country, SA
  occupation, m = 5, generalized; release 1, then a release after 5% deletes,
  5% inserts (the deleted rows come back as new ids) and 3% updates;
- synthetic 1M (the shape of benchmarks/release.py): release 1, then the same churn.

Each setting runs ``--repeats`` times in a fresh in-memory database; the
median share is reported with the range. Writes benchmarks/results/gate.md/json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import sqlanon
from sqlanon import Publisher
from sqlanon.datasets import load_adult

OUT = Path(__file__).resolve().parent / "results"
QI7 = ["age", "workclass", "education", "marital_status", "race", "sex", "native_country"]


class TimedPublisher(Publisher):
    def _gate(self, ctx, params, prof):
        t = time.perf_counter()
        try:
            return super()._gate(ctx, params, prof)
        finally:
            self.gate_seconds = time.perf_counter() - t


def churn(con, n_id_offset: int) -> None:
    con.execute("CREATE OR REPLACE TEMP TABLE gone AS SELECT * FROM src WHERE hash(id, 9) % 100 < 5")
    con.execute("DELETE FROM src WHERE id IN (SELECT id FROM gone)")
    con.execute(f"INSERT INTO src SELECT * REPLACE (id + {n_id_offset} AS id) FROM gone")
    sa = "occupation" if "occupation" in [r[0] for r in con.execute("DESCRIBE src").fetchall()] else "disease"
    con.execute(f"UPDATE src SET {sa} = (SELECT {sa} FROM src AS x WHERE x.id = src.id + 1) "
                "WHERE hash(id, 10) % 100 < 3 AND id + 1 IN (SELECT id FROM src)")


def one(setting: str) -> list[dict]:
    con = sqlanon.connect()
    con.execute("SET threads = 2")
    if setting == "adult":
        load_adult(con, "adult", part="data", complete=True)
        con.execute(f"CREATE TABLE src AS SELECT id, {', '.join(QI7)}, occupation FROM adult")
        pub = TimedPublisher(con, "g", source="src", id="id", qi=QI7, sa="occupation", m=5, output="generalized")
        offset = 10**6
    else:
        n = 1_000_000
        con.execute(f"CREATE TABLE src AS SELECT range AS id, (hash(range, 1) % 70 + 17)::INTEGER AS age, "
                    f"(hash(range, 2) % 1000)::INTEGER AS zip, ['F','M'][(hash(range, 3) % 2 + 1)::INTEGER] AS sex, "
                    f"'v' || (hash(range, 4) % 12)::VARCHAR AS disease FROM range({n})")
        pub = TimedPublisher(con, "g", source="src", id="id", qi=["age", "zip", "sex"], sa="disease", m=5)
        offset = 10 * n
    out = []
    for r in (1, 2):
        if r == 2:
            churn(con, offset)
        res = pub.release()
        out.append({"release": r, "seconds": res.seconds, "gate_seconds": pub.gate_seconds,
                    "share": pub.gate_seconds / res.seconds, "updated": res.updated, "new": res.new})
    con.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    OUT.mkdir(exist_ok=True)
    res = {"load_1min": os.getloadavg()[0]}
    for setting in ("adult", "synthetic_1m"):
        runs = [one(setting) for _ in range(args.repeats)]
        res[setting] = {}
        for i, r in enumerate((1, 2)):
            shares = [run[i]["share"] for run in runs]
            res[setting][f"release{r}"] = {
                "share_median": statistics.median(shares), "share_min": min(shares), "share_max": max(shares),
                "seconds_median": statistics.median(run[i]["seconds"] for run in runs),
                "gate_seconds_median": statistics.median(run[i]["gate_seconds"] for run in runs),
                "runs": [run[i] for run in runs]}
            x = res[setting][f"release{r}"]
            print(f"{setting} release {r}: gate {x['gate_seconds_median']:.3f} s of {x['seconds_median']:.3f} s = "
                  f"{100 * x['share_median']:.1f}% (runs {100 * x['share_min']:.1f}-{100 * x['share_max']:.1f}%)",
                  flush=True)
    (OUT / "gate.json").write_text(json.dumps(res, indent=1))
    lines = ["# The release gate's share of a release (benchmarks/gate.py)\n",
             f"Machine: 2 shared cores (load {res['load_1min']:.1f} at start), DuckDB 2.0; median of {args.repeats} "
             "fresh runs (range in brackets). Release 2 follows 5% deletes, 5% inserts and 3% updates. Goal: <= 25%.\n",
             "| setting | release | release s | gate s | gate share |", "|---|---|---|---|---|"]
    for setting in ("adult", "synthetic_1m"):
        for r in (1, 2):
            x = res[setting][f"release{r}"]
            lines.append(f"| {setting} | {r} | {x['seconds_median']:.3f} | {x['gate_seconds_median']:.3f} | "
                         f"{100 * x['share_median']:.1f}% ({100 * x['share_min']:.1f}-{100 * x['share_max']:.1f}%) |")
    (OUT / "gate.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
