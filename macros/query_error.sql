-- Utility metrics: query error (seed 003 eq. 8; docs/metrics.md) of an anatomized
-- grouped table (exact QI + SA + group id).
-- Query i (0 <= i < n_queries):  SELECT count(*) WHERE qi_1 IN V_1 AND ... AND qi_q IN V_q AND sa IN V_s,
-- where each V is a random subset of the column's distinct non-NULL values of size
-- max(1, round(selectivity^(1/(q+1)) * distinct values)), so the expected selectivity
-- of a query on independent uniform columns is ~ selectivity.
-- Random = ordering the values by hash(seed, i, column, value): reproducible for the
-- same seed in the same DuckDB version. NULL never satisfies a predicate.
-- Internal: the chosen predicate values, one row per (query, column, value).
CREATE OR REPLACE MACRO sqlanon__query_error_predicates(tbl, qi, sa, n_queries, selectivity, seed) AS TABLE
    WITH chk AS (
        SELECT CASE WHEN sqlanon__require_qi(tbl, qi, [sa]) <> 1
                        THEN NULL
                    WHEN n_queries IS NULL OR n_queries < 1 THEN error('sqlanon_query_error: n_queries must be an integer >= 1')
                    WHEN selectivity IS NULL OR selectivity <= 0 OR selectivity > 1
                        THEN error('sqlanon_query_error: selectivity must be in (0, 1]')
                    ELSE 1 END AS ok
    ),
    vc AS (
        SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = sa)::VARCHAR FROM query_table(tbl::VARCHAR), chk
    ),
    long AS (UNPIVOT vc ON COLUMNS(*) INTO NAME col VALUE v),
    dom AS (SELECT DISTINCT col, v FROM long),
    dsize AS (SELECT col, count(*) AS d FROM dom GROUP BY col),
    ranked AS (
        SELECT q.i AS query, dom.col, dom.v, dsize.d,
               row_number() OVER (PARTITION BY q.i, dom.col ORDER BY hash(seed, q.i, dom.col, dom.v), dom.v) AS r
        FROM range(n_queries) q(i), dom JOIN dsize USING (col)
    )
    SELECT query, col, v FROM ranked
    WHERE r <= greatest(1, round(power(selectivity, 1.0 / (len(qi) + 1)) * d))
      AND (SELECT ok FROM chk) = 1;  -- referenced, so the checks above always run
COMMENT ON MACRO TABLE sqlanon__query_error_predicates IS 'Internal to sqlanon_query_error: the seeded random predicate values (query, col, v).';

-- Average relative error |estimate - count| / count over the queries with count > 0,
-- the estimate being Anatomy's: sum over groups G of (#rows of G matching the QI
-- predicates) * (#rows of G matching the SA predicate) / |G|.
-- Returns query_error (mean, NULL if no query selects a row), queries (used), skipped (count 0).
CREATE OR REPLACE MACRO sqlanon_query_error(tbl, qi, sa, group_col, n_queries, selectivity, seed) AS TABLE
    WITH pred AS (SELECT * FROM sqlanon__query_error_predicates(tbl, qi, sa, n_queries, selectivity, seed)),
    -- (sqlanon__padded: the check on the result, not the binder, reports an unknown
    -- group_col)
    vc AS (
        SELECT row_number() OVER () AS __rid,
               coalesce(*COLUMNS(lambda c: c = group_col OR c = 'sqlanon__nil'))::VARCHAR AS __g,
               COLUMNS(lambda c: list_contains(qi, c) OR c = sa)::VARCHAR
        FROM sqlanon__padded(tbl)
    ),
    long AS (UNPIVOT vc ON COLUMNS(* EXCLUDE (__rid, __g)) INTO NAME col VALUE v),
    hits AS (
        SELECT p.query, l.__rid, any_value(l.__g) AS g,
               count(*) FILTER (WHERE l.col <> sa) AS mq, bool_or(l.col = sa) AS ms
        FROM long l JOIN pred p ON p.col = l.col AND p.v = l.v
        GROUP BY p.query, l.__rid
    ),
    gsize AS (SELECT __g AS g, count(*)::DOUBLE AS sz FROM vc GROUP BY __g),
    per_g AS (
        SELECT query, g, count(*) FILTER (WHERE mq = len(qi) AND ms) AS orig,
               count(*) FILTER (WHERE mq = len(qi)) AS cq, count(*) FILTER (WHERE ms) AS cs
        FROM hits GROUP BY query, g
    ),
    per_q AS (
        SELECT q.i AS query, coalesce(sum(pg.orig), 0) AS orig, coalesce(sum(pg.cq * pg.cs / gs.sz), 0) AS est
        FROM range(n_queries) q(i)
        LEFT JOIN per_g pg ON pg.query = q.i
        LEFT JOIN gsize gs ON gs.g IS NOT DISTINCT FROM pg.g
        GROUP BY q.i
    )
    SELECT avg(abs(est - orig) / orig) FILTER (WHERE orig > 0) AS query_error,
           count(*) FILTER (WHERE orig > 0) AS queries,
           count(*) FILTER (WHERE orig = 0) AS skipped
    FROM per_q
    WHERE (SELECT sqlanon__require_cols(tbl, [group_col])) = 1;
COMMENT ON MACRO TABLE sqlanon_query_error IS 'Query error (seed 003 eq. 8): mean relative error of seeded random COUNT queries at a chosen selectivity, Anatomy estimate vs exact. Args: tbl, qi list, sa, group_col, n_queries, selectivity, seed. Returns query_error, queries, skipped.';
