// main.rs - the benchmark's blog on hyper 0.14, tokio-postgres 0.7 and an
// r2d2 pool, from Debian's librust-*-dev crates: a checkout per page.  The
// pool's manager does what r2d2-postgres's does (not in Debian 12): a
// checkout is validated with an empty simple query (r2d2 tests on check-out
// by default), and client.query() with SQL text prepares it each time
// (Parse/Describe, then Bind/Execute) - as tokio-postgres code is commonly
// written.  No Redis client in Debian 12: the page cache speaks GET/SET.
//
// Environment: PORT, DATABASE_URL, REDIS_URL, POOL_MAX (16), POOL_MIN (4),
// QUERIES.  The SQL is bench/queries.h's; pages rendered byte for byte as
// the reference app renders them.
use hyper::service::{make_service_fn, service_fn};
use hyper::{Body, Request, Response, Server};
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio_postgres::types::Type;
use tokio_postgres::{Client, NoTls, Row};

struct PgManager {
    url: String,
    rt: tokio::runtime::Handle,
}

impl r2d2::ManageConnection for PgManager {
    type Connection = Client;
    type Error = tokio_postgres::Error;

    fn connect(&self) -> Result<Client, Self::Error> {
        let (client, conn) = self.rt.block_on(tokio_postgres::connect(&self.url, NoTls))?;
        self.rt.spawn(async move {
            let _ = conn.await;
        });
        Ok(client)
    }

    fn is_valid(&self, c: &mut Client) -> Result<(), Self::Error> {
        self.rt.block_on(c.simple_query("")).map(|_| ())
    }

    fn has_broken(&self, c: &mut Client) -> bool {
        c.is_closed()
    }
}

struct App {
    q: HashMap<String, String>,
    pool: r2d2::Pool<PgManager>,
    redis: Option<String>,
    idle_redis: Mutex<Vec<BufReader<TcpStream>>>,
}

type Page = (u16, String);
type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

// a cell as text: what the server formatted, ints as decimal
fn cell(r: &Row, i: usize) -> String {
    match *r.columns()[i].type_() {
        Type::INT4 => r.get::<_, Option<i32>>(i).map(|v| v.to_string()).unwrap_or_default(),
        Type::INT8 => r.get::<_, Option<i64>>(i).map(|v| v.to_string()).unwrap_or_default(),
        _ => r.get::<_, Option<String>>(i).unwrap_or_default(),
    }
}

fn text(rows: Vec<Row>) -> Vec<Vec<String>> {
    rows.iter().map(|r| (0..r.len()).map(|i| cell(r, i)).collect()).collect()
}

// QUERIES is a flat JSON object of strings: read without a JSON crate
fn read_queries(path: &str) -> HashMap<String, String> {
    let t = std::fs::read_to_string(path).expect("QUERIES");
    let mut out = HashMap::new();
    let mut strings = Vec::new();
    let mut chars = t.chars();
    while let Some(c) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut s = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('n') => s.push('\n'),
                    Some('t') => s.push('\t'),
                    Some(o) => s.push(o),
                    None => break,
                },
                '"' => break,
                o => s.push(o),
            }
        }
        strings.push(s);
    }
    for kv in strings.chunks(2) {
        if kv.len() == 2 {
            out.insert(kv[0].clone(), kv[1].clone());
        }
    }
    out
}

fn head(b: &mut String, title: &str) {
    b.push_str(&format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title></head><body>\n<h1>{}</h1>\n",
        esc(title),
        esc(title)
    ));
}

fn article_list(b: &mut String, arts: &[Vec<String>], authors: &[Vec<String>], tags: &[Vec<String>]) {
    let names: HashMap<&str, &str> = authors.iter().map(|a| (a[0].as_str(), a[1].as_str())).collect();
    b.push_str("<ul>\n");
    for a in arts {
        b.push_str(&format!(
            "<li><a href=\"/articles/{}\">{}</a> by {}, {}",
            esc(&a[0]),
            esc(&a[3]),
            esc(names.get(a[1].as_str()).copied().unwrap_or("")),
            esc(&a[4])
        ));
        for t in tags.iter().filter(|t| t[0] == a[0]) {
            b.push_str(&format!(" <a href=\"/tags/{}\">#{}</a>", esc(&t[1]), esc(&t[2])));
        }
        b.push_str("</li>\n");
    }
    b.push_str("</ul>\n</body></html>\n");
}

