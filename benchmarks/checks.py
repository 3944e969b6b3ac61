"""Benchmark of the static checks (issue: foundation, item 9).

Measured in one run, on the same machine:
 (a) sqlanon_k_anonymity / a bare `SELECT min(n) FROM (SELECT count(*) n FROM t GROUP BY qi)`
 (b) sqlanon_profile (k, distinct_l, entropy_l, alpha in one call) / the same bare GROUP BY
 (c) pycanon (in its own virtualenv: it pins old pandas/numpy) / sqlanon, per check, on Adult x10

Tables: synthetic 1M and 10M rows (QI age, zip, sex, race; SA with 12 values),
and Adult x10 (adult.data complete rows, 30,162 x 10 = 301,620 rows).
Writes benchmarks/results/checks.json and checks.md.

Usage: python benchmarks/checks.py [--sizes 1000000,10000000] [--no-pycanon] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

import sqlanon
from sqlanon.datasets import load_adult

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
PYCANON_VENV = HERE / ".venv-pycanon"

SYN_QI = ["age", "zip", "sex", "race"]
ADULT_QI = ["age", "education", "marital_status", "race", "sex"]
ADULT_SA = "occupation"
L_REC = 2  # l of recursive (c,l)-diversity


def best_of(con, sql, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        rows = con.execute(sql).fetchall()
        times.append(time.perf_counter() - t0)
    return min(times), rows


def qlist(cols):
    return "[" + ", ".join(f"'{c}'" for c in cols) + "]"


def make_synthetic(con, name, n):
    con.execute(
        f"""CREATE OR REPLACE TABLE {name} AS
        SELECT i AS id,
               (17 + hash(i, 1) % 74)::INTEGER AS age,
               (hash(i, 2) % 1000)::INTEGER AS zip,
               (hash(i, 3) % 2)::INTEGER AS sex,
               (hash(i, 4) % 5)::INTEGER AS race,
               ('v' || (hash(i, 5) % 12)::VARCHAR) AS sa
        FROM range({int(n)}) t(i)"""
    )


def bench_table(con, name, qi, sa, repeat):
    cols = ", ".join(qi)
    bare_sql = f"SELECT min(n) FROM (SELECT count(*) AS n FROM {name} GROUP BY {cols})"
    k_sql = f"FROM sqlanon_k_anonymity('{name}', {qlist(qi)})"
    prof_sql = f"FROM sqlanon_profile('{name}', {qlist(qi)}, '{sa}')"
    # interleave to share cache / frequency effects fairly; take the best of each
    best = {"bare": [], "k": [], "profile": []}
    out = {}
    for _ in range(repeat):
        for key, sql in (("bare", bare_sql), ("k", k_sql), ("profile", prof_sql)):
            t, rows = best_of(con, sql, 1)
            best[key].append(t)
            out[key] = rows
    bare, k, prof = (min(best[x]) for x in ("bare", "k", "profile"))
    assert out["k"][0][0] == out["bare"][0][0], (out["k"], out["bare"])
    return {
        "rows": con.execute(f"SELECT count(*) FROM {name}").fetchall()[0][0],
        "bare_groupby_s": bare,
        "k_anonymity_s": k,
        "profile_s": prof,
        "k_ratio": k / bare,
        "profile_ratio": prof / bare,
    }


OUR_CHECKS = {
    "k_anonymity": "SELECT k FROM sqlanon_k_anonymity('{t}', {qi})",
    "distinct_l": "SELECT distinct_l FROM sqlanon_l_diversity('{t}', {qi}, '{sa}')",
    "entropy_l": "SELECT entropy_l FROM sqlanon_l_diversity('{t}', {qi}, '{sa}')",
    "alpha": "SELECT alpha FROM sqlanon_l_diversity('{t}', {qi}, '{sa}')",
    "recursive_cl": "SELECT c_required FROM sqlanon_recursive_cl('{t}', {qi}, '{sa}', {l})",
    "t_closeness": "SELECT t FROM sqlanon_t_closeness('{t}', {qi}, '{sa}')",
}


def ensure_pycanon():
    py = PYCANON_VENV / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(PYCANON_VENV)], check=True)
    if subprocess.run([str(py), "-c", "import pycanon"], capture_output=True).returncode != 0:
        subprocess.run([str(py), "-m", "pip", "install", "--quiet", "pycanon==1.3.6"], check=True)
    return py


def bench_pycanon(con, repeat):
    load_adult(con, "adult_src", part="data", complete=True)
    con.execute("CREATE OR REPLACE TABLE adult_x10 AS SELECT a.* FROM adult_src a, range(10) r(i)")
    ours = {}
    for name, tmpl in OUR_CHECKS.items():
        sql = tmpl.format(t="adult_x10", qi=qlist(ADULT_QI), sa=ADULT_SA, l=L_REC)
        t, rows = best_of(con, sql, repeat)
        ours[name] = {"seconds": t, "value": rows[0][0]}
    py = ensure_pycanon()
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "adult_x10.csv"
        con.execute(f"COPY (SELECT {', '.join(ADULT_QI + [ADULT_SA])} FROM adult_x10) TO '{csv}' (HEADER)")
        res = subprocess.run(
            [str(py), str(HERE / "_pycanon_runner.py"), str(csv), ",".join(ADULT_QI), ADULT_SA, str(L_REC)],
            capture_output=True, text=True, check=True,
        )
    theirs = json.loads(res.stdout.strip().splitlines()[-1])
    table = {}
    for name in OUR_CHECKS:
        table[name] = {
            "sqlanon_s": ours[name]["seconds"],
            "pycanon_s": theirs[name]["seconds"],
            "speedup": theirs[name]["seconds"] / ours[name]["seconds"],
            "sqlanon_value": ours[name]["value"],
            "pycanon_value": theirs[name]["value"],
        }
    return table


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000000,10000000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-pycanon", action="store_true")
    ap.add_argument("--out", default=str(RESULTS / "checks"))
    args = ap.parse_args(argv)

    con = sqlanon.connect()
    results = {
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "duckdb": duckdb.__version__},
        "synthetic": {},
    }
    for n in [int(x) for x in args.sizes.split(",") if x]:
        name = f"syn_{n}"
        make_synthetic(con, name, n)
        r = bench_table(con, name, SYN_QI, "sa", args.repeat)
        results["synthetic"][str(n)] = r
        print(f"{n:>10,} rows: bare GROUP BY {r['bare_groupby_s']:.3f}s  k {r['k_anonymity_s']:.3f}s "
              f"(x{r['k_ratio']:.2f})  profile {r['profile_s']:.3f}s (x{r['profile_ratio']:.2f})", flush=True)
        con.execute(f"DROP TABLE {name}")
    if not args.no_pycanon:
        results["adult_x10_vs_pycanon"] = bench_pycanon(con, args.repeat)
        for name, r in results["adult_x10_vs_pycanon"].items():
            print(f"Adult x10 {name:13s} sqlanon {r['sqlanon_s']*1000:8.1f} ms  pycanon {r['pycanon_s']*1000:9.1f} ms"
                  f"  speedup x{r['speedup']:.0f}  (values {r['sqlanon_value']} / {r['pycanon_value']})", flush=True)

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(results, indent=2, default=str))
    lines = ["# Static checks benchmark", "",
             f"Machine: {results['machine']['cpus']} cores, {results['machine']['platform']}, "
             f"DuckDB {results['machine']['duckdb']}. Best of {args.repeat}.", "",
             "| rows | bare GROUP BY (s) | k-anonymity (s) | ratio | profile (s) | ratio |", "|---|---|---|---|---|---|"]
    for n, r in results["synthetic"].items():
        lines.append(f"| {int(n):,} | {r['bare_groupby_s']:.3f} | {r['k_anonymity_s']:.3f} | {r['k_ratio']:.2f} | "
                     f"{r['profile_s']:.3f} | {r['profile_ratio']:.2f} |")
    if "adult_x10_vs_pycanon" in results:
        lines += ["", "Adult x10 (301,620 rows; QI " + ", ".join(ADULT_QI) + f"; SA {ADULT_SA}):", "",
                  "| check | sqlanon (ms) | pycanon (ms) | speedup | sqlanon value | pycanon value |",
                  "|---|---|---|---|---|---|"]
        for name, r in results["adult_x10_vs_pycanon"].items():
            lines.append(f"| {name} | {r['sqlanon_s']*1000:.1f} | {r['pycanon_s']*1000:.1f} | {r['speedup']:.0f} | "
                         f"{r['sqlanon_value']} | {r['pycanon_value']} |")
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print(f"wrote {out.with_suffix('.json')} and {out.with_suffix('.md')}")


if __name__ == "__main__":
    main()
