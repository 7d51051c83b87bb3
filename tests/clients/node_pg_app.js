// node_pg_app.js - the blog's three routes on Node's http and node-postgres
// (pg, pg-pool: POOL_MAX connections, default 4, for 8 clients), each route
// a way of using the pool that apps mix:
//   GET /              pool.query per statement: a checkout per statement
//                      (no arguments: the simple protocol, one Query each)
//   GET /articles/{id} pool.connect, its statements, release: a checkout
//                      per page (arguments: Parse/Bind/Describe/Execute/Sync
//                      in one write, one round trip each)
//   GET /tags/{slug}   pool.connect, BEGIN, its statements, COMMIT, release
// node-postgres sends no ping: nothing on the wire marks a checkout but the
// transaction.  SESSION_LOOKUP=1: every page first looks its user up, the
// same statement on every route, as apps with sessions do (counted among its
// statements; in the page's checkout where it has one).  GET /stats gives {route: [pages, statements, BEGIN+COMMIT]},
// the truth tests/live/driver_pages_test.py holds pgrtt's figures to.
// node node_pg_app.js PORT DATABASE_URL; POOL_MAX and NODE_PATH (pg) from
// the environment.
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const { Pool } = require('pg');
const pool = new Pool({ connectionString: process.argv[3],
                        max: parseInt(process.env.POOL_MAX || '4', 10), idleTimeoutMillis: 0 });
const SQL = JSON.parse(fs.readFileSync(path.join(__dirname, 'blog_queries.json'), 'utf8'));
const LOOKUP = process.env.SESSION_LOOKUP === '1'
  ? 'SELECT id, name FROM authors WHERE id = $1' : null;
const counts = {};
async function lookup(q) { return LOOKUP ? (await q.query(LOOKUP, [1])).rowCount : ''; }
function note(route, n, tx) {
  const c = counts[route] || (counts[route] = [0, 0, 0]);
  c[0]++; c[1] += n; c[2] += tx;
}
async function index() {
  let body = '' + await lookup(pool);
  for (const t of SQL.index) body += (await pool.query(t)).rowCount;
  note('GET /', SQL.index.length + (LOOKUP ? 1 : 0), 0);
  return body;
}
async function detail(id) {
  const c = await pool.connect();
  let body = '';
  try {
    body += await lookup(c);
    for (const t of SQL.detail) body += (await c.query(t, [id])).rowCount;
  } finally {
    c.release();
  }
  note('GET /articles/{id}', SQL.detail.length + (LOOKUP ? 1 : 0), 0);
  return body;
}
async function tag(slug) {
  const c = await pool.connect();
  let body = '';
  try {
    body += await lookup(c);
    await c.query('BEGIN');
    for (const t of SQL.tag) body += (await c.query(t, [slug])).rowCount;
    await c.query('COMMIT');
  } finally {
    c.release();
  }
  note('GET /tags/{slug}', SQL.tag.length + (LOOKUP ? 1 : 0), 2);
  return body;
}
http.createServer(async (req, res) => {
  try {
    if (req.url === '/stats') { res.end(JSON.stringify(counts)); return; }
    let body;
    if (req.url === '/') body = await index();
    else if (req.url.startsWith('/articles/')) body = await detail(parseInt(req.url.slice(10), 10));
    else if (req.url.startsWith('/tags/')) body = await tag(req.url.slice(6));
    else { res.statusCode = 404; res.end('no'); return; }
    res.end(body);
  } catch (e) { res.statusCode = 500; res.end(String(e)); }
}).listen(parseInt(process.argv[2], 10), '127.0.0.1', () => console.log('ready'));