impl App {
    // one checkout per page: r2d2's get() blocks, so off the async workers
    async fn checkout(self: &Arc<Self>) -> Res<r2d2::PooledConnection<PgManager>> {
        let app = self.clone();
        Ok(tokio::task::spawn_blocking(move || app.pool.get()).await??)
    }

    async fn index(self: &Arc<Self>) -> Res<Page> {
        let c = self.checkout().await?;
        let arts = text(c.query(self.q["Q_INDEX_ARTICLES"].as_str(), &[]).await?);
        let authors = text(c.query(self.q["Q_INDEX_AUTHORS"].as_str(), &[]).await?);
        let tags = text(c.query(self.q["Q_INDEX_TAGS"].as_str(), &[]).await?);
        drop(c);
        let mut b = String::new();
        head(&mut b, "Latest articles");
        article_list(&mut b, &arts, &authors, &tags);
        Ok((200, b))
    }

    async fn article(self: &Arc<Self>, id: i32) -> Res<Page> {
        let c = self.checkout().await?;
        let art = text(c.query(self.q["Q_DETAIL_ARTICLE"].as_str(), &[&id]).await?);
        let author = text(c.query(self.q["Q_DETAIL_AUTHOR"].as_str(), &[&id]).await?);
        let comments = text(c.query(self.q["Q_DETAIL_COMMENTS"].as_str(), &[&id]).await?);
        drop(c);
        let a = match art.first() {
            Some(a) => a,
            None => return Ok((404, "status 404\n".into())),
        };
        let mut b = String::new();
        head(&mut b, &a[3]);
        let by = author.first().map(|x| esc(&x[1])).unwrap_or_default();
        b.push_str(&format!(
            "<p class=\"meta\">by {}, {}</p>\n<p>{}</p>\n<h2>Comments</h2>\n<ul>\n",
            by,
            esc(&a[5]),
            esc(&a[4])
        ));
        for cm in &comments {
            b.push_str(&format!("<li><b>{}</b> {}: {}</li>\n", esc(&cm[1]), esc(&cm[3]), esc(&cm[2])));
        }
        b.push_str("</ul>\n</body></html>\n");
        Ok((200, b))
    }

    async fn tag(self: &Arc<Self>, slug: &str) -> Res<Page> {
        let c = self.checkout().await?;
        let mut r = Vec::new();
        for n in ["Q_TAG_TAG", "Q_TAG_ARTICLES", "Q_TAG_AUTHORS", "Q_TAG_TAGS"] {
            r.push(text(c.query(self.q[n].as_str(), &[&slug]).await?));
        }
        drop(c);
        if r[0].is_empty() {
            return Ok((404, "status 404\n".into()));
        }
        let mut b = String::new();
        head(&mut b, &format!("Articles tagged {}", r[0][0][2]));
        article_list(&mut b, &r[1], &r[2], &r[3]);
        Ok((200, b))
    }

    // one RESP command on an idle connection (or a new one); the bulk reply
    async fn redis(&self, args: &[&str]) -> Res<Option<String>> {
        let taken = self.idle_redis.lock().unwrap().pop();
        let mut conn = match taken {
            Some(c) => c,
            None => {
                let addr = self.redis.as_deref().unwrap_or("").trim_start_matches("redis://").to_string();
                let s = TcpStream::connect(addr).await?;
                s.set_nodelay(true)?;
                BufReader::new(s)
            }
        };
        let mut req = format!("*{}\r\n", args.len()).into_bytes();
        for a in args {
            req.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
            req.extend_from_slice(a.as_bytes());
            req.extend_from_slice(b"\r\n");
        }
        conn.get_mut().write_all(&req).await?;
        let mut line = String::new();
        conn.read_line(&mut line).await?;
        let reply = if let Some(n) = line.strip_prefix('$') {
            let n: i64 = n.trim().parse()?;
            if n < 0 {
                None
            } else {
                let mut v = vec![0u8; n as usize + 2];
                conn.read_exact(&mut v).await?;
                v.truncate(n as usize);
                Some(String::from_utf8(v)?)
            }
        } else if line.starts_with('-') {
            return Err(format!("redis: {}", line.trim()).into());
        } else {
            Some(line)
        };
        self.idle_redis.lock().unwrap().push(conn);
        Ok(reply)
    }

