-- The release contract: how every published release (and the publisher's
-- private membership) is read. The publisher writes these tables; the audit
-- and users read them only through these macros. Any tool can be audited by
-- writing tables of the same shape (see docs/contracts.md):
--   sqlanon_<project>_qit        (release, group_id, <QI columns>)
--   sqlanon_<project>_st         (release, group_id, <sa>, count)
--   sqlanon_<project>_published  (release, group_id, <generalized QI columns>, <sa>)
--   sqlanon_private.<project>_membership (release, id, group_id, is_counterfeit, <sa>)   -- private
-- (private tables live in schema sqlanon_private, so that no sqlanon_<project>_%
-- table-name pattern picks them up; docs/contracts.md)

-- Anatomy QI table of release r: one row per published record, exact QI.
CREATE OR REPLACE MACRO sqlanon_published_qit(project, r) AS TABLE
    SELECT * EXCLUDE (release)
    FROM query_table('sqlanon_' || project || '_qit')
    WHERE release = r
    ORDER BY ALL;
COMMENT ON MACRO TABLE sqlanon_published_qit IS 'Anatomy QI table of release r of a project: group_id, exact QI columns (counterfeits included, unflagged).';

-- Anatomy sensitive table of release r: per group, each SA value and its count.
CREATE OR REPLACE MACRO sqlanon_published_st(project, r) AS TABLE
    SELECT * EXCLUDE (release)
    FROM query_table('sqlanon_' || project || '_st')
    WHERE release = r
    ORDER BY ALL;
COMMENT ON MACRO TABLE sqlanon_published_st IS 'Anatomy sensitive table of release r of a project: group_id, SA value, count.';

-- Generalized release r: one row per published record.
CREATE OR REPLACE MACRO sqlanon_published(project, r) AS TABLE
    SELECT * EXCLUDE (release)
    FROM query_table('sqlanon_' || project || '_published')
    WHERE release = r
    ORDER BY ALL;
COMMENT ON MACRO TABLE sqlanon_published IS 'Generalized release r of a project: group_id, generalized QI columns, SA.';

-- Private: which person (id) sits in which group of release r, counterfeits flagged.
CREATE OR REPLACE MACRO sqlanon_membership(project, r) AS TABLE
    SELECT * EXCLUDE (release)
    FROM query_table('sqlanon_private.' || project || '_membership')
    WHERE release = r
    ORDER BY ALL;
COMMENT ON MACRO TABLE sqlanon_membership IS 'Private membership of release r of a project: id (NULL for counterfeits), group_id, is_counterfeit, true SA value.';
