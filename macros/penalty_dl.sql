-- Penalty DL of seed 004 eq. 1-2 over an anatomized release (docs/metrics.md):
--   DL = sum over groups |group|^2 + n_rows * (held + suppressed)
-- tbl: the published rows with a group id column; n_rows = |D^j| (rows of the current
-- table), held = |HD| (updated rows published with their old value), suppressed = |SP|.
-- The penalty term counts once per release: this reading reproduces the paper's own
-- DL = 89 for Table 12 (4^2 + 5^2 + 3^2 + 13 * (1 + 2)); adding it per group does not.
CREATE OR REPLACE MACRO sqlanon_penalty_dl(tbl, group_col, n_rows, held, suppressed) AS TABLE
    -- (chk's constant sqlanon__ok keeps COLUMNS non-empty for an unknown group_col,
    -- so chk reports it, not the binder; grouping by a constant changes nothing)
    WITH chk AS (
        SELECT CASE WHEN sqlanon__require_cols(tbl, [group_col]) <> 1 THEN NULL
                    WHEN n_rows IS NULL OR held IS NULL OR suppressed IS NULL OR n_rows < 0 OR held < 0 OR suppressed < 0
                    THEN error('sqlanon_penalty_dl: n_rows, held and suppressed must be integers >= 0') ELSE 1 END AS sqlanon__ok
    ),
    g AS (
        SELECT COLUMNS(lambda c: c = group_col OR c = 'sqlanon__ok'), count(*)::BIGINT AS n
        FROM query_table(tbl::VARCHAR), chk GROUP BY ALL
    )
    SELECT (coalesce(sum(n * n), 0) + n_rows * (held + suppressed))::HUGEINT AS dl,
           coalesce(sum(n * n), 0)::HUGEINT AS partition_cost,
           (n_rows * (held + suppressed))::HUGEINT AS penalty
    FROM g;
COMMENT ON MACRO TABLE sqlanon_penalty_dl IS 'Penalty DL (seed 004 eq. 1-2): sum of squared group sizes + n_rows*(held+suppressed). Args: tbl, group_col, n_rows, held, suppressed. Returns dl, partition_cost, penalty.';
