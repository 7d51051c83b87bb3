#!/usr/bin/python3
"""pools.py - Python pool scenarios whose wire traffic is known by construction.

Usage: pools.py DSN SCENARIO N
Prints what the client did, as key=value pairs, for the test to compare with
pgrtt's counts.

  sqlalchemy-preping N  SQLAlchemy QueuePool(pool_size=1, pool_pre_ping=True)
                        over psycopg2; N checkouts, each runs one query.
                        Every checkout but the first pings with SELECT 1;
                        psycopg2 opens a transaction (BEGIN) for the query and
                        the pool's reset-on-return sends ROLLBACK.
  psycopg2-semicolon N  a psycopg2 SimpleConnectionPool(1, 1) whose getconn
                        wrapper checks the connection with ";" (psycopg2 refuses "";
                        lib/pq and Rails send ";"); autocommit;
                        N checkouts, each runs one query.
"""
import sys

import psycopg2
import psycopg2.pool


def sqlalchemy_preping(dsn, n):
    import sqlalchemy
    from sqlalchemy.pool import QueuePool

    engine = sqlalchemy.create_engine(
        "postgresql+psycopg2://", creator=lambda: psycopg2.connect(dsn),
        poolclass=QueuePool, pool_size=1, max_overflow=0, pool_pre_ping=True)
    for i in range(n):
        with engine.connect() as conn:
            conn.execute(sqlalchemy.text("SELECT :x + 1"), {"x": i}).scalar()
    engine.dispose()
    # psycopg2's connect sends no query; SQLAlchemy's first connect runs its
    # dialect initialisation queries, counted from the capture by the test
    print(f"checkouts={n} pings={n - 1} acquire={n - 1} queries={n} begins={n} rollbacks={n}")


def psycopg2_semicolon(dsn, n):
    pool = psycopg2.pool.SimpleConnectionPool(1, 1, dsn)

    def getconn():
        conn = pool.getconn()
        conn.autocommit = True
        with conn.cursor() as cur:
            try:
                # the ping: Q";" -> EmptyQueryResponse, ReadyForQuery; psycopg2
                # sends it, then complains that the result is empty
                cur.execute(";")
            except psycopg2.ProgrammingError:
                pass
        return conn

    for i in range(n):
        conn = getconn()
        with conn.cursor() as cur:
            cur.execute("SELECT %s + 1", (i,))
            cur.fetchone()
        pool.putconn(conn)
    pool.closeall()
    print(f"checkouts={n} pings={n} acquire={n} queries={n} ready_for_query={1 + 2 * n}")


if __name__ == "__main__":
    dsn, scenario, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    {"sqlalchemy-preping": sqlalchemy_preping,
     "psycopg2-semicolon": psycopg2_semicolon}[scenario](dsn, count)
