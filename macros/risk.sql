-- Re-identification risk (ARX's and sdcMicro's three attacker models; docs/static.md "Risk").
-- A record's risk is 1 / the size of the class it can be confused with: its QI group in tbl
-- (prosecutor: the attacker knows the target is in tbl) or the matching QI group of a
-- population table (journalist: the target is somewhere in the population).
-- Groups are equal QI tuples; NULL is a value (NULLs group together, as in the checks).
-- "At risk" means risk > threshold (default 0.2, i.e. a class of 4 or fewer).

-- Prosecutor model over tbl: records_at_risk (fraction of rows with 1/|group| > threshold),
-- highest_risk (1 / smallest group), average_risk (mean 1/|group| over rows = groups / rows,
-- which is also the marketer risk when tbl is the whole population), rows, groups.
CREATE OR REPLACE MACRO sqlanon_prosecutor_risk(tbl, qi, threshold := 0.2) AS TABLE
    WITH g AS (
        SELECT * EXCLUDE (sqlanon__c), count(*)::BIGINT AS n
        FROM (SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = 'sqlanon__c')
              FROM (SELECT *, true AS sqlanon__c FROM query_table(tbl::VARCHAR)))
        GROUP BY ALL
    )
    SELECT coalesce(sum(n) FILTER (WHERE 1.0 / n > threshold), 0) / nullif(sum(n), 0) AS records_at_risk,
           max(1.0 / n) AS highest_risk,
           count(*) / nullif(sum(n), 0) AS average_risk,
           coalesce(sum(n), 0)::BIGINT AS rows, count(*)::BIGINT AS groups
    FROM g, (SELECT sqlanon__require_cols(tbl, qi) AS sqlanon__ok) AS chk
    WHERE chk.sqlanon__ok = 1;
COMMENT ON MACRO TABLE sqlanon_prosecutor_risk IS 'Prosecutor re-identification risk (risk = 1/QI group size). Args: tbl, qi list, threshold := 0.2. Returns records_at_risk, highest_risk, average_risk, rows, groups.';

-- Journalist and marketer models (the constant sqlanon__c keeps COLUMNS non-empty for an
-- empty or unknown QI list, so the check in chk, not the binder, reports it): tbl is a sample of population (same QI columns, in the same
-- order, and the same coding: generalize the population like tbl first). F = the size of the
-- population group with a record's QI tuple (at least its sample group's size f, so a
-- population that misses sample rows does not yield a risk above 1). records_at_risk = fraction
-- of tbl's rows with 1/F > threshold, highest_risk = max 1/F, marketer_risk = expected fraction
-- of tbl's rows re-identified = (1/rows) * sum over groups of f/F, rows, groups.
CREATE OR REPLACE MACRO sqlanon_journalist_risk(tbl, population, qi, threshold := 0.2) AS TABLE
    WITH chk AS (
        SELECT CASE WHEN (SELECT list_filter(list(name ORDER BY cid), lambda c: list_contains(qi, c))
                          FROM pragma_table_info(tbl::VARCHAR))
                      IS DISTINCT FROM (SELECT list_filter(list(name ORDER BY cid), lambda c: list_contains(qi, c))
                                        FROM pragma_table_info(population::VARCHAR))
                    THEN error(format('sqlanon_journalist_risk: the QI columns of "{}" and "{}" differ or are in a '
                                      || 'different order; pass views that list them alike', tbl, population))
                    ELSE sqlanon__require_cols(tbl, qi) + sqlanon__require_cols(population, qi) END AS sqlanon__ok
    ),
    s AS (
        SELECT to_json(list_value(*COLUMNS(lambda c: list_contains(qi, c) OR c = 'sqlanon__c'))) AS key,
               count(*)::BIGINT AS f
        FROM (SELECT COLUMNS(*)::VARCHAR, '' AS sqlanon__c FROM query_table(tbl::VARCHAR)) GROUP BY key
    ),
    p AS (
        SELECT to_json(list_value(*COLUMNS(lambda c: list_contains(qi, c) OR c = 'sqlanon__c'))) AS key,
               count(*)::BIGINT AS pf
        FROM (SELECT COLUMNS(*)::VARCHAR, '' AS sqlanon__c FROM query_table(population::VARCHAR)) GROUP BY key
    ),
    j AS (SELECT s.f, greatest(coalesce(p.pf, 0), s.f) AS big_f FROM s LEFT JOIN p USING (key))
    SELECT coalesce(sum(f) FILTER (WHERE 1.0 / big_f > threshold), 0) / nullif(sum(f), 0) AS records_at_risk,
           max(1.0 / big_f) AS highest_risk,
           sum(f / big_f) / nullif(sum(f), 0) AS marketer_risk,
           coalesce(sum(f), 0)::BIGINT AS rows, count(*)::BIGINT AS groups
    FROM j, chk WHERE chk.sqlanon__ok = 2;
COMMENT ON MACRO TABLE sqlanon_journalist_risk IS 'Journalist and marketer re-identification risk of sample tbl against a population table (risk = 1/population group size). Args: tbl, population, qi list, threshold := 0.2. Returns records_at_risk, highest_risk, marketer_risk, rows, groups.';
