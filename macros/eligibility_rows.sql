-- Materializing m-eligibility targets (seed 000 section III-D): which concrete rows
-- to delete and which counterfeit rows to add. Both read a *plan*: a table (or
-- view) with columns sa_value and delta (target - count), e.g.
--   CREATE TEMP TABLE plan AS FROM sqlanon_eligibility_targets('t', 'sa', 3);
-- or any method's targets written from Python (sqlanon.eligibility.plan(..., into=...)).
-- Row order inside an SA value is hash(id, seed) (same on every DuckDB version),
-- so the same input and seed pick the same rows. Interface: docs/contracts.md.

-- Rows to delete: for every SA value with delta < 0, -delta of its rows.
-- qi (optional): QI column names; then rows with the most exact twins (same QI
-- values and same SA) go first -- deleting a row whose twin stays loses the least
-- information -- and the seeded hash breaks ties. Without qi: seeded random.
CREATE OR REPLACE MACRO sqlanon_eligibility_deletions(tbl, id_col, sa, plan, seed := 0, qi := []::VARCHAR[]) AS TABLE
    -- (sqlanon__padded: the check below, not the binder, reports an unknown name)
    WITH src AS (
        SELECT coalesce(*COLUMNS(lambda c: c = id_col OR c = 'sqlanon__nil')) AS id,
               coalesce(*COLUMNS(lambda c: c = sa OR c = 'sqlanon__nil')) AS sa_value,
               hash(*COLUMNS(lambda c: list_contains(qi, c) OR c = sa OR c = 'sqlanon__nil')) AS qkey
        FROM sqlanon__padded(tbl)
    ),
    need AS (SELECT sa_value AS need_sa, delta FROM query_table(plan::VARCHAR) WHERE delta < 0),
    twins AS (
        SELECT src.id, src.sa_value, need.delta,
               count(*) OVER (PARTITION BY src.sa_value, src.qkey) AS twins
        FROM src JOIN need ON src.sa_value = need.need_sa
    ),
    ranked AS (
        SELECT id, sa_value, delta,
               row_number() OVER (PARTITION BY sa_value ORDER BY twins DESC, hash(id, seed), id) AS rk
        FROM twins
    )
    -- id, sa and every name in qi must be columns of tbl (an unknown QI name would
    -- silently drop out of the twin key); checked on the result so the optimizer
    -- cannot remove the check
    SELECT id, sa_value
    FROM ranked, (SELECT sqlanon__require_cols(tbl, list_concat([id_col, sa], coalesce(qi, []::VARCHAR[]))) AS sqlanon__ok) AS chk
    WHERE rk <= -delta AND chk.sqlanon__ok = 1
    ORDER BY sa_value, id;
COMMENT ON MACRO TABLE sqlanon_eligibility_deletions IS 'Rows of table tbl to delete to reach the targets in table plan (sa_value, delta): id, sa_value; -delta rows per SA value with delta < 0. Seeded random (hash(id, seed)); with qi := [...] rows with the most twins on QI + SA first (least utility loss).';

-- Counterfeit rows: for every SA value with delta > 0, delta rows with the columns
-- of tbl (in any order: use UNION ALL BY NAME), id_col NULL and sa set.
-- mode 'null': every other column NULL (filled at grouping time, e.g. from the
-- group's real rows); mode 'copy': the other columns copied from real rows with the
-- same SA value, taken in seeded random order (cycling if delta > their number).
-- Extra column counterfeit_no: 1..delta within the SA value.
CREATE OR REPLACE MACRO sqlanon_eligibility_counterfeits(tbl, id_col, sa, plan, mode := 'null', seed := 0) AS TABLE
    -- (the constant columns sqlanon__nil_id / sqlanon__nil_sa, last, keep every
    -- COLUMNS(...) non-empty for an unknown id_col or sa, so chk reports it, not the
    -- binder; coalesce(col, NULL) is col, and the output drops them)
    WITH chk AS (
        SELECT CASE WHEN sqlanon__require_cols(tbl, [id_col, sa]) <> 1 THEN NULL
                    WHEN mode IN ('null', 'copy') THEN true
               ELSE error('sqlanon_eligibility_counterfeits: mode must be ''null'' or ''copy'', got '
                          || coalesce('''' || mode::VARCHAR || '''', 'NULL')) END AS ok
    ),
    src0 AS (
        SELECT *, coalesce(*COLUMNS(lambda c: c = sa OR c = 'sqlanon__nil_sa')) AS sqlanon__sa,
               coalesce(*COLUMNS(lambda c: c = id_col OR c = 'sqlanon__nil_id')) AS sqlanon__id
        FROM (SELECT *, NULL AS sqlanon__nil_id, NULL AS sqlanon__nil_sa FROM query_table(tbl::VARCHAR))
    ),
    src AS (
        SELECT *, row_number() OVER (PARTITION BY sqlanon__sa ORDER BY hash(sqlanon__id, seed), sqlanon__id) AS sqlanon__rk,
               count(*) OVER (PARTITION BY sqlanon__sa) AS sqlanon__n
        FROM src0
    ),
    need AS (
        SELECT sa_value AS sqlanon__need, r.k AS sqlanon__k
        FROM query_table(plan::VARCHAR), range(1, delta + 1) AS r(k)
        WHERE delta > 0
    ),
    made AS (
        SELECT src.*, need.sqlanon__k
        FROM need JOIN src ON src.sqlanon__sa = need.sqlanon__need
                          AND src.sqlanon__rk = (need.sqlanon__k - 1) % src.sqlanon__n + 1,
             chk
        WHERE chk.ok
    )
    SELECT * EXCLUDE (sqlanon__nil_id, sqlanon__nil_sa, sqlanon__ord_sa, sqlanon__ord_k)
    FROM (
        SELECT CASE WHEN false THEN COLUMNS(lambda c: c = id_col OR c = 'sqlanon__nil_id') END,
               COLUMNS(lambda c: c = sa OR c = 'sqlanon__nil_sa'),
               CASE WHEN mode = 'copy'
                    THEN COLUMNS(lambda c: c <> sa AND c <> id_col AND c <> 'sqlanon__k' AND NOT starts_with(c, 'sqlanon__'))
               END,
               sqlanon__k::BIGINT AS counterfeit_no, sqlanon__sa AS sqlanon__ord_sa, sqlanon__k AS sqlanon__ord_k
        FROM made
    )
    ORDER BY sqlanon__ord_sa, sqlanon__ord_k;
COMMENT ON MACRO TABLE sqlanon_eligibility_counterfeits IS 'Counterfeit rows reaching the targets in table plan (sa_value, delta) for table tbl: delta rows per SA value with delta > 0, columns of tbl (id_col NULL) plus counterfeit_no. mode null: other columns NULL (filled at grouping time); mode copy: copied from seeded-random real rows with the same SA value.';
