"""Seed 004 §5 on Adult: static Anatomy (Publisher model "anatomy") against
dynamic Anatomy (model "dynamic-anatomy").

Data: adult.data + adult.test, QI age, occupation, sex, race; SA capital_loss;
rows with occupation '?' or capital_loss 0 removed (2,181 rows, as in the paper).

* Fig. 8: data risk % = share of the x changed tuples (5..160 deletes, inserts
  or updates of a 1,000-row release, l = 8) whose SA the adversary infers with
  the seed 004 comparison attacks (``sqlanon_comparison_attacks``): a changed
  tuple is at risk when it is among the ``targets`` of a finding. Two adversaries:
  - *QI-linking*: the audit as it is, on the published QI table: records are
    linked across releases only by a QI tuple that is unique in both releases
    (seed 004 Definition 3);
  - *identity-linking* (worst case, the paper's assumption that background
    knowledge identifies every tuple): the same audit on a copy of the release
    whose QI table carries the person id as its only QI column.
* Fig. 9 / 10: DL (eq. 1-2) of release 2 after 100 deletes, 100 updates and
  100 inserts, against l = 2..10 and against 1..4 QI attributes (l = 8).
* Fig. 11-13: release time against 100..1,000 rows, l = 2..8 and 1..4 QIs.
* Speed targets: 1,000 rows with l = 8 (< 1 s), 1M synthetic rows (< 1 min).

Writes benchmarks/results/dynamic_anatomy.md, dynamic_anatomy.json and the
PNG plots dynamic_anatomy_fig8.png, _fig9.png, _fig10.png, _fig11_13.png.
Run: .venv/bin/python benchmarks/dynamic_anatomy.py [--quick]"""

from __future__ import annotations

import json
import pathlib
import statistics
import sys

import sqlanon
from sqlanon import Publisher
from sqlanon.datasets import load_adult
from sqlanon.project import Project

OUT = pathlib.Path(__file__).parent / "results"
QI = ["age", "occupation", "sex", "race"]
MODELS = ("anatomy", "dynamic-anatomy")
NAME = {"anatomy": "static Anatomy", "dynamic-anatomy": "dynamic Anatomy (ours)"}


def base(con) -> int:
    load_adult(con, "adult_all", part="both")
    con.execute(
        "CREATE OR REPLACE TABLE exp AS SELECT row_number() OVER (ORDER BY id) AS id, age, occupation, sex, race, "
        "capital_loss::VARCHAR AS capital_loss FROM adult_all WHERE occupation IS NOT NULL AND capital_loss <> 0"
    )
    return con.execute("SELECT count(*) FROM exp").fetchall()[0][0]


def publish(con, project, model, l, qi=QI, seed=0):
    return Publisher(con, project, source="src", id="id", qi=list(qi), sa="capital_loss", model=model, l=l,
                     seed=seed, allow_shared=True).release()  # independent experiments over the same persons (issue 33)


def start(con, n=1000, seed=1):
    con.execute("CREATE OR REPLACE TABLE src AS SELECT * FROM exp ORDER BY hash(id, ?) LIMIT ?", [seed, n])


def change(con, kind, x, salt=7):
    """Apply x random deletes / inserts (rows of exp not in src) / SA updates
    (to a different capital_loss value) to src; returns the changed ids."""
    if kind == "delete":
        ids = con.execute(f"SELECT id FROM src ORDER BY hash(id, {salt}) LIMIT {x}").fetchall()
        con.execute(f"DELETE FROM src WHERE id IN (SELECT id FROM src ORDER BY hash(id, {salt}) LIMIT {x})")
    elif kind == "insert":
        ids = con.execute(f"SELECT id FROM exp WHERE id NOT IN (SELECT id FROM src) ORDER BY hash(id, {salt}) "
                          f"LIMIT {x}").fetchall()
        con.execute("INSERT INTO src SELECT * FROM exp WHERE id IN (SELECT unnest(?))", [[i for (i,) in ids]])
    else:
        ids = con.execute(f"SELECT id FROM src ORDER BY hash(id, {salt} + 1) LIMIT {x}").fetchall()
        con.execute(
            "UPDATE src SET capital_loss = (SELECT v FROM (SELECT DISTINCT capital_loss AS v FROM exp) "
            "WHERE v <> src.capital_loss ORDER BY hash(v, src.id) LIMIT 1) WHERE id IN (SELECT unnest(?))",
            [[i for (i,) in ids]])
    return [i for (i,) in ids]


