"""Dynamic Anatomy (seed 004 §4): one release that satisfies Definition 6
against the previous release, in polynomial time (docs/dynamic_anatomy.md).

Rule ("carry or drop", decided per previous partition in SQL, one aggregate
row per partition):

* carry partition h: republish it with exactly its previous members and SA
  values -- deleted members are held (their previous tuple is published again),
  updated members are held with their previous value and their new version is
  suppressed (the SVM rule).  Cost: |HD| = deleted + updated, |SP| = updated.
* drop partition h: suppress its surviving and updated members.
  Cost: |SP| = survivors + updated.
  The cheaper of the two is taken (ties: carry).
* new persons are grouped by the static l-diverse Anatomy grouping
  (macro ``sqlanon_anatomy_groups``) into fresh partitions; rows it cannot place
  are suppressed.

A carried partition has the same SA multiset as before (differences empty in
both directions, and it was l-diverse); a fresh partition holds only new persons,
so it is related to no previous partition; so every release meets Definition 6.

Status: standalone function over tables; not yet registered as a Publisher
model (see docs/dynamic_anatomy.md).
"""

from __future__ import annotations

import duckdb

from .ident import quote


def release(
    con: duckdb.DuckDBPyConnection,
    current: str,
    previous: str | None,
    *,
    l: int,
    id: str = "id",
    sa: str = "sa",
    seed: int = 0,
    out: str = "sqlanon__dyn_release",
) -> dict:
    """Partition table ``current`` (columns ``id``, ``sa``) against ``previous``
    (columns ``id``, ``group_id``, ``sa``: the previous release's published
    membership, or None for the first release).

    Creates TEMP table ``out`` (id, group_id, sa, held) -- the published rows,
    ``sa`` being the previous value for held rows -- and returns the counts
    ``{"published", "groups", "held", "suppressed", "dl"}`` with
    DL = sum |par|^2 + |D| * (|HD| + |SP|) (seed 004 eq. 1-2 as its Table 12
    example evaluates to 89).
    """
    cur = quote(current)
    i, s, o = quote(id), quote(sa), quote(out)
    if previous is None:
        con.execute(f"CREATE OR REPLACE TEMP TABLE sqlanon__dyn_prev (id {_type(con, current, id)}, group_id BIGINT, sa VARCHAR)")
    else:
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE sqlanon__dyn_prev AS "
            f"SELECT {i} AS id, group_id::BIGINT AS group_id, {s}::VARCHAR AS sa FROM {quote(previous)}"
        )
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE sqlanon__dyn_cls AS
        SELECT coalesce(p.id, c.id) AS id, p.group_id, p.sa AS old_sa, c.sa AS new_sa,
               CASE WHEN p.id IS NULL THEN 'new' WHEN c.id IS NULL THEN 'deleted'
                    WHEN p.sa = c.sa THEN 'survivor' ELSE 'updated' END AS status
        FROM sqlanon__dyn_prev AS p
        FULL JOIN (SELECT {i} AS id, {s}::VARCHAR AS sa FROM {cur}) AS c ON p.id = c.id"""
    )
    con.execute(
        """CREATE OR REPLACE TEMP TABLE sqlanon__dyn_dec AS
        SELECT group_id,
               count(*) FILTER (WHERE status = 'deleted') + 2 * count(*) FILTER (WHERE status = 'updated')
                 <= count(*) FILTER (WHERE status = 'survivor') + count(*) FILTER (WHERE status = 'updated') AS carry
        FROM sqlanon__dyn_cls WHERE group_id IS NOT NULL GROUP BY group_id"""
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE sqlanon__dyn_pool AS "
        "SELECT id, new_sa AS sa FROM sqlanon__dyn_cls WHERE status = 'new' AND new_sa IS NOT NULL"
    )
    base = con.execute("SELECT coalesce(max(group_id), 0) FROM sqlanon__dyn_prev").fetchall()[0][0]
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE {o} AS
        SELECT c.id, c.group_id, c.old_sa AS sa, c.status IN ('deleted', 'updated') AS held
        FROM sqlanon__dyn_cls AS c JOIN sqlanon__dyn_dec AS d USING (group_id) WHERE d.carry
        UNION ALL
        SELECT g.id, g.group_id + ?, p.sa, false
        FROM sqlanon_anatomy_groups('sqlanon__dyn_pool', 'id', 'sa', ?, seed := ?) AS g
        JOIN sqlanon__dyn_pool AS p USING (id)""",
        [base, l, seed],
    )
    n, published, groups, held, sq = con.execute(
        f"""SELECT (SELECT count(*) FROM {cur}),
                   count(*), count(DISTINCT group_id), count(*) FILTER (WHERE held),
                   (SELECT sum(size * size) FROM (SELECT count(*) AS size FROM {o} GROUP BY group_id))
            FROM {o}"""
    ).fetchall()[0]
    # every current row that is not published with its current value is suppressed
    suppressed = con.execute(
        f"SELECT count(*) FROM {cur} AS c WHERE NOT EXISTS "
        f"(SELECT 1 FROM {o} AS r WHERE r.id = c.{i} AND NOT r.held)"
    ).fetchall()[0][0]
    for t in ("prev", "cls", "dec", "pool"):
        con.execute(f"DROP TABLE sqlanon__dyn_{t}")
    dl = int(sq or 0) + int(n) * (int(held) + int(suppressed))
    return {"published": int(published), "groups": int(groups), "held": int(held),
            "suppressed": int(suppressed), "dl": dl}


