// go_libpq_app.go PORT DSN - the blog's three routes on net/http and database/sql
// over lib/pq (Debian's golang-github-lib-pq-dev; GOPATH mode, offline), 4
// connections.  lib/pq runs a statement with arguments in two round trips
// (Parse/Describe/Sync, then Bind/Execute/Sync) and one without in one
// simple Query; the tag route runs in a transaction (BEGIN, COMMIT).  Each
// request counts what it ran; GET /stats gives {route: [pages, statements,
// BEGIN and COMMIT]}, the truth tests/driver_pages_test.py holds pgrtt's
// figures to.
package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"

	_ "github.com/lib/pq"
)

var mu sync.Mutex
var counts = map[string][]int{}

func note(route string, stmts, tx int) {
	mu.Lock()
	c := counts[route]
	if c == nil {
		c = []int{0, 0, 0}
	}
	c[0]++
	c[1] += stmts
	c[2] += tx
	counts[route] = c
	mu.Unlock()
}

type q interface {
	Query(string, ...interface{}) (*sql.Rows, error)
}

func run(db q, s string, args ...interface{}) {
	rows, err := db.Query(s, args...)
	if err != nil {
		panic(err)
	}
	for rows.Next() {
	}
	rows.Close()
}

func main() {
	db, err := sql.Open("postgres", os.Args[2])
	if err != nil {
		panic(err)
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == "/stats":
			mu.Lock()
			json.NewEncoder(w).Encode(counts)
			mu.Unlock()
			return
		case p == "/":
			run(db, "SELECT id, author_id, slug, title FROM articles ORDER BY created_at DESC, id LIMIT 20")
			run(db, "SELECT id, name FROM authors WHERE id IN (SELECT author_id FROM articles ORDER BY created_at DESC, id LIMIT 20) ORDER BY id")
			run(db, "SELECT at.article_id, t.slug, t.name FROM article_tags at JOIN tags t ON t.id = at.tag_id WHERE at.article_id IN (SELECT id FROM articles ORDER BY created_at DESC, id LIMIT 20) ORDER BY at.article_id, t.id")
			note("GET /", 3, 0)
		case strings.HasPrefix(p, "/articles/"):
			id, _ := strconv.Atoi(p[10:])
			run(db, "SELECT id, author_id, slug, title, body FROM articles WHERE id = $1", id)
			run(db, "SELECT id, name, bio FROM authors WHERE id = (SELECT author_id FROM articles WHERE id = $1)", id)
			run(db, "SELECT id, author, body FROM comments WHERE article_id = $1 ORDER BY id", id)
			note("GET /articles/{id}", 3, 0)
		case strings.HasPrefix(p, "/tags/"):
			s := p[6:]
			tx, err := db.Begin()
			if err != nil {
				panic(err)
			}
			run(tx, "SELECT id, slug, name FROM tags WHERE slug = $1", s)
			run(tx, "SELECT a.id, a.title FROM articles a JOIN article_tags at ON at.article_id = a.id JOIN tags t ON t.id = at.tag_id WHERE t.slug = $1 ORDER BY a.created_at DESC, a.id LIMIT 20", s)
			run(tx, "SELECT DISTINCT au.id, au.name FROM authors au JOIN articles a ON a.author_id = au.id JOIN article_tags at ON at.article_id = a.id JOIN tags t ON t.id = at.tag_id WHERE t.slug = $1 ORDER BY au.id", s)
			run(tx, "SELECT at2.article_id, t2.slug FROM article_tags at2 JOIN tags t2 ON t2.id = at2.tag_id WHERE at2.article_id IN (SELECT at.article_id FROM article_tags at JOIN tags t ON t.id = at.tag_id WHERE t.slug = $1) ORDER BY at2.article_id, t2.id", s)
			tx.Commit()
			note("GET /tags/{slug}", 4, 2)
		default:
			w.WriteHeader(404)
		}
		fmt.Fprint(w, "ok")
	})
	fmt.Println("ready")
	http.ListenAndServe("127.0.0.1:"+os.Args[1], nil)
}
