{#- k-anonymity: fails with the QI groups (equal values in every qi column) of
    fewer than k rows. sqlanon_k_anonymity_violations, macros/checks.sql. -#}
{% test k_anonymity(model, qi, k) %}
SELECT * FROM sqlanon_k_anonymity_violations({{ sqlanon.relation(model) }}, {{ sqlanon.string_list(qi) }},
    {{ sqlanon.number(k, 'k', minimum=1, integer=true) }})
{% endtest %}
