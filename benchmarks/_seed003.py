"""Seed 003 §6's history, shared by benchmarks/release.py and
benchmarks/sliced_bucket.py: the source starts as 30,000 Adult persons, and
every later release re-inserts 1,000 persons deleted earlier, deletes 3,500,
updates the occupation of 1,000 (drawn from the 14 values) and inserts 4,000
(Adult rows not used yet, then fresh ids carrying a sampled Adult row's
values). The source is edited with set-based SQL; the same seed gives the
same history. ``scale`` multiplies every count (the starting 30,000 and each
release's edits; benchmarks/longrun.py's small quick mode): 1 is the protocol."""

from __future__ import annotations


def start(con, seed: int, scale: float = 1.0) -> tuple[int, int]:
    """Tables pool (Adult, both parts, complete rows), src (the first release),
    gone and used; returns (pool rows, next fresh id)."""
    from sqlanon.datasets import load_adult

    load_adult(con, "pool", part="both", complete=True)
    n_pool = con.execute("SELECT count(*) FROM pool").fetchall()[0][0]
    con.execute(f"CREATE TABLE src AS SELECT * FROM pool WHERE hash(id, $s) % 45222 < {round(30000 * scale)} ORDER BY id", {"s": seed})
    con.execute("CREATE TABLE gone AS SELECT * FROM src LIMIT 0")
    con.execute("CREATE TABLE used AS SELECT id FROM src")
    return n_pool, n_pool + 1


def edit(con, r: int, seed: int, n_pool: int, next_id: int, scale: float = 1.0) -> int:
    """Turn src into the source of release r (> 1); returns the next fresh id."""
    p = {"s": seed, "r": r}
    n_back, n_del, n_upd, n_ins = (round(x * scale) for x in (1000, 3500, 1000, 4000))
    # re-insert 1,000 persons deleted earlier
    con.execute(f"INSERT INTO src SELECT * FROM gone ORDER BY hash(id, $s, $r) LIMIT {n_back}", p)
    con.execute("DELETE FROM gone WHERE id IN (SELECT id FROM src)")
    # delete ~3,500
    con.execute(f"INSERT INTO gone SELECT * FROM src ORDER BY hash(id, $s, $r, 'd') LIMIT {n_del}", p)
    con.execute("DELETE FROM src WHERE id IN (SELECT id FROM gone)")
    # update 1,000 (new occupation drawn from the domain)
    con.execute(f"""UPDATE src SET occupation = (SELECT list(DISTINCT occupation ORDER BY occupation) FROM pool)
                   [(hash(id, $s, $r, 'v') % 14 + 1)::INTEGER]
                   WHERE id IN (SELECT id FROM src ORDER BY hash(id, $s, $r, 'u') LIMIT {n_upd})""", p)
    # insert 4,000: unused Adult rows first, then fresh ids with a sampled Adult row's values
    con.execute(f"""INSERT INTO src SELECT * FROM pool WHERE id NOT IN (SELECT id FROM used)
                   ORDER BY hash(id, $s, $r, 'i') LIMIT {n_ins}""", p)
    k = n_ins - con.execute("SELECT count(*) FROM src WHERE id NOT IN (SELECT id FROM used)").fetchall()[0][0]
    if k > 0:
        con.execute(f"""INSERT INTO src SELECT * EXCLUDE (j) REPLACE ($nid + row_number() OVER (ORDER BY id, j) - 1 AS id)
                       FROM (SELECT p.*, j FROM range($k) AS t(j) JOIN pool AS p
                             ON p.id = (hash(j, $s, $r, 'x') % {n_pool} + 1)::BIGINT)""",
                    {"nid": next_id, "k": k, "s": seed, "r": r})
        next_id += k
    con.execute("INSERT INTO used SELECT id FROM src WHERE id NOT IN (SELECT id FROM used)")
    return next_id
