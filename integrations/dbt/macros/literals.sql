{#- SQL literals for test arguments. dbt tests cannot bind parameters, so every
    value reaches SQL through one of these: strings quoted (' doubled), numbers
    and booleans checked first. Names stay strings: sqlanon's macros look them up
    as table and column names, never parse them as SQL. -#}

{% macro string(value) -%}
  '{{ value | string | replace("'", "''") }}'
{%- endmacro %}

{% macro string_list(values) -%}
  {%- if values is string -%}{%- set values = [values] -%}{%- endif -%}
  {%- if values is not iterable or values is mapping or values | length == 0 -%}
    {{ exceptions.raise_compiler_error("sqlanon: expected a column name or a list of column names, got " ~ values) }}
  {%- endif -%}
  {%- set items = [] -%}
  {%- for v in values -%}{%- do items.append(sqlanon.string(v)) -%}{%- endfor -%}
  [{{ items | join(', ') }}]
{%- endmacro %}

{% macro number(value, name, minimum=none, integer=false) -%}
  {%- if value is boolean or value is not number or (integer and value is not integer)
        or (minimum is not none and value < minimum) -%}
    {{ exceptions.raise_compiler_error("sqlanon: test argument " ~ name ~ " must be "
        ~ ("an integer" if integer else "a number") ~ (" >= " ~ minimum if minimum is not none else "")
        ~ ", got " ~ value) }}
  {%- endif -%}
  {{ value }}
{%- endmacro %}

{% macro boolean(value, name) -%}
  {%- if value is not boolean -%}
    {{ exceptions.raise_compiler_error("sqlanon: test argument " ~ name ~ " must be true or false, got " ~ value) }}
  {%- endif -%}
  {{ 'true' if value else 'false' }}
{%- endmacro %}

{#- The tested model as a table name for sqlanon's macros (they read it with
    query_table): database.schema.identifier, each part double-quoted. -#}
{% macro relation(model) -%}
  {%- if model is string or model.identifier is not defined -%}
    {{ exceptions.raise_compiler_error("sqlanon: the tests read a model or source by name; the test's `where` "
        ~ "config is not supported (filter in a view model and test that instead)") }}
  {%- endif -%}
  {{ sqlanon.string(model.render()) }}
{%- endmacro %}
