"""The per-release fixed cost (issue 14 acceptance): a static-Anatomy release
(Publisher model "anatomy") of Adult (adult.data, 30,162 complete rows, l = 5,
QI age, workclass, education, marital-status, race, sex, native-country, SA
occupation) in-process, against a public pure-Python Anatomy on the same rows
in the same run: myd1/Anatomize (Qiyuan Gong, MIT; Xiao & Tao's bucketize,
group and residue-assign steps on Python lists), exported to a folder outside
this repository and passed as --peer. The peer is Python 2 code: its print
statements are dropped when it is loaded, and its heap entries get Python 2's
comparison of equal-length buckets (by identity) so that ties do not raise.

--repeat pairs, back to back: our release (the first release of a fresh
project in the same database; the project of the pair before is purged,
untimed, so that each release is the only project of its database, as the
peer has no state either: the persons record of issue 33 item 3 is not
checked against the earlier pairs' millions of digests), then the peer on the
same list of rows; best
and median per side, and the median of the pairs' ratios (the machine is
shared: a pair sees one load). Also the release's per-step profile (logger sqlanon.profile)
of the median run, so the fixed part (validation, catalog look-ups, table
creation, ledger, COMMIT) shows next to the data-dependent steps.

    git --git-dir <mirror of myd1/Anatomize> archive HEAD | tar -x -C /tmp/anatomize_peer
    .venv/bin/python benchmarks/fixed_cost.py --peer /tmp/anatomize_peer
    .venv/bin/python benchmarks/fixed_cost.py --peer /tmp/anatomize_peer --sizes 1 10 34 --repeat 9 3 3

--sizes: copies of Adult (issue 35: 30k, 300k, 1M rows); copy c > 0 has its ages moved by
a seeded offset in -3..3 (benchmarks/static.py's make_adult), ids c * 100000 + id.

--minv N: issue 35's "m-invariance release 1 <= 6x one ORDER BY" at Adult x N (34: 1M rows):
--minv-pairs pairs, back to back in one fresh database: one ORDER BY of the source by its
QI and SA into a temporary table (benchmarks/release.py's yardstick), then the first
release of a fresh m-invariance project (m = 5, generalized output, as benchmarks/release.py),
purged after its pair (untimed: every pair's release is alone in the database);
the median of the pairs' ratios.

    .venv/bin/python benchmarks/fixed_cost.py --peer /tmp/anatomize_peer --sizes 1 10 34 --repeat 5 3 3 --minv 34

--minv-only: only the m-invariance pairs (no static Anatomy), written to
fixed_cost_minv.json and fixed_cost_minv.md; each side's CPU time (the
process's, over its threads) is kept too, and the ratio of the CPU times, which
a shared machine's load moves less than the wall times.

    .venv/bin/python benchmarks/fixed_cost.py --minv-only --minv 34 --minv-pairs 5

Writes benchmarks/results/fixed_cost.json and fixed_cost.md.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import re
import statistics
import time
import types
from pathlib import Path

import duckdb

import sqlanon
import sqlanon.project
from sqlanon.publisher import SINGLE_THREAD_ROWS

OUT = Path(__file__).parent / "results"
QI = ["age", "workclass", "education", "marital_status", "race", "sex", "native_country"]
SA = "occupation"
L = 5


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def load_peer(folder: Path) -> types.ModuleType:
    """anatomize.py of myd1/Anatomize as a Python 3 module (see the docstring)."""
    src = (folder / "anatomize.py").read_text()
    src = "\n".join(re.sub(r"^(\s*)print\b.*$", r"\1pass", line) for line in src.splitlines())
    mod = types.ModuleType("anatomize_peer")
    exec(compile(src, str(folder / "anatomize.py"), "exec"), mod.__dict__)
    mod.SABucket.__lt__ = lambda a, b: id(a) < id(b)  # Python 2 compared such objects by address
    return mod


def run(con, repeat: int, peer_dir: Path | None, table: str = "adult") -> dict:
    """``repeat`` pairs (after one warm-up pair): our release, then the peer on
    the same rows, so that both sides of a pair see the same machine load."""
    log = logging.getLogger("sqlanon.profile")
    handler = _Collect()
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    log.propagate = False
    mod = load_peer(peer_dir) if peer_dir else None
    rows = [list(r) for r in con.execute(f"SELECT {', '.join(QI)}, {SA} FROM {table} ORDER BY id").fetchall()]
    ours, theirs = [], []
    try:
        for i in range(repeat + 1):  # pair 0 warms the process (imports, template compilation)
            t, c = time.perf_counter(), time.process_time()
            r = sqlanon.Publisher(con, f"fc{i}", source=table, id="id", qi=QI, sa=SA, model="anatomy",
                                  l=L).release()
            ours.append((time.perf_counter() - t, r, handler.messages[-1], time.process_time() - c))
            sqlanon.project.purge(con, f"fc{i}")  # untimed: the next pair's release is alone in the database
            if mod is not None:
                random.seed(i)
                data = [list(x) for x in rows]  # the peer pops from its buckets: a fresh copy (not timed)
                t, c = time.perf_counter(), time.process_time()
                groups = mod.anatomize(data, L)
                theirs.append((time.perf_counter() - t, len(groups), sum(len(g) for g in groups),
                               time.process_time() - c))
    finally:
        log.removeHandler(handler)
        log.setLevel(logging.NOTSET)
        log.propagate = True
    warm = ours[1:]
    times = [x[0] for x in warm]
    median_run = sorted(warm, key=lambda x: x[0])[len(warm) // 2]
    r = median_run[1]
    res = {"ours": {"first_in_process": ours[0][0], "best": min(times), "median": statistics.median(times),
                    "times": times, "cpu_median": statistics.median(x[3] for x in warm), "groups": r.groups, "published": r.published, "suppressed": r.suppressed,
                    "profile": median_run[2]}}
    if mod is not None:
        pt = [x[0] for x in theirs[1:]]
        res["peer"] = {"best": min(pt), "median": statistics.median(pt), "times": pt,
                       "cpu_median": statistics.median(x[3] for x in theirs[1:]), "groups": theirs[-1][1],
                       "rows": theirs[-1][2]}
        res["ratio_best"] = min(times) / min(pt)
        res["ratio_median"] = statistics.median(times) / statistics.median(pt)
        res["ratio_pairs_median"] = statistics.median(a / b for a, b in zip(times, pt))
        # CPU time (process_time: every thread of the process), less sensitive to the machine's load
        res["cpu_ratio_pairs_median"] = statistics.median(b[3] / a[3] for a, b in zip(warm, theirs[1:]))
    return res


def minv_run(copies: int, pairs: int) -> dict:
    """m-invariance release 1 against one ORDER BY of the same table, interleaved pairs."""
    from static import make_adult

    con = sqlanon.connect()
    rows = make_adult(con, copies, "adult")
    cols = ", ".join(QI + [SA])
    obs, rel, obs_cpu, rel_cpu = [], [], [], []
    for i in range(pairs):
        t, c = time.perf_counter(), time.process_time()
        con.execute(f"CREATE OR REPLACE TEMP TABLE bench_sorted AS SELECT * FROM adult ORDER BY {cols}")
        obs.append(time.perf_counter() - t)
        obs_cpu.append(time.process_time() - c)
        con.execute("DROP TABLE bench_sorted")
        t, c = time.perf_counter(), time.process_time()
        sqlanon.Publisher(con, f"mi{i}", source="adult", id="id", qi=QI, sa=SA, m=5, output="generalized",
                          allow_shared=True).release()  # independent experiments over the same persons
        rel.append(time.perf_counter() - t)
        rel_cpu.append(time.process_time() - c)
        # untimed, as for Anatomy above: each pair's release is the first of a fresh project alone in the
        # database (left in place, the earlier pairs' 1M recorded persons each made the shared-persons
        # check of the next release match 1M digests: about 0.2 s CPU per earlier pair)
        sqlanon.project.purge(con, f"mi{i}")
    con.close()
    return {"rows": rows, "pairs": pairs, "order_by": obs, "release1": rel,
            "order_by_cpu": obs_cpu, "release1_cpu": rel_cpu,
            "ratio_pairs_median": statistics.median(r / o for r, o in zip(rel, obs)),
            "cpu_ratio_pairs_median": statistics.median(r / o for r, o in zip(rel_cpu, obs_cpu)),
            "load_after": " ".join(f"{x:.1f}" for x in os.getloadavg())}


def minv_lines(res: dict) -> list[str]:
    """The report's m-invariance paragraphs."""
    lines: list[str] = []
    for z in res.get("minv", []):
        lines += ["", f"m-invariance release 1 (m = 5, generalized output, first release of a fresh project) at "
                  f"{z['rows']:,} rows against one ORDER BY of the table by its QI and SA, {z['pairs']} interleaved "
                  f"pairs: release {statistics.median(z['release1']):.2f} s, ORDER BY "
                  f"{statistics.median(z['order_by']):.2f} s (medians), **{z['ratio_pairs_median']:.1f}x** (median of "
                  f"the pairs' ratios: {', '.join(f'{r / o:.1f}' for r, o in zip(z['release1'], z['order_by']))}); "
                  f"load after {z['load_after']}."]
        if "release1_cpu" in z:
            lines += ["", f"The same pairs by CPU time (the process's, over its threads): release "
                      f"{statistics.median(z['release1_cpu']):.2f} s, ORDER BY {statistics.median(z['order_by_cpu']):.2f} s "
                      f"(medians), **{z['cpu_ratio_pairs_median']:.1f}x** (median of the pairs' ratios: "
                      f"{', '.join(f'{r / o:.1f}' for r, o in zip(z['release1_cpu'], z['order_by_cpu']))})."]
    return lines


