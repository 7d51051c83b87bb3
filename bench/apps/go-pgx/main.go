// main.go - the benchmark's blog on Go's net/http, pgx v4's pgxpool and
// redigo: the seed's Go stack as its users run it (pool.Query per query:
// a checkout per query, no ping; pgx's statement cache prepares each query
// once per connection).  The SQL is bench/queries.h's, read from QUERIES;
// pages rendered byte for byte as the reference app renders them.
//
// Environment: PORT, DATABASE_URL, REDIS_URL, POOL_MAX (16), POOL_MIN (4),
// QUERIES.  Built offline from Debian's golang packages (GOPATH mode).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/jackc/pgx/v4/pgxpool"
)

var (
	q      map[string]string
	pool   *pgxpool.Pool
	cache  *redis.Pool
	detail = regexp.MustCompile(`^/articles/([0-9]{1,9})$`)
	tagre  = regexp.MustCompile(`^/tags/([^/]+)$`)
	cdet   = regexp.MustCompile(`^/cached/articles/([0-9]{1,9})$`)
	esc    = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
)

type errStatus int

func head(b *strings.Builder, title string) {
	fmt.Fprintf(b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title></head><body>\n<h1>%s</h1>\n",
		esc.Replace(title), esc.Replace(title))
}

// rows of a query as strings: every app renders what the server formatted
func rows(ctx context.Context, name string, args ...interface{}) ([][]string, error) {
	r, err := pool.Query(ctx, q[name], args...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out [][]string
	for r.Next() {
		vals, err := r.Values()
		if err != nil {
			return nil, err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = fmt.Sprint(v)
		}
		out = append(out, row)
	}
	return out, r.Err()
}

func articleList(b *strings.Builder, arts, authors, tags [][]string) {
	b.WriteString("<ul>\n")
	names := map[string]string{}
	for _, a := range authors {
		names[a[0]] = a[1]
	}
	for _, a := range arts {
		fmt.Fprintf(b, "<li><a href=\"/articles/%s\">%s</a> by %s, %s", esc.Replace(a[0]),
			esc.Replace(a[3]), esc.Replace(names[a[1]]), esc.Replace(a[4]))
		for _, t := range tags {
			if t[0] == a[0] {
				fmt.Fprintf(b, " <a href=\"/tags/%s\">#%s</a>", esc.Replace(t[1]), esc.Replace(t[2]))
			}
		}
		b.WriteString("</li>\n")
	}
	b.WriteString("</ul>\n</body></html>\n")
}

func pageIndex(ctx context.Context) (int, string, error) {
	arts, err := rows(ctx, "Q_INDEX_ARTICLES")
	if err != nil {
		return 0, "", err
	}
	authors, err := rows(ctx, "Q_INDEX_AUTHORS")
	if err != nil {
		return 0, "", err
	}
	tags, err := rows(ctx, "Q_INDEX_TAGS")
	if err != nil {
		return 0, "", err
	}
	var b strings.Builder
	head(&b, "Latest articles")
	articleList(&b, arts, authors, tags)
	return 200, b.String(), nil
}

func pageArticle(ctx context.Context, id int) (int, string, error) {
	art, err := rows(ctx, "Q_DETAIL_ARTICLE", id)
	if err != nil {
		return 0, "", err
	}
	author, err := rows(ctx, "Q_DETAIL_AUTHOR", id)
	if err != nil {
		return 0, "", err
	}
	comments, err := rows(ctx, "Q_DETAIL_COMMENTS", id)
	if err != nil {
		return 0, "", err
	}
	if len(art) == 0 {
		return 404, "status 404\n", nil
	}
	a := art[0]
	by := ""
	if len(author) > 0 {
		by = esc.Replace(author[0][1])
	}
	var b strings.Builder
	head(&b, a[3])
	fmt.Fprintf(&b, "<p class=\"meta\">by %s, %s</p>\n<p>%s</p>\n<h2>Comments</h2>\n<ul>\n", by,
		esc.Replace(a[5]), esc.Replace(a[4]))
	for _, c := range comments {
		fmt.Fprintf(&b, "<li><b>%s</b> %s: %s</li>\n", esc.Replace(c[1]), esc.Replace(c[3]),
			esc.Replace(c[2]))
	}
	b.WriteString("</ul>\n</body></html>\n")
	return 200, b.String(), nil
}

func pageTag(ctx context.Context, slug string) (int, string, error) {
	var res [4][][]string
	for i, n := range []string{"Q_TAG_TAG", "Q_TAG_ARTICLES", "Q_TAG_AUTHORS", "Q_TAG_TAGS"} {
		r, err := rows(ctx, n, slug)
		if err != nil {
			return 0, "", err
		}
		res[i] = r
	}
	if len(res[0]) == 0 {
		return 404, "status 404\n", nil
	}
	var b strings.Builder
	head(&b, "Articles tagged "+res[0][0][2])
	articleList(&b, res[1], res[2], res[3])
	return 200, b.String(), nil
}

func pageCompute() string {
	total := 0
	for n := 2; n < 20000; n++ {
		prime := true
		for d := 2; d*d <= n; d++ {
			if n%d == 0 {
				prime = false
				break
			}
		}
		if prime {
			total += n
		}
	}
	return fmt.Sprintf("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Compute</title></head><body>\n<h1>Compute</h1>\n<p>%d</p>\n</body></html>\n", total)
}

// the seed's page cache: the page from Redis, or rendered and stored
func cached(key string, render func() (int, string, error)) (int, string, error) {
	c := cache.Get()
	defer c.Close()
	if hit, err := redis.String(c.Do("GET", key)); err == nil {
		return 200, hit, nil
	} else if err != redis.ErrNil {
		return 0, "", err
	}
	status, body, err := render()
	if err == nil && status == 200 {
		_, err = c.Do("SET", key, body)
	}
	return status, body, err
}

func handle(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	path := r.URL.Path
	var (
		status int
		body   string
		err    error
	)
	switch {
	case path == "/":
		status, body, err = pageIndex(ctx)
	case detail.MatchString(path):
		id, _ := strconv.Atoi(detail.FindStringSubmatch(path)[1])
		status, body, err = pageArticle(ctx, id)
	case tagre.MatchString(path):
		status, body, err = pageTag(ctx, tagre.FindStringSubmatch(path)[1])
	case path == "/compute":
		status, body = 200, pageCompute()
	case path == "/cached/" && cache != nil:
		status, body, err = cached("page:/", func() (int, string, error) { return pageIndex(ctx) })
	case cdet.MatchString(path) && cache != nil:
		id := cdet.FindStringSubmatch(path)[1]
		n, _ := strconv.Atoi(id)
		status, body, err = cached("page:/articles/"+id,
			func() (int, string, error) { return pageArticle(ctx, n) })
	default:
		status, body = 404, "status 404\n"
	}
	if err != nil { // a failed query is a 500, said on stderr
		fmt.Fprintln(os.Stderr, "app:", err)
		status, body = 500, "status 500\n"
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write([]byte(body))
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func main() {
	data, err := os.ReadFile(os.Getenv("QUERIES"))
	if err == nil {
		err = json.Unmarshal(data, &q)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "app: QUERIES:", err)
		os.Exit(2)
	}
	cfg, err := pgxpool.ParseConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "app: DATABASE_URL:", err)
		os.Exit(2)
	}
	cfg.MaxConns = int32(envInt("POOL_MAX", 16))
	cfg.MinConns = int32(envInt("POOL_MIN", 4))
	ctx := context.Background()
	if pool, err = pgxpool.ConnectConfig(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "app:", err)
		os.Exit(2)
	}
	// the pool's minimum, connected up front (pgxpool opens MinConns in
	// the background: wait for them, as the other apps do)
	for i := 0; i < 100 && pool.Stat().TotalConns() < cfg.MinConns; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if url := os.Getenv("REDIS_URL"); url != "" {
		cache = &redis.Pool{MaxIdle: int(cfg.MaxConns), MaxActive: 0,
			Dial: func() (redis.Conn, error) { return redis.DialURL(url) }}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(envInt("PORT", 8080)))
	if err != nil {
		fmt.Fprintln(os.Stderr, "app:", err)
		os.Exit(2)
	}
	fmt.Println("ready")
	if err := http.Serve(ln, http.HandlerFunc(handle)); err != nil {
		fmt.Fprintln(os.Stderr, "app:", err)
		os.Exit(2)
	}
}
