{#- Prosecutor re-identification risk (a record's risk = 1 / its QI group's
    size; docs/static.md "Risk"): fails (one row: records_at_risk, highest_risk,
    average_risk, rows, groups) when more than max_share of the rows have a risk
    above threshold. Defaults: threshold 0.2 (groups of 4 or fewer rows are at
    risk), max_share 0 (no row may be). sqlanon_prosecutor_risk, macros/risk.sql. -#}
{% test reidentification_risk(model, qi, threshold=0.2, max_share=0) %}
SELECT * FROM sqlanon_prosecutor_risk({{ sqlanon.relation(model) }}, {{ sqlanon.string_list(qi) }},
    {{ sqlanon.number(threshold, 'threshold', minimum=0) }})
WHERE records_at_risk > {{ sqlanon.number(max_share, 'max_share', minimum=0) }}
{% endtest %}
