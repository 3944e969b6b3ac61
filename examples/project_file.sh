#!/usr/bin/env bash
# A release project driven by a project file (sqlanon.toml): `sqlanon init`
# writes a commented example, which names table patients(id, age, zip, disease)
# in my.duckdb; release 1 is made by `sqlanon run`, release 2 is compiled to SQL
# and run by the DuckDB shell itself (`duckdb my.duckdb < release2.sql`); then
# status, audit (m from the ledger), export (published tables only) and report,
# all reading the project file in the current folder (docs/projects.md).
#
#   bash examples/project_file.sh [DIR]     # a new folder; default: project_file here
#
# DUCKDB names the shell (default: duckdb on PATH); `sqlanon` must be on PATH.
set -euo pipefail
DIR=${1:-project_file}
DUCKDB=${DUCKDB:-duckdb}
if [ -e "$DIR" ]; then
  echo "project_file.sh: $DIR exists; remove it or name a new folder" >&2
  exit 2
fi
mkdir -p "$DIR"
cd "$DIR"

sqlanon init                                   # sqlanon.toml, commented: project ward, m = 4
sqlanon data adult --to my.duckdb --complete   # a file the DuckDB shell opens

# the source the example project file names, made in the shell from Adult
"$DUCKDB" -bail my.duckdb <<'SQL'
CREATE TABLE patients AS
SELECT id, age, hash(native_country) % 50 AS zip, occupation AS disease FROM adult;
SQL

sqlanon run                                    # release 1

# the source changes: 5 % leave, some change their value
"$DUCKDB" -bail my.duckdb <<'SQL'
DELETE FROM patients WHERE id % 20 = 0;
UPDATE patients SET disease = 'Sales' WHERE id % 37 = 1 AND disease <> 'Sales';
SQL

sqlanon compile --out release2.sql             # release 2 as one SQL script ...
"$DUCKDB" my.duckdb < release2.sql             # ... that the shell runs

sqlanon status
sqlanon audit
sqlanon export                                 # [export] of sqlanon.toml: export/*.parquet
sqlanon report --out report.html --no-plots
ls export
