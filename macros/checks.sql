-- Static privacy checks (docs/checks.md). Groups are the equivalence classes of the QI columns;
-- NULL in a QI is a value of its own (GROUP BY puts NULLs together, like a suppressed cell);
-- NULL SA is counted as a value of its own here (the publisher rejects it).

-- One-scan profile: one GROUP BY over (qi, sa), then one over qi (docs/checks.md "Lean SQL").
-- The constant sqlanon__c only keeps COLUMNS(...) non-empty at bind time (when no requested name is a
-- column) and is excluded before grouping, so it is never a group key; the name check runs on the
-- one-row result.
CREATE OR REPLACE MACRO sqlanon_profile(tbl, qi, sa) AS TABLE
    WITH gs AS (
        SELECT * EXCLUDE (sqlanon__c), count(*)::BIGINT AS sqlanon__n
        FROM (SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = sa OR c = 'sqlanon__c')
              FROM (SELECT *, true AS sqlanon__c FROM query_table(tbl::VARCHAR)))
        GROUP BY ALL
    ),
    g AS (
        SELECT * EXCLUDE (sqlanon__c, sqlanon__n), count(*)::BIGINT AS sqlanon__d,
               sum(sqlanon__n)::BIGINT AS sqlanon__t, max(sqlanon__n) AS sqlanon__mx,
               sum(sqlanon__n * ln(sqlanon__n)) AS sqlanon__s
        FROM (SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = 'sqlanon__n' OR c = 'sqlanon__c')
              FROM (SELECT *, true AS sqlanon__c FROM gs))
        GROUP BY ALL
    ),
    r AS (
        SELECT min(sqlanon__t)::BIGINT AS k, count(*)::BIGINT AS groups, coalesce(sum(sqlanon__t), 0)::BIGINT AS rows,
               min(sqlanon__d)::BIGINT AS distinct_l,
               min(exp(ln(sqlanon__t) - sqlanon__s / sqlanon__t)) AS entropy_l,
               max(sqlanon__mx / sqlanon__t) AS alpha
        FROM g
    )
    SELECT r.* FROM r, (SELECT sqlanon__require_qi(tbl, qi, [sa]) AS sqlanon__ok) chk
    WHERE chk.sqlanon__ok = 1;
COMMENT ON MACRO TABLE sqlanon_profile IS 'One-scan check profile. Args: tbl, qi list, sa. Returns k, groups, rows, distinct_l, entropy_l, alpha.';

-- sqlanon_profile of the rows tbl stands for when each of its rows stands for sqlanon__n equal rows
-- (a column of tbl): its first GROUP BY sums sqlanon__n where sqlanon_profile counts rows, the
-- rest is sqlanon_profile's. So it returns what sqlanon_profile returns on tbl with each row
-- repeated sqlanon__n times (Mondrian checks its output groups with it: sqlanon/static_checks.py, _guarantee).
-- (sqlanon__padded: a table without sqlanon__n binds, and the name check below reports it.)
CREATE OR REPLACE MACRO sqlanon__profile_counted(tbl, qi, sa) AS TABLE
    WITH gs AS (
        SELECT * EXCLUDE (sqlanon__c, sqlanon__w), sum(sqlanon__w)::BIGINT AS sqlanon__n
        FROM (SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = sa OR c = 'sqlanon__c'),
                     coalesce(*COLUMNS(lambda c: c = 'sqlanon__n' OR c = 'sqlanon__nil')) AS sqlanon__w
              FROM (SELECT *, true AS sqlanon__c FROM sqlanon__padded(tbl)))
        GROUP BY ALL
    ),
    g AS (
        SELECT * EXCLUDE (sqlanon__c, sqlanon__n), count(*)::BIGINT AS sqlanon__d,
               sum(sqlanon__n)::BIGINT AS sqlanon__t, max(sqlanon__n) AS sqlanon__mx,
               sum(sqlanon__n * ln(sqlanon__n)) AS sqlanon__s
        FROM (SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = 'sqlanon__n' OR c = 'sqlanon__c')
              FROM (SELECT *, true AS sqlanon__c FROM gs))
        GROUP BY ALL
    ),
    r AS (
        SELECT min(sqlanon__t)::BIGINT AS k, count(*)::BIGINT AS groups, coalesce(sum(sqlanon__t), 0)::BIGINT AS rows,
               min(sqlanon__d)::BIGINT AS distinct_l,
               min(exp(ln(sqlanon__t) - sqlanon__s / sqlanon__t)) AS entropy_l,
               max(sqlanon__mx / sqlanon__t) AS alpha
        FROM g
    )
    SELECT r.* FROM r, (SELECT sqlanon__require_qi(tbl, qi, [sa, 'sqlanon__n']) AS sqlanon__ok) chk
    WHERE chk.sqlanon__ok = 1;
