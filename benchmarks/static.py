"""Static anonymization benchmark (issue 35): sqlanon.anonymize (Mondrian: codes in
DuckDB, partition tree in numpy, publishing and checks in DuckDB) against the
public pure-Python Mondrian, as interleaved pairs in one process.

    python benchmarks/static.py --peer /tmp/sqlanon_peers/Mondrian          # 30k, 300k, 1M
    python benchmarks/static.py --peer DIR --sizes 1 10 --rounds 3          # smaller
    python benchmarks/static.py --big 332                                   # + the 10M run

Data: Adult (adult.data without missing values, 30,162 rows) and Adult x N: N
copies where copy c > 0 has every age moved by a seeded offset in -3..3 (copy 0
is Adult itself), so the copies are not plain repeats (plain copies make every
tuple repeat N times and the split trivial). QI age (numeric), workclass,
education, marital_status, race, sex, native_country (categorical: ordered value
sets), SA occupation; k = 10.

Each round, back to back in this process (a round sees one machine load):
strict Mondrian; relaxed; strict with distinct / entropy / recursive (c = 3)
l = 5; strict with t = 0.3 (equal distance); then the peer. Our time is the whole
`sqlanon.anonymize` call measured outside it (validation, SQL, numpy, checks,
COMMIT). Reported: the median over rounds of each pair's ratio (peer / ours for
the peer: above 1 = we are faster; variant / strict for the variants: below 2 =
within 2x), and each side's median time.

Peer (--peer): qiyuangong/Mondrian (GitHub, commit 49d49cfb, MIT; its Python 3
support is upstream, its algorithm is untouched) exported OUTSIDE this repository,
e.g. `git --git-dir <mirror> archive HEAD mondrian.py utils | tar -x -C DIR`;
nothing of it is copied here. It is imported from that folder and run on the same
rows (categories coded by first appearance, its own convention); its time is its
own `rtime` (its partitioning only: reading and coding the rows is not counted).
Its NCP is reported twice: its own percentage, and `sqlanon_ncp` over its
partitions (the definition ours is reported by).

--big N: Adult x N (N = 332: 10,013,784 rows) strict k = 10 in a fresh
subprocess on a database file, its wall time and the subprocess's peak RSS.
Results: benchmarks/results/static.json and static.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import numpy
import pandas as pd

import sqlanon
from sqlanon.datasets import load_adult

OUT = Path(__file__).resolve().parent / "results"
QI7 = ["age", "workclass", "education", "marital_status", "race", "sex", "native_country"]
SA = "occupation"
K = 10
SEED = 35
VARIANTS = {  # name -> anonymize keywords (k = 10 throughout)
    "relaxed": {"strict": False},
    "distinct l = 5": {"l": 5},
    "entropy l = 5": {"l": 5, "diversity": "entropy"},
    "recursive (3, 5)": {"l": 5, "diversity": "recursive", "c": 3},
    "t = 0.3": {"t": 0.3},
}


def make_adult(con, copies: int, table: str = "adult") -> int:
    """Adult x copies (see the docstring) as ``table``; returns its row count."""
    load_adult(con, "adult_1", complete=True)
    rng = random.Random(SEED)
    offsets = [0] + [rng.randint(-3, 3) for _ in range(copies - 1)]
    con.execute("CREATE OR REPLACE TEMP TABLE adult_offsets (c INTEGER, off INTEGER)")
    con.executemany("INSERT INTO adult_offsets VALUES (?, ?)", list(enumerate(offsets)))
    con.execute(f"DROP TABLE IF EXISTS {table}")
    con.execute(f"CREATE TABLE {table} AS SELECT o.c * 100000 + a.id AS id, a.age + o.off AS age, "
                f"{', '.join(QI7[1:])}, {SA} FROM adult_1 a, adult_offsets o ORDER BY o.c, a.id")
    con.execute("DROP TABLE adult_1")
    return con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]


def ours(con, table: str, **kw) -> dict:
    con.execute("DROP TABLE IF EXISTS bench_out")
    t, c = time.perf_counter(), time.process_time()
    r = sqlanon.anonymize(con, table, qi=QI7, sa=SA, k=K, output="bench_out", **kw)
    return {"seconds": time.perf_counter() - t, "cpu": time.process_time() - c, "ncp": r.ncp, "classes": r.classes, "k": r.k,
            "distinct_l": r.distinct_l, "entropy_l": r.entropy_l, "t": r.t, "levels": r.levels}


class Peer:
    """qiyuangong/Mondrian's mondrian(data, k, relax=False, QI_num=7) on a table's rows."""

    def __init__(self, folder: Path) -> None:
        sys.path.insert(0, str(folder))
        try:
            import mondrian as mod  # noqa: the peer's module, from its own folder
        finally:
            sys.path.pop(0)
        self.mod = mod

    def load(self, con, table: str) -> None:
        rows = con.execute(f"SELECT id, {', '.join(QI7)}, {SA} FROM {table} ORDER BY id").fetchall()
        codes = [dict() for _ in QI7]
        self.data = []
        for row in rows:
            rec = [int(row[1])] + [codes[j].setdefault(v, len(codes[j])) for j, v in enumerate(row[2:8], 1)]
            self.data.append(rec + [row[8], row[0]])  # SA, then our id (both excluded: QI_num = 7)

    def run(self) -> dict:
        batch = [list(r) for r in self.data]  # the peer sorts and splits its input: a fresh copy (not timed)
        c = time.process_time()
        _, (ncp, rtime) = self.mod.mondrian(batch, K, False, 7)
        cpu = time.process_time() - c
        self.parts = [[m[-1] for m in p.member] for p in self.mod.RESULT]
        return {"seconds": rtime, "cpu": cpu, "ncp_own": ncp, "classes": len(self.parts),
                "smallest_class": min(len(p) for p in self.parts)}

    def ncp_sqlanon(self, con, table: str) -> float:
        ids = [i for p in self.parts for i in p]
        groups = [g for g, p in enumerate(self.parts) for _ in p]
        con.register("peer_groups", pd.DataFrame({"id": ids, "g": groups}))
        try:
            con.execute(f"CREATE OR REPLACE TEMP TABLE peer_grouped AS SELECT a.*, p.g FROM {table} a "
                        "JOIN peer_groups p USING (id)")
        finally:
            con.unregister("peer_groups")
        return con.execute("SELECT ncp FROM sqlanon_ncp('peer_grouped', ?, 'g')", [QI7]).fetchall()[0][0]


def size_run(con, copies: int, rounds: int, peer: Peer | None) -> dict:
    rows = make_adult(con, copies)
    if peer:
        peer.load(con, "adult")
    per = {"strict": [], **{v: [] for v in VARIANTS}, "peer": []}
    for _ in range(rounds):
        per["strict"].append(ours(con, "adult"))
        for name, kw in VARIANTS.items():
            per[name].append(ours(con, "adult", **kw))
        if peer:
            per["peer"].append(peer.run())
        print(json.dumps({"rows": rows, "round": {k: round(v[-1]["seconds"], 3) for k, v in per.items() if v}}),
              flush=True)
    strict = [x["seconds"] for x in per["strict"]]
    res = {"copies": copies, "rows": rows, "rounds": rounds, "load_after": " ".join(f"{x:.1f}" for x in os.getloadavg()),
           "strict": {**per["strict"][-1], "median_s": statistics.median(strict), "times": strict},
           "variants": {}}
    for name in VARIANTS:
        ts = [x["seconds"] for x in per[name]]
        res["variants"][name] = {**per[name][-1], "median_s": statistics.median(ts), "times": ts,
                                 "ratio_to_strict": statistics.median(v / s for v, s in zip(ts, strict)),
                                 "cpu_ratio_to_strict": statistics.median(v["cpu"] / s["cpu"] for v, s in
                                                                          zip(per[name], per["strict"]))}
    if peer:
        ts = [x["seconds"] for x in per["peer"]]
        res["peer"] = {**per["peer"][-1], "median_s": statistics.median(ts), "times": ts,
                       "ncp_sqlanon_macro": peer.ncp_sqlanon(con, "adult"),
                       "speedup": statistics.median(p / s for p, s in zip(ts, strict)),
                       "cpu_speedup": statistics.median(p["cpu"] / s["cpu"] for p, s in zip(per["peer"], per["strict"]))}
    con.execute("DROP TABLE IF EXISTS bench_out")
    return res


BIG = """
import json, resource, sys, time, sqlanon
sys.path.insert(0, sys.argv[3])
from static import make_adult, QI7, SA, K
con = sqlanon.connect(sys.argv[2])
con.execute("SET threads = 2")
rows = make_adult(con, int(sys.argv[1]))
con.execute("CHECKPOINT")
t = time.perf_counter()
con.execute("CREATE TEMP TABLE s AS SELECT * FROM adult ORDER BY age, workclass, education, marital_status, race, sex, "
            "native_country, occupation")
