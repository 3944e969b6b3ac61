{#- Installing sqlanon's SQL macros (the generated sqlanon_sql.sql holds them). -#}

{#- The script that (re)creates every sqlanon SQL macro in the target database;
    the package's on-run-start hook runs it. `dbt run-operation sqlanon.install_macros`
    runs it on its own. Persistent macros: a DuckDB shell opening the file has them. -#}
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

{#- Used by every generic test: installs the macros when some are missing (a
    test run with the hook disabled, or a database the hook has not reached). -#}
{% macro ensure_macros() %}
  {%- if execute -%}
    {%- set names = sqlanon.macro_names() -%}
    {%- set found = run_query("SELECT count(DISTINCT function_name) FROM duckdb_functions() WHERE function_name IN ("
          ~ sqlanon.string_list(names, brackets=false) ~ ")").columns[0].values()[0] -%}
    {%- if found < names | length -%}
      {%- do run_query(sqlanon.sqlanon_script()) -%}
    {%- endif -%}
  {%- endif -%}
{% endmacro %}
