-- The source: one row per patient (id, QI age and zip, SA disease), as of day
-- var('day'): from day 2 on, every 10th patient has left and every 17th has a
-- new diagnosis. A real project reads its own table here.
SELECT range AS id,
       20 + (range * 7) % 53 AS age,
       47900 + (range * 13) % 41 AS zip,
       CASE WHEN {{ var('day') }} >= 2 AND range % 17 = 1 THEN 'flu'
            ELSE ['flu', 'hiv', 'cold', 'gastritis', 'dyspepsia', 'bronchitis'][range % 6 + 1] END AS disease
FROM range(600)
WHERE NOT ({{ var('day') }} >= 2 AND range % 10 = 0)
