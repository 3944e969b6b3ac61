-- Utility metrics: discernibility and normalized average group size (docs/metrics.md).
-- Groups are the equivalence classes of the QI columns (NULL is a value: NULLs group together).
-- Discernibility C_DM = sum over groups of |group|^2 (no suppressed rows are modelled).
CREATE OR REPLACE MACRO sqlanon_discernibility(tbl, qi) AS TABLE
    WITH g AS (
        -- (the constant sqlanon__c keeps COLUMNS from matching nothing when no QI name
        -- is a column, so the validation below, not the binder, reports it)
        SELECT * EXCLUDE (sqlanon__c), count(*)::BIGINT AS n
        FROM (SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = 'sqlanon__c')
              FROM (SELECT *, true AS sqlanon__c FROM query_table(tbl::VARCHAR)))
        GROUP BY ALL
    )
    SELECT coalesce(sum(n * n), 0)::HUGEINT AS discernibility, count(*)::BIGINT AS groups,
           coalesce(sum(n), 0)::BIGINT AS rows
    FROM g, (SELECT sqlanon__require_cols(tbl, qi) AS sqlanon__ok) AS chk
    WHERE chk.sqlanon__ok = 1;
COMMENT ON MACRO TABLE sqlanon_discernibility IS 'Discernibility metric: sum of squared QI group sizes. Args: tbl, qi list. Returns discernibility, groups, rows.';

-- Normalized average equivalence class size C_avg = (rows / groups) / k (0 groups -> NULL).
CREATE OR REPLACE MACRO sqlanon_avg_group_size(tbl, qi, k) AS TABLE
    SELECT CASE WHEN k IS NULL OR k <= 0 THEN error('sqlanon_avg_group_size: k must be a positive number, got '
                                                     || coalesce(k::VARCHAR, 'NULL'))
                ELSE rows / nullif(groups, 0) / k END AS c_avg,
           groups, rows
    FROM sqlanon_discernibility(tbl, qi);
COMMENT ON MACRO TABLE sqlanon_avg_group_size IS 'Normalized average equivalence class size C_avg = (rows/groups)/k. Args: tbl, qi list, k. Returns c_avg, groups, rows.';