COMMENT ON MACRO TABLE sqlanon__profile_counted IS 'Internal: sqlanon_profile of tbl with each row repeated sqlanon__n (a column) times.';

-- sqlanon__profile_counted without its check of the names (and without the padding that lets a
-- bad name reach that check): for a caller that built tbl itself with these columns. Only Mondrian
-- calls it (sqlanon/static_checks.py, _guarantee), on the groups frame it registered with the QI
-- columns, the SA and sqlanon__n it was asked to check, after anonymize checked those names on the
-- source; the check cost ~1 ms of a ~37 ms call on Adult (docs/static.md, issue 35's eighth round).
-- Given a name that is not a column it does not say so (the COLUMNS lambdas leave it out): use
-- sqlanon_profile or sqlanon__profile_counted, which do.
CREATE OR REPLACE MACRO sqlanon__profile_counted_unchecked(tbl, qi, sa) AS TABLE
    WITH gs AS (
        SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = sa), sum(sqlanon__n)::BIGINT AS sqlanon__n
        FROM query_table(tbl::VARCHAR)
        GROUP BY ALL
    ),
    g AS (
        SELECT COLUMNS(lambda c: list_contains(qi, c)), count(*)::BIGINT AS sqlanon__d,
               sum(sqlanon__n)::BIGINT AS sqlanon__t, max(sqlanon__n) AS sqlanon__mx,
               sum(sqlanon__n * ln(sqlanon__n)) AS sqlanon__s
        FROM gs
        GROUP BY ALL
    )
    SELECT min(sqlanon__t)::BIGINT AS k, count(*)::BIGINT AS groups, coalesce(sum(sqlanon__t), 0)::BIGINT AS rows,
           min(sqlanon__d)::BIGINT AS distinct_l,
           min(exp(ln(sqlanon__t) - sqlanon__s / sqlanon__t)) AS entropy_l,
           max(sqlanon__mx / sqlanon__t) AS alpha
    FROM g;
COMMENT ON MACRO TABLE sqlanon__profile_counted_unchecked IS 'Internal, unchecked names (Mondrian''s frame): sqlanon__profile_counted without its name check.';

-- k-anonymity: k = size of the smallest QI group (NULL for an empty table). One GROUP BY qi, no extra key.
CREATE OR REPLACE MACRO sqlanon_k_anonymity(tbl, qi) AS TABLE
    WITH g AS (
        SELECT * EXCLUDE (sqlanon__c), count(*)::BIGINT AS sqlanon__n
        FROM (SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = 'sqlanon__c')
              FROM (SELECT *, true AS sqlanon__c FROM query_table(tbl::VARCHAR)))
        GROUP BY ALL
    ),
    r AS (SELECT min(sqlanon__n)::BIGINT AS k, count(*)::BIGINT AS groups, coalesce(sum(sqlanon__n), 0)::BIGINT AS rows FROM g)
    SELECT r.* FROM r, (SELECT sqlanon__require_cols(tbl, qi) AS sqlanon__ok) chk WHERE chk.sqlanon__ok = 1;
COMMENT ON MACRO TABLE sqlanon_k_anonymity IS 'k-anonymity. Args: tbl, qi list. Returns k (smallest QI group), groups, rows.';

