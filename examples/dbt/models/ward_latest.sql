-- The latest release of project "ward" as published (generalized QI ranges and
-- the SA), read through sqlanon's macro. depends_on: {{ ref('ward_release') }}
{{ config(materialized='view') }}
SELECT * FROM sqlanon_published('ward', (SELECT max(release) FROM sqlanon_ward_published))
