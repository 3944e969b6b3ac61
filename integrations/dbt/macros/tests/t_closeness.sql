{#- t-closeness (Li et al.): fails (one row: t, groups) when some QI group's SA
    distribution is farther than t (earth mover's distance) from the whole
    table's. ordered=false: equal ground distance; true: ordered distance (for a
    numeric SA). sqlanon_t_closeness, macros/t_closeness.sql. -#}
{% test t_closeness(model, qi, sa, t, ordered=false) %}
SELECT * FROM sqlanon_t_closeness({{ sqlanon.relation(model) }}, {{ sqlanon.string_list(qi) }},
    {{ sqlanon.string(sa) }}, {{ sqlanon.boolean(ordered, 'ordered') }})
WHERE t > {{ sqlanon.number(t, 't', minimum=0) }}
{% endtest %}
