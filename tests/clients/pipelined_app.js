// pipelined_app.js - the blog's three routes on Node's http and
// postgres.js, a driver that pipelines: with more queries than connections
// (POOL_MAX, default 2, for 8 clients) it writes the queries of several
// requests on one connection without waiting, each with its own Sync, in
// one write.  Each request counts the statements it ran; GET /stats gives
// them per route ({route: [pages, statements]}), the truth
// tests/live/driver_pages_test.py holds pgrtt's figures to.  Environment:
// PORT, DATABASE_URL, POOL_MAX; postgres.js from NODE_PATH.
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const postgres = require('postgres');
const sql = postgres(process.env.DATABASE_URL, { max: parseInt(process.env.POOL_MAX || '2', 10), idle_timeout: 0 });
// the SQL, as every driver test app runs it
const SQL = JSON.parse(fs.readFileSync(path.join(__dirname, 'blog_queries.json'), 'utf8'));
const counts = {};
function note(route, n) { const c = counts[route] || (counts[route] = [0, 0]); c[0]++; c[1] += n; }
const q = (text, a) => sql.unsafe(text, a || [], { prepare: true });
http.createServer(async (req, res) => {
  let route, n = 0, body = '';
  try {
    if (req.url === '/stats') { res.end(JSON.stringify(counts)); return; }
    if (req.url === '/') { route = 'GET /'; for (const t of SQL.index) { body += (await q(t)).length; n++; } }
    else if (req.url.startsWith('/articles/')) { route = 'GET /articles/{id}'; const id = parseInt(req.url.slice(10)); for (const t of SQL.detail) { body += (await q(t, [id])).length; n++; } }
    else if (req.url.startsWith('/tags/')) { route = 'GET /tags/{slug}'; const s = req.url.slice(6); for (const t of SQL.tag) { body += (await q(t, [s])).length; n++; } }
    else { res.statusCode = 404; res.end('no'); return; }
    note(route, n); res.end(body);
  } catch (e) { res.statusCode = 500; res.end(String(e)); }
}).listen(parseInt(process.env.PORT), '127.0.0.1', () => console.log('ready'));
