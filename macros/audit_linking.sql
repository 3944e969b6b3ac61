-- The adversary's view, part 3: the SPEC §6b adversary (docs/threat_model.md)
-- who knows each person's QI and presence, links by QI (every group of the QI
-- table that holds the person's QI tuple), reads absence and intersects from
-- every start release. Needs the publisher's private state besides the release
-- contract: sqlanon_private.<project>__persons (sqlanon__id, QI... in the QI
-- table's column order), __held (release, id, sa: held back) and __gone
-- (release, id: published but deleted). And all of it as one table:
-- sqlanon_audit(project) - the findings of sqlanon.audit, in the shell.

-- Internal: per release and present person (real membership less the
-- published-but-deleted, plus the held back that no group publishes), its true
-- SA, whether no group matches its QI (absent) and its candidate SA values: the
-- union of the SA values of the groups whose QI table rows hold its QI tuple,
-- else (absent) the values held back in that release. All values VARCHAR.
CREATE OR REPLACE MACRO sqlanon__linking_candidates(project) AS TABLE
    WITH mem AS (
        -- (the real persons of every release, either shape: audit_history.sql)
        SELECT release, id::VARCHAR AS id, sa FROM sqlanon__persons(project)
    ),
    held AS (
        SELECT release, id::VARCHAR AS id, COLUMNS(lambda c: c NOT IN ('release', 'id'))::VARCHAR AS sa
        FROM query_table('sqlanon_private.' || project || '__held')
    ),
    gone AS (SELECT release, id::VARCHAR AS id FROM query_table('sqlanon_private.' || project || '__gone')),
    -- held back and published nowhere (a person published with its previous
    -- value while its new one is held looks present: its value is not counted)
    absent AS (
        SELECT h.release, h.id, h.sa FROM held AS h
        ANTI JOIN mem AS m ON m.release = h.release AND m.id = h.id
    ),
    pres AS (
        SELECT m.release, m.id, m.sa FROM mem AS m
        ANTI JOIN gone AS g ON g.release = m.release AND g.id = m.id
        UNION ALL
        SELECT release, id, sa FROM absent
    ),
    grp AS (
        SELECT DISTINCT release, group_id,
               to_json(row(*COLUMNS(lambda c: c NOT IN ('release', 'group_id'))))::VARCHAR AS k
        FROM sqlanon__qit_rows(project)
    ),
    sa AS (
        SELECT release, group_id, COLUMNS(lambda c: c NOT IN ('release', 'group_id', 'count'))::VARCHAR AS v
        FROM sqlanon__st_rows(project)
        WHERE count > 0
    ),
    cand AS (
        SELECT g.release, g.k, list_sort(list(DISTINCT s.v)) AS cands
        FROM grp AS g JOIN sa AS s USING (release, group_id)
        GROUP BY g.release, g.k
    ),
    hv AS (SELECT release, list_sort(list(DISTINCT sa)) AS v FROM absent GROUP BY release),
    pk AS (
        SELECT sqlanon__id::VARCHAR AS id, to_json(row(*COLUMNS(lambda c: c <> 'sqlanon__id')))::VARCHAR AS k
        FROM query_table('sqlanon_private.' || project || '__persons')
    )
    SELECT p.release, p.id, p.sa, c.cands IS NULL AS absent, coalesce(c.cands, hv.v, []) AS candidates
    FROM pres AS p
    LEFT JOIN pk ON pk.id = p.id
    LEFT JOIN cand AS c ON c.release = p.release AND c.k = pk.k
    LEFT JOIN hv ON hv.release = p.release;
COMMENT ON MACRO TABLE sqlanon__linking_candidates IS 'Internal: release, id, sa, absent, candidates (SA values an adversary linking by QI and reading absence gives a present person) of every present person of every release of a project.';

-- Internal: both checks of the SPEC 6b adversary from one pass over the
-- candidates (check = 'qi_linking' | 'absence'; rows as sqlanon_qi_linking).
-- qi_linking: per person the first release r where the intersection of its
-- candidates over its present releases s..r, for some start s, holds 1 to m-1
-- values. A recursive CTE walks each person's present releases in order and
-- keeps its chain: the intersections from every start so far (the release's
-- candidates intersected into each, its own candidates added). The chain's
-- sets are nested (a later start intersects fewer releases), so the shortest
-- non-empty one is the narrowest the adversary gets. absence: per person the
-- first release where it matches no group and the values held back that
-- release are 1 to m-1. real: the set holds a value the person had in a present
-- release up to r.
CREATE OR REPLACE MACRO sqlanon__linking(project, m) AS TABLE
    WITH RECURSIVE c AS MATERIALIZED (
        SELECT release, id, sa, absent, candidates,
               row_number() OVER (PARTITION BY id ORDER BY release) AS k
        FROM sqlanon__linking_candidates(project)
    ),
    chain AS (
        SELECT id, k, release, [candidates] AS chain FROM c WHERE k = 1
        UNION ALL
        SELECT c.id, c.k, c.release,
               list_distinct(list_append(
                   list_transform(ch.chain, lambda x: list_sort(list_intersect(x, c.candidates))), c.candidates))
               AS chain
        FROM chain AS ch JOIN c ON c.id = ch.id AND c.k = ch.k + 1
    ),
    -- the shortest non-empty set of each chain (m stays out of the lambdas: it
    -- may be a subquery, as in sqlanon_audit)
    narrowest AS (
        SELECT 'qi_linking' AS "check", id, k, release,
               list_reduce(f, lambda a, b: CASE WHEN array_length(b) < array_length(a) THEN b ELSE a END) AS vals
        FROM (SELECT id, k, release, list_filter(chain, lambda x: array_length(x) > 0) AS f FROM chain)
        WHERE array_length(f) > 0
        UNION ALL
        SELECT 'absence', id, k, release, candidates FROM c WHERE absent
    ),
    hits AS (
        SELECT "check", id, k, release, vals, row_number() OVER (PARTITION BY "check", id ORDER BY k) AS n
        FROM narrowest
        WHERE array_length(vals) BETWEEN 1 AND m - 1
    )
    SELECT h."check", h.id, h.release, h.vals AS "values",
           array_length(h.vals) = 1 AS disclosed, bool_or(list_contains(h.vals, c.sa)) AS "real"
    FROM hits AS h JOIN c ON c.id = h.id AND c.k <= h.k
    WHERE h.n = 1
    GROUP BY h."check", h.id, h.release, h.vals;
COMMENT ON MACRO TABLE sqlanon__linking IS 'Internal: check (qi_linking | absence), id, release, values, disclosed, real: sqlanon_qi_linking and sqlanon_absence from one pass.';

-- Linking by QI over all releases, intersected from any start release (see
-- sqlanon__linking): id, release (the first where the person is narrowed),
-- values (the narrowest set), disclosed (one value), real.
CREATE OR REPLACE MACRO sqlanon_qi_linking(project, m) AS TABLE
    SELECT id, release, "values", disclosed, "real" FROM sqlanon__linking(project, m)
    WHERE "check" = 'qi_linking' ORDER BY id;
COMMENT ON MACRO TABLE sqlanon_qi_linking IS 'Linking by QI (SPEC 6b adversary): per person narrowed to 1..m-1 SA values by intersecting its QI-matched candidates from any start release: id, release (the first where it happens), values, disclosed, real. Needs the publisher''s private state.';

-- Absence (see sqlanon__linking): rows as sqlanon_qi_linking.
CREATE OR REPLACE MACRO sqlanon_absence(project, m) AS TABLE
    SELECT id, release, "values", disclosed, "real" FROM sqlanon__linking(project, m)
    WHERE "check" = 'absence' ORDER BY id;
COMMENT ON MACRO TABLE sqlanon_absence IS 'Absence (SPEC 6b adversary): per person present but matching no group, left with the 1..m-1 values held back that release: id, release (the first), values, disclosed, real. Needs the publisher''s private state.';

-- The findings of every check in one shape (sqlanon.audit.FINDING_COLUMNS):
-- check, kind, id, releases, groups, targets, values, disclosed, n_disclosed,
-- real. One macro per check, so the Python audit runs the ones a project's
-- tables allow; sqlanon_audit runs all of them.
CREATE OR REPLACE MACRO sqlanon__findings_intersection(project, m) AS TABLE
    SELECT 'intersection' AS "check", CASE WHEN disclosed THEN 'disclosed' ELSE 'narrowed' END AS kind,
           id::VARCHAR AS id, releases, NULL::VARCHAR AS groups, NULL::VARCHAR[] AS targets,
           candidates AS "values", disclosed, CASE WHEN disclosed THEN 1 ELSE 0 END::BIGINT AS n_disclosed,
           correct AS "real"
    FROM sqlanon__intersection_attack(project, m);
COMMENT ON MACRO TABLE sqlanon__findings_intersection IS 'Internal: the intersection attack as audit findings.';
CREATE OR REPLACE MACRO sqlanon__findings_collusion(project, m) AS TABLE
    SELECT 'collusion' AS "check", 'collusion' AS kind, id::VARCHAR AS id,
           list_sort(list_concat(releases_a, releases_b)) AS releases, NULL::VARCHAR AS groups,
           NULL::VARCHAR[] AS targets, common AS "values", false AS disclosed, 0::BIGINT AS n_disclosed,
           NULL::BOOLEAN AS "real"
    FROM sqlanon__collusion_violations(project, m);
COMMENT ON MACRO TABLE sqlanon__findings_collusion IS 'Internal: collusion violations as audit findings.';
CREATE OR REPLACE MACRO sqlanon__findings_signature(project, m) AS TABLE
    SELECT 'signature' AS "check", violation AS kind, id::VARCHAR AS id,
           list_sort(list_distinct([release_from, release_to])) AS releases, NULL::VARCHAR AS groups,
           NULL::VARCHAR[] AS targets, signature_to AS "values", false AS disclosed, 0::BIGINT AS n_disclosed,
           NULL::BOOLEAN AS "real"
    FROM sqlanon__signature_violations(project, m);
COMMENT ON MACRO TABLE sqlanon__findings_signature IS 'Internal: m-invariance violations as audit findings.';
CREATE OR REPLACE MACRO sqlanon__findings_comparison(project, m) AS TABLE
    SELECT 'comparison' AS "check", attack AS kind, NULL::VARCHAR AS id, [release_old, release_new] AS releases,
           'old ' || groups_old::VARCHAR || ' new ' || groups_new::VARCHAR AS groups, targets,
           inferred AS "values", array_length(inferred) = 1 AND attack <> 'SVM' AS disclosed,
           CASE WHEN array_length(inferred) = 1 AND attack <> 'SVM' THEN n_targets ELSE 0 END::BIGINT AS n_disclosed,
           NULL::BOOLEAN AS "real"
    FROM sqlanon__comparisons(project, m);
COMMENT ON MACRO TABLE sqlanon__findings_comparison IS 'Internal: seed 004 comparison attacks as audit findings.';
CREATE OR REPLACE MACRO sqlanon__findings_linking(project, m) AS TABLE
    SELECT "check", CASE WHEN disclosed THEN 'disclosed' ELSE 'narrowed' END AS kind, id,
           [release] AS releases, NULL::VARCHAR AS groups, NULL::VARCHAR[] AS targets, "values", disclosed,
           CASE WHEN disclosed THEN 1 ELSE 0 END::BIGINT AS n_disclosed, "real"
    FROM sqlanon__linking(project, m);
COMMENT ON MACRO TABLE sqlanon__findings_linking IS 'Internal: linking by QI and absence as audit findings.';

-- The whole audit of a project made by sqlanon's publisher (anatomized: it
-- reads the QI table and the private state): every finding of sqlanon.audit,
-- one row each. m (l of the anatomy models) defaults to the one in the
-- project's ledger. Summary: SELECT "check", count(*), sum(n_disclosed) FROM
-- sqlanon_audit('ward') GROUP BY ALL.
CREATE OR REPLACE MACRO sqlanon_audit(project, m := NULL) AS TABLE
    WITH p AS (
        SELECT coalesce(m, (
            SELECT coalesce(json_extract_string(params, '$.m'), json_extract_string(params, '$.l'))::INTEGER
            FROM query_table('sqlanon_private.' || project || '__ledger') ORDER BY release LIMIT 1)) AS ledger_m
    )
    SELECT * FROM (
        SELECT * FROM sqlanon__findings_intersection(project, (SELECT ledger_m FROM p))
        UNION ALL SELECT * FROM sqlanon__findings_collusion(project, (SELECT ledger_m FROM p))
        UNION ALL SELECT * FROM sqlanon__findings_signature(project, (SELECT ledger_m FROM p))
        UNION ALL SELECT * FROM sqlanon__findings_comparison(project, (SELECT ledger_m FROM p))
        UNION ALL SELECT * FROM sqlanon__findings_linking(project, (SELECT ledger_m FROM p))
    )
    ORDER BY ALL;
COMMENT ON MACRO TABLE sqlanon_audit IS 'The whole audit of a project published by sqlanon (anatomized output; reads its private state): one row per finding, columns check, kind, id, releases, groups, targets, values, disclosed, n_disclosed, real - the findings of sqlanon.audit. m defaults to the ledger''s.';
