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
