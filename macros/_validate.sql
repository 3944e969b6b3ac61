-- Shared validation for the static checks (docs/checks.md): returns 1, or raises an error naming
-- the first requested column (tbl may be plain, schema.table, or quoted as query_table wants it) that is not a column of tbl, or saying the list is empty.
CREATE OR REPLACE MACRO sqlanon__require_cols(tbl, cols) AS
    CASE WHEN cols IS NULL OR len(cols) = 0
         THEN error('sqlanon: the QI column list for table "' || tbl::VARCHAR || '" is empty; name at least one quasi-identifier')
         ELSE (SELECT CASE WHEN len(miss) > 0
                           THEN error('sqlanon: column "' || miss[1] || '" is not in table "' || tbl::VARCHAR
                                      || '"; check the name (columns: ' || array_to_string(tc, ', ') || ')')
                           ELSE 1 END
               FROM (SELECT tc, list_filter(cols, lambda c: NOT list_contains(tc, c)) AS miss
                     FROM (SELECT coalesce(list(column_name ORDER BY column_index), []) AS tc
                           FROM duckdb_columns()
                           WHERE table_name = tbl::VARCHAR OR schema_name || '.' || table_name = tbl::VARCHAR
                              OR '"' || replace(table_name, '"', '""') || '"' = tbl::VARCHAR
                              OR '"' || replace(schema_name, '"', '""') || '"."' || replace(table_name, '"', '""') || '"' = tbl::VARCHAR)))
    END;
COMMENT ON MACRO sqlanon__require_cols IS 'Internal: 1 if every name in cols is a column of tbl, else error naming the missing one.';
