-- The adversary's view, part 1: release diffs, signatures and the attacks that
-- compare signatures across releases (m-invariance, collusion, intersection).
-- Reads releases only through the release contract (docs/contracts.md):
-- sqlanon_<project>_st for what is published, sqlanon_private.<project>_membership for
-- who is where (private). Design and paper mapping: docs/audit.md.

-- Internal: signature of every published group = sorted distinct SA values (as
-- VARCHAR) of its sensitive-table rows with count > 0. NULL SA values are ignored.
CREATE OR REPLACE MACRO sqlanon__group_signatures(project) AS TABLE
    SELECT release, group_id, list_sort(list(DISTINCT sa)) AS signature
    FROM (
        SELECT release, group_id,
               COLUMNS(lambda c: c NOT IN ('release', 'group_id', 'count'))::VARCHAR AS sa,
               count
        FROM sqlanon__st_rows(project)
    )
    WHERE sa IS NOT NULL AND count > 0
    GROUP BY release, group_id;
COMMENT ON MACRO TABLE sqlanon__group_signatures IS 'Internal: release, group_id, signature (sorted distinct SA values as VARCHAR) of every published group of a project.';

-- Internal: the real persons of every release (counterfeits dropped), true SA as VARCHAR.
CREATE OR REPLACE MACRO sqlanon__persons(project) AS TABLE
    -- (either shape of the membership, as sqlanon__membership_rows reads it,
    -- with the SA as text: COLUMNS over the table itself)
    WITH x AS (
        SELECT id, group_id, is_counterfeit,
               COLUMNS(lambda c: c NOT IN ('release', 'first_release', 'last_release', 'id', 'group_id',
                                           'is_counterfeit'))::VARCHAR AS sa,
               COLUMNS(lambda c: c IN ('release', 'first_release')) AS sqlanon__first,
               COLUMNS(lambda c: c IN ('release', 'last_release')) AS sqlanon__last
        FROM query_table('sqlanon_private.' || project || '_membership')
    ), lt AS (SELECT max(sqlanon__first) AS latest FROM x)
    SELECT unnest(range(x.sqlanon__first, coalesce(x.sqlanon__last, lt.latest) + 1)::INTEGER[]) AS release,
           x.id, x.group_id, x.sa
    FROM x, lt
    WHERE x.id IS NOT NULL AND NOT coalesce(x.is_counterfeit, false);
COMMENT ON MACRO TABLE sqlanon__persons IS 'Internal: release, id, group_id, sa (VARCHAR) of every real (non-counterfeit) person in a project''s membership.';

-- Internal: per person and release, the group, its signature and the true SA (unordered).
CREATE OR REPLACE MACRO sqlanon__history(project) AS TABLE
    SELECT p.id, p.release, p.group_id, g.signature, p.sa
    FROM sqlanon__persons(project) AS p
    JOIN sqlanon__group_signatures(project) AS g USING (release, group_id);
COMMENT ON MACRO TABLE sqlanon__history IS 'Internal: id, release, group_id, signature, sa (true SA as VARCHAR) of every real person, unordered.';