    async fn cached(self: &Arc<Self>, key: &str, id: Option<i32>) -> Res<Page> {
        if let Some(hit) = self.redis(&["GET", key]).await? {
            return Ok((200, hit));
        }
        let page = match id {
            Some(id) => self.article(id).await?,
            None => self.index().await?,
        };
        if page.0 == 200 {
            self.redis(&["SET", key, &page.1]).await?;
        }
        Ok(page)
    }

    async fn route(self: &Arc<Self>, path: &str) -> Res<Page> {
        let digits = |s: &str| !s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit());
        if path == "/" {
            return self.index().await;
        }
        if let Some(id) = path.strip_prefix("/articles/").filter(|s| digits(s)) {
            return self.article(id.parse()?).await;
        }
        if let Some(slug) = path.strip_prefix("/tags/").filter(|s| !s.is_empty() && !s.contains('/')) {
            return self.tag(slug).await;
        }
        if path == "/compute" {
            return Ok((200, compute()));
        }
        if self.redis.is_some() {
            if path == "/cached/" {
                return self.cached("page:/", None).await;
            }
            if let Some(id) = path.strip_prefix("/cached/articles/").filter(|s| digits(s)) {
                return self.cached(&format!("page:/articles/{}", id), Some(id.parse()?)).await;
            }
        }
        Ok((404, "status 404\n".into()))
    }
}

fn compute() -> String {
    let mut total: u64 = 0;
    for n in 2u64..20000 {
        let mut d = 2;
        let mut prime = true;
        while d * d <= n {
            if n % d == 0 {
                prime = false;
                break;
            }
            d += 1;
        }
        if prime {
            total += n;
        }
    }
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Compute</title></head><body>\n<h1>Compute</h1>\n<p>{}</p>\n</body></html>\n",
        total
    )
}

async fn handle(app: Arc<App>, req: Request<Body>) -> Result<Response<Body>, Infallible> {
    let (status, body) = match app.route(req.uri().path()).await {
        Ok(p) => p,
        Err(e) => {
            // a failed query is a 500, said on stderr
            eprintln!("app: {}", e);
            (500, "status 500\n".into())
        }
    };
    Ok(Response::builder()
        .status(status)
        .header("Content-Type", "text/html; charset=utf-8")
        .body(Body::from(body))
        .unwrap())
}

fn env_num(name: &str, def: u32) -> u32 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(def)
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let q = read_queries(&std::env::var("QUERIES").unwrap_or_default());
    let manager = PgManager { url: std::env::var("DATABASE_URL").unwrap_or_default(), rt: rt.handle().clone() };
    // the pool's minimum, connected up front (build() waits for min_idle)
    let pool = r2d2::Pool::builder()
        .max_size(env_num("POOL_MAX", 16))
        .min_idle(Some(env_num("POOL_MIN", 4)))
        .build(manager)
        .unwrap_or_else(|e| {
            eprintln!("app: {}", e);
            std::process::exit(2)
        });
    let redis = std::env::var("REDIS_URL").ok().filter(|s| !s.is_empty());
    let app = Arc::new(App { q, pool, redis, idle_redis: Mutex::new(Vec::new()) });
    let port = env_num("PORT", 8080) as u16;
    rt.block_on(async move {
        let make = make_service_fn(move |_| {
            let app = app.clone();
            async move { Ok::<_, Infallible>(service_fn(move |req| handle(app.clone(), req))) }
        });
        let server = Server::bind(&([127, 0, 0, 1], port).into()).tcp_nodelay(true).serve(make);
        println!("ready");
        if let Err(e) = server.await {
            eprintln!("app: {}", e);
            std::process::exit(2);
        }
    });
}
