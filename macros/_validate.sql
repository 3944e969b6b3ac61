-- Shared validation for the static checks (docs/checks.md): returns 1, or raises an error naming
-- the first requested column (tbl may be plain, schema.table, or quoted as query_table wants it) that is not a column of tbl, or saying the list is empty.
-- Columns come from pragma_table_info(tbl), which looks up this one table (about 1 ms less per check than
-- scanning duckdb_columns(), which lists every column of every catalog) and raises DuckDB's own
-- "Table with name ... does not exist" for a missing table. The usual case (every
-- name present) is decided by list_has_all; the list of missing names is only
-- computed on the error path (0.75 ms per call against 1.07 ms when it was
-- computed first).
-- Whether a DuckDB type name (as DESCRIBE and typeof() spell it) is numeric: the
-- integer types, FLOAT, DOUBLE (REAL) and DECIMAL(p, s). The one definition of a
-- numeric column: NCP's (max - min) widths (sqlanon_ncp), the publisher's numeric
-- QI (ranges instead of value sets; sqlanon/publisher.py asks this macro) and
-- t-closeness's ordered distance (with the date and time types; sqlanon/checks.py).
CREATE OR REPLACE MACRO sqlanon__numeric_type(t) AS
    upper(t) IN ('TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER',
                 'UBIGINT', 'UHUGEINT', 'FLOAT', 'DOUBLE', 'REAL') OR upper(t) LIKE 'DECIMAL%';
COMMENT ON MACRO sqlanon__numeric_type IS 'Internal: true if DuckDB type name t is numeric (integers, FLOAT, DOUBLE, DECIMAL).';

-- The portable seeded hash of one value (issue 16): the function of the release
-- templates' portable_hash (sql/_lib/hash.sql.j2, which knows the column type
-- when it renders; here typeof() picks the branch): an integer is its own input,
-- anything else the first 60 bits of md5 of its text; then arithmetic modulo
-- 2^31 - 1 that DuckDB and Spark compute alike.
-- its last steps, over x1 (used twice): a squaring and an affine step keyed by the seed
CREATE OR REPLACE MACRO sqlanon__portable_mix(x1, seed) AS
    (((x1 * x1 + 1013904223) % 2147483647) * 69621 + seed % 2147483647) % 2147483647;
COMMENT ON MACRO sqlanon__portable_mix IS 'Internal: the last steps of sqlanon__portable_hash.';
CREATE OR REPLACE MACRO sqlanon__portable_hash(x, seed) AS
    sqlanon__portable_mix(
        ((CASE WHEN typeof(x) = 'UHUGEINT'  -- (above HUGEINT's range from 2^127: no cast to HUGEINT)
               THEN (try_cast(x AS UHUGEINT) % 2147483647)::BIGINT
               WHEN typeof(x) IN ('TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT',
                                  'UINTEGER', 'UBIGINT')
               THEN ((try_cast(x AS HUGEINT) % 2147483647)::BIGINT + 2147483647) % 2147483647
               ELSE ('0x' || substr(md5(x::VARCHAR), 1, 15))::BIGINT % 2147483647 END) * 48271
         + seed % 2147483647) % 2147483647,
        seed);
COMMENT ON MACRO sqlanon__portable_hash IS 'Internal: seeded hash in [0, 2^31 - 1) of x that DuckDB and Spark compute alike (sql/_lib/hash.sql.j2).';

CREATE OR REPLACE MACRO sqlanon__require_cols(tbl, cols) AS
    (SELECT CASE WHEN len(cols) > 0 AND list_has_all(tc, cols) THEN 1
                 WHEN cols IS NULL OR len(cols) = 0
                 THEN error(format('sqlanon: the QI column list for table "{}" is empty; name at least one quasi-identifier', tbl))
                 ELSE error(format('sqlanon: column "{}" is not in table "{}"; check the name (columns: {})',
                                   list_filter(cols, lambda c: NOT list_contains(tc, c))[1], tbl, array_to_string(tc, ', '))) END
     FROM (SELECT list(name) AS tc FROM pragma_table_info(tbl::VARCHAR)));
COMMENT ON MACRO sqlanon__require_cols IS 'Internal: 1 if every name in cols is a column of tbl, else error naming the missing one.';

-- A QI list (must name at least one column) plus the other columns a macro reads
-- (SA, group column): 1 if all are columns of tbl, else the error of
-- sqlanon__require_cols (an empty or NULL QI list is reported as empty even when
-- extra columns are given).
CREATE OR REPLACE MACRO sqlanon__require_qi(tbl, qi, extra) AS
    sqlanon__require_cols(tbl, CASE WHEN qi IS NULL OR len(qi) = 0 THEN NULL ELSE list_concat(qi, extra) END);
COMMENT ON MACRO sqlanon__require_qi IS 'Internal: 1 if the non-empty QI list qi and the names in extra are columns of tbl, else sqlanon__require_cols''s error.';

-- The rows of tbl with one more column, sqlanon__nil (NULL, last). A macro that
-- picks one named column with COLUMNS(lambda c: c = name) binds even when the name
-- is unknown if it writes coalesce(*COLUMNS(lambda c: c = name OR c = 'sqlanon__nil'))
-- over these rows (coalesce(col, NULL) is col): its check on the result, not
-- DuckDB's binder ("Star expression ... resulted in an empty set of columns"),
-- then reports the unknown name.
CREATE OR REPLACE MACRO sqlanon__padded(tbl) AS TABLE
    SELECT *, NULL AS sqlanon__nil FROM query_table(tbl::VARCHAR);
