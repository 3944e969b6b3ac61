{#- distinct l-diversity: fails with the QI groups holding fewer than l distinct
    values of the sensitive column sa. sqlanon_l_diversity_violations, macros/checks.sql. -#}
{% test l_diversity(model, qi, sa, l) %}
SELECT * FROM sqlanon_l_diversity_violations({{ sqlanon.relation(model) }}, {{ sqlanon.string_list(qi) }},
    {{ sqlanon.string(sa) }}, {{ sqlanon.number(l, 'l', minimum=1, integer=true) }})
{% endtest %}
