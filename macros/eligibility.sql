-- m-eligibility targets (seed 000 section III; proofs in docs/eligibility.md).
-- Every method here is a *cap* C plus a water fill: targets are least(count, C),
-- then m*C - sum(least(count, C)) counterfeits (if > 0) go one at a time to a
-- least frequent value (ties: smallest SA value first), never above C.
--   optimal     : the C with the fewest additions + deletions (Definition 7),
--                 searched over O(l) candidates: per segment between two sorted
--                 counts the cost is convex, so only its ends and the integer
--                 neighbours of its kink can be best; ties -> larger C.
--   counterfeit : C = max count (Algorithm 1, minimal superset).
--   delete      : the largest C needing no counterfeit (Algorithm 2's result,
--                 maximal subset).
-- 'hybrid' (Algorithm 3) and 'random' are iterative: Python only
-- (sqlanon.eligibility.targets). Rows with a NULL SA are an error.
-- Internal: one row per (SA value) with the chosen cap and fill parameters.
CREATE OR REPLACE MACRO sqlanon__eligibility_plan(tbl, sa, m, method) AS TABLE
    -- (sqlanon__padded: chk, not the binder, reports an unknown sa)
    WITH src AS (
        SELECT coalesce(*COLUMNS(lambda c: c = sa OR c = 'sqlanon__nil')) AS sa_value
        FROM sqlanon__padded(tbl)
    ),
    cnt AS (SELECT sa_value, count(*)::BIGINT AS c FROM src GROUP BY ALL),
    stats AS (
        SELECT count(*)::BIGINT AS l, coalesce(sum(c), 0)::BIGINT AS n, max(c)::BIGINT AS top,
               count(*) FILTER (WHERE sa_value IS NULL) AS nulls
        FROM cnt
    ),
    chk AS (
        SELECT CASE
            WHEN sqlanon__require_cols(tbl, [sa]) <> 1 THEN NULL
            WHEN method NOT IN ('optimal', 'counterfeit', 'delete') THEN error(
                'sqlanon_eligibility_targets: method ' || coalesce('''' || method::VARCHAR || '''', 'NULL')
                || ' is not available in SQL; use optimal, counterfeit or delete (hybrid and random: '
                || 'sqlanon.eligibility.targets in Python)')
            WHEN m IS NULL OR m < 2 OR m <> floor(m) THEN error(
                'sqlanon_eligibility_targets: m must be an integer >= 2, got ' || coalesce(m::VARCHAR, 'NULL'))
            WHEN stats.n = 0 THEN error(
                'sqlanon_eligibility_targets: table ' || tbl::VARCHAR || ' is empty; nothing to make m-eligible')
            WHEN stats.nulls > 0 THEN error(
                'sqlanon_eligibility_targets: column ' || sa::VARCHAR || ' of table ' || tbl::VARCHAR
                || ' has NULL values; filter them out (WHERE ' || sa::VARCHAR || ' IS NOT NULL) or fill them first')
            WHEN m > stats.l THEN error(
                'sqlanon_eligibility_targets: m = ' || m::VARCHAR || ' is larger than the number of distinct values ('
                || stats.l::VARCHAR || ') of column ' || sa::VARCHAR || ' in table ' || tbl::VARCHAR
                || '; lower m to at most ' || stats.l::VARCHAR)
            ELSE true END AS ok
        FROM stats
    ),
    -- counts in descending order; segment k (0..l): caps between the (k+1)-th and
    -- the k-th largest count, where exactly the k largest are clipped
    s AS (
        SELECT c, row_number() OVER (ORDER BY c DESC) AS k,
               sum(c) OVER (ORDER BY c DESC ROWS UNBOUNDED PRECEDING) AS pre,
               coalesce(lead(c) OVER (ORDER BY c DESC), 0) AS lo
        FROM cnt
    ),
    seg AS (
        SELECT 0::BIGINT AS k, 0::BIGINT AS pre, top AS hi, top AS lo FROM stats
        UNION ALL
        SELECT k, pre, c AS hi, lo FROM s
    ),
    cand AS (
        SELECT DISTINCT seg.k, seg.pre, cap.cap
        FROM seg, stats,
             unnest([seg.lo, seg.hi,
                     CASE WHEN m > seg.k THEN (stats.n - seg.pre) // (m - seg.k) END,
                     CASE WHEN m > seg.k THEN (stats.n - seg.pre) // (m - seg.k) + 1 END]) AS cap(cap)
        WHERE cap.cap BETWEEN seg.lo AND seg.hi
    ),
    costed AS (
        SELECT cap, pre - k * cap AS deletions,
               greatest(0, (m - k) * cap - (stats.n - pre)) AS additions
        FROM cand, stats
    ),
    chosen AS (
        SELECT CASE method
                   WHEN 'counterfeit' THEN (SELECT top FROM stats)
                   WHEN 'delete' THEN (SELECT max(cap) FROM costed WHERE additions = 0)
                   ELSE (SELECT cap FROM costed ORDER BY deletions + additions, cap DESC LIMIT 1)
               END::BIGINT AS cap
        FROM chk WHERE chk.ok
    ),
    based AS (
        SELECT cnt.sa_value, cnt.c, least(cnt.c, chosen.cap) AS b, chosen.cap,
               greatest(0, m * chosen.cap - sum(least(cnt.c, chosen.cap)) OVER ()) AS extra
        FROM cnt, chosen
    ),
    asc_ AS (
        SELECT *, row_number() OVER (ORDER BY b, sa_value) AS j,
               sum(b) OVER (ORDER BY b, sa_value ROWS UNBOUNDED PRECEDING) AS pre_j,
               coalesce(lead(b) OVER (ORDER BY b, sa_value), cap) AS nxt
        FROM based
    ),
    -- water fill: the smallest j whose lowest j values, raised to the next value
    -- (or the cap), absorb all the counterfeits
    lvl AS (
        SELECT j AS kk, (extra + pre_j) // j AS level, (extra + pre_j) % j AS rem
        FROM asc_
        WHERE j * least(nxt, cap) - pre_j >= extra OR nxt >= cap
        ORDER BY j LIMIT 1
    ),
    filled AS (
        SELECT sa_value, c, CASE WHEN j <= kk THEN level ELSE b END AS x, level, rem
        FROM asc_, lvl
    )
    SELECT sa_value, c AS count,
           (x + CASE WHEN x = level
                      AND row_number() OVER (PARTITION BY x = level ORDER BY sa_value) <= rem
                     THEN 1 ELSE 0 END)::BIGINT AS target
    FROM filled;
COMMENT ON MACRO TABLE sqlanon__eligibility_plan IS 'Internal: sa_value, count, target for column sa of table tbl (read sqlanon_eligibility_targets instead).';

-- One row per distinct value of column sa of table tbl: sa_value, count, target,
-- delta (= target - count: > 0 counterfeits to add, < 0 rows to delete).
CREATE OR REPLACE MACRO sqlanon_eligibility_targets(tbl, sa, m, method := 'optimal') AS TABLE
    SELECT sa_value, count, target, target - count AS delta
    FROM sqlanon__eligibility_plan(tbl, sa, m, method)
    ORDER BY sa_value;
COMMENT ON MACRO TABLE sqlanon_eligibility_targets IS 'm-eligibility targets for column sa of table tbl (seed 000): one row per SA value with sa_value, count, target, delta = target - count (> 0 add counterfeits, < 0 delete rows). method: optimal (default; minimum additions + deletions), counterfeit (Algorithm 1) or delete (Algorithm 2). Ties go to the smallest SA value. Errors on m < 2, m > #distinct values, empty table, NULL SA.';

-- Additions, deletions and their sum for each SQL method (one row per method).
CREATE OR REPLACE MACRO sqlanon_eligibility_cost(tbl, sa, m) AS TABLE
    WITH t AS (
        SELECT 'optimal' AS method, 1 AS o, target - count AS delta FROM sqlanon__eligibility_plan(tbl, sa, m, 'optimal')
        UNION ALL
        SELECT 'counterfeit', 2, target - count FROM sqlanon__eligibility_plan(tbl, sa, m, 'counterfeit')
        UNION ALL
        SELECT 'delete', 3, target - count FROM sqlanon__eligibility_plan(tbl, sa, m, 'delete')
    )
    SELECT method, sum(greatest(delta, 0))::BIGINT AS additions, sum(greatest(-delta, 0))::BIGINT AS deletions,
           sum(abs(delta))::BIGINT AS modifications
    FROM t GROUP BY method, o ORDER BY o;
COMMENT ON MACRO TABLE sqlanon_eligibility_cost IS 'Cost of making column sa of table tbl m-eligible, one row per method (optimal, counterfeit, delete): method, additions, deletions, modifications (= additions + deletions, Definition 7 distance of seed 000).';
