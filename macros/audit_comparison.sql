-- The adversary's view, part 2: the comparison attacks of seed 004 §3 between
-- consecutive anatomized releases (iFRCA, iMRCA, iMRcMLA, dFLCA, dMLCA, dMLcMRA,
-- SVM, partition changing). The adversary links records across two releases by
-- their exact QI tuple in the QI tables (sqlanon_<project>_qit) and compares the
-- SA multisets of the sensitive tables (sqlanon_<project>_st). Candidate sets
-- (A old groups, B new groups): every related pair, every old group with all new
-- groups it relates to, every new group with all old groups it relates to, and
-- every connected component. If A's QI records are all in B, B's extra SA values
-- (multiset difference) belong to B's extra records; symmetric for B inside A;
-- equal QI with different SA is an update. A finding: that difference has 1 to
-- l-1 distinct values. Design and naming table: docs/audit.md.

-- Internal: every published QI record of a project: release, group_id, k (JSON
-- of the exact QI tuple: the linking key), qi (the same tuple as text).
CREATE OR REPLACE MACRO sqlanon__qit_keys(project) AS TABLE
    SELECT release, group_id,
           to_json(row(*COLUMNS(lambda c: c NOT IN ('release', 'group_id'))))::VARCHAR AS k,
           row(*COLUMNS(lambda c: c NOT IN ('release', 'group_id')))::VARCHAR AS qi
    FROM sqlanon__qit_rows(project);
COMMENT ON MACRO TABLE sqlanon__qit_keys IS 'Internal: release, group_id, k (JSON linking key of the exact QI tuple), qi (QI tuple as text) of every published QI record.';