def identity_copy(con, p) -> str:
    """A copy of project p's releases whose QI table holds the person id only."""
    q = p + "_idl"
    P, Q = Project(p), Project(q)
    con.execute(f"CREATE OR REPLACE TABLE {Q.ref('qit')} AS SELECT release, group_id, id AS person "
                f"FROM sqlanon__membership_rows('{p}')")
    con.execute(f"CREATE OR REPLACE TABLE {Q.ref('st')} AS FROM {P.ref('st')}")
    con.execute(f"CREATE OR REPLACE TABLE {Q.ref('mem')} AS FROM {P.ref('mem')}")
    return q


def risk(con, project, l, ids, key_sql) -> tuple[float, int]:
    """(% of the changed ids whose key is a target of some finding, #findings)."""
    n = con.execute(f"SELECT count(*) FROM sqlanon_comparison_attacks('{project}', {l})").fetchall()[0][0]
    hit = con.execute(
        f"SELECT count(*) FROM (SELECT id, {key_sql} AS k FROM exp WHERE id IN (SELECT unnest(?))) "
        f"WHERE k IN (SELECT unnest(targets) FROM sqlanon_comparison_attacks('{project}', {l}))", [ids]
    ).fetchall()[0][0]
    return 100.0 * hit / max(1, len(ids)), n


def def6_risk(con, project, l, ids, kind) -> float:
    """% of the changed ids in a partition with a related-pair comparison that
    violates Definition 6 (the paper's constraint; computed from the private
    membership of releases 1 and 2): the old partition for a delete, the new one
    for an insert, either for an update."""
    bad = con.execute(
        f"""WITH m AS (SELECT release, id, group_id, capital_loss AS v FROM sqlanon__membership_rows('{project}')),
        pairs AS (SELECT DISTINCT o.group_id AS h, n.group_id AS g FROM m AS o JOIN m AS n
                  ON o.id = n.id AND o.release = 1 AND n.release = 2),
        so AS (SELECT group_id, v, count(*) AS c FROM m WHERE release = 1 GROUP BY ALL),
        sn AS (SELECT group_id, v, count(*) AS c FROM m WHERE release = 2 GROUP BY ALL),
        vals AS (SELECT p.h, p.g, so.v FROM pairs AS p JOIN so ON so.group_id = p.h
                 UNION SELECT p.h, p.g, sn.v FROM pairs AS p JOIN sn ON sn.group_id = p.g),
        d AS (SELECT x.h, x.g,
                     count(*) FILTER (WHERE coalesce(so.c, 0) > coalesce(sn.c, 0)) AS old_minus_new,
                     count(*) FILTER (WHERE coalesce(sn.c, 0) > coalesce(so.c, 0)) AS new_minus_old
              FROM vals AS x LEFT JOIN so ON so.group_id = x.h AND so.v = x.v
              LEFT JOIN sn ON sn.group_id = x.g AND sn.v = x.v GROUP BY x.h, x.g),
        bad AS (SELECT h, g FROM d WHERE old_minus_new BETWEEN 1 AND {l} - 1 OR new_minus_old BETWEEN 1 AND {l} - 1),
        ch AS (SELECT unnest(?) AS id)
        SELECT count(*) FROM ch
        WHERE ('{kind}' <> 'insert' AND EXISTS (SELECT 1 FROM m JOIN bad ON bad.h = m.group_id
                                               WHERE m.release = 1 AND m.id = ch.id))
           OR ('{kind}' <> 'delete' AND EXISTS (SELECT 1 FROM m JOIN bad ON bad.g = m.group_id
                                               WHERE m.release = 2 AND m.id = ch.id))""", [ids]).fetchall()[0][0]
    return 100.0 * bad / max(1, len(ids))