def write_md(res: dict) -> str:
    lines = [
        "# Per-release fixed cost: static Anatomy of Adult (x N) vs a pure-Python Anatomy",
        "",
        f"Generated by `benchmarks/fixed_cost.py` ({res['machine']}, DuckDB {res['duckdb']}, {res['date']}; "
        f"load average at start {res['load']}). Adult (adult.data, complete rows) x N (copy c > 0: ages moved by a "
        f"seeded offset in -3..3), l = {L}, QI {', '.join(QI)}, SA {SA}; per size, pairs (ours, then the peer on "
        "the same rows) after one warm-up pair, in one process.",
        "",
        "| rows | pairs | sqlanon best s | sqlanon median s | peer best s | peer median s | sqlanon / peer (median of "
        "pairs) | peer / sqlanon | CPU s sqlanon / peer (medians) | peer CPU / sqlanon CPU (median of pairs) | "
        "groups (ours / peer) | load after |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for z in res["sizes"]:
        o, p = z["ours"], z.get("peer")
        if p:
            lines.append(f"| {z['rows']:,} | {z['repeat']} | {o['best']:.3f} | {o['median']:.3f} | {p['best']:.3f} | "
                         f"{p['median']:.3f} | {z['ratio_pairs_median']:.2f} | **{1 / z['ratio_pairs_median']:.1f}x** | "
                         f"{o['cpu_median']:.2f} / {p['cpu_median']:.2f} | **{z['cpu_ratio_pairs_median']:.1f}x** | "
                         f"{o['groups']:,} / {p['groups']:,} | {z['load_after']} |")
        else:
            lines.append(f"| {z['rows']:,} | {z['repeat']} | {o['best']:.3f} | {o['median']:.3f} | | | | | "
                         f"{o['cpu_median']:.2f} / | | {o['groups']:,} | {z['load_after']} |")
    lines += ["", f"sqlanon: `Publisher(model=\"anatomy\", l={L}).release()` (first release of a fresh project, one "
              f"transaction, release gate included; DuckDB set to {res['threads']} threads, a source under "
              f"{SINGLE_THREAD_ROWS:,} rows released on one). Peer: {res.get('peer_source', '')} `anatomize(rows, "
              f"{L})` on Python lists in memory (no I/O)."]
    if res.get("note"):
        lines += ["", res["note"]]
    lines += minv_lines(res)
    for z in res["sizes"]:
        lines += ["", f"Profile of the median sqlanon run at {z['rows']:,} rows (logger `sqlanon.profile`); first "
                  f"release in the process: {z['ours']['first_in_process']:.3f} s:", "", "```", z["ours"]["profile"], "```"]
    return "\n".join(lines) + "\n"


def write_md_minv(res: dict) -> str:
    """The report of a --minv-only run: its m-invariance lines only."""
    lines = ["# m-invariance release 1 against one ORDER BY of the source (issue 35 item 2)", "",
             f"Generated by `benchmarks/fixed_cost.py --minv-only` ({res['machine']}, DuckDB {res['duckdb']}, "
             f"{res['date']}; load average at start {res['load']}; DuckDB set to {res['threads']} threads). Adult "
             "(adult.data, complete rows) x N (copy c > 0: ages moved by a seeded offset in -3..3), QI "
             f"{', '.join(QI)}, SA {SA}; pairs back to back in one fresh database."]
    if res.get("note"):
        lines += ["", res["note"]]
    return "\n".join(lines + minv_lines(res)) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer", type=Path, help="folder of an exported myd1/Anatomize (outside this repository)")
    ap.add_argument("--sizes", type=int, nargs="*", default=[1], help="copies of Adult per size")
    ap.add_argument("--repeat", type=int, nargs="*", default=[9], help="pairs per size")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--note", default="", help="a paragraph for the report (e.g. the same run on an earlier commit)")
    ap.add_argument("--minv", type=int, nargs="*", default=[], help="copies of Adult for m-invariance release 1 vs ORDER BY")
    ap.add_argument("--minv-pairs", type=int, default=3)
    ap.add_argument("--minv-only", action="store_true",
                    help="only the m-invariance pairs, to fixed_cost_minv.json / .md")
    args = ap.parse_args()
    if args.minv_only:
        args.sizes = []
    from static import make_adult  # benchmarks/static.py: Adult x N with seeded age offsets

    con = sqlanon.connect()
    res = {"machine": f"{platform.machine()}, {os.cpu_count()} cores", "duckdb": duckdb.__version__,
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "load": " ".join(f"{x:.1f}" for x in os.getloadavg()), "note": args.note,
           "threads": con.execute("SELECT current_setting('threads')").fetchall()[0][0], "sizes": []}
    if args.peer:
        res["peer_source"] = "myd1/Anatomize @ 2a19c918 (GitHub, MIT)"
    repeats = args.repeat + [args.repeat[-1]] * (len(args.sizes) - len(args.repeat))
    for copies, repeat in zip(args.sizes, repeats):
        rows = make_adult(con, copies, "adult")
        z = {"copies": copies, "rows": rows, "repeat": repeat} | run(con, repeat, args.peer)
        z["load_after"] = " ".join(f"{x:.1f}" for x in os.getloadavg())
        res["sizes"].append(z)
        print(json.dumps({k: v for k, v in z.items() if k != "ours"} | {"ours_median": z["ours"]["median"]}), flush=True)
        con.close()
        con = sqlanon.connect()  # a fresh database per size (the projects' state tables go with it)
    res["minv"] = [minv_run(c, args.minv_pairs) for c in args.minv]
    for z in res["minv"]:
        print(json.dumps(z), flush=True)
    args.out.mkdir(exist_ok=True)
    name = "fixed_cost_minv" if args.minv_only else "fixed_cost"
    md = write_md_minv(res) if args.minv_only else write_md(res)
    (args.out / f"{name}.json").write_text(json.dumps(res, indent=1) + "\n")
    (args.out / f"{name}.md").write_text(md)
    print(md)


if __name__ == "__main__":
    main()