-- Per person and release: the group and its signature (what the adversary learns
-- about the person from that release, if he can locate the person's group).
CREATE OR REPLACE MACRO sqlanon_signature_history(project) AS TABLE
    SELECT id, release, group_id, signature
    FROM sqlanon__history(project)
    ORDER BY id, release;
COMMENT ON MACRO TABLE sqlanon_signature_history IS 'Signature history of a project: id, release, group_id, signature (sorted list of the SA values of the person''s group, as VARCHAR).';

-- Release diff between releases a < b: every person in a or b, classified
-- survivor (in both, same SA), updated (in both, SA changed), deleted (in a, not
-- in b), new (in b, in no release <= a), reinserted (in b, not in a, in some
-- release < a).
CREATE OR REPLACE MACRO sqlanon_release_diff(project, a, b) AS TABLE
    WITH chk AS (
        SELECT CASE WHEN a < b THEN true
               ELSE error('sqlanon_release_diff: release a must be smaller than release b, got a = '
                          || a::VARCHAR || ' and b = ' || b::VARCHAR || '; swap them') END AS ok
    ),
    p AS (SELECT release, id, sa FROM sqlanon__persons(project) WHERE release <= b),
    pa AS (SELECT id, sa FROM p WHERE release = a),
    pb AS (SELECT id, sa FROM p WHERE release = b),
    earlier AS (SELECT DISTINCT id FROM p WHERE release < a)
    SELECT coalesce(pa.id, pb.id) AS id,
           CASE
               WHEN pa.id IS NOT NULL AND pb.id IS NOT NULL THEN
                   CASE WHEN pa.sa IS NOT DISTINCT FROM pb.sa THEN 'survivor' ELSE 'updated' END
               WHEN pb.id IS NULL THEN 'deleted'
               WHEN e.id IS NOT NULL THEN 'reinserted'
               ELSE 'new'
           END AS class
    FROM pa
    FULL JOIN pb ON pa.id = pb.id
    LEFT JOIN earlier AS e ON e.id = coalesce(pa.id, pb.id)
    CROSS JOIN chk
    WHERE chk.ok
    ORDER BY 1;
COMMENT ON MACRO TABLE sqlanon_release_diff IS 'Release diff of a project between releases a < b: id, class in (survivor, updated, deleted, new, reinserted).';

-- m-invariance violations. 'signature_changed': a person present in two
-- consecutive releases (adjacent release numbers of the project) whose signature
-- changed; exempt is an updated person (true SA changed) whose new signature is
-- disjoint from the old one (seed 003: equal or disjoint). 'not_m_unique': the
-- person's group in a release has fewer than m distinct SA values or repeats one.
CREATE OR REPLACE MACRO sqlanon__signature_violations(project, m) AS TABLE
    WITH rels AS (
        SELECT release, row_number() OVER (ORDER BY release) AS pos
        FROM (SELECT DISTINCT release FROM sqlanon__st_rows(project))
    ),
    h AS (
        SELECT s.id, s.release, s.group_id, s.signature, s.sa, r.pos
        FROM sqlanon__history(project) AS s
        JOIN rels AS r USING (release)
    ),
    st AS (
        SELECT release, group_id,
               count(DISTINCT sa) FILTER (WHERE count > 0) AS n_distinct,
               max(count) AS max_count
        FROM (
            SELECT release, group_id,
                   COLUMNS(lambda c: c NOT IN ('release', 'group_id', 'count'))::VARCHAR AS sa,
                   count
            FROM sqlanon__st_rows(project)
        )
        WHERE sa IS NOT NULL
        GROUP BY release, group_id
    )
    SELECT a.id, 'signature_changed' AS violation,
           a.release AS release_from, b.release AS release_to,
           a.signature AS signature_from, b.signature AS signature_to
    FROM h AS a
    JOIN h AS b ON a.id = b.id AND b.pos = a.pos + 1
    WHERE a.signature <> b.signature
      AND NOT (a.sa IS DISTINCT FROM b.sa AND array_length(list_intersect(a.signature, b.signature)) = 0)
    UNION ALL
    SELECT h.id, 'not_m_unique', h.release, h.release, h.signature, h.signature
    FROM h
    JOIN st USING (release, group_id)
    WHERE st.n_distinct < m OR st.max_count > 1;
COMMENT ON MACRO TABLE sqlanon__signature_violations IS 'Internal: sqlanon_signature_violations, unordered.';
CREATE OR REPLACE MACRO sqlanon_signature_violations(project, m) AS TABLE
    SELECT * FROM sqlanon__signature_violations(project, m) ORDER BY id, release_from, violation;
COMMENT ON MACRO TABLE sqlanon_signature_violations IS 'm-invariance violations of a project: id, violation (signature_changed | not_m_unique), release_from, release_to, signature_from, signature_to.';

-- Collusion (seed 003 Definition 1): two signatures of the same person, over any
-- two releases (not only consecutive ones), that share 1 to m-1 values. Each
-- distinct signature of a person appears once, with the releases it was seen in.
CREATE OR REPLACE MACRO sqlanon__collusion_violations(project, m) AS TABLE
    WITH ps AS (
        SELECT id, signature, list(release ORDER BY release) AS releases
        FROM sqlanon__history(project)
        GROUP BY id, signature
    )
    SELECT a.id, a.releases AS releases_a, b.releases AS releases_b,
           a.signature AS signature_a, b.signature AS signature_b,
           list_sort(list_intersect(a.signature, b.signature)) AS common
    FROM ps AS a
    JOIN ps AS b ON a.id = b.id AND a.releases[1] < b.releases[1]
    WHERE array_length(list_intersect(a.signature, b.signature)) BETWEEN 1 AND m - 1;
COMMENT ON MACRO TABLE sqlanon__collusion_violations IS 'Internal: sqlanon_collusion_violations, unordered.';
CREATE OR REPLACE MACRO sqlanon_collusion_violations(project, m) AS TABLE
    SELECT * FROM sqlanon__collusion_violations(project, m) ORDER BY id, releases_a, releases_b;
COMMENT ON MACRO TABLE sqlanon_collusion_violations IS 'Collusion violations of a project (seed 003 Def. 1): id, releases_a, releases_b, signature_a, signature_b, common (1..m-1 shared SA values).';

-- Intersection attack (worst case, docs/audit.md): the adversary knows the
-- person's exact QI and in which releases the person is present, and locates the
-- person's group in each of them; the candidate SA values are the intersection of
-- those groups' signatures. Rows: persons left with 1 to m-1 candidates
-- (1 = disclosed). 0 candidates (the SA changed) contradicts the adversary's
-- assumption and is not reported. correct: the person's latest true SA is a candidate.
CREATE OR REPLACE MACRO sqlanon__intersection_attack(project, m) AS TABLE
    WITH h AS (SELECT id, release, signature, sa FROM sqlanon__history(project)),
    per AS (
        SELECT id, count(*) AS n_releases, list(release ORDER BY release) AS releases,
               arg_max(sa, release) AS true_sa
        FROM h GROUP BY id
    ),
    -- a value is a candidate when it is in the signature of every release of the person
    seen AS (SELECT id, v, count(*) AS n FROM (SELECT id, unnest(signature) AS v FROM h) GROUP BY id, v),
    cand AS (
        SELECT seen.id, list_sort(list(seen.v)) AS candidates
        FROM seen JOIN per USING (id)
        WHERE seen.n = per.n_releases
        GROUP BY seen.id
        HAVING count(*) < m
    )
    SELECT id, releases, n_releases, candidates,
           array_length(candidates) AS n_candidates,
           array_length(candidates) = 1 AS disclosed,
           list_contains(candidates, true_sa) AS correct
    FROM cand JOIN per USING (id);
COMMENT ON MACRO TABLE sqlanon__intersection_attack IS 'Internal: sqlanon_intersection_attack, unordered.';
CREATE OR REPLACE MACRO sqlanon_intersection_attack(project, m) AS TABLE
    SELECT * FROM sqlanon__intersection_attack(project, m) ORDER BY id;
COMMENT ON MACRO TABLE sqlanon_intersection_attack IS 'Intersection attack on a project: id, releases, n_releases, candidates (SA values left after intersecting the person''s group signatures), n_candidates (1..m-1), disclosed (exactly one left), correct (latest true SA among them).';