def experiment2(con, project, model, l, qi=QI):
    """Release 1 of 1,000 rows, release 2 after 100 deletes, 100 updates, 100 inserts."""
    start(con)
    r1 = publish(con, project, model, l, qi)
    change(con, "delete", 100, 11)
    change(con, "update", 100, 12)
    change(con, "insert", 100, 13)
    return r1, publish(con, project, model, l, qi)


def main(quick=False):
    OUT.mkdir(exist_ok=True)
    con = sqlanon.connect()
    n = base(con)
    res = {"rows": n}
    start(con)
    uq = con.execute("SELECT count(*) FILTER (WHERE c = 1), count(*) FROM (SELECT count(*) AS c FROM src "
                     "GROUP BY age, occupation, sex, race)").fetchall()[0]
    res["unique_qi_records"] = uq[0]
    res["distinct_qi_tuples"] = uq[1]
    L8 = 8
    k = 0
    # ---- Fig. 8
    xs = (5, 10, 20, 40, 80, 160)
    fig8 = []
    for kind in ("delete", "insert", "update"):
        for x in xs:
            row = {"change": kind, "x": x}
            for model in MODELS:
                k += 1
                p = f"f8_{k}"
                start(con)
                publish(con, p, model, L8)
                ids = change(con, kind, x)
                r2 = publish(con, p, model, L8)
                row[model] = {
                    "qi": risk(con, p, L8, ids, "row(age, occupation, sex, race)::VARCHAR"),
                    "identity": risk(con, identity_copy(con, p), L8, ids, "row(id)::VARCHAR"),
                    "def6": def6_risk(con, p, L8, ids, kind),
                    "held": r2.held, "suppressed": r2.suppressed, "dl": r2.dl,
                }
            fig8.append(row)
    res["fig8"] = fig8
    # ---- Fig. 9 (DL vs l) and 12 (time vs l)
    fig9 = []
    for l in range(2, 11):
        row = {"l": l}
        for model in MODELS:
            k += 1
            _, r2 = experiment2(con, f"f9_{k}", model, l)
            row[model] = {"dl": r2.dl, "held": r2.held, "suppressed": r2.suppressed, "groups": r2.groups,
                          "seconds": r2.seconds}
        fig9.append(row)
    res["fig9"] = fig9
    # ---- Fig. 10 (DL vs #QI) and 13 (time vs #QI)
    fig10 = []
    for q in range(1, 5):
        row = {"qi": q}
        for model in MODELS:
            k += 1
            times = []
            for rep in range(1 if quick else 3):
                k += 1
                _, r2 = experiment2(con, f"f10_{k}", model, L8, QI[:q])
                times.append(r2.seconds)
            row[model] = {"dl": r2.dl, "held": r2.held, "suppressed": r2.suppressed,
                          "seconds": statistics.median(times)}
        fig10.append(row)
    res["fig10"] = fig10
    # ---- Fig. 11 (time vs rows): release 1 of n rows and release 2 after 10% deletes, updates, inserts
    fig11 = []
    for rows in range(100, 1001, 100):
        row = {"rows": rows}
        for model in MODELS:
            t1, t2 = [], []
            for rep in range(1 if quick else 3):
                k += 1
                start(con, rows)
                t1.append(publish(con, f"f11_{k}", model, L8).seconds)
                for kind, salt in (("delete", 21), ("update", 22), ("insert", 23)):
                    change(con, kind, rows // 10, salt)
                t2.append(publish(con, f"f11_{k}", model, L8).seconds)
            row[model] = {"release1": statistics.median(t1), "release2": statistics.median(t2)}
        fig11.append(row)
    res["fig11"] = fig11
    # ---- speed targets
    speed = []
    for rows in (1000, 1_000_000):
        c2 = sqlanon.connect()
        c2.execute(f"CREATE TABLE src AS SELECT range AS id, range % 90 AS age, 'o' || (hash(range, 1) % 14) AS occ, "
                   f"'v' || (hash(range) % 90) AS sa FROM range({rows})")
        pub = Publisher(c2, "s", source="src", id="id", qi=["age", "occ"], sa="sa", model="dynamic-anatomy", l=8)
        a = pub.release()
        c2.execute("DELETE FROM src WHERE hash(id, 2) % 100 < 5")
        c2.execute("UPDATE src SET sa = 'v' || (hash(id, 3) % 90) WHERE hash(id, 4) % 100 < 2")
        c2.execute(f"INSERT INTO src SELECT range, range % 90, 'o' || (hash(range, 1) % 14), 'v' || (hash(range) % 90) "
                   f"FROM range({rows}, {rows + rows // 20})")
        b = pub.release()
        speed.append({"rows": rows, "release1": a.seconds, "release2": b.seconds, "held2": b.held,
                      "suppressed2": b.suppressed, "published2": b.published})
        c2.close()
    res["speed"] = speed
    (OUT / "dynamic_anatomy.json").write_text(json.dumps(res, indent=1) + "\n")
    write_md(res)
    plots(res)


def write_md(res):
    L = [
        "# Dynamic Anatomy on Adult (seed 004 §5)\n",
        "Generated by `benchmarks/dynamic_anatomy.py` (2 shared cores; times are wall-clock of "
        "`Publisher.release()`, median of 3 where noted).\n",
        f"Rows after the paper's filter: {res['rows']} (paper: 2,181). In the 1,000-row release 1, "
        f"{res['unique_qi_records']} records have a QI tuple (age, occupation, sex, race) that is unique in the "
        f"release ({res['distinct_qi_tuples']} distinct tuples): only those can be linked by the QI-linking adversary.\n",
        "## Fig. 8: data risk % (l = 8, release 1 = 1,000 random rows, release 2 after x changes)\n",
        "Risk = % of the x changed tuples that are targets of a comparison-attack finding. "
        "QI = the audit on the published tables (links unique QI tuples only); id = the same audit when the "
        "adversary identifies every record (worst case, the paper's assumption).\n",
        "Def. 6 = % of the changed tuples in a partition whose comparison with a related partition violates "
        "Definition 6 (a multiset difference with 1 to l-1 distinct values): the paper's constraint, a looser "
        "notion than a successful attack.\n",
        "| change | x | static QI | static id | static Def. 6 | ours QI | ours id | ours Def. 6 | ours held | "
        "ours suppressed | static findings (id) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in res["fig8"]:
        s, d = r["anatomy"], r["dynamic-anatomy"]
        L.append(f"| {r['change']} | {r['x']} | {s['qi'][0]:.0f} | {s['identity'][0]:.0f} | {s['def6']:.0f} | "
                 f"{d['qi'][0]:.0f} | {d['identity'][0]:.0f} | {d['def6']:.0f} | {d['held']} | {d['suppressed']} | "
                 f"{s['identity'][1]} |")
    L += ["\n## Fig. 9 / Fig. 12: DL and time of release 2 against l (100 deletes, 100 updates, 100 inserts)\n",
          "| l | static DL | ours DL | ours held | ours suppressed | static suppressed | static s | ours s |",
          "|---|---|---|---|---|---|---|---|"]
    for r in res["fig9"]:
        s, d = r["anatomy"], r["dynamic-anatomy"]
        L.append(f"| {r['l']} | {s['dl']} | {d['dl']} | {d['held']} | {d['suppressed']} | {s['suppressed']} | "
                 f"{s['seconds']:.3f} | {d['seconds']:.3f} |")
    L += ["\n## Fig. 10 / Fig. 13: DL and time of release 2 against the number of QI attributes (l = 8)\n",
          "| QIs | static DL | ours DL | static s | ours s |", "|---|---|---|---|---|"]
    for r in res["fig10"]:
        s, d = r["anatomy"], r["dynamic-anatomy"]
        L.append(f"| {', '.join(QI[:r['qi']])} | {s['dl']} | {d['dl']} | {s['seconds']:.3f} | {d['seconds']:.3f} |")
    L += ["\n## Fig. 11: time against rows (l = 8; release 2 after 10% deletes, updates, inserts)\n",
          "| rows | static r1 s | static r2 s | ours r1 s | ours r2 s |", "|---|---|---|---|---|"]
    for r in res["fig11"]:
        s, d = r["anatomy"], r["dynamic-anatomy"]
        L.append(f"| {r['rows']} | {s['release1']:.3f} | {s['release2']:.3f} | {d['release1']:.3f} | "
                 f"{d['release2']:.3f} |")
    L += ["\n## Speed targets (dynamic Anatomy, l = 8, synthetic; release 2 after 5% deletes, 2% updates, 5% inserts)\n",
          "| rows | release 1 s | release 2 s | release 2 held | release 2 suppressed |", "|---|---|---|---|---|"]
    for r in res["speed"]:
        L.append(f"| {r['rows']:,} | {r['release1']:.3f} | {r['release2']:.3f} | {r['held2']} | {r['suppressed2']} |")
    text = "\n".join(L) + "\n"
    (OUT / "dynamic_anatomy.md").write_text(text)
    print(text)


def plots(res):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), sharey=True)
    for ax, kind in zip(axes, ("delete", "insert", "update")):
        rows = [r for r in res["fig8"] if r["change"] == kind]
        xs = [r["x"] for r in rows]
        for model, style in (("anatomy", "o-"), ("dynamic-anatomy", "s--")):
            ax.plot(xs, [r[model]["identity"][0] for r in rows], style, label=f"{NAME[model]}, id-linking")
            ax.plot(xs, [r[model]["qi"][0] for r in rows], style, alpha=0.5, label=f"{NAME[model]}, QI-linking")
            ax.plot(xs, [r[model]["def6"] for r in rows], style, alpha=0.3, label=f"{NAME[model]}, Def. 6 violated")
        ax.set_xscale("log", base=2)
        ax.set_title(f"{kind}s")
        ax.set_xlabel("changed tuples")
    axes[0].set_ylabel("data risk %")
    axes[0].legend(fontsize=7)
    fig.suptitle("Fig. 8: data risk (Adult, l = 8)")
    fig.tight_layout()
    fig.savefig(OUT / "dynamic_anatomy_fig8.png", dpi=100)
    plt.close(fig)

    for key, xk, xlabel, fname in (("fig9", "l", "l", "fig9"), ("fig10", "qi", "number of QI attributes", "fig10")):
        fig, ax = plt.subplots(figsize=(5, 3.8))
        for model, style in (("anatomy", "o-"), ("dynamic-anatomy", "s--")):
            ax.plot([r[xk] for r in res[key]], [r[model]["dl"] for r in res[key]], style, label=NAME[model])
        ax.set_xlabel(xlabel)
        ax.set_ylabel("DL (eq. 1-2)")
        ax.set_title(f"Fig. {key[3:]}: DL of release 2 (Adult)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(OUT / f"dynamic_anatomy_{fname}.png", dpi=100)
        plt.close(fig)

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for model, style in (("anatomy", "o-"), ("dynamic-anatomy", "s--")):
        axes[0].plot([r["rows"] for r in res["fig11"]], [r[model]["release2"] for r in res["fig11"]], style,
                     label=NAME[model])
        axes[1].plot([r["l"] for r in res["fig9"] if r["l"] <= 8],
                     [r[model]["seconds"] for r in res["fig9"] if r["l"] <= 8], style, label=NAME[model])
        axes[2].plot([r["qi"] for r in res["fig10"]], [r[model]["seconds"] for r in res["fig10"]], style,
                     label=NAME[model])
    for ax, xl, t in zip(axes, ("rows", "l", "number of QI attributes"), ("Fig. 11", "Fig. 12", "Fig. 13")):
        ax.set_xlabel(xl)
        ax.set_ylabel("release time s")
        ax.set_title(t)
        ax.set_ylim(bottom=0)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(OUT / "dynamic_anatomy_fig11_13.png", dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