-- Internal: every comparison finding between consecutive releases (all attacks).
CREATE OR REPLACE MACRO sqlanon__comparisons(project, l) AS TABLE
    WITH RECURSIVE
    -- the adversary links a record across releases only by a QI tuple that is
    -- unique in its release; other records get a key of their own (never linked)
    q AS (
        SELECT release, group_id, qi,
               CASE WHEN count(*) OVER (PARTITION BY release, k) = 1 THEN k
                    ELSE k || '#' || release::VARCHAR || '#'
                         || row_number() OVER (PARTITION BY release, k ORDER BY group_id)::VARCHAR END AS k
        FROM sqlanon__qit_keys(project)
    ),
    rels AS (
        SELECT r_old, r_new
        FROM (SELECT release AS r_new, lag(release) OVER (ORDER BY release) AS r_old
              FROM (SELECT DISTINCT release FROM q))
        WHERE r_old IS NOT NULL
    ),
    -- QI multiset of every group, and of every release
    gk AS MATERIALIZED (SELECT release, group_id, k, any_value(qi) AS qi, count(*) AS c FROM q GROUP BY release, group_id, k),
    kc AS MATERIALIZED (SELECT release, k, sum(c) AS n FROM gk GROUP BY release, k),
    gsize AS MATERIALIZED (SELECT release, group_id, sum(c) AS size FROM gk GROUP BY release, group_id),
    -- SA multiset of every group
    sa AS MATERIALIZED (
        SELECT release, group_id, v, sum(count) AS c
        FROM (SELECT release, group_id,
                     COLUMNS(lambda c: c NOT IN ('release', 'group_id', 'count'))::VARCHAR AS v, count
              FROM sqlanon__st_rows(project))
        WHERE v IS NOT NULL AND count > 0
        GROUP BY release, group_id, v
    ),
    -- related groups: old group g_old and new group g_new share a QI tuple; s = shared records
    e AS MATERIALIZED (
        SELECT r.r_old, r.r_new, o.group_id AS g_old, n.group_id AS g_new, sum(least(o.c, n.c)) AS s
        FROM rels AS r
        JOIN gk AS o ON o.release = r.r_old
        JOIN gk AS n ON n.release = r.r_new AND n.k = o.k
        GROUP BY r.r_old, r.r_new, o.group_id, n.group_id
    ),
    ed AS MATERIALIZED (
        SELECT r_new, 0 AS side_a, g_old AS ga, 1 AS side_b, g_new AS gb FROM e
        UNION ALL
        SELECT r_new, 1, g_new, 0, g_old FROM e
    ),
    -- A component can be contained only if none of its old groups has an unlinked
    -- record (insert-only) or none of its new groups has one (remove-only). Mark
    -- every group that reaches such a group (breadth-first: each group once) and
    -- compute components only among the groups not marked from both sides.
    bad AS (
        SELECT DISTINCT r.r_new, 0 AS side, g.group_id AS g
        FROM rels AS r JOIN gk AS g ON g.release = r.r_old
        ANTI JOIN kc AS kn ON kn.release = r.r_new AND kn.k = g.k
        UNION ALL
        SELECT DISTINCT r.r_new, 1, g.group_id
        FROM rels AS r JOIN gk AS g ON g.release = r.r_new
        ANTI JOIN kc AS ko ON ko.release = r.r_old AND ko.k = g.k
    ),
    t_del(r_new, side, g) AS (
        SELECT r_new, side, g FROM bad WHERE side = 0
        UNION
        SELECT ed.r_new, ed.side_b, ed.gb
        FROM t_del JOIN ed ON ed.r_new = t_del.r_new AND ed.side_a = t_del.side AND ed.ga = t_del.g
    ),
    t_ins(r_new, side, g) AS (
        SELECT r_new, side, g FROM bad WHERE side = 1
        UNION
        SELECT ed.r_new, ed.side_b, ed.gb
        FROM t_ins JOIN ed ON ed.r_new = t_ins.r_new AND ed.side_a = t_ins.side AND ed.ga = t_ins.g
    ),
    edk AS MATERIALIZED (
        SELECT ed.* FROM ed
        ANTI JOIN (SELECT * FROM t_del INTERSECT SELECT * FROM t_ins) AS x
            ON x.r_new = ed.r_new AND x.side = ed.side_a AND x.g = ed.ga
    ),
    -- connected components (label propagation); node label = group_id * 2 + side (0 old, 1 new)
    cc(r_new, side, g, comp) USING KEY (r_new, side, g) AS (
        SELECT DISTINCT r_new, side_a, ga, ga::BIGINT * 2 + side_a FROM edk
        UNION ALL
        SELECT edk.r_new, edk.side_b, edk.gb, min(cc.comp)
        FROM cc
        JOIN edk ON edk.r_new = cc.r_new AND edk.side_a = cc.side AND edk.ga = cc.g
        JOIN recurring.cc AS rc ON rc.r_new = edk.r_new AND rc.side = edk.side_b AND rc.g = edk.gb
        GROUP BY edk.r_new, edk.side_b, edk.gb
        HAVING min(cc.comp) < min(rc.comp)
    ),
    -- candidate sets (A old groups, B new groups) with size_a, size_b and
    -- s = records of A that are also in B (by QI multiset)
    c_pair AS (
        SELECT e.r_old, e.r_new, [e.g_old] AS ga, [e.g_new] AS gb, o.size AS size_a, n.size AS size_b, e.s
        FROM e
        JOIN gsize AS o ON o.release = e.r_old AND o.group_id = e.g_old
        JOIN gsize AS n ON n.release = e.r_new AND n.group_id = e.g_new
    ),
    -- (a linked QI tuple is unique in both releases, so it is one edge: s adds up over edges)
    c_old AS (
        SELECT nb.r_old, nb.r_new, [nb.g_old] AS ga, nb.gb, o.size AS size_a, nb.size_b, nb.s
        FROM (SELECT e.r_old, e.r_new, e.g_old, list_sort(list(e.g_new)) AS gb, sum(n.size) AS size_b, sum(e.s) AS s
              FROM e JOIN gsize AS n ON n.release = e.r_new AND n.group_id = e.g_new
              GROUP BY e.r_old, e.r_new, e.g_old) AS nb
        JOIN gsize AS o ON o.release = nb.r_old AND o.group_id = nb.g_old
    ),
    c_new AS (
        SELECT nb.r_old, nb.r_new, nb.ga, [nb.g_new] AS gb, nb.size_a, n.size AS size_b, nb.s
        FROM (SELECT e.r_old, e.r_new, e.g_new, list_sort(list(e.g_old)) AS ga, sum(o.size) AS size_a, sum(e.s) AS s
              FROM e JOIN gsize AS o ON o.release = e.r_old AND o.group_id = e.g_old
              GROUP BY e.r_old, e.r_new, e.g_new) AS nb
        JOIN gsize AS n ON n.release = nb.r_new AND n.group_id = nb.g_new
    ),
    ccr AS (
        SELECT r.r_old, cc.r_new, cc.side, cc.g, cc.comp, gs.size
        FROM cc JOIN rels AS r USING (r_new)
        JOIN gsize AS gs ON gs.release = CASE WHEN cc.side = 0 THEN r.r_old ELSE r.r_new END AND gs.group_id = cc.g
    ),
    c_comp AS (
        SELECT m.r_old, m.r_new,
               list_sort(list(m.g) FILTER (WHERE m.side = 0)) AS ga,
               list_sort(list(m.g) FILTER (WHERE m.side = 1)) AS gb,
               sum(m.size) FILTER (WHERE m.side = 0) AS size_a,
               sum(m.size) FILTER (WHERE m.side = 1) AS size_b,
               any_value(sh.s) AS s
        FROM ccr AS m
        -- a linked QI tuple is unique in both releases, so it is one edge: s = sum of the edges' s
        JOIN (SELECT cc.r_new, cc.comp, sum(e.s) AS s
              FROM cc JOIN e ON e.r_new = cc.r_new AND cc.side = 0 AND e.g_old = cc.g
              GROUP BY cc.r_new, cc.comp) AS sh ON sh.r_new = m.r_new AND sh.comp = m.comp
        GROUP BY m.r_old, m.r_new, m.comp
    ),
    cand AS MATERIALIZED (
        SELECT r_old, r_new, ga, gb, any_value(size_a) AS size_a, any_value(size_b) AS size_b, any_value(s) AS s,
               row_number() OVER (ORDER BY r_old, r_new, ga, gb) AS cid
        FROM (FROM c_pair UNION ALL FROM c_old UNION ALL FROM c_new UNION ALL FROM c_comp)
        WHERE s = size_a OR s = size_b
        GROUP BY r_old, r_new, ga, gb
    ),
    -- SA multiset differences of the contained candidates
    mem AS MATERIALIZED (
        SELECT cid, r_old AS release, 0 AS side, unnest(ga) AS group_id FROM cand
        UNION ALL
        SELECT cid, r_new, 1, unnest(gb) FROM cand
    ),
    sav AS (
        SELECT mem.cid, sa.v,
               coalesce(sum(sa.c) FILTER (WHERE mem.side = 0), 0) AS ca,
               coalesce(sum(sa.c) FILTER (WHERE mem.side = 1), 0) AS cb
        FROM mem JOIN sa USING (release, group_id)
        GROUP BY mem.cid, sa.v
    ),
    diff AS (
        SELECT cid,
               list_sort(list(v) FILTER (WHERE cb > ca)) AS plus,
               list_sort(list(v) FILTER (WHERE ca > cb)) AS minus,
               coalesce(sum(cb - ca) FILTER (WHERE cb > ca), 0) AS n_changed
        FROM sav GROUP BY cid
    ),
    -- the findings: a difference with 1 to l-1 distinct values
    found AS MATERIALIZED (
        SELECT c.cid, c.r_old, c.r_new, c.ga, c.gb, d.plus, d.minus, d.n_changed, x.direction
        FROM cand AS c JOIN diff AS d USING (cid),
        LATERAL (SELECT CASE
                     WHEN c.s = c.size_a AND c.s = c.size_b THEN 'update'
                     WHEN c.s = c.size_a THEN 'insert'
                     ELSE 'remove' END AS direction) AS x
        WHERE CASE x.direction
                  WHEN 'insert' THEN array_length(d.plus) BETWEEN 1 AND l - 1
                  WHEN 'remove' THEN array_length(d.minus) BETWEEN 1 AND l - 1
                  ELSE array_length(d.plus) BETWEEN 1 AND l - 1 OR array_length(d.minus) BETWEEN 1 AND l - 1
              END
    ),
    -- their extra records (QI tuples) on the bigger side, and whether any of them
    -- moved to or from a group outside the candidate (present in both releases)
    qv AS (
        SELECT mem.cid, gk.k, any_value(gk.qi) AS qi,
               coalesce(sum(gk.c) FILTER (WHERE mem.side = 0), 0) AS ca,
               coalesce(sum(gk.c) FILTER (WHERE mem.side = 1), 0) AS cb
        FROM mem SEMI JOIN found USING (cid)
        JOIN gk USING (release, group_id)
        GROUP BY mem.cid, gk.k
    ),
    extra AS (
        SELECT qv.cid,
               list_sort(list(qv.qi) FILTER (WHERE qv.cb > qv.ca)) AS qi_plus,
               sum(qv.cb - qv.ca) FILTER (WHERE qv.cb > qv.ca) AS n_plus,
               bool_or(coalesce(ko.n, 0) > qv.ca) FILTER (WHERE qv.cb > qv.ca) AS moved_in,
               list_sort(list(qv.qi) FILTER (WHERE qv.ca > qv.cb)) AS qi_minus,
               sum(qv.ca - qv.cb) FILTER (WHERE qv.ca > qv.cb) AS n_minus,
               bool_or(coalesce(kn.n, 0) > qv.cb) FILTER (WHERE qv.ca > qv.cb) AS moved_out,
               list_sort(list(qv.qi)) AS qi_all
        FROM qv JOIN found USING (cid)
        LEFT JOIN kc AS ko ON ko.release = found.r_old AND ko.k = qv.k
        LEFT JOIN kc AS kn ON kn.release = found.r_new AND kn.k = qv.k
        GROUP BY qv.cid
    )
    SELECT CASE
               WHEN direction = 'update' THEN 'SVM'
               WHEN direction = 'insert' AND moved_in THEN 'partition changing'
               WHEN direction = 'remove' AND moved_out THEN 'partition changing'
               WHEN direction = 'insert' AND array_length(ga) = 1 AND array_length(gb) = 1 THEN 'iFRCA'
               WHEN direction = 'insert' AND array_length(ga) = 1 THEN 'iMRCA'
               WHEN direction = 'insert' THEN 'iMRcMLA'
               WHEN array_length(ga) = 1 AND array_length(gb) = 1 THEN 'dFLCA'
               WHEN array_length(gb) = 1 THEN 'dMLCA'
               ELSE 'dMLcMRA'
           END AS attack,
           r_old AS release_old, r_new AS release_new,
           ga AS groups_old, gb AS groups_new, direction,
           CASE direction WHEN 'insert' THEN qi_plus WHEN 'remove' THEN qi_minus ELSE qi_all END AS targets,
           CASE direction WHEN 'insert' THEN n_plus WHEN 'remove' THEN n_minus
                ELSE n_changed END::BIGINT AS n_targets,
           CASE direction WHEN 'remove' THEN minus ELSE plus END AS inferred,
           CASE direction WHEN 'update' THEN minus END AS inferred_before
    FROM found JOIN extra USING (cid);