def _type(con, table: str, col: str) -> str:
    return con.execute(
        "SELECT data_type FROM duckdb_columns() WHERE table_name = ? AND column_name = ?", [table, col]
    ).fetchall()[0][0]


def publish(
    con: duckdb.DuckDBPyConnection,
    project: str,
    source: str,
    *,
    qi: list[str],
    sa: str,
    l: int,
    id: str = "id",
    seed: int = 0,
) -> dict:
    """Publish ``source`` as the next dynamic-Anatomy release of ``project`` in
    the release contract's tables (sqlanon_<project>_qit / _st / _membership,
    docs/contracts.md) plus a private ``sqlanon_<project>_dyn`` (every published
    row with its QI, so that held deleted rows can be published again).
    One transaction. Returns the counts of :func:`release` and ``release``."""
    from .naive import _create_tables
    from .ident import check_project, require_columns, require_m, require_qi

    check_project(project)
    l = require_m(l, name="l")
    qi = require_qi(con, source, qi)
    cols = require_columns(con, source, [id, sa], role="id/SA column")
    p = f"sqlanon_{project}"
    dyn = quote(p + "_dyn")
    qcols = ", ".join(quote(c) for c in qi)
    con.execute("BEGIN TRANSACTION")
    try:
        _create_tables(con, project, cols, qi, sa, id)
        qdefs = ", ".join(f"{quote(c)} {cols[c]}" for c in qi)
        con.execute(
            f"CREATE TABLE IF NOT EXISTS {dyn} (release INTEGER, id {cols[id]}, group_id BIGINT, held BOOLEAN, "
            f"{qdefs}, sa VARCHAR)"
        )
        r = con.execute(f"SELECT coalesce(max(release), 0) FROM {quote(p + '_membership')}").fetchall()[0][0]
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE sqlanon__dyn_prevrel AS SELECT id, group_id, sa FROM {dyn} WHERE release = ?",
            [r],
        )
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE sqlanon__dyn_cur AS SELECT {quote(id)} AS id, {quote(sa)}::VARCHAR AS sa, "
            f"{qcols} FROM {quote(source)}"
        )
        res = release(con, "sqlanon__dyn_cur", "sqlanon__dyn_prevrel" if r else None, l=l, seed=seed)
        # QI: the current QI for present rows, the previously published QI for held deleted rows
        con.execute(
            f"""INSERT INTO {dyn}
            SELECT ?, o.id, o.group_id, o.held, {', '.join(f'coalesce(c.{quote(q)}, d.{quote(q)})' for q in qi)}, o.sa
            FROM sqlanon__dyn_release AS o
            LEFT JOIN sqlanon__dyn_cur AS c ON c.id = o.id
            LEFT JOIN (SELECT * FROM {dyn} WHERE release = ?) AS d ON d.id = o.id""",
            [r + 1, r],
        )
        con.execute(
            f"INSERT INTO {quote(p + '_membership')} SELECT release, id, group_id, false, sa FROM {dyn} WHERE release = ?",
            [r + 1],
        )
        con.execute(
            f"INSERT INTO {quote(p + '_qit')} SELECT release, group_id, {qcols} FROM {dyn} WHERE release = ? "
            f"ORDER BY group_id, hash(id, ?)",
            [r + 1, seed],
        )
        con.execute(
            f"INSERT INTO {quote(p + '_st')} SELECT release, group_id, sa, count(*) FROM {dyn} "
            f"WHERE release = ? GROUP BY ALL ORDER BY ALL",
            [r + 1],
        )
        for t in ("prevrel", "cur", "release"):
            con.execute(f"DROP TABLE sqlanon__dyn_{t}")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return {**res, "release": int(r + 1)}
