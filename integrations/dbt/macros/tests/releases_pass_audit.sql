{#- The audit (docs/audit.md) of every release of sqlanon project `project`:
    fails with one row per finding of the intersection attack, the collusion and
    m-invariance signature checks and the seed 004 comparison attacks (macros
    audit_history.sql, audit_comparison.sql). m: the privacy parameter; default
    the one in the project's ledger. Attach it to the model that makes the
    releases, so that it runs after them. -#}
{% test releases_pass_audit(model, project, m=none) %}
{%- if project is not string or not modules.re.fullmatch('[A-Za-z][A-Za-z0-9_]{0,62}', project) -%}
  {{ exceptions.raise_compiler_error("sqlanon: releases_pass_audit: project must be a sqlanon project name "
      ~ "(a letter, then letters, digits or _), got " ~ project) }}
{%- endif -%}
{%- set p = sqlanon.string(project) -%}
WITH param AS (
    SELECT
    {%- if m is none %}
        coalesce((SELECT coalesce(json_extract(params, '$.m'), json_extract(params, '$.l'))::INTEGER
                  FROM sqlanon_private."{{ project }}__ledger" ORDER BY release LIMIT 1),
                 error('sqlanon: the ledger of project ' || {{ p }} || ' has no m or l; pass m to the test'))
    {%- else %}
        {{ sqlanon.number(m, 'm', minimum=2, integer=true) }}
    {%- endif %} AS m
)
SELECT 'intersection' AS "check", CASE WHEN disclosed THEN 'disclosed' ELSE 'narrowed' END AS kind,
       id::VARCHAR AS id, releases::VARCHAR AS releases, candidates::VARCHAR AS "values"
FROM sqlanon_intersection_attack({{ p }}, (SELECT m FROM param))
UNION ALL
SELECT 'collusion', 'collusion', id::VARCHAR, list_concat(releases_a, releases_b)::VARCHAR, common::VARCHAR
FROM sqlanon_collusion_violations({{ p }}, (SELECT m FROM param))
UNION ALL
SELECT 'signature', violation, id::VARCHAR, [release_from, release_to]::VARCHAR, signature_to::VARCHAR
FROM sqlanon_signature_violations({{ p }}, (SELECT m FROM param))
UNION ALL
SELECT 'comparison', attack, NULL, [release_old, release_new]::VARCHAR, inferred::VARCHAR
FROM sqlanon_comparison_attacks({{ p }}, (SELECT m FROM param))
{% endtest %}
