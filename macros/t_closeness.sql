-- t-closeness (Li et al.): EMD between each QI group's SA distribution P and the table's Q; t = max over groups.
-- Equal ground distance (categorical): EMD = 1/2 * sum |p_i - q_i|.
-- Ordered distance (numeric / ordinal, values ordered ascending, NULL last as its own value):
--   EMD = 1/(m-1) * sum_{i=1}^{m-1} |sum_{j<=i} (p_j - q_j)|, m = distinct SA values in the table (0 if m = 1).
CREATE OR REPLACE MACRO sqlanon_t_closeness(tbl, qi, sa, ordered) AS TABLE
    WITH chk AS (SELECT sqlanon__require_qi(tbl, qi, [sa]) AS sqlanon__ok),
    gs AS (
        SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = sa OR c = 'sqlanon__ok'), count(*)::BIGINT AS sqlanon__n
        FROM query_table(tbl::VARCHAR), chk GROUP BY ALL
    ),
    -- (the constant sqlanon__ok in the ORDER BY keeps COLUMNS non-empty for an
    -- unknown sa, so chk reports it, not the binder; it does not change the ranks)
    r AS (SELECT *, dense_rank() OVER (ORDER BY COLUMNS(lambda c: c = sa OR c = 'sqlanon__ok') NULLS LAST) AS sqlanon__r FROM gs),
    tot AS (SELECT max(sqlanon__r)::BIGINT AS sqlanon__m, sum(sqlanon__n) AS sqlanon__all FROM r),
    q AS (
        SELECT list(sqlanon__q ORDER BY sqlanon__r) AS sqlanon__qv
        FROM (SELECT sqlanon__r, sum(sqlanon__n) / any_value(sqlanon__all) AS sqlanon__q FROM r, tot GROUP BY sqlanon__r)
    ),
    g AS (
        SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = 'sqlanon__ok'), list(sqlanon__r) AS sqlanon__rk, list(sqlanon__n) AS sqlanon__cn,
               sum(sqlanon__n) AS sqlanon__t
        FROM r GROUP BY ALL
    ),
    d AS (
        SELECT list_transform(range(1, sqlanon__m + 1),
                   lambda i: coalesce(sqlanon__cn[list_position(sqlanon__rk, i)], 0) / sqlanon__t - sqlanon__qv[i]) AS sqlanon__d,
               sqlanon__m
        FROM g, q, tot
    )
    SELECT max(CASE WHEN NOT ordered THEN 0.5 * list_sum(list_transform(sqlanon__d, lambda x: abs(x)))
                    WHEN sqlanon__m <= 1 THEN 0.0
                    ELSE list_sum(list_transform(range(1, sqlanon__m),
                             lambda i: abs(list_sum(sqlanon__d[1:i])))) / (sqlanon__m - 1) END) AS t,
           count(*)::BIGINT AS groups
    FROM d;
COMMENT ON MACRO TABLE sqlanon_t_closeness IS 't-closeness (EMD). Args: tbl, qi list, sa, ordered (false = equal distance for categorical, true = ordered distance for numeric). Returns t (max EMD over groups), groups.';
