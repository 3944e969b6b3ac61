-- Bayes-optimal posterior (seed 002, Machanavajjhala et al. eq. 2) for one target q in its release class q*.
-- release: the rows of the class q* (a table or view); sa: its SA column;
-- knowledge: adversary background table with columns s (VARCHAR SA value), f_q = f(s|q), f_qstar = f(s|q*).
-- beta(s) = n(q*,s) f(s|q)/f(s|q*) / sum_s' (same); prior alpha(s) = f(s|q) / sum f(s'|q).
CREATE OR REPLACE MACRO sqlanon_bayes_posterior(release, sa, knowledge) AS TABLE
    WITH chk AS (SELECT sqlanon__require_cols(release, [sa]) AS sqlanon__ok,
                        sqlanon__require_cols(knowledge, ['s', 'f_q', 'f_qstar']) AS sqlanon__ok2),
    -- (sqlanon__padded: chk, not the binder, reports an unknown sa)
    cnt AS (
        SELECT coalesce(*COLUMNS(lambda c: c = sa OR c = 'sqlanon__nil'))::VARCHAR AS sqlanon__s,
               count(*) AS sqlanon__n
        FROM sqlanon__padded(release) GROUP BY ALL
    ),
    w AS (
        SELECT k.s, k.f_q / sum(k.f_q) OVER () AS prior,
               coalesce(c.sqlanon__n, 0) * k.f_q / k.f_qstar AS sqlanon__w
        FROM query_table(knowledge::VARCHAR) k LEFT JOIN cnt c ON c.sqlanon__s IS NOT DISTINCT FROM k.s::VARCHAR
    )
    -- the checks are read by the result (an unread CTE would be optimized away)
    SELECT s, prior, sqlanon__w / sum(sqlanon__w) OVER () AS posterior
    FROM w
    WHERE (SELECT sqlanon__ok + sqlanon__ok2 FROM chk) = 2
    ORDER BY s;
COMMENT ON MACRO TABLE sqlanon_bayes_posterior IS 'Bayes-optimal posterior (seed 002 eq. 2). Args: release (rows of the target class), sa, knowledge table (s, f_q, f_qstar). Returns s, prior, posterior.';
