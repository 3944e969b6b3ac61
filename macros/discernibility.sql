-- Utility metrics: discernibility and normalized average group size (docs/metrics.md).
-- Groups are the equivalence classes of the QI columns (NULL is a value: NULLs group together).
-- Discernibility C_DM = sum over groups of |group|^2 (no suppressed rows are modelled).
CREATE OR REPLACE MACRO sqlanon_discernibility(tbl, qi) AS TABLE
    WITH chk AS (
        SELECT CASE WHEN qi IS NULL OR len(qi) = 0
                    THEN error('sqlanon_discernibility: the QI list is empty; pass at least one column') ELSE 1 END AS ok
    ),
    g AS (
        SELECT COLUMNS(lambda c: list_contains(qi, c)), count(*)::BIGINT AS n
        FROM query_table(tbl::VARCHAR), chk GROUP BY ALL
    )
    SELECT coalesce(sum(n * n), 0)::HUGEINT AS discernibility, count(*)::BIGINT AS groups,
           coalesce(sum(n), 0)::BIGINT AS rows
    FROM g;
COMMENT ON MACRO TABLE sqlanon_discernibility IS 'Discernibility metric: sum of squared QI group sizes. Args: tbl, qi list. Returns discernibility, groups, rows.';

-- Normalized average equivalence class size C_avg = (rows / groups) / k (0 groups -> NULL).
CREATE OR REPLACE MACRO sqlanon_avg_group_size(tbl, qi, k) AS TABLE
    SELECT CASE WHEN k IS NULL OR k <= 0 THEN error('sqlanon_avg_group_size: k must be a positive number, got '
                                                     || coalesce(k::VARCHAR, 'NULL'))
                ELSE rows / nullif(groups, 0) / k END AS c_avg,
           groups, rows
    FROM sqlanon_discernibility(tbl, qi);
COMMENT ON MACRO TABLE sqlanon_avg_group_size IS 'Normalized average equivalence class size C_avg = (rows/groups)/k. Args: tbl, qi list, k. Returns c_avg, groups, rows.';
