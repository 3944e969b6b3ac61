-- Utility metrics: Normalized Certainty Penalty (seed 003 eq. 4-6; docs/metrics.md).
-- Input: a grouped table with the exact QI values and a group id column.
-- Each group's QI are generalized to the group's extent:
--   numeric column    : (max - min in group) / (max - min in table), 0 if the table range is 0
--   other columns     : 0 if the group holds one distinct value, else
--                       distinct-in-group / distinct-in-table
-- Result (one row): ncp = 100 * sum over rows and QI columns / (rows * |QI|), in %;
-- per_column = MAP(column -> that column's average NCP in %).
-- NULL QI values are ignored (they neither widen nor count as a value);
-- NULL group ids form one group.

-- The one definition of a group's NCP penalty for one QI, used by sqlanon_ncp
-- below, by the publisher's stats steps (sql/_lib/ncp.sql.j2) and by Mondrian
-- (sql/mondrian/03_publish.sql.j2): numeric QI extent = the group's max - min,
-- whole = the table's max - min, penalty extent / whole (0 when the whole range
-- or the extent is 0 or NULL); other QI extent = the group's distinct values,
-- whole = the table's, penalty 0 for at most one value, else extent / whole.
-- (is_numeric, not numeric: the DuckDB 1.5 shell reads NUMERIC as a type name.)
CREATE OR REPLACE MACRO sqlanon__ncp_penalty(is_numeric, extent, whole) AS
    CASE WHEN is_numeric THEN (CASE WHEN coalesce(whole, 0) = 0 THEN 0 ELSE coalesce(extent, 0) / whole END)
         WHEN extent <= 1 OR whole = 0 THEN 0
         ELSE extent / whole END;
COMMENT ON MACRO sqlanon__ncp_penalty IS 'Internal: NCP penalty (seed 003 eq. 4-6) of one group for one QI: numeric extent/domain widths, other QI distinct-value counts (0 for one value).';

CREATE OR REPLACE MACRO sqlanon_ncp(tbl, qi, group_col) AS TABLE
    WITH src AS (
        -- (the constant sqlanon__c keeps COLUMNS from matching nothing when no QI
        -- name is a column, so the validation on the result below, not the binder,
        -- reports it; the penalties are summed over the QI names only;
        -- sqlanon__padded does the same for an unknown group_col)
        SELECT coalesce(*COLUMNS(lambda c: c = group_col OR c = 'sqlanon__nil')) AS __g,
               COLUMNS(lambda c: list_contains(qi, c) OR c = 'sqlanon__c')::VARCHAR
        FROM (SELECT *, NULL::VARCHAR AS sqlanon__c FROM sqlanon__padded(tbl))
    ),
    n AS (SELECT count(*)::DOUBLE AS n FROM src),
    long AS (UNPIVOT src ON COLUMNS(* EXCLUDE __g) INTO NAME col VALUE v),
    types AS (
        UNPIVOT (SELECT typeof(COLUMNS(lambda c: list_contains(qi, c) OR c = 'sqlanon__c'))
                 FROM (SELECT *, NULL::VARCHAR AS sqlanon__c FROM query_table(tbl::VARCHAR)) LIMIT 1)
        ON COLUMNS(*) INTO NAME col VALUE t
    ),
    typed AS (
        SELECT l.__g, l.col, l.v,
               CASE WHEN sqlanon__numeric_type(t.t) THEN TRY_CAST(l.v AS DOUBLE) END AS d,
               sqlanon__numeric_type(t.t) AS numeric
        FROM long l JOIN types t USING (col)
    ),
    dom AS (
        SELECT col, any_value(numeric) AS numeric, max(d) - min(d) AS range, count(DISTINCT v) AS nd
        FROM typed GROUP BY col
    ),
    grp AS (
        SELECT __g, col, max(d) - min(d) AS range, count(DISTINCT v) AS nd FROM typed GROUP BY __g, col
    ),
    sizes AS (SELECT __g, count(*) AS rows FROM src GROUP BY __g),
    per AS (
        SELECT q.col,
               sum(s.rows * sqlanon__ncp_penalty(dom.numeric,
                                                 CASE WHEN dom.numeric THEN g.range ELSE coalesce(g.nd, 0) END,
                                                 CASE WHEN dom.numeric THEN dom.range ELSE dom.nd END)) AS pen
        FROM (SELECT unnest(qi) AS col) q
        CROSS JOIN sizes s
        LEFT JOIN grp g ON g.col = q.col AND g.__g IS NOT DISTINCT FROM s.__g
        LEFT JOIN dom ON dom.col = q.col
        GROUP BY q.col
    )
    SELECT coalesce(100.0 * sum(pen) / nullif(any_value(n.n) * len(qi), 0), 0.0) AS ncp,
           map_from_entries(list({'key': col, 'value': coalesce(100.0 * pen / nullif(n.n, 0), 0.0)} ORDER BY col)) AS per_column
    FROM per, n
    WHERE (SELECT sqlanon__require_qi(tbl, qi, [group_col])) = 1;
COMMENT ON MACRO TABLE sqlanon_ncp IS 'NCP (seed 003 eq. 4-6) of a grouped table generalized to each group''s extent: ncp in % of rows x QIs, per_column MAP in %. Args: tbl, qi list, group_col.';
