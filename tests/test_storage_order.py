"""Issue 19, item 1: the public tables' storage order says nothing about the SA.

A user exports the public tables with ``COPY sqlanon_<p>_qit TO 'qit.csv'`` and
reads the file in order. The adversary of this test predicts each real QI row's
SA from the row's position inside its group, by every order the code could have
used (the SA's sort order either way, the order of the group's values in the
exported st / _published files, seeded hashes of (group, SA) and of SA alone
with the default seed 0 and with the project's seed, which it is told, and an
order learnt from half of the groups whose members it knows). The membership
and the true SA are joined only to score the guesses. The SA is drawn
independently of the QI, so a guess better than chance can only come from the
storage order. Accuracy must be at most chance + 5 points (chance = mean of
1 / group size over the scored rows).
"""

from __future__ import annotations

import csv
import random
from collections import Counter, defaultdict

import pytest

import sqlanon
from sqlanon import Publisher
from sqlanon.ident import quote

SA = ["flu", "hiv", "cold", "ulcer", "gastritis", "angina"]
N = 1500


def _source(con, rnd):
    """Persons with a unique QI (age, zip) and an SA independent of it."""
    rows = [(i, rnd.randint(20, 70), rnd.randrange(10**6), rnd.choice(SA)) for i in range(N)]
    con.execute("CREATE OR REPLACE TABLE src (id BIGINT, age INTEGER, zip BIGINT, disease VARCHAR)")
    con.executemany("INSERT INTO src VALUES (?, ?, ?, ?)", rows)


