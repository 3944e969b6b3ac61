"""DuckDB vs Spark (local[2]) on the same synthetic history: time and peak
memory per release, and the same releases (issue 16).

History: n synthetic persons (id, age, zip, sex; SA disease, 12 values),
release 1 = all of them; releases 2 and 3 each delete 5% of the present
persons, insert 5% new ones and update the SA of 2%. Written once as Parquet;
each engine runs in its own process (``--engine``), reads the Parquet files as
its source (loading not timed), and makes 3 releases of each model. Peak
memory: the largest sum of RSS over the engine's process tree (the Python
driver, and Spark's JVM), sampled every 0.2 s from /proc.

    .venv/bin/python benchmarks/spark.py                 # 1M and 10M rows
    .venv/bin/python benchmarks/spark.py --rows 1000000  # one size (kept beside the others' numbers)
    .venv/bin/python benchmarks/spark.py --rows 10000000 --model dynamic-anatomy

Writes benchmarks/results/spark.{json,md}. The paper estimate of the plan on a
cluster (shuffles per release, which steps are per SA value) is in
docs/spark.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODELS = {"dynamic-anatomy": {"l": 4}, "anatomy": {"l": 4}, "m-invariance": {"m": 4}, "sliced-bucket": {"m": 4}}
QI = ["age", "zip", "sex"]


def make_history(folder: Path, rows: int) -> list[str]:
    import duckdb

    con = duckdb.connect()
    con.execute(f"""CREATE TABLE h1 AS SELECT range AS id, (18 + hash(range, 1) % 70)::INTEGER AS age,
                     (10000 + hash(range, 2) % 900)::INTEGER AS zip, ['F', 'M'][(hash(range, 3) % 2 + 1)::INTEGER] AS sex,
                     'd' || (hash(range, 4) % 12)::VARCHAR AS disease FROM range({rows})""")
    paths = []
    for r in (1, 2, 3):
        if r > 1:
            con.execute(f"""CREATE TABLE h{r} AS
                SELECT id, age, zip, sex,
                       CASE WHEN hash(id, {r}, 'u') % 100 < 2 THEN 'd' || ((hash(id, 4) + {r}) % 12)::VARCHAR
                            ELSE disease END AS disease
                FROM h{r - 1} WHERE hash(id, {r}, 'd') % 100 >= 5
                UNION ALL
                SELECT {rows} * {r} + range, (18 + hash(range, {r}, 1) % 70)::INTEGER,
                       (10000 + hash(range, {r}, 2) % 900)::INTEGER, ['F', 'M'][(hash(range, {r}, 3) % 2 + 1)::INTEGER],
                       'd' || (hash(range, {r}, 4) % 12)::VARCHAR
                FROM range({rows // 20})""")
        p = folder / f"h{r}.parquet"
        con.execute(f"COPY (SELECT * FROM h{r} ORDER BY id) TO '{p}' (FORMAT parquet)")
        paths.append(str(p))
    return paths


def table_digest(engine: str, con, table: str, cols: list[str]) -> str:
    """An order-free digest of a table computed where it is (fetching 10M rows
    into Python took 12.6 GB and got the 10M run OOM-killed): row count and the
    sum of the first 60 bits of md5 of each row's text, the same on both engines."""
    text = "concat_ws('|', " + ", ".join(f"CAST({c} AS VARCHAR)" for c in cols) + ")"
    if engine == "duckdb":
        q = f"SELECT count(*), sum(('0x' || substr(md5({text}), 1, 15))::BIGINT::HUGEINT)::VARCHAR FROM {table}"
        row = con.execute(q).fetchall()[0]
    else:
        q = (f"SELECT count(*), CAST(sum(CAST(conv(substr(md5({text.replace('VARCHAR', 'STRING')}), 1, 15), 16, 10) "
             f"AS DECIMAL(38, 0))) AS STRING) FROM {table}")
        row = con.spark.sql(q).collect()[0]
    return hashlib.md5(f"{row[0]}:{row[1]}".encode()).hexdigest()


def run_engine(engine: str, paths: list[str], work: str, models: list[str]) -> dict:
    """One engine: 3 releases of each model; seconds, counts and table digests."""
    import sqlanon

    out = {}
    for model in models:
        params = MODELS[model]
        if engine == "duckdb":
            con = sqlanon.connect(os.path.join(work, f"{model}.duckdb"))
            target = con
        else:
            from sqlanon.spark import SparkEngine, session

            target = con = SparkEngine(os.path.join(work, f"wh-{model}"),
                                       session("local[2]", quick_jit=False, **{"spark.driver.memory": "10g"}))
        pub, rels = None, []
        for p in paths:
            if engine == "duckdb":
                con.execute(f"CREATE OR REPLACE TABLE src AS SELECT * FROM read_parquet('{p}')")
            else:
                con.load("src", con.spark.read.parquet(p))
            pub = pub or sqlanon.Publisher(target, "b", source="src", id="id", qi=QI, sa="disease", model=model,
                                           **params)
            t = time.perf_counter()
            r = pub.release()
            sec = time.perf_counter() - t
            rels.append({"seconds": sec, "published": r.published, "groups": r.groups, "held": r.held,
                         "suppressed": r.suppressed,
                         "qit": table_digest(engine, con, "sqlanon_b_qit", ["release", "group_id", *QI]),
                         "st": table_digest(engine, con, "sqlanon_b_st", ["release", "group_id", "disease", "count"])})
            print(engine, model, len(rels), f"{sec:.1f}s", file=sys.stderr, flush=True)
        out[model] = rels
    return out


def _tree_rss(pid: int) -> int:
    """Bytes of RSS of ``pid`` and its descendants."""
    kids: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                parts = f.read().rsplit(")", 1)[1].split()
            kids.setdefault(int(parts[1]), []).append(int(d))
            rss[int(d)] = int(parts[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo += kids.get(p, [])
    return total


def measure(engine: str, paths: list[str], work: str, models: list[str]) -> dict:
    proc = subprocess.Popen([sys.executable, __file__, "--engine", engine, "--work", work,
                             *[f"--model={m}" for m in models], *paths],
                            stdout=subprocess.PIPE, text=True)
    peak = [0]

    def sample():
        while proc.poll() is None:
            peak[0] = max(peak[0], _tree_rss(proc.pid))
            time.sleep(0.2)
    th = threading.Thread(target=sample, daemon=True)
    th.start()
    t = time.perf_counter()
    stdout, _ = proc.communicate()
    wall = time.perf_counter() - t
    th.join()
    if proc.returncode:
        raise SystemExit(f"{engine} run failed ({proc.returncode})")
    res = json.loads(stdout.strip().splitlines()[-1])
    return {"wall": wall, "peak_rss_mb": peak[0] / 2**20, "models": res}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, action="append")
    ap.add_argument("--engine")
    ap.add_argument("--work")
    ap.add_argument("--model", action="append", choices=list(MODELS),
                    help="models to run (default: all); 10M rows on Spark: one model fits the session")
    ap.add_argument("paths", nargs="*")
    a = ap.parse_args()
    if a.engine:  # the child process of one engine
        print(json.dumps(run_engine(a.engine, a.paths, a.work, a.model or list(MODELS))))
        return
    sizes = a.rows or [1_000_000, 10_000_000]
    results = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}",
               "sizes": {}}
    old = HERE / "results" / "spark.json"
    if a.rows and old.exists():  # one size at a time: the others' numbers stay
        results["sizes"] = json.loads(old.read_text())["sizes"]
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            paths = make_history(Path(tmp), n)
            res = {e: measure(e, paths, tempfile.mkdtemp(dir=tmp), a.model or list(MODELS)) for e in ("duckdb", "spark")}
        results["sizes"][str(n)] = res
        print(json.dumps({n: {e: {"wall": r["wall"], "peak": r["peak_rss_mb"]} for e, r in res.items()}}),
              flush=True)
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "spark.json").write_text(json.dumps(results, indent=1))
    lines = ["# DuckDB vs Spark local[2] (benchmarks/spark.py)", "",
             f"Machine: {results['machine']}. Synthetic history (id, age, zip, sex; SA disease, 12 values), "
             "3 releases (5% deleted, 5% inserted, 2% updated per release). Seconds per release (the "
             "release only, source loading not timed); peak RSS of the engine's whole process tree "
             "(Python + JVM for Spark); same: the QI and sensitive tables of every release have equal "
             "md5 on both engines.", "",
             "| rows | model | release | DuckDB s | Spark s | Spark / DuckDB | same |",
             "|---:|---|---:|---:|---:|---:|:---:|"]
    for n, res in sorted(results["sizes"].items(), key=lambda kv: int(kv[0])):
        for model in res["duckdb"]["models"]:
            for i, (d, s) in enumerate(zip(res["duckdb"]["models"][model], res["spark"]["models"][model]), 1):
                same = d["qit"] == s["qit"] and d["st"] == s["st"]
                lines.append(f"| {int(n):,} | {model} | {i} | {d['seconds']:.2f} | {s['seconds']:.1f} | "
                             f"{s['seconds'] / d['seconds']:.0f}x | {'yes' if same else 'NO'} |")
    lines += ["", "| rows | DuckDB peak RSS MB | Spark peak RSS MB | DuckDB wall s | Spark wall s |",
              "|---:|---:|---:|---:|---:|"]
    for n, res in sorted(results["sizes"].items(), key=lambda kv: int(kv[0])):
        lines.append(f"| {int(n):,} | {res['duckdb']['peak_rss_mb']:.0f} | {res['spark']['peak_rss_mb']:.0f} | "
                     f"{res['duckdb']['wall']:.0f} | {res['spark']['wall']:.0f} |")
    (HERE / "results" / "spark.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
