-- sqlanon: every macro, for the DuckDB shell.
--   From the repository root:   .read macros/sqlanon.sql
--   After pip install (anywhere): sqlanon macros > sqlanon.sql   then   .read sqlanon.sql
-- sqlanon.install(con) loads the same files in the same order (the .read lines below).
-- One concern per file; add a file here when you add one to macros/.
.read macros/_validate.sql
.read macros/checks.sql
.read macros/t_closeness.sql
.read macros/bayes.sql
.read macros/published.sql
.read macros/audit_history.sql
.read macros/audit_comparison.sql
.read macros/audit_linking.sql
.read macros/anatomy_groups.sql
.read macros/eligibility.sql
.read macros/eligibility_rows.sql
.read macros/generalize.sql
.read macros/ncp.sql
.read macros/discernibility.sql
.read macros/risk.sql
.read macros/kl_divergence.sql
.read macros/penalty_dl.sql
.read macros/query_error.sql
