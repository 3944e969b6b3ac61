-- Static l-diverse Anatomy grouping (Xiao & Tao 2006 bucketization), as one query.
-- Rows are bucketed by SA value. G = the largest group count such that
-- sum over SA values of min(count, G) >= l * G; each bucket keeps at most G rows
-- (the rest are suppressed: l-eligibility, seed 000), kept rows are laid out
-- bucket after bucket and dealt round-robin into G groups. A bucket holds at most
-- G rows, so its rows land in distinct groups: every group gets >= l rows, all
-- with distinct SA values, i.e. the guarantee of the greedy "one row from each of
-- the l largest buckets" loop (same group count floor(n/l) on l-eligible data,
-- group sizes l or l+1), without a loop. Rows with a NULL SA are suppressed.
-- Order inside a bucket is sqlanon__portable_hash(id, seed): same input + seed = same groups,
-- and the same as the release pipeline's (sql/anatomy/04_groups.sql.j2) on DuckDB and Spark.
-- Used by the naive publisher (sqlanon/naive.py); docs/audit.md.
CREATE OR REPLACE MACRO sqlanon_anatomy_groups(tbl, id_col, sa_col, l, seed := 0) AS TABLE
    -- (sqlanon__padded: chk, not the binder, reports an unknown id_col or sa_col)
    WITH src AS (
        SELECT coalesce(*COLUMNS(lambda c: c = id_col OR c = 'sqlanon__nil')) AS id,
               coalesce(*COLUMNS(lambda c: c = sa_col OR c = 'sqlanon__nil'))::VARCHAR AS sa
        FROM sqlanon__padded(tbl)
    ),
    chk AS (
        SELECT CASE WHEN sqlanon__require_cols(tbl, [id_col, sa_col]) <> 1 THEN NULL
                    WHEN l >= 2 THEN true
               ELSE error('sqlanon_anatomy_groups: l must be an integer >= 2, got ' || l::VARCHAR) END AS ok
    ),
    cnt AS (SELECT sa, count(*) AS c FROM src WHERE sa IS NOT NULL GROUP BY sa),
    g AS (
        SELECT coalesce(max(gg), 0) AS ng
        FROM range(1, ((SELECT coalesce(sum(c), 0) FROM cnt) // l + 1)::BIGINT) AS t(gg)
        WHERE (SELECT sum(least(c, gg)) FROM cnt) >= l * gg
    ),
    ranked AS (
        SELECT src.id, src.sa, cnt.c,
               row_number() OVER (PARTITION BY src.sa ORDER BY sqlanon__portable_hash(src.id, seed), src.id) AS rk
        FROM src JOIN cnt USING (sa)
    ),
    pos AS (
        SELECT id, row_number() OVER (ORDER BY c DESC, sa, rk) - 1 AS i
        FROM ranked, g
        WHERE rk <= g.ng
    )
    SELECT pos.id, (pos.i % g.ng + 1)::BIGINT AS group_id
    FROM pos, g, chk
    WHERE chk.ok
    ORDER BY group_id, pos.id;
COMMENT ON MACRO TABLE sqlanon_anatomy_groups IS 'l-diverse Anatomy grouping of table tbl: id, group_id (1..G) for the rows kept; every group has >= l rows with distinct values of sa_col; suppressed rows are absent. Deterministic for a seed.';