-- QI groups smaller than k (no rows = the table is k-anonymous).
CREATE OR REPLACE MACRO sqlanon_k_anonymity_violations(tbl, qi, k) AS TABLE
    WITH chk AS (SELECT sqlanon__require_cols(tbl, qi) AS sqlanon__ok)
    SELECT * EXCLUDE (sqlanon__ok) FROM (
        SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = 'sqlanon__ok'), count(*)::BIGINT AS group_size
        FROM query_table(tbl::VARCHAR), chk GROUP BY ALL HAVING count(*) < k);
COMMENT ON MACRO TABLE sqlanon_k_anonymity_violations IS 'QI groups with fewer than k rows. Args: tbl, qi list, k. Returns the QI columns and group_size.';

-- Group-size histogram: how many QI groups have each size.
CREATE OR REPLACE MACRO sqlanon_group_sizes(tbl, qi) AS TABLE
    SELECT group_size, count(*)::BIGINT AS groups
    FROM sqlanon_k_anonymity_violations(tbl, qi, 9223372036854775807)
    GROUP BY group_size ORDER BY group_size;
COMMENT ON MACRO TABLE sqlanon_group_sizes IS 'Histogram of QI group sizes. Args: tbl, qi list. Returns group_size, groups.';

-- l-diversity: distinct_l, entropy_l (smallest exp(entropy), natural log), alpha (largest SA share).
CREATE OR REPLACE MACRO sqlanon_l_diversity(tbl, qi, sa) AS TABLE
    SELECT distinct_l, entropy_l, alpha FROM sqlanon_profile(tbl, qi, sa);
COMMENT ON MACRO TABLE sqlanon_l_diversity IS 'l-diversity. Args: tbl, qi list, sa. Returns distinct_l, entropy_l (min exp(entropy)), alpha (max SA share in a group).';

-- Per-group SA statistics; a group violates distinct l-diversity when distinct_values < l.
CREATE OR REPLACE MACRO sqlanon_l_diversity_violations(tbl, qi, sa, l) AS TABLE
    WITH chk AS (SELECT sqlanon__require_qi(tbl, qi, [sa]) AS sqlanon__ok),
    gs AS (
        SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = sa OR c = 'sqlanon__ok'), count(*)::BIGINT AS sqlanon__n
        FROM query_table(tbl::VARCHAR), chk GROUP BY ALL
    )
    SELECT * EXCLUDE (sqlanon__ok) FROM (
        SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = 'sqlanon__ok'), count(*)::BIGINT AS distinct_values,
               sum(sqlanon__n)::BIGINT AS group_size
        FROM gs GROUP BY ALL HAVING count(*) < l);
COMMENT ON MACRO TABLE sqlanon_l_diversity_violations IS 'QI groups with fewer than l distinct SA values. Args: tbl, qi list, sa, l. Returns QI columns, distinct_values, group_size.';

-- Recursive (c,l)-diversity, ARX definition: a group satisfies it iff r1 < c*(r_l + ... + r_last)
-- (r sorted descending). Per group c_g = r1 / (r_l + ...); the table needs c > max c_g.
-- c_required = max c_g; NULL when some group has fewer than l distinct values (no c works).
-- Same shape as sqlanon_profile (no validation column among the group keys); the checks of the
-- names and of l run on the one-row result.
CREATE OR REPLACE MACRO sqlanon_recursive_cl(tbl, qi, sa, l) AS TABLE
    WITH gs AS (
        SELECT * EXCLUDE (sqlanon__c), count(*)::BIGINT AS sqlanon__n
        FROM (SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = sa OR c = 'sqlanon__c')
              FROM (SELECT *, true AS sqlanon__c FROM query_table(tbl::VARCHAR)))
        GROUP BY ALL
    ),
    g AS (
        SELECT * EXCLUDE (sqlanon__c, sqlanon__n), list(sqlanon__n ORDER BY sqlanon__n DESC) AS sqlanon__r
        FROM (SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = 'sqlanon__n' OR c = 'sqlanon__c')
              FROM (SELECT *, true AS sqlanon__c FROM gs))
        GROUP BY ALL
    ),
    r AS (
        SELECT CASE WHEN bool_or(len(sqlanon__r) < l) THEN NULL
                    ELSE max(sqlanon__r[1] / list_sum(sqlanon__r[l::INTEGER:])) END AS c_required
        FROM g
    )
    SELECT r.* FROM r,
        (SELECT sqlanon__require_qi(tbl, qi, [sa]) AS sqlanon__ok,
                CASE WHEN l IS NULL OR l < 1 OR l <> floor(l) THEN error('sqlanon_recursive_cl: l must be an integer >= 1, got ' || coalesce(l::VARCHAR, 'NULL')) ELSE 1 END AS sqlanon__okl) chk
    WHERE chk.sqlanon__ok = 1 AND chk.sqlanon__okl = 1;