def _churn(con, rnd):
    """Release 2's source: 10% deleted, 5% updated (new SA), 10% new persons."""
    con.execute("DELETE FROM src WHERE hash(id, 'del') % 10 = 0")
    con.execute("UPDATE src SET disease = ? WHERE hash(id, 'upd') % 20 = 0", [rnd.choice(SA)])
    rows = [(N + i, rnd.randint(20, 70), rnd.randrange(10**6), rnd.choice(SA)) for i in range(N // 10)]
    con.executemany("INSERT INTO src VALUES (?, ?, ?, ?)", rows)


def _export(con, table, path):
    """The table as a user exports it: COPY TO csv, read back in file order."""
    con.execute(f"COPY {quote(table)} TO '{path}' (HEADER)")
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _positions(rows):
    """(release, group) -> the rows of the group in file order."""
    out = defaultdict(list)
    for r in rows:
        out[(int(r["release"]), int(r["group_id"]))].append(r)
    return out


def _attack(con, project, seed, tmp_path):
    """Accuracy of each order-based predictor and the chance level."""
    p = f"sqlanon_{project}"
    qit = _positions(_export(con, p + "_qit", tmp_path / "qit.csv"))
    st_file = _positions(_export(con, p + "_st", tmp_path / "st.csv"))
    has_pub = con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = ?",
                          [p + "_published"]).fetchall()[0][0]
    pub = _positions(_export(con, p + "_published", tmp_path / "pub.csv")) if has_pub else {}
    # the group's values (with multiplicity) in each order the code could have used
    values = {g: [r["disease"] for r in rows for _ in range(int(r["count"]))] for g, rows in st_file.items()}
    orders = {"st file order": values, "SA ascending": {g: sorted(v) for g, v in values.items()},
              "SA descending": {g: sorted(v, reverse=True) for g, v in values.items()}}
    if pub:
        orders["_published file order"] = {g: [r["disease"] for r in rows] for g, rows in pub.items()}
    for s in sorted({0, seed}):
        for name, expr in ((f"hash(group, SA, {s})", "hash(group_id, disease, $seed)"),
                           (f"hash(SA, {s})", "hash(disease, $seed)"),
                           (f"hash(group, SA) seed {s} as int", "hash(group_id, disease, $seed::INTEGER)")):
            ranked = con.execute(
                f"SELECT release, group_id, list(disease ORDER BY {expr}, disease) FROM "
                f"(SELECT release, group_id, disease FROM {quote(p + '_st')}, range(count::BIGINT)) "
                "GROUP BY ALL", {"seed": s}).fetchall()
            orders[name] = {(r, g): v for r, g, v in ranked}
    # ground truth, only for scoring: (release, group, QI) of exactly one row that
    # is a real person -> that person's published SA
    truth = con.execute(
        f"SELECT m.release, m.group_id, q.age::VARCHAR, q.zip::VARCHAR, any_value(m.disease), "
        f"count(*), bool_or(m.is_counterfeit) "
        "FROM sqlanon__membership_rows(?) AS m JOIN "
        f"(SELECT id, age, zip FROM src UNION SELECT id, age, zip FROM gone) AS q USING (id) "
        "GROUP BY ALL", [project]).fetchall()
    real = {(r, g, a, z): v for r, g, a, z, v, n, fake in truth if n == 1 and not fake}
    scored = []  # (group key, position, group size, true SA)
    for key, rows in qit.items():
        seen = Counter((r["age"], r["zip"]) for r in rows)
        for k, r in enumerate(rows):
            t = real.get((*key, r["age"], r["zip"]))
            if t is not None and seen[(r["age"], r["zip"])] == 1:
                scored.append((key, k, len(rows), t))
    assert len(scored) > N, len(scored)
    chance = sum(1 / n for _, _, n, _ in scored) / len(scored)
    acc = {name: sum(order[key][k] == t for key, k, _, t in scored) / len(scored) for name, order in orders.items()}
    # a learnt order: from the groups of even id (persons it knows), the most
    # frequent rank of the true SA among the group's sorted values at each
    # (position, size); tested on the groups of odd id
    learn = defaultdict(Counter)
    for key, k, n, t in scored:
        if key[1] % 2 == 0:
            learn[(k, n)][sorted(values[key]).index(t)] += 1
    test = [(key, k, n, t) for key, k, n, t in scored if key[1] % 2]
    hits = sum(bool(learn[(k, n)]) and sorted(values[key])[learn[(k, n)].most_common(1)[0][0]] == t
               for key, k, n, t in test)
    acc["learnt position -> rank"] = hits / len(test)
    chance_test = sum(1 / n for _, _, n, _ in test) / len(test)
    return acc, chance, chance_test


CASES = [
    pytest.param("m-invariance", "anatomy", 0, id="m-inv-anatomy-default-seed"),
    pytest.param("m-invariance", "generalized", 7321, id="m-inv-generalized-known-seed"),
    pytest.param("anatomy", "anatomy", 0, id="anatomy-default-seed"),
    pytest.param("dynamic-anatomy", "anatomy", 99, id="dynamic-anatomy-known-seed"),
]


@pytest.mark.parametrize("model,output,seed", CASES)
def test_row_order_of_exported_tables_does_not_predict_sa(model, output, seed, tmp_path):
    con = sqlanon.connect()
    try:
        rnd = random.Random(seed + 1)
        _source(con, rnd)
        con.execute("CREATE TABLE gone AS SELECT * FROM src WHERE false")
        kw = {"m": 4} if model == "m-invariance" else {"l": 3}
        pub = Publisher(con, "ward", source="src", id="id", qi=["age", "zip"], sa="disease", model=model,
                        output=output, seed=seed, **kw)
        pub.release()
        con.execute("INSERT INTO gone SELECT * FROM src WHERE hash(id, 'del') % 10 = 0")
        _churn(con, rnd)
        pub.release()
        acc, chance, chance_test = _attack(con, "ward", seed, tmp_path)
        for name, a in acc.items():
            base = chance_test if name.startswith("learnt") else chance
            assert a <= base + 0.05, f"{name}: SA predicted from row position for {a:.1%} of rows (chance {base:.1%})"
    finally:
        con.close()


def test_public_tables_are_stored_in_an_order_of_their_public_columns(tmp_path):
    """Each file is sorted by its own public columns: qit by group and an unkeyed
    hash of the QI values, st and _published by group and SA value."""
    con = sqlanon.connect()
    try:
        _source(con, random.Random(5))
        Publisher(con, "g", source="src", id="id", qi=["age", "zip"], sa="disease", m=4, output="generalized",
                  seed=3).release()
        for t, keys in (("qit", "release, group_id, hash(age, zip), age, zip"), ("st", "release, group_id, disease"),
                        ("published", "release, group_id, disease")):
            stored = con.execute(f'SELECT * FROM "sqlanon_g_{t}"').fetchall()
            ordered = con.execute(f'SELECT * FROM "sqlanon_g_{t}" ORDER BY {keys}').fetchall()
            assert stored == ordered, t
    finally:
        con.close()


def test_qi_rank_inside_a_group_does_not_predict_sa(tmp_path):
    """An adversary who sorts each group's published QI rows itself (by age,
    then zip) and learns rank -> SA rank from half of the groups.

    What is left is each value's sample deviation in QI order (step 8 aligns a
    group's rows by QI quantile, shuffled in blocks of 64): over 32 sources
    (random.Random(1..32); seed 0 for source 1 as here, 7 x source otherwise) the accuracy averages 27.0%
    (se 0.4) at chance 25.0% (25.8% on this source); 29.2% before the last
    ranks of each value were shuffled too, 25.3% with no QI locality at all."""
    con = sqlanon.connect()
    try:
        rnd = random.Random(1)
        _source(con, rnd)
        Publisher(con, "ward", source="src", id="id", qi=["age", "zip"], sa="disease", m=4).release()
        rows = con.execute(
            "SELECT q.group_id, row_number() OVER (PARTITION BY q.group_id ORDER BY q.age, q.zip) - 1, "
            "count(*) OVER (PARTITION BY q.group_id), "
            "(SELECT list(disease ORDER BY disease) FROM sqlanon_ward_st AS t WHERE t.group_id = q.group_id), "
            "s.disease FROM sqlanon_ward_qit AS q JOIN src AS s USING (age, zip)").fetchall()
        learn = defaultdict(Counter)
        for g, k, n, vals, t in rows:
            if g % 2 == 0:
                learn[(k, n)][vals.index(t)] += 1
        test = [(k, n, vals, t) for g, k, n, vals, t in rows if g % 2]
        acc = sum(bool(learn[(k, n)]) and vals[learn[(k, n)].most_common(1)[0][0]] == t
                  for k, n, vals, t in test) / len(test)
        chance = sum(1 / n for _, n, _, _ in test) / len(test)
        assert acc <= chance + 0.05, f"QI rank predicts the SA for {acc:.1%} of rows (chance {chance:.1%})"
    finally:
        con.close()