COMMENT ON MACRO TABLE sqlanon__comparisons IS 'Internal: every seed 004 comparison-attack finding between consecutive releases of a project (see sqlanon_comparison_attacks).';

-- Insertion attacks (seed 004 §3.1): records added to a partition (iFRCA), to a
-- partition split into several (iMRCA), or to merged partitions (iMRcMLA) whose SA
-- values are the multiset difference new - old, with fewer than l distinct values.
CREATE OR REPLACE MACRO sqlanon_insertion_attacks(project, l) AS TABLE
    SELECT * FROM sqlanon__comparisons(project, l)
    WHERE attack IN ('iFRCA', 'iMRCA', 'iMRcMLA')
    ORDER BY release_old, attack, groups_old, groups_new;
COMMENT ON MACRO TABLE sqlanon_insertion_attacks IS 'Seed 004 §3.1 attacks (iFRCA, iMRCA, iMRcMLA) between consecutive releases: attack, release_old, release_new, groups_old, groups_new, direction, targets (QI tuples), n_targets, inferred (their SA values), inferred_before.';

-- Deletion attacks (seed 004 §3.2): records removed from a partition (dFLCA), from
-- merged partitions (dMLCA) or from partitions regrouped into several (dMLcMRA)
-- whose SA values are the multiset difference old - new, with fewer than l distinct values.
CREATE OR REPLACE MACRO sqlanon_deletion_attacks(project, l) AS TABLE
    SELECT * FROM sqlanon__comparisons(project, l)
    WHERE attack IN ('dFLCA', 'dMLCA', 'dMLcMRA')
    ORDER BY release_old, attack, groups_old, groups_new;
