-- Shared validation for the static checks (docs/checks.md): returns 1, or raises an error naming
-- the first requested column (tbl may be plain, schema.table, or quoted as query_table wants it) that is not a column of tbl, or saying the list is empty.
-- Columns come from pragma_table_info(tbl), which looks up this one table (about 1 ms less per check than
-- scanning duckdb_columns(), which lists every column of every catalog) and raises DuckDB's own
-- "Table with name ... does not exist" for a missing table.
CREATE OR REPLACE MACRO sqlanon__require_cols(tbl, cols) AS
    CASE WHEN cols IS NULL OR len(cols) = 0
         THEN error('sqlanon: the QI column list for table "' || tbl::VARCHAR || '" is empty; name at least one quasi-identifier')
         ELSE (SELECT CASE WHEN len(miss) > 0
                           THEN error('sqlanon: column "' || miss[1] || '" is not in table "' || tbl::VARCHAR
                                      || '"; check the name (columns: ' || array_to_string(tc, ', ') || ')')
                           ELSE 1 END
               FROM (SELECT tc, list_filter(cols, lambda c: NOT list_contains(tc, c)) AS miss
                     FROM (SELECT list(name ORDER BY cid) AS tc FROM pragma_table_info(tbl::VARCHAR))))
    END;
COMMENT ON MACRO sqlanon__require_cols IS 'Internal: 1 if every name in cols is a column of tbl, else error naming the missing one.';
