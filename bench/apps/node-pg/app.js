// app.js - the benchmark's blog on Node's http module, pg's Pool (pool.query
// per query: a checkout per query, no validation) and node-redis (one
// connection; commands issued in the same tick go out as one pipeline).
// The SQL is bench/queries.h's, read from QUERIES; pages rendered byte for
// byte as the reference app renders them.
//
// Environment: PORT, DATABASE_URL, REDIS_URL, POOL_MAX (16), POOL_MIN (4,
// connected up front), QUERIES.  Dependencies from the npm registry, pinned
// in package.json.
'use strict';
const fs = require('fs');
const http = require('http');
const { Pool } = require('pg');
const { createClient } = require('redis');

const Q = JSON.parse(fs.readFileSync(process.env.QUERIES, 'utf8'));
const POOL_MAX = parseInt(process.env.POOL_MAX || '16', 10);
const POOL_MIN = parseInt(process.env.POOL_MIN || '4', 10);
// rows as arrays of text, as the server formatted them
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: POOL_MAX,
  idleTimeoutMillis: 0 });
let cache = null;

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;')
  .replace(/>/g, '&gt;').replace(/"/g, '&quot;');

async function rows(name, args) {
  const r = await pool.query({ text: Q[name], values: args || [], rowMode: 'array',
    types: { getTypeParser: () => (v) => v } });
  return r.rows;
}

function head(title) {
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${esc(title)}</title>` +
    `</head><body>\n<h1>${esc(title)}</h1>\n`;
}

function articleList(arts, authors, tags) {
  const names = new Map(authors.map((a) => [a[0], a[1]]));
  let out = '<ul>\n';
  for (const a of arts) {
    out += `<li><a href="/articles/${esc(a[0])}">${esc(a[3])}</a> by ` +
      `${esc(names.get(a[1]) || '')}, ${esc(a[4])}`;
    for (const t of tags)
      if (t[0] === a[0]) out += ` <a href="/tags/${esc(t[1])}">#${esc(t[2])}</a>`;
    out += '</li>\n';
  }
  return out + '</ul>\n</body></html>\n';
}

async function pageIndex() {
  const arts = await rows('Q_INDEX_ARTICLES');
  const authors = await rows('Q_INDEX_AUTHORS');
  const tags = await rows('Q_INDEX_TAGS');
  return [200, head('Latest articles') + articleList(arts, authors, tags)];
}

async function pageArticle(id) {
  const art = await rows('Q_DETAIL_ARTICLE', [id]);
  const author = await rows('Q_DETAIL_AUTHOR', [id]);
  const comments = await rows('Q_DETAIL_COMMENTS', [id]);
  if (art.length === 0) return [404, 'status 404\n'];
  const a = art[0];
  let out = head(a[3]) + `<p class="meta">by ${author.length ? esc(author[0][1]) : ''}, ` +
    `${esc(a[5])}</p>\n<p>${esc(a[4])}</p>\n<h2>Comments</h2>\n<ul>\n`;
  for (const c of comments) out += `<li><b>${esc(c[1])}</b> ${esc(c[3])}: ${esc(c[2])}</li>\n`;
  return [200, out + '</ul>\n</body></html>\n'];
}

async function pageTag(slug) {
  const tag = await rows('Q_TAG_TAG', [slug]);
  const arts = await rows('Q_TAG_ARTICLES', [slug]);
  const authors = await rows('Q_TAG_AUTHORS', [slug]);
  const tags = await rows('Q_TAG_TAGS', [slug]);
  if (tag.length === 0) return [404, 'status 404\n'];
  return [200, head(`Articles tagged ${tag[0][2]}`) + articleList(arts, authors, tags)];
}

function pageCompute() {
  let total = 0;
  for (let n = 2; n < 20000; n++) {
    let prime = true;
    for (let d = 2; d * d <= n; d++) if (n % d === 0) { prime = false; break; }
    if (prime) total += n;
  }
  return [200, '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Compute</title>' +
    `</head><body>\n<h1>Compute</h1>\n<p>${total}</p>\n</body></html>\n`];
}

// the seed's page cache: the page from Redis, or rendered and stored
async function cached(key, render) {
  const hit = await cache.get(key);
  if (hit !== null) return [200, hit];
  const [status, body] = await render();
  if (status === 200) await cache.set(key, body);
  return [status, body];
}

async function route(path) {
  let m;
  if (path === '/') return pageIndex();
  if ((m = /^\/articles\/([0-9]{1,9})$/.exec(path))) return pageArticle(parseInt(m[1], 10));
  if ((m = /^\/tags\/([^/]+)$/.exec(path))) return pageTag(m[1]);
  if (path === '/compute') return pageCompute();
  if (path === '/cached/' && cache) return cached('page:/', pageIndex);
  if ((m = /^\/cached\/articles\/([0-9]{1,9})$/.exec(path)) && cache)
    return cached(`page:/articles/${m[1]}`, () => pageArticle(parseInt(m[1], 10)));
  return [404, 'status 404\n'];
}

async function main() {
  // the pool's minimum, connected up front
  const held = [];
  for (let i = 0; i < POOL_MIN; i++) held.push(await pool.connect());
  held.forEach((c) => c.release());
  if (process.env.REDIS_URL) {
    cache = createClient({ url: process.env.REDIS_URL });
    cache.on('error', (e) => console.error('app: redis:', e.message));
    await cache.connect();
  }
  const server = http.createServer((req, res) => {
    const path = req.url.split('?', 1)[0];
    route(path).catch((e) => { // a failed query is a 500, said on stderr
      console.error('app:', e.message);
      return [500, 'status 500\n'];
    }).then(([status, body]) => {
      const data = Buffer.from(body, 'utf8');
      res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8',
        'Content-Length': data.length });
      res.end(data);
    });
  });
  server.keepAliveTimeout = 60000;
  server.listen(parseInt(process.env.PORT || '8080', 10), '127.0.0.1', () => console.log('ready'));
  const stop = () => { server.close(); pool.end(); if (cache) cache.quit(); process.exit(0); };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((e) => { console.error('app:', e.message); process.exit(2); });