COMMENT ON MACRO TABLE sqlanon_deletion_attacks IS 'Seed 004 §3.2 attacks (dFLCA, dMLCA, dMLcMRA) between consecutive releases: attack, release_old, release_new, groups_old, groups_new, direction, targets (QI tuples of the removed records), n_targets, inferred (their SA values), inferred_before.';

-- Update attack SVM (seed 004 §3.3): the same QI records in both releases, but the
-- SA multiset changed: inferred_before -> inferred, fewer than l distinct values on a side.
CREATE OR REPLACE MACRO sqlanon_update_attacks(project, l) AS TABLE
    SELECT * FROM sqlanon__comparisons(project, l)
    WHERE attack = 'SVM'
    ORDER BY release_old, attack, groups_old, groups_new;
COMMENT ON MACRO TABLE sqlanon_update_attacks IS 'Seed 004 §3.3 SVM attack between consecutive releases: the records (targets) kept their QI but n_targets of them changed SA from inferred_before to inferred.';

-- Partition changing (seed 004 §3.4): a contained comparison whose extra records
-- moved to (or came from) another partition, e.g. (48, Male, 60639) in Tables 6/9.
CREATE OR REPLACE MACRO sqlanon_partition_changing_attacks(project, l) AS TABLE
    SELECT * FROM sqlanon__comparisons(project, l)
    WHERE attack = 'partition changing'
    ORDER BY release_old, attack, groups_old, groups_new;
COMMENT ON MACRO TABLE sqlanon_partition_changing_attacks IS 'Seed 004 §3.4 partition-changing attack between consecutive releases: records that moved between partitions (targets) and their inferred SA values.';

-- All eight seed 004 comparison attacks between consecutive anatomized releases.
CREATE OR REPLACE MACRO sqlanon_comparison_attacks(project, l) AS TABLE
    SELECT * FROM sqlanon__comparisons(project, l)
    ORDER BY release_old, attack, groups_old, groups_new;
COMMENT ON MACRO TABLE sqlanon_comparison_attacks IS 'All seed 004 comparison attacks (iFRCA, iMRCA, iMRcMLA, dFLCA, dMLCA, dMLcMRA, SVM, partition changing) between consecutive releases of a project.';
