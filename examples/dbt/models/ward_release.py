# The next release of sqlanon project "ward" (vars.ward in dbt_project.yml),
# made by sqlanon's Publisher on dbt's own DuckDB connection. The model's table
# is the release's summary (sqlanon.ReleaseResult as one row); the release
# itself is in sqlanon_ward_qit, _st, _published and the private ledger.
import sqlanon.dbt


def model(dbt, session):
    dbt.config(materialized="table")
    dbt.ref("patients")  # the source: dbt builds it first
    return sqlanon.dbt.release(session, dbt.config.meta_get("sqlanon"))
