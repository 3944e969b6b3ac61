"""Seed 004 §5 on Adult, partial reproduction (Figs. 8, 9, 11 and the speed
targets). QI age, occupation, sex, race; SA capital_loss; adult.data + adult.test,
occupation not NULL and capital_loss <> 0 (2,181 rows). Writes
benchmarks/results/dynamic_anatomy.md and dynamic_anatomy_fig9.png.

Fig. 8 here counts the audit's comparison-attack findings (sqlanon_comparison_attacks)
between release 1 (1,000 random rows) and release 2 after x deletes / inserts /
updates, for dynamic Anatomy and for static Anatomy (naive.publish)."""

from __future__ import annotations

import pathlib
import time

import sqlanon
from sqlanon import dynamic_anatomy, naive
from sqlanon.datasets import load_adult

OUT = pathlib.Path(__file__).parent / "results"
QI = ["age", "occupation", "sex", "race"]


def base(con):
    load_adult(con, "adult_all", part="both")
    con.execute(
        "CREATE OR REPLACE TABLE exp AS SELECT row_number() OVER (ORDER BY id) AS id, age, occupation, sex, race, "
        "capital_loss::VARCHAR AS capital_loss FROM adult_all WHERE occupation IS NOT NULL AND capital_loss <> 0"
    )
    return con.execute("SELECT count(*) FROM exp").fetchall()[0][0]


def history(con, proj, publish, kind, x, l, seed=1):
    con.execute("CREATE OR REPLACE TABLE src AS SELECT * FROM exp ORDER BY hash(id, ?) LIMIT 1000", [seed])
    publish(proj, l)
    if kind == "delete":
        con.execute(f"DELETE FROM src WHERE id IN (SELECT id FROM src ORDER BY hash(id, 7) LIMIT {x})")
    elif kind == "insert":
        con.execute(f"INSERT INTO src SELECT * FROM exp WHERE id NOT IN (SELECT id FROM src) ORDER BY hash(id, 7) LIMIT {x}")
    else:
        con.execute(
            f"UPDATE src SET capital_loss = (SELECT capital_loss FROM exp ORDER BY hash(exp.id, src.id) LIMIT 1) "
            f"WHERE id IN (SELECT id FROM src ORDER BY hash(id, 7) LIMIT {x})"
        )
    return publish(proj, l)


def main():
    OUT.mkdir(exist_ok=True)
    con = sqlanon.connect()
    n = base(con)
    lines = [f"# Dynamic Anatomy on Adult (seed 004 §5)\n", f"Rows after the paper's filter: {n} (paper: 2,181)\n"]
    dyn = lambda p, l: dynamic_anatomy.publish(con, p, "src", qi=QI, sa="capital_loss", l=l)
    nai = lambda p, l: naive.publish(con, p, "src", qi=QI, sa="capital_loss", l=l)
    lines += ["## Fig. 8: comparison-attack findings, l = 3\n", "| change | x | static Anatomy | dynamic Anatomy |", "|---|---|---|---|"]
    k = 0
    for kind in ("delete", "insert", "update"):
        for x in (5, 20, 40, 80, 160):
            row = []
            for pub in (nai, dyn):
                k += 1
                history(con, f"p{k}", pub, kind, x, 3)
                row.append(con.execute(f"SELECT count(*) FROM sqlanon_comparison_attacks('p{k}', 3)").fetchall()[0][0])
            lines.append(f"| {kind} | {x} | {row[0]} | {row[1]} |")
    lines += ["\n## Fig. 9: DL of release 2 (80 updates) against l\n", "| l | DL | held | suppressed | time s |", "|---|---|---|---|---|"]
    fig9 = []
    for l in range(2, 11):
        k += 1
        t = time.perf_counter()
        r = history(con, f"p{k}", dyn, "update", 80, l)
        fig9.append((l, r["dl"]))
        lines.append(f"| {l} | {r['dl']} | {r['held']} | {r['suppressed']} | {time.perf_counter() - t:.3f} |")
    lines += ["\n## Speed: one release, l = 8\n", "| rows | release s |", "|---|---|"]
    for rows in (100, 500, 1000, 1_000_000):
        c2 = sqlanon.connect()
        c2.execute(f"CREATE TABLE s AS SELECT range AS id, range % 90 AS age, 'v' || (hash(range) % 20) AS sa FROM range({rows})")
        t = time.perf_counter()
        dynamic_anatomy.publish(c2, "b", "s", qi=["age"], sa="sa", l=8)
        lines.append(f"| {rows} | {time.perf_counter() - t:.3f} |")
        c2.close()
    (OUT / "dynamic_anatomy.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.plot([a for a, _ in fig9], [b for _, b in fig9], marker="o")
    plt.xlabel("l"); plt.ylabel("DL"); plt.title("Dynamic Anatomy DL vs l (Adult, 80 updates)")
    plt.savefig(OUT / "dynamic_anatomy_fig9.png", dpi=100)


if __name__ == "__main__":
    main()
