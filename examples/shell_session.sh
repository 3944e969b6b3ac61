#!/usr/bin/env bash
# A session in the DuckDB shell with sqlanon: load the bundled Adult data,
# change the source table in the shell, make two m-invariant releases with
# `sqlanon release`, then read and attack them with sqlanon's SQL macros in the
# real DuckDB shell (pip install duckdb-cli; DuckDB 1.5 opens the files sqlanon
# writes, docs/shell.md), audit and report.
#
#   bash examples/shell_session.sh [DB]     # a new file; default: shell_session.duckdb here
#
# DUCKDB names the shell (default: duckdb on PATH); `sqlanon` must be on PATH.
set -euo pipefail
DB=${1:-shell_session.duckdb}
DUCKDB=${DUCKDB:-duckdb}
if [ -e "$DB" ]; then
  echo "shell_session.sh: $DB exists; remove it or name a new file" >&2
  exit 2
fi

# table adult (with an id column) in a new file, which also stores every sqlanon macro
sqlanon data adult --to "$DB" --complete

# the source table, made in the shell
"$DUCKDB" -bail "$DB" <<'SQL'
CREATE TABLE patients AS SELECT id, age, sex, race, education, occupation FROM adult;
SQL

# release 1: m = 4 (QI age, sex, race, education; SA occupation)
sqlanon release "$DB" ward --source patients --id id --qi age,sex,race,education --sa occupation --m 4 --seed 1

# the source changes in the shell: 5 % of the persons leave, about 2.5 % change occupation
"$DUCKDB" -bail "$DB" <<'SQL'
DELETE FROM patients WHERE id % 20 = 0;
UPDATE patients SET occupation = 'Sales' WHERE id % 37 = 1 AND occupation <> 'Sales';
SQL

# release 2: the parameters come from the project's ledger
sqlanon release "$DB" ward

# reading and attacking the releases with the macros stored in the file
"$DUCKDB" -bail "$DB" <<'SQL'
-- the published sensitive table of release 2 (group_id, occupation, count)
FROM sqlanon_published_st('ward', 2) ORDER BY group_id, occupation LIMIT 6;
-- how the source changed between the releases (private: reads the membership table)
SELECT class, count(*) AS persons FROM sqlanon_release_diff('ward', 1, 2) GROUP BY ALL ORDER BY ALL;
-- the source by its QI (many persons unique: k = 1) and the published groups of release 2 (>= m = 4 rows)
SELECT 'source' AS "table", k, groups, rows FROM sqlanon_k_anonymity('patients', ['age', 'sex', 'race', 'education'])
UNION ALL
SELECT 'release 2', min(n), count(*), sum(n) FROM (SELECT group_id, sum(count) AS n FROM sqlanon_published_st('ward', 2) GROUP BY ALL);
-- the adversary's checks (each returns the persons it narrows: none)
SELECT (SELECT count(*) FROM sqlanon_intersection_attack('ward', 4)) AS intersection,
       (SELECT count(*) FROM sqlanon_collusion_violations('ward', 4)) AS collusion,
       (SELECT count(*) FROM sqlanon_signature_violations('ward', 4)) AS signature;
SQL

# the whole audit (m from the ledger) and a one-file HTML report
sqlanon audit "$DB" ward
sqlanon report "$DB" ward --out "${DB%.duckdb}_report.html"
