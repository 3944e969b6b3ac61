-- Utility metrics: KL-divergence (seed 003 eq. 7; docs/metrics.md) of a grouped table
-- (exact QI + SA + group id) against Anatomy's group-wise reconstruction:
--   P(q, s)  = count of rows with QI tuple q and SA s / n
--   P*(q, s) = sum over groups G of  count_G(q) / n * count_G(s) / |G|
-- KL = sum over (q, s) with P > 0 of P * ln(P / P*) (natural log; P > 0 implies P* > 0).
-- NULL is a value (QI tuples, SA values and group ids compare with IS NOT DISTINCT FROM).
CREATE OR REPLACE MACRO sqlanon_kl_divergence(tbl, qi, sa, group_col) AS TABLE
    WITH vc AS (
        -- (the constant sqlanon__c, part of every QI tuple, keeps COLUMNS from
        -- matching nothing when no QI name is a column, so the validation on the
        -- result below, not the binder, reports it; sqlanon__padded does the same
        -- for an unknown sa or group_col)
        SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = 'sqlanon__c')::VARCHAR,
               coalesce(*COLUMNS(lambda c: c = sa OR c = 'sqlanon__nil'))::VARCHAR AS __s,
               coalesce(*COLUMNS(lambda c: c = group_col OR c = 'sqlanon__nil'))::VARCHAR AS __g
        FROM (SELECT *, NULL::VARCHAR AS sqlanon__c FROM sqlanon__padded(tbl))
    ),
    src AS (
        SELECT list_value(*COLUMNS(lambda c: list_contains(qi, c) OR c = 'sqlanon__c')) AS q, __s AS s, __g AS g FROM vc
    ),
    n AS (SELECT count(*)::DOUBLE AS n FROM src),
    p AS (SELECT q, s, count(*) / any_value(n.n) AS p FROM src, n GROUP BY q, s),
    gsize AS (SELECT g, count(*)::DOUBLE AS sz FROM src GROUP BY g),
    gq AS (SELECT g, q, count(*)::DOUBLE AS cq FROM src GROUP BY g, q),
    gs AS (SELECT g, s, count(*)::DOUBLE AS cs FROM src GROUP BY g, s),
    pstar AS (
        SELECT gq.q, gs.s, sum(gq.cq * gs.cs / gsize.sz) / any_value(n.n) AS ps
        FROM gq JOIN gs ON gq.g IS NOT DISTINCT FROM gs.g
                JOIN gsize ON gsize.g IS NOT DISTINCT FROM gq.g, n
        GROUP BY gq.q, gs.s
    )
    SELECT coalesce(sum(p.p * ln(p.p / pstar.ps)), 0.0) AS kl_divergence
    FROM p JOIN pstar ON p.q IS NOT DISTINCT FROM pstar.q AND p.s IS NOT DISTINCT FROM pstar.s
    WHERE (SELECT sqlanon__require_qi(tbl, qi, [sa, group_col])) = 1;
COMMENT ON MACRO TABLE sqlanon_kl_divergence IS 'KL-divergence (seed 003 eq. 7, natural log) between the original (QI, SA) distribution and Anatomy''s group-wise reconstruction. Args: tbl, qi list, sa, group_col. Returns kl_divergence.';