COMMENT ON MACRO TABLE sqlanon_recursive_cl IS 'Recursive (c,l)-diversity (ARX). Args: tbl, qi list, sa, l. Returns c_required: the table satisfies it for every c > c_required; NULL if a group has fewer than l SA values.';

-- m-eligibility (Xiao & Tao): a table is m-eligible iff no SA value occurs in more than rows/m rows.
-- max_m = floor(rows / max_count) (NULL for an empty table).
CREATE OR REPLACE MACRO sqlanon_m_eligibility(tbl, sa, m) AS TABLE
    WITH chk AS (SELECT sqlanon__require_cols(tbl, [sa]) AS sqlanon__ok,
                        CASE WHEN m IS NULL OR m < 2 OR m <> floor(m) THEN error('sqlanon_m_eligibility: m must be an integer >= 2, got ' || coalesce(m::VARCHAR, 'NULL')) END AS sqlanon__okm),
    v AS (SELECT COLUMNS(lambda c: c = sa OR c = 'sqlanon__ok' OR c = 'sqlanon__okm'), count(*)::BIGINT AS sqlanon__n
          FROM query_table(tbl::VARCHAR), chk GROUP BY ALL)
    SELECT coalesce(max(sqlanon__n) * m <= sum(sqlanon__n), true) AS eligible, max(sqlanon__n)::BIGINT AS max_count,
           coalesce(sum(sqlanon__n), 0)::BIGINT AS rows, count(*)::BIGINT AS distinct_values,
           (sum(sqlanon__n) // max(sqlanon__n))::BIGINT AS max_m
    FROM v;
COMMENT ON MACRO TABLE sqlanon_m_eligibility IS 'm-eligibility. Args: tbl, sa, m (integer >= 2). Returns eligible, max_count, rows, distinct_values, max_m.';

-- m-uniqueness (Xiao & Tao): every QI group has >= m rows and no SA value repeats inside a group.
CREATE OR REPLACE MACRO sqlanon_m_uniqueness(tbl, qi, sa, m) AS TABLE
    WITH chk AS (SELECT sqlanon__require_qi(tbl, qi, [sa]) AS sqlanon__ok,
                        CASE WHEN m IS NULL OR m < 2 OR m <> floor(m) THEN error('sqlanon_m_uniqueness: m must be an integer >= 2, got ' || coalesce(m::VARCHAR, 'NULL')) END AS sqlanon__okm),
    gs AS (
        SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = sa OR c = 'sqlanon__ok' OR c = 'sqlanon__okm'), count(*)::BIGINT AS sqlanon__n
        FROM query_table(tbl::VARCHAR), chk GROUP BY ALL
    ),
    g AS (
        SELECT COLUMNS(lambda c: list_contains(qi, c) OR c = 'sqlanon__ok'), sum(sqlanon__n)::BIGINT AS sqlanon__t,
               max(sqlanon__n) AS sqlanon__mx
        FROM gs GROUP BY ALL
    )
    SELECT coalesce(bool_and(sqlanon__t >= m AND sqlanon__mx = 1), true) AS m_unique,
           min(sqlanon__t)::BIGINT AS min_group_size, max(sqlanon__mx)::BIGINT AS max_repeat,
           count(*) FILTER (WHERE sqlanon__t < m OR sqlanon__mx > 1)::BIGINT AS violating_groups
    FROM g;
COMMENT ON MACRO TABLE sqlanon_m_uniqueness IS 'm-uniqueness. Args: tbl, qi list, sa, m. Returns m_unique, min_group_size, max_repeat (most copies of one SA value in a group), violating_groups.';
