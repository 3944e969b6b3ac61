-- The release contract: how every published release (and the publisher's
-- private membership) is read. The publisher writes these tables; the audit
-- and users read them only through these macros. Any tool can be audited by
-- writing tables of the same shape (see docs/contracts.md):
--   sqlanon_<project>_qit        (release, group_id, <QI columns>)
--   sqlanon_<project>_st         (release, group_id, <sa>, count)
--   sqlanon_<project>_published  (release, group_id, <generalized QI columns>, <sa>)
--   sqlanon_private.<project>_membership (id, group_id, is_counterfeit, <sa>, first_release, last_release)
--       -- private; intervals of releases (last_release NULL: in the last release; one marker row
--       -- per release with every other column NULL), or, as other tools may write it, the
--       -- per-release shape (release, id, group_id, is_counterfeit, <sa>)
-- (private tables live in schema sqlanon_private, so that no sqlanon_<project>_%
-- table-name pattern picks them up; docs/contracts.md)

-- Internal: every release's rows of a published table (release, group_id, ...),
-- whatever shape it is stored in. Every reader of the published tables (the
-- macros below and the audit's, sqlanon.audit, export, slicing, the project
-- checks) goes through these three, and the release templates through
-- sql/_lib/store.sql.j2's release_rows: stored today as one row set per release,
-- so that they are the table itself; when the tables become intervals (issue 34
-- point 1) only these and the writers change.
CREATE OR REPLACE MACRO sqlanon__qit_rows(project) AS TABLE
    SELECT * FROM query_table('sqlanon_' || project || '_qit');
COMMENT ON MACRO TABLE sqlanon__qit_rows IS 'Internal: every release''s rows of a project''s Anatomy QI table (release, group_id, QI columns).';
CREATE OR REPLACE MACRO sqlanon__st_rows(project) AS TABLE
    SELECT * FROM query_table('sqlanon_' || project || '_st');
COMMENT ON MACRO TABLE sqlanon__st_rows IS 'Internal: every release''s rows of a project''s Anatomy sensitive table (release, group_id, SA, count).';
CREATE OR REPLACE MACRO sqlanon__published_rows(project) AS TABLE
    SELECT * FROM query_table('sqlanon_' || project || '_published');
COMMENT ON MACRO TABLE sqlanon__published_rows IS 'Internal: every release''s rows of a project''s generalized table (release, group_id, generalized QI, SA).';

-- Anatomy QI table of release r: one row per published record, exact QI.
CREATE OR REPLACE MACRO sqlanon_published_qit(project, r) AS TABLE
    SELECT * EXCLUDE (release)
    FROM sqlanon__qit_rows(project)
    WHERE release = r
    ORDER BY ALL;
COMMENT ON MACRO TABLE sqlanon_published_qit IS 'Anatomy QI table of release r of a project: group_id, exact QI columns (counterfeits included, unflagged).';

-- Anatomy sensitive table of release r: per group, each SA value and its count.
CREATE OR REPLACE MACRO sqlanon_published_st(project, r) AS TABLE
    SELECT * EXCLUDE (release)
    FROM sqlanon__st_rows(project)
    WHERE release = r
    ORDER BY ALL;
COMMENT ON MACRO TABLE sqlanon_published_st IS 'Anatomy sensitive table of release r of a project: group_id, SA value, count.';

-- Generalized release r: one row per published record.
CREATE OR REPLACE MACRO sqlanon_published(project, r) AS TABLE
    SELECT * EXCLUDE (release)
    FROM sqlanon__published_rows(project)
    WHERE release = r
    ORDER BY ALL;
COMMENT ON MACRO TABLE sqlanon_published IS 'Generalized release r of a project: group_id, generalized QI columns, SA.';

-- Internal: the membership table as spans of releases, whichever shape it is
-- stored in: id, group_id, is_counterfeit, <sa>, sqlanon__first, sqlanon__last
-- (the interval shape's first_release and last_release; the per-release shape's
-- release twice). COLUMNS picks the one column of either shape, over the table
-- itself (the Spark engine expands COLUMNS over one table only).
CREATE OR REPLACE MACRO sqlanon__membership_spans(project) AS TABLE
    SELECT id, group_id, is_counterfeit,
           COLUMNS(lambda c: c NOT IN ('release', 'first_release', 'last_release', 'id', 'group_id', 'is_counterfeit')),
           COLUMNS(lambda c: c IN ('release', 'first_release')) AS sqlanon__first,
           COLUMNS(lambda c: c IN ('release', 'last_release')) AS sqlanon__last
    FROM query_table('sqlanon_private.' || project || '_membership');
COMMENT ON MACRO TABLE sqlanon__membership_spans IS 'Internal: a project''s membership as spans (id, group_id, is_counterfeit, sa, sqlanon__first, sqlanon__last), from the interval or the per-release shape.';

-- Internal: the membership as one row set per release (release, id, group_id,
-- is_counterfeit, <sa>), from either shape: an interval row once for every
-- release it spans, an open one (sqlanon__last NULL) up to the last release
-- (the latest marker row's).
CREATE OR REPLACE MACRO sqlanon__membership_rows(project) AS TABLE
    WITH x AS (SELECT * FROM sqlanon__membership_spans(project)),
    lt AS (SELECT max(sqlanon__first) AS latest FROM x)
    SELECT unnest(range(x.sqlanon__first, coalesce(x.sqlanon__last, lt.latest) + 1)::INTEGER[]) AS release,
           x.* EXCLUDE (sqlanon__first, sqlanon__last)
    FROM x, lt
    WHERE x.group_id IS NOT NULL;
COMMENT ON MACRO TABLE sqlanon__membership_rows IS 'Internal: a project''s membership as per-release rows (release, id, group_id, is_counterfeit, sa), from the interval or the per-release shape.';

-- Private: which person (id) sits in which group of release r, counterfeits flagged.
CREATE OR REPLACE MACRO sqlanon_membership(project, r) AS TABLE
    WITH x AS (SELECT * FROM sqlanon__membership_spans(project)),
    lt AS (SELECT max(sqlanon__first) AS latest FROM x)
    SELECT x.* EXCLUDE (sqlanon__first, sqlanon__last)
    FROM x, lt
    WHERE x.group_id IS NOT NULL AND x.sqlanon__first <= r AND r <= coalesce(x.sqlanon__last, lt.latest)
    ORDER BY ALL;
COMMENT ON MACRO TABLE sqlanon_membership IS 'Private membership of release r of a project: id (NULL for counterfeits), group_id, is_counterfeit, true SA value.';
