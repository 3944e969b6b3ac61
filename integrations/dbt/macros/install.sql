{#- (Re)creates every sqlanon SQL macro (the generated sqlanon_sql.sql) in the
    target database, as persistent macros: models, views and tests can call them
    and a DuckDB shell opening the file has them. The package's on-run-start
    hook runs it before every run, build, test, seed and snapshot, so the
    macros always match this package; `dbt run-operation sqlanon.install_macros`
    runs it on its own. -#}
{% macro install_macros() %}
  {{ return(adapter.dispatch('install_macros', 'sqlanon')()) }}
{% endmacro %}

{% macro duckdb__install_macros() %}
  {%- if execute -%}
    {%- do run_query(sqlanon.sqlanon_script()) -%}
    {%- do log("sqlanon: installed " ~ sqlanon.macro_names() | length ~ " SQL macros", info=true) -%}
  {%- endif -%}
{% endmacro %}

{% macro default__install_macros() %}
  {{ exceptions.raise_compiler_error("sqlanon's dbt package needs dbt-duckdb (the target's type is '" ~ target.type ~ "'): sqlanon's macros are DuckDB SQL") }}
{% endmacro %}
