// pipelined_app.js - the blog's three routes on Node's http and
// postgres.js, a driver that pipelines: with more queries than connections
// (POOL_MAX, default 2, for 8 clients) it writes the queries of several
// requests on one connection without waiting, each with its own Sync, in
// one write.  Each request counts the statements it ran; GET /stats gives
// them per route ({route: [pages, statements]}), the truth
// tests/driver_pages_test.py holds pgrtt's figures to.  Environment:
// PORT, DATABASE_URL, POOL_MAX; postgres.js from NODE_PATH.
'use strict';
const http = require('http');
const postgres = require('postgres');
const sql = postgres(process.env.DATABASE_URL, { max: parseInt(process.env.POOL_MAX || '2', 10), idle_timeout: 0 });
const TS = (c) => `to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI')`;
const Q = {
 IA: `SELECT id, author_id, slug, title, ${TS('created_at')} FROM articles ORDER BY created_at DESC, id LIMIT 20`,
 IU: `SELECT id, name FROM authors WHERE id IN (SELECT author_id FROM articles ORDER BY created_at DESC, id LIMIT 20) ORDER BY id`,
 IT: `SELECT at.article_id, t.slug, t.name FROM article_tags at JOIN tags t ON t.id = at.tag_id WHERE at.article_id IN (SELECT id FROM articles ORDER BY created_at DESC, id LIMIT 20) ORDER BY at.article_id, t.id`,
 DA: `SELECT id, author_id, slug, title, body, ${TS('created_at')} FROM articles WHERE id = $1`,
 DU: `SELECT id, name, bio FROM authors WHERE id = (SELECT author_id FROM articles WHERE id = $1)`,
 DC: `SELECT id, author, body, ${TS('created_at')} FROM comments WHERE article_id = $1 ORDER BY id`,
 TT: `SELECT id, slug, name FROM tags WHERE slug = $1`,
 TA: `SELECT a.id, a.title FROM articles a JOIN article_tags at ON at.article_id = a.id JOIN tags t ON t.id = at.tag_id WHERE t.slug = $1 ORDER BY a.created_at DESC, a.id LIMIT 20`,
 TU: `SELECT DISTINCT au.id, au.name FROM authors au JOIN articles a ON a.author_id = au.id JOIN article_tags at ON at.article_id = a.id JOIN tags t ON t.id = at.tag_id WHERE t.slug = $1 ORDER BY au.id`,
 TG: `SELECT at2.article_id, t2.slug FROM article_tags at2 JOIN tags t2 ON t2.id = at2.tag_id WHERE at2.article_id IN (SELECT at.article_id FROM article_tags at JOIN tags t ON t.id = at.tag_id WHERE t.slug = $1) ORDER BY at2.article_id, t2.id`,
};
const counts = {};
function note(route, n) { const c = counts[route] || (counts[route] = [0, 0]); c[0]++; c[1] += n; }
const q = (k, a) => sql.unsafe(Q[k], a || [], { prepare: true });
http.createServer(async (req, res) => {
  let route, n = 0, body = '';
  try {
    if (req.url === '/stats') { res.end(JSON.stringify(counts)); return; }
    if (req.url === '/') { route = 'GET /'; for (const k of ['IA','IU','IT']) { body += (await q(k)).length; n++; } }
    else if (req.url.startsWith('/articles/')) { route = 'GET /articles/{id}'; const id = parseInt(req.url.slice(10)); for (const k of ['DA','DU','DC']) { body += (await q(k, [id])).length; n++; } }
    else if (req.url.startsWith('/tags/')) { route = 'GET /tags/{slug}'; const s = req.url.slice(6); for (const k of ['TT','TA','TU','TG']) { body += (await q(k, [s])).length; n++; } }
    else { res.statusCode = 404; res.end('no'); return; }
    note(route, n); res.end(body);
  } catch (e) { res.statusCode = 500; res.end(String(e)); }
}).listen(parseInt(process.env.PORT), '127.0.0.1', () => console.log('ready'));
