-- psql-mixed.sql: what psql puts on the wire, one Query per statement unless
-- joined with \; (then one multi-statement Query).  Counted by hand in
-- captures/EXPECTED: 15 Query messages, 2 errors, 2 notifications.
SELECT 1 AS one \; SELECT 2 AS two;
BEGIN;
SELECT 1/0;
ROLLBACK;
SELECT 1/0;
CREATE TEMP TABLE t(a int, b text);
COPY t FROM STDIN;
1	one
2	two
3	three
\.
COPY t TO STDOUT;
LISTEN pgrtt_channel;
NOTIFY pgrtt_channel, 'hello';
SELECT pg_notify('pgrtt_channel', 'again');
SELECT count(*) FROM t;
BEGIN;
INSERT INTO t VALUES (4, 'four');
COMMIT;
