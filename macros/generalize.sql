-- Generalization primitives (docs/metrics.md). NULL in -> NULL out.
-- Numeric range of a fixed width, aligned to multiples of width: 23, 10 -> '[20-29]'.
-- The upper bound is lo + width - 1 (integer bins, both ends inclusive).
CREATE OR REPLACE MACRO sqlanon_gen_range(x, width) AS
    CASE WHEN width IS NULL OR width <= 0 THEN error('sqlanon_gen_range: width must be a positive integer, got '
                                                      || coalesce(width::VARCHAR, 'NULL'))
         WHEN x IS NULL THEN NULL
         ELSE '[' || (floor(x / width) * width)::BIGINT::VARCHAR || '-'
                  || ((floor(x / width) * width)::BIGINT + width::BIGINT - 1)::VARCHAR || ']' END;
COMMENT ON MACRO sqlanon_gen_range IS 'Generalize a number to its width-aligned range: sqlanon_gen_range(23, 10) = ''[20-29]''.';

-- Prefix masking: keep the first `keep` characters, replace the rest by one '*':
-- '47906', 4 -> '4790*'; a value no longer than keep is returned unchanged; keep 0 -> '*'.
CREATE OR REPLACE MACRO sqlanon_gen_prefix(s, keep) AS
    CASE WHEN keep IS NULL OR keep < 0 THEN error('sqlanon_gen_prefix: keep must be an integer >= 0, got '
                                                   || coalesce(keep::VARCHAR, 'NULL'))
         WHEN s IS NULL THEN NULL
         WHEN length(s::VARCHAR) <= keep THEN s::VARCHAR
         ELSE left(s::VARCHAR, keep) || '*' END;
COMMENT ON MACRO sqlanon_gen_prefix IS 'Prefix masking: sqlanon_gen_prefix(''47906'', 4) = ''4790*''.';

-- Suppression: any value (NULL included) becomes '*'.
CREATE OR REPLACE MACRO sqlanon_suppress(x) AS '*';
COMMENT ON MACRO sqlanon_suppress IS 'Suppression: every value becomes ''*''.';

-- User hierarchy (ARX's wide layout): a table whose first column is the original
-- value and whose column i+1 is its generalization at level i (level 0 = the value
-- itself), e.g. ('Masters', 'Grad', 'Higher', '*'). Every cell is read as VARCHAR.
-- Returns value -> generalized at `level`; join it to generalize a column:
--   SELECT t.* REPLACE (h.generalized AS education)
--   FROM adult t JOIN sqlanon_hierarchy_level('edu_h', 2) h ON t.education = h.value
CREATE OR REPLACE MACRO sqlanon_hierarchy_level(hierarchy, level) AS TABLE
    SELECT CASE WHEN level IS NULL OR level < 0 OR level + 1 > len(sqlanon__lv) OR level <> floor(level)
                THEN error('sqlanon: level ' || coalesce(level::VARCHAR, 'NULL') || ' is not a level of hierarchy "'
                           || hierarchy::VARCHAR || '"; its levels are 0..' || (len(sqlanon__lv) - 1)::VARCHAR)
                ELSE sqlanon__lv[1] END AS value,
           sqlanon__lv[level::BIGINT + 1] AS generalized
    FROM (SELECT list_value(*COLUMNS(*)) AS sqlanon__lv
          FROM (SELECT COLUMNS(*)::VARCHAR FROM query_table(hierarchy::VARCHAR)));
COMMENT ON MACRO TABLE sqlanon_hierarchy_level IS 'User hierarchy (first column = value, column i+1 = level i): value, generalized at the given level.';

-- A usable hierarchy is a tree: every value appears once, and every generalized
-- cell at level i has one parent at level i+1. Rows returned are the offending
-- (level, cell) pairs with all their values at that level (no rows = usable).
CREATE OR REPLACE MACRO sqlanon_hierarchy_violations(hierarchy) AS TABLE
    WITH rows AS (
        SELECT list_value(*COLUMNS(*)) AS lv
        FROM (SELECT COLUMNS(*)::VARCHAR FROM query_table(hierarchy::VARCHAR))
    ), cells AS (
        SELECT i - 1 AS level, lv[i] AS cell, lv[i + 1] AS parent, lv[1] AS value
        FROM rows, range(1, len(lv) + 1) r(i)
    )
    SELECT 0 AS level, cell, 'value listed ' || count(*)::VARCHAR || ' times' AS problem, list(DISTINCT parent ORDER BY parent) AS parents
    FROM cells WHERE level = 0 GROUP BY cell HAVING count(*) > 1
    UNION ALL
    SELECT level, cell, 'more than one parent' AS problem, list(DISTINCT parent ORDER BY parent) AS parents
    FROM cells WHERE level > 0 AND parent IS NOT NULL GROUP BY level, cell HAVING count(DISTINCT parent) > 1
    ORDER BY level, cell;
COMMENT ON MACRO TABLE sqlanon_hierarchy_violations IS 'Checks a user hierarchy table: level, cell, problem, parents for duplicated values or cells with more than one parent (no rows = usable).';