ob = time.perf_counter() - t
con.execute("DROP TABLE s")
t = time.perf_counter()
r = sqlanon.anonymize(con, "adult", qi=QI7, sa=SA, k=K, output="big_out")
secs = time.perf_counter() - t
print(json.dumps({"rows": rows, "seconds": secs, "order_by_seconds": ob, "ncp": r.ncp, "classes": r.classes,
                  "k_checked": r.k, "levels": r.levels,
                  "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""


def big_run(copies: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([sys.executable, "-c", BIG, str(copies), str(Path(tmp) / "big.duckdb"),
                            str(Path(__file__).resolve().parent)], capture_output=True, text=True)
        if p.returncode:
            raise SystemExit(p.stderr)
    return json.loads(p.stdout.strip().splitlines()[-1])


def write_md(res: dict) -> str:
    lines = ["# Static anonymization (Mondrian): benchmark", "",
             f"Machine: {res['machine']}; DuckDB {res['duckdb']}, numpy {res['numpy']}; `python benchmarks/static.py` "
             f"({res['date']}); load average at start {res['load']}. {res.get('note', '')}", "",
             f"Adult x N (copy c > 0: ages moved by a seeded offset in -3..3), QI {', '.join(QI7)}, SA {SA}, k = {K}. "
             "Each round runs, back to back in one process: ours strict, the variants, the peer. Time: the whole "
             "`sqlanon.anonymize` call; the peer's own `rtime`. CPU time: the process's (all threads) over the same "
             "calls (the peer is one Python thread; ours runs DuckDB on up to 2). Ratios: median over the rounds of the ratio within "
             "each round. NCP: docs/metrics.md (`sqlanon_ncp`).", ""]
    if any("peer" in s for s in res["sizes"]):
        lines += [f"Peer: {res.get('peer_source', '')}.", "",
                  "| rows | rounds | ours strict s (median) | peer s (median) | peer / ours (median of rounds) | "
                  "peer / ours CPU time (median of rounds) | ours NCP % | peer NCP % (sqlanon_ncp) | peer NCP % (own) | "
                  "ours classes | peer classes | load after |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        for s in res["sizes"]:
            p = s.get("peer")
            if p:
                lines.append(f"| {s['rows']:,} | {s['rounds']} | {s['strict']['median_s']:.3f} | {p['median_s']:.3f} | "
                             f"**{p['speedup']:.1f}x** | {p['cpu_speedup']:.1f}x | {s['strict']['ncp']:.2f} | {p['ncp_sqlanon_macro']:.2f} | "
                             f"{p['ncp_own']:.2f} | {s['strict']['classes']:,} | {p['classes']:,} | {s['load_after']} |")
        lines.append("")
    lines += ["Variants (k = 10; time relative to strict in the same round, median of rounds; in brackets the "
              "same ratio of CPU time, the median time and the NCP):", "",
              "| rows | " + " | ".join(VARIANTS) + " |", "|---:|" + "---:|" * len(VARIANTS)]
    for s in res["sizes"]:
        lines.append(f"| {s['rows']:,} | " + " | ".join(
            f"{v['ratio_to_strict']:.2f}x ({'CPU %.2fx, ' % v['cpu_ratio_to_strict'] if 'cpu_ratio_to_strict' in v else ''}"
            f"{v['median_s']:.2f} s, NCP {v['ncp']:.2f}%)" for v in s["variants"].values())
            + " |")
    for b in res.get("big", []):
        lines += ["", f"Adult x {b['rows'] // 30162} = {b['rows']:,} rows, strict k = {K}, fresh subprocess on a "
                  f"database file, SET threads = 2: **{b['seconds']:.1f} s**, peak RSS **{b['peak_rss_gb']:.2f} GB** "
                  f"({b['levels']} levels, {b['classes']:,} classes, NCP {b['ncp']:.2f}%, k checked {b['k_checked']}); "
                  f"one ORDER BY of the table by all its columns {b['order_by_seconds']:.1f} s"
                  + (f" (anonymize / ORDER BY {b['seconds'] / b['order_by_seconds']:.2f}); load average "
                     f"{b['load_before']} before, {b['load_after']} after" if "load_before" in b else "") + "."]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer", type=Path, help="folder of an exported qiyuangong/Mondrian (outside this repository)")
    ap.add_argument("--sizes", type=int, nargs="*", default=[1, 10, 34], help="copies of Adult per size")
    ap.add_argument("--rounds", type=int, nargs="*", default=[5, 3, 3], help="rounds per size")
    ap.add_argument("--big", type=int, nargs="*", default=[], help="copies for the large run (332 = 10M rows)")
    ap.add_argument("--note", default="", help="a sentence for the report (e.g. how busy the machine was)")
    args = ap.parse_args()
    con = sqlanon.connect()
    con.execute("SET threads = 2")

    res = {"machine": f"{platform.machine()}, {os.cpu_count()} cores", "duckdb": duckdb.__version__,
           "numpy": numpy.__version__, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "load": " ".join(f"{x:.1f}" for x in os.getloadavg()), "note": args.note, "sizes": []}
    peer = Peer(args.peer) if args.peer else None
    if peer:
        res["peer_source"] = "qiyuangong/Mondrian @ 49d49cfb (GitHub, MIT), exported to " + str(args.peer)
    make_adult(con, 1)  # warm-up, not timed: imports, template compilation, the first macro bindings
    ours(con, "adult")
    rounds = args.rounds + [args.rounds[-1]] * (len(args.sizes) - len(args.rounds))
    for copies, r in zip(args.sizes, rounds):
        res["sizes"].append(size_run(con, copies, r, peer))
    res["big"] = []
    for c in args.big:
        before = " ".join(f"{x:.1f}" for x in os.getloadavg())
        res["big"].append({**big_run(c), "load_before": before,
                           "load_after": " ".join(f"{x:.1f}" for x in os.getloadavg())})
    for b in res["big"]:
        print(json.dumps(b), flush=True)
    OUT.mkdir(exist_ok=True)
    (OUT / "static.json").write_text(json.dumps(res, indent=1) + "\n")
    (OUT / "static.md").write_text(write_md(res))
    print((OUT / "static.md").read_text())


if __name__ == "__main__":
    main()
