-- llmmetrics: the definitions as SQL
--
-- Every figure of `llmmetrics report`, computed in SQL from the per-request
-- records of a run written as Parquet (`llmmetrics convert run.jsonl
-- run.parquet`, or `llmmetrics run --out run.parquet`; the schema is in
-- docs/scale.md). Written for DuckDB; the definitions (part 2) are portable
-- SQL but where a line says "dialect:", which names what Spark SQL, Trino
-- and ClickHouse write instead.
--
-- In DuckDB (the views kept in the database file run.duckdb):
--   llmmetrics sql run.parquet | duckdb run.duckdb
--   duckdb run.duckdb -c "SELECT * FROM lm_figures"
--
-- The main views, each built on the ones before it (helpers between them):
--   lm_records       the file's rows (one a request)                [part 1]
--   lm_settings      method, window, warm-up, SLO: one row           [part 1]
--   lm_percentiles   the percentiles to report: name, p_units        [part 1]
--   lm_chunks        each text-bearing chunk: id, k (from 1), t_ns
--   lm_gaps          each gap between consecutive chunks: id, k, gap_ns
--   lm_requests      one row a request: its category and its figures
--   lm_samples       the pooled samples of ttft, e2e, tpot and itl
--   lm_distribution  n, mean, min, max of each sample
--   lm_percentile    each percentile of each sample, by the method set
--   lm_window        the window of the rates, declared or derived
--   lm_accounting    every request counted once, by category
--   lm_rates         output and prompt tokens and requests per second
--   lm_goodput       SLO attainment and goodput (a row when an SLO is set)
--   lm_figures       all of it as (figure, value) rows, named as the
--                    conformance kit names them; value NULL: absent
--
-- Conventions (the project's specification; docs/conventions.md):
--   * A request's times are from its send (sent_ns) to its text-bearing
--     chunks (chunk_arrivals_ns, or first_text_ns and last_text_ns when no
--     arrivals were recorded). TTFT ends at the first, E2E at the last.
--   * n is the server's count (completion_tokens), never the number of
--     chunks; it is usable when given and no fewer than the chunks. TPOT =
--     (last − first)/(n − 1) needs a usable n ≥ 2; an answer whose client
--     saw one body (one_body), or whose n ≥ 2 tokens came in one chunk (or
--     at one instant), was not streamed: it has an E2E, and no TTFT or TPOT.
--   * ITL is the gaps between consecutive chunks, pooled over ok requests
--     (chunk gaps: a chunk may carry several tokens).
--   * Percentiles are nearest rank (the value at rank ⌈p·N/100⌉) or linear
--     (type 7, numpy's default), their ranks found with window functions
--     in exact integer arithmetic; p is held in millionths of a percent
--     (p_units).
--   * A request is its id, unique within a run (as the library requires).
--   * Counts: ok (text), zero_token (ok, no text), failed (error, timeout,
--     cancelled), warmup (flagged warm-up, preflight or unfinished, and
--     the first warmup_requests requests in send order). Absent is NULL,
--     never 0.
--   * Rates are over the window: declared, or from the first send of a
--     measured request to the last text chunk of an ok request, the sends
--     of several files put on one clock by sent_unix_ns (lm_clock).
--   * Goodput: a request is good when it is ok and meets every limit set
--     (≤, or < when strict), judged jointly; attainment is good / measured
--     requests, failures included.

-- ==== Part 1: the input and the settings ====================================
-- `llmmetrics sql` writes this part from its flags; edit it by hand as well.

-- settings begin
CREATE OR REPLACE VIEW lm_records AS
SELECT * FROM read_parquet('run.parquet');
-- dialect: Spark SQL: SELECT * FROM parquet.`run.parquet`;
--          Trino: a table over the files (the Hive or Iceberg connector);
--          ClickHouse: SELECT * FROM file('run.parquet', Parquet).
-- Several files of one run (the shards of `run --shard`): a glob,
-- read_parquet('shard-*.parquet'); each file's sent_ns counts from its own
-- start, and the window, warm-up and rates put them on one clock by
-- sent_unix_ns (see lm_timed). A file without that column or one_body
-- (written before them): SELECT *, CAST(NULL AS BIGINT) AS sent_unix_ns,
-- false AS one_body FROM ….

CREATE OR REPLACE VIEW lm_settings AS
SELECT
    'nearest-rank'      AS method,          -- 'nearest-rank' or 'linear'
    CAST(0 AS BIGINT)   AS window_ns,       -- a declared window; 0: derive it
    TRUE                AS derive_window,   -- FALSE when the send times are not real
    CAST(0 AS BIGINT)   AS warmup_requests, -- the first N measured requests by send time are warm-up
    FALSE               AS has_slo,         -- TRUE: judge the limits below (0: no limit)
    CAST(0 AS BIGINT)   AS slo_ttft_ns,
    CAST(0 AS BIGINT)   AS slo_tpot_ns,
    CAST(0 AS BIGINT)   AS slo_e2e_ns,
    CAST(0 AS BIGINT)   AS slo_max_gap_ns,
    FALSE               AS slo_strict;      -- TRUE: a limit is met only below it

CREATE OR REPLACE VIEW lm_percentiles AS
          SELECT 'p50' AS name, CAST(50000000 AS BIGINT) AS p_units
UNION ALL SELECT 'p90', CAST(90000000 AS BIGINT)
UNION ALL SELECT 'p95', CAST(95000000 AS BIGINT)
UNION ALL SELECT 'p99', CAST(99000000 AS BIGINT);
-- settings end

-- ==== Part 2: the definitions ===============================================
-- Views only; nothing below reads the file or the settings but through part 1.
--
-- dialect (all of part 2):
--   * CREATE OR REPLACE VIEW: Spark SQL writes CREATE OR REPLACE TEMP VIEW;
--     Trino needs a catalog that stores views; ClickHouse takes it as is.
--   * Division: every quotient below casts to DOUBLE first, since Trino's
--     BIGINT / BIGINT truncates (DuckDB, Spark and ClickHouse give a
--     double).
--   * NULL: ClickHouse gives a column's default (0, '') for what an outer
--     join did not match, and avg of no rows is nan; run it with
--     SET join_use_nulls = 1 and read nan as absent.

-- The chunk arrivals, one row each, numbered from 1.
CREATE OR REPLACE VIEW lm_chunks AS
SELECT r.id, c.k, c.t_ns
FROM lm_records r
CROSS JOIN UNNEST(r.chunk_arrivals_ns) WITH ORDINALITY AS c(t_ns, k);
-- dialect: Trino writes the same. Spark SQL: SELECT r.id, c.k + 1 AS k,
--   c.t_ns FROM lm_records r LATERAL VIEW posexplode(r.chunk_arrivals_ns)
--   c AS k, t_ns (posexplode counts from 0). ClickHouse: SELECT id, k, t_ns
--   FROM lm_records ARRAY JOIN chunk_arrivals_ns AS t_ns,
--   arrayEnumerate(chunk_arrivals_ns) AS k.

-- The gaps between consecutive chunks of a request.
CREATE OR REPLACE VIEW lm_gaps AS
SELECT id, k, gap_ns
FROM (
    SELECT id, k, t_ns - LAG(t_ns) OVER (PARTITION BY id ORDER BY k) AS gap_ns
    FROM lm_chunks
) g
WHERE k > 1;

-- The clock of the send times. sent_ns counts from the start of the file
-- the row came from, so the rows of several files (shards that started
-- seconds apart, read by a glob) are on one clock only by sent_unix_ns,
-- the send on the wall clock (the file's start + sent_ns), as `report
-- --merge` aligns them by each file's start. When every row has it, the
-- window, the warm-up by number and the rates take the send time at_ns
-- from it (clock 'sent_unix_ns'); when none has it, from sent_ns (clock
-- 'sent_ns': right for one file, wrong for shards that started apart);
-- when some rows have it and others not, the files are not on one clock
-- (clock 'mixed'): the derived window is NULL. A request's own figures
-- (TTFT, E2E, TPOT, gaps) are differences from its send and need neither.
CREATE OR REPLACE VIEW lm_clock AS
SELECT CASE WHEN count(sent_unix_ns) = 0 THEN 'sent_ns'
            WHEN count(sent_unix_ns) = count(*) THEN 'sent_unix_ns'
            ELSE 'mixed' END AS clock
FROM lm_records;

-- The records with their send time on the clock of lm_clock.
CREATE OR REPLACE VIEW lm_timed AS
SELECT r.*, CASE WHEN k.clock = 'sent_unix_ns' THEN r.sent_unix_ns ELSE r.sent_ns END AS at_ns
FROM lm_records r
CROSS JOIN lm_clock k;

-- Where warm-up by number ends: the send time of the (N+1)-th measured
-- request; every request sent before it is warm-up (NULL when there are
-- no more than N: all are).
CREATE OR REPLACE VIEW lm_warmup_cut AS
SELECT max(CASE WHEN m.i = s.warmup_requests + 1 THEN m.at_ns END) AS cut_ns
FROM (
    SELECT at_ns, row_number() OVER (ORDER BY at_ns) AS i
    FROM lm_timed
    WHERE NOT (warmup OR preflight OR unfinished)
) m
CROSS JOIN lm_settings s;

-- One row a request: its category, text times and token count.
CREATE OR REPLACE VIEW lm_request_base AS
SELECT
    x.*,
    CASE
        WHEN x.warmup OR x.preflight OR x.unfinished
            OR (s.warmup_requests > 0 AND (c.cut_ns IS NULL OR x.at_ns < c.cut_ns)) THEN 'warmup'
        WHEN x.status <> 'ok' THEN 'failed'
        -- text: a chunk, a count of one or more, or no usage (the text
        -- times then say when the text came)
        WHEN x.n_chunks > 0 OR x.n IS NULL OR x.n > 0 THEN 'ok'
        ELSE 'zero_token'
    END AS category
FROM (
    SELECT
        r.id, r.status, r.message, r.sent_ns, r.at_ns, r.prompt_tokens, r.warmup, r.preflight, r.unfinished, r.one_body,
        r.completion_tokens AS n,
        coalesce(len(r.chunk_arrivals_ns), 0) AS n_chunks,
        CASE WHEN len(r.chunk_arrivals_ns) > 0 THEN r.chunk_arrivals_ns[1]
             ELSE r.first_text_ns END AS first_ns,
        CASE WHEN len(r.chunk_arrivals_ns) > 0 THEN r.chunk_arrivals_ns[len(r.chunk_arrivals_ns)]
             ELSE r.last_text_ns END AS last_ns
    FROM lm_timed r
) x
CROSS JOIN lm_settings s
CROSS JOIN lm_warmup_cut c;
-- dialect: the length of a list is len (DuckDB), size (Spark SQL; -1 for
-- NULL outside ANSI mode), cardinality (Trino), length (ClickHouse). Its
-- elements count from 1 in x[i] in DuckDB, Trino and ClickHouse; Spark
-- SQL's x[i] counts from 0, and element_at(x, i) from 1 (Trino has
-- element_at too).

-- The usable count and whether the answer was streamed: not when its
-- client saw one body (one_body), whatever its count, nor when its n ≥ 2
-- counted tokens came in one chunk or at one instant.
CREATE OR REPLACE VIEW lm_request_counts AS
SELECT
    b.*,
    counted AND b.n >= 2 AS has_tpot,
    b.category = 'ok' AND (b.one_body OR counted AND b.n >= 2
        AND (CASE WHEN b.n_chunks > 0 THEN b.n_chunks = 1 ELSE b.first_ns = b.last_ns END)) AS unstreamed
FROM (
    SELECT b.*, b.category = 'ok' AND b.n IS NOT NULL AND b.n >= b.n_chunks AS counted
    FROM lm_request_base b
) b;

-- One row a request, with its figures (NULL where it has none).
CREATE OR REPLACE VIEW lm_requests AS
SELECT
    q.id, q.status, q.message, q.category, q.sent_ns, q.at_ns, q.n, q.n_chunks, q.prompt_tokens,
    q.counted, q.has_tpot, q.unstreamed, q.first_ns, q.last_ns,
    CASE WHEN q.category = 'ok' AND NOT q.unstreamed THEN q.first_ns END AS ttft_ns,
    CASE WHEN q.category = 'ok' THEN q.last_ns END AS e2e_ns,
    CASE WHEN q.has_tpot AND NOT q.unstreamed
         THEN CAST(q.last_ns - q.first_ns AS DOUBLE) / (q.n - 1) END AS tpot_ns,
    CASE WHEN q.has_tpot AND NOT q.unstreamed AND q.last_ns > q.first_ns
         THEN CAST(q.n - 1 AS DOUBLE) * 1e9 / (q.last_ns - q.first_ns) END AS user_tps,
    CASE WHEN q.category = 'ok' THEN g.max_gap_ns END AS max_gap_ns
FROM lm_request_counts q
LEFT JOIN (SELECT id, max(gap_ns) AS max_gap_ns FROM lm_gaps GROUP BY id) g ON g.id = q.id;

-- The samples: TTFT, E2E and TPOT per ok request that has one, and every
-- chunk gap of the ok requests, in nanoseconds.
CREATE OR REPLACE VIEW lm_samples AS
          SELECT 'ttft' AS metric, CAST(ttft_ns AS DOUBLE) AS v FROM lm_requests WHERE ttft_ns IS NOT NULL
UNION ALL SELECT 'e2e', CAST(e2e_ns AS DOUBLE) FROM lm_requests WHERE e2e_ns IS NOT NULL
UNION ALL SELECT 'tpot', tpot_ns FROM lm_requests WHERE tpot_ns IS NOT NULL
UNION ALL SELECT 'itl', CAST(g.gap_ns AS DOUBLE)
          FROM lm_gaps g JOIN lm_requests r ON r.id = g.id WHERE r.category = 'ok';

CREATE OR REPLACE VIEW lm_metrics AS
          SELECT 'ttft' AS metric
UNION ALL SELECT 'e2e'
UNION ALL SELECT 'tpot'
UNION ALL SELECT 'itl';

-- n, mean, min and max of each sample (the mean is request-weighted).
CREATE OR REPLACE VIEW lm_distribution AS
SELECT m.metric, coalesce(d.n, 0) AS n, d.mean_ns, d.min_ns, d.max_ns
FROM lm_metrics m
LEFT JOIN (
    SELECT metric, count(*) AS n, avg(v) AS mean_ns, min(v) AS min_ns, max(v) AS max_ns
    FROM lm_samples GROUP BY metric
) d ON d.metric = m.metric;

-- Each sample sorted: i is the rank from 1, next_v the value after it.
CREATE OR REPLACE VIEW lm_ranked AS
SELECT
    metric, v,
    row_number() OVER (PARTITION BY metric ORDER BY v) AS i,
    count(*) OVER (PARTITION BY metric) AS n,
    LEAD(v) OVER (PARTITION BY metric ORDER BY v) AS next_v
FROM lm_samples;

-- Each percentile of each sample. With p in millionths of a percent (p_units,
-- 10⁸ is 100 %), all in integers:
--   nearest rank: the value of rank i = max(1, ⌈p·n/100⌉), the i with
--     (i − 1)·10⁸ < p_units·n ≤ i·10⁸;
--   linear: the position h = (n − 1)·p/100 from 0 falls on rank i = ⌊h⌋ + 1,
--     the i with (i − 1)·10⁸ ≤ (n − 1)·p_units < i·10⁸; the value is
--     v_i + (h − ⌊h⌋)·(v_(i+1) − v_i), and v_n at the last rank.
-- dialect: in DuckDB, quantile_disc(v, p/100) is the nearest rank and
-- quantile_cont(v, p/100) the linear one, as aggregates; Spark SQL has
-- percentile_disc and percentile_cont (3.3 and later) and percentile
-- (linear); ClickHouse's quantileExactInclusive is the linear one, and its
-- quantileExact takes the rank ⌊p·n/100⌋ + 1, not the nearest rank when
-- p·n/100 is a whole number; Trino has only approx_percentile, an
-- approximation. The window functions below give the same in all four.
CREATE OR REPLACE VIEW lm_percentile AS
SELECT r.metric, p.name, p.p_units,
    CASE WHEN s.method = 'linear' AND r.next_v IS NOT NULL
         THEN r.v + CAST((r.n - 1) * p.p_units - (r.i - 1) * 100000000 AS DOUBLE) / 100000000 * (r.next_v - r.v)
         ELSE r.v END AS v
FROM lm_ranked r
CROSS JOIN lm_percentiles p
CROSS JOIN lm_settings s
WHERE (s.method = 'nearest-rank'
        AND ((r.i - 1) * 100000000 < p.p_units * r.n AND p.p_units * r.n <= r.i * 100000000
             OR r.i = 1 AND p.p_units = 0))
   OR (s.method = 'linear'
        AND (r.i - 1) * 100000000 <= (r.n - 1) * p.p_units AND (r.n - 1) * p.p_units < r.i * 100000000);

-- The window of the rates, in nanoseconds: declared, or from the first
-- send of a measured request to the last text chunk of an ok request (the
-- text of a failed request does not end it), start_ns and end_ns on the
-- clock of lm_clock. NULL when there is none, or when the files are not
-- on one clock.
CREATE OR REPLACE VIEW lm_window AS
SELECT
    CASE WHEN s.window_ns > 0 THEN s.window_ns
         WHEN s.derive_window AND k.clock <> 'mixed' AND w.end_ns > w.start_ns THEN w.end_ns - w.start_ns
    END AS window_ns,
    CASE WHEN s.window_ns > 0 THEN 'declared' ELSE 'first send to last text' END AS how,
    w.start_ns, w.end_ns, k.clock
FROM lm_settings s
CROSS JOIN lm_clock k
CROSS JOIN (
    SELECT
        min(CASE WHEN category <> 'warmup' THEN at_ns END) AS start_ns,
        max(CASE WHEN category = 'ok' THEN at_ns + last_ns END) AS end_ns
    FROM lm_requests
) w;

-- Every request counted once.
CREATE OR REPLACE VIEW lm_accounting AS
SELECT
    count(*) AS offered,
    coalesce(sum(CASE WHEN category = 'ok' THEN 1 ELSE 0 END), 0) AS ok,
    coalesce(sum(CASE WHEN category = 'zero_token' THEN 1 ELSE 0 END), 0) AS zero_token,
    coalesce(sum(CASE WHEN category = 'failed' THEN 1 ELSE 0 END), 0) AS failed,
    coalesce(sum(CASE WHEN category = 'warmup' THEN 1 ELSE 0 END), 0) AS warmup,
    -- ok with n = 1: no TPOT
    coalesce(sum(CASE WHEN counted AND n = 1 THEN 1 ELSE 0 END), 0) AS one_token,
    -- ok without a usable count: no TPOT, no tokens in the rates
    coalesce(sum(CASE WHEN category = 'ok' AND NOT counted THEN 1 ELSE 0 END), 0) AS no_token_count,
    -- ok whose n ≥ 2 tokens came at once: no TTFT, no TPOT
    coalesce(sum(CASE WHEN unstreamed THEN 1 ELSE 0 END), 0) AS unstreamed
FROM lm_requests;

-- TPOT's gap-weighted mean beside its request-weighted one:
-- Σ (last − first) / Σ (n − 1) over the requests with a TPOT.
CREATE OR REPLACE VIEW lm_tpot_gap_weighted AS
SELECT CAST(sum(last_ns - first_ns) AS DOUBLE) / sum(n - 1) AS mean_ns
FROM lm_requests
WHERE tpot_ns IS NOT NULL;

-- Rates per second over the window: tokens of the ok requests with a
-- usable count, prompt tokens where the server gave them, ok requests. A
-- rate built on counts no ok request has is NULL, never 0: the output
-- rate when ok requests came but none has a usable count, the prompt rate
-- when none carries a prompt count. When some have a count and others not,
-- the rate covers those with one and is a lower bound:
-- output_tokens_lower_bound (prompt_tokens_lower_bound) is TRUE, and
-- output_tokens_requests (prompt_tokens_requests) the requests it counts,
-- as in `llmmetrics report --json`.
CREATE OR REPLACE VIEW lm_rates AS
SELECT
    w.window_ns,
    CASE WHEN t.ok = 0 OR t.counted_requests > 0
         THEN CAST(coalesce(t.output_tokens, 0) AS DOUBLE) * 1e9 / w.window_ns END AS output_tokens_per_s,
    t.counted_requests > 0 AND t.counted_requests < t.ok AS output_tokens_lower_bound,
    t.counted_requests AS output_tokens_requests,
    CASE WHEN t.prompted_requests > 0 THEN CAST(t.prompt_tokens AS DOUBLE) * 1e9 / w.window_ns END AS prompt_tokens_per_s,
    t.prompted_requests > 0 AND t.prompted_requests < t.ok AS prompt_tokens_lower_bound,
    t.prompted_requests AS prompt_tokens_requests,
    CAST(t.ok AS DOUBLE) * 1e9 / w.window_ns AS requests_per_s,
    t.output_tokens
FROM lm_window w
CROSS JOIN (
    SELECT
        -- NULL when no ok request has a usable count
        sum(CASE WHEN counted THEN n END) AS output_tokens,
        coalesce(sum(CASE WHEN counted THEN 1 ELSE 0 END), 0) AS counted_requests,
        sum(CASE WHEN category = 'ok' AND prompt_tokens > 0 THEN prompt_tokens END) AS prompt_tokens,
        coalesce(sum(CASE WHEN category = 'ok' AND prompt_tokens > 0 THEN 1 ELSE 0 END), 0) AS prompted_requests,
        coalesce(sum(CASE WHEN category = 'ok' THEN 1 ELSE 0 END), 0) AS ok
    FROM lm_requests
) t;

-- Each measured request judged against the SLO: good when ok and within
-- every limit set. TTFT is judged at the first text (an unstreamed answer's
-- too), TPOT as last − first against limit·(n − 1) in integers, only for a
-- request with a TPOT count (a one-token request meets it), the largest gap
-- only for a request with two chunks or more. A request without a usable
-- count has an unknown TPOT: meeting every other limit, it is unjudged, and
-- not good (attainment is then a lower bound, as the report says).
CREATE OR REPLACE VIEW lm_judged AS
SELECT
    j.id,
    j.ok AND j.ttft_met AND j.e2e_met AND j.gap_met AND j.tpot_met AS good,
    j.ok AND j.ttft_met AND j.e2e_met AND j.gap_met AND j.tpot_unknown AS unjudged
FROM (
    SELECT
        q.id,
        q.category = 'ok' AS ok,
        (s.slo_ttft_ns = 0 OR q.first_ns < s.slo_ttft_ns OR NOT s.slo_strict AND q.first_ns = s.slo_ttft_ns) AS ttft_met,
        (s.slo_e2e_ns = 0 OR q.last_ns < s.slo_e2e_ns OR NOT s.slo_strict AND q.last_ns = s.slo_e2e_ns) AS e2e_met,
        (s.slo_tpot_ns = 0 OR NOT q.has_tpot AND (q.counted OR q.unstreamed)
         OR q.last_ns - q.first_ns < s.slo_tpot_ns * (q.n - 1)
         OR NOT s.slo_strict AND q.last_ns - q.first_ns = s.slo_tpot_ns * (q.n - 1)) AS tpot_met,
        s.slo_tpot_ns > 0 AND NOT q.counted AND NOT q.unstreamed AS tpot_unknown,
        (s.slo_max_gap_ns = 0 OR q.max_gap_ns IS NULL OR q.max_gap_ns < s.slo_max_gap_ns
         OR NOT s.slo_strict AND q.max_gap_ns = s.slo_max_gap_ns) AS gap_met
    FROM lm_requests q
    CROSS JOIN lm_settings s
    WHERE q.category <> 'warmup'
) j;

-- Attainment: good / measured (failed and zero-token requests stay in the
-- denominator); goodput: good requests per second over the window; both
-- lower bounds when some request is unjudged. One row when an SLO is set,
-- none otherwise.
CREATE OR REPLACE VIEW lm_goodput AS
SELECT
    j.good,
    j.judged,
    CASE WHEN j.judged > 0 THEN CAST(j.good AS DOUBLE) / j.judged END AS attainment,
    CAST(j.good AS DOUBLE) * 1e9 / w.window_ns AS requests_per_s,
    j.unjudged,
    j.unjudged > 0 AS attainment_lower_bound
FROM (
    SELECT coalesce(sum(CASE WHEN good THEN 1 ELSE 0 END), 0) AS good, count(*) AS judged,
        coalesce(sum(CASE WHEN unjudged THEN 1 ELSE 0 END), 0) AS unjudged
    FROM lm_judged
) j
CROSS JOIN lm_window w
CROSS JOIN lm_settings s
WHERE s.has_slo;

-- Every figure as a row, named as the conformance kit names them
-- (docs/conformance.md): milliseconds for latencies, per second for rates;
-- value NULL: absent. Each view above is read once, its columns turned
-- into rows by a join with their names.
CREATE OR REPLACE VIEW lm_figures AS
SELECT 'requests.' || f.name AS figure, CAST(CASE f.name
        WHEN 'offered' THEN a.offered WHEN 'ok' THEN a.ok WHEN 'zero_token' THEN a.zero_token
        WHEN 'failed' THEN a.failed WHEN 'warmup' THEN a.warmup WHEN 'one_token' THEN a.one_token
        WHEN 'no_token_count' THEN a.no_token_count END AS DOUBLE) AS value
FROM lm_accounting a
CROSS JOIN (
              SELECT 'offered' AS name UNION ALL SELECT 'ok' UNION ALL SELECT 'zero_token'
    UNION ALL SELECT 'failed' UNION ALL SELECT 'warmup' UNION ALL SELECT 'one_token'
    UNION ALL SELECT 'no_token_count'
) f
UNION ALL
SELECT d.metric || '_ms.' || f.name, CASE f.name
        WHEN 'n' THEN CAST(d.n AS DOUBLE) WHEN 'mean' THEN d.mean_ns / 1e6
        WHEN 'min' THEN d.min_ns / 1e6 WHEN 'max' THEN d.max_ns / 1e6 END
FROM lm_distribution d
CROSS JOIN (SELECT 'n' AS name UNION ALL SELECT 'mean' UNION ALL SELECT 'min' UNION ALL SELECT 'max') f
UNION ALL
SELECT m.metric || '_ms.' || p.name, v.v / 1e6
FROM lm_metrics m
CROSS JOIN lm_percentiles p
LEFT JOIN lm_percentile v ON v.metric = m.metric AND v.name = p.name
UNION ALL
SELECT 'tpot_ms.gap_weighted_mean', mean_ns / 1e6 FROM lm_tpot_gap_weighted
UNION ALL
SELECT f.name, CASE f.name
        WHEN 'output_tokens_per_s' THEN r.output_tokens_per_s
        WHEN 'prompt_tokens_per_s' THEN r.prompt_tokens_per_s
        WHEN 'requests_per_s' THEN r.requests_per_s END
FROM lm_rates r
CROSS JOIN (
              SELECT 'output_tokens_per_s' AS name UNION ALL SELECT 'prompt_tokens_per_s'
    UNION ALL SELECT 'requests_per_s'
) f
UNION ALL
SELECT 'goodput.' || f.name, CASE f.name
        WHEN 'good' THEN CAST(g.good AS DOUBLE) WHEN 'attainment' THEN g.attainment
        WHEN 'requests_per_s' THEN g.requests_per_s END
FROM lm_goodput g
CROSS JOIN (SELECT 'good' AS name UNION ALL SELECT 'attainment' UNION ALL SELECT 'requests_per_s') f
UNION ALL
SELECT 'request.' || q.id || '.' || f.name, CASE f.name
        WHEN 'ttft_ms' THEN q.ttft_ns / 1e6 WHEN 'e2e_ms' THEN q.e2e_ns / 1e6
        WHEN 'tpot_ms' THEN q.tpot_ns / 1e6 WHEN 'max_gap_ms' THEN q.max_gap_ns / 1e6
        WHEN 'user_tps' THEN q.user_tps END
FROM lm_requests q
CROSS JOIN (
              SELECT 'ttft_ms' AS name UNION ALL SELECT 'e2e_ms' UNION ALL SELECT 'tpot_ms'
    UNION ALL SELECT 'max_gap_ms' UNION ALL SELECT 'user_tps'
) f
WHERE q.category <> 'warmup';
