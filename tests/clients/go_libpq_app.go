// go_libpq_app.go PORT DSN QUERIES - the blog's three routes on net/http and database/sql
// over lib/pq (Debian's golang-github-lib-pq-dev; GOPATH mode, offline), 4
// connections.  lib/pq runs a statement with arguments in two round trips
// (Parse/Describe/Sync, then Bind/Execute/Sync) and one without in one
// simple Query; the tag route runs in a transaction (BEGIN, COMMIT).  The
// SQL is every driver test app's (QUERIES: tests/clients/blog_queries.json).
// SESSION_LOOKUP=1: every page first looks its user up, the same statement on
// every route, as apps with sessions do (database/sql: a checkout of its own,
// before the tag route's transaction).  Each
// request counts what it ran; GET /stats gives {route: [pages, statements,
// BEGIN and COMMIT]}, the truth tests/live/driver_pages_test.py holds pgrtt's
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

// the SQL, as every driver test app runs it
var queries struct {
	Index, Detail, Tag []string
}

func main() {
	raw, err := os.ReadFile(os.Args[3])
	if err == nil {
		err = json.Unmarshal(raw, &queries)
	}
	if err != nil {
		panic(err)
	}
	db, err := sql.Open("postgres", os.Args[2])
	if err != nil {
		panic(err)
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	lookup := os.Getenv("SESSION_LOOKUP") == "1"
	n := 0
	if lookup {
		n = 1
	}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if lookup && p != "/stats" {
			run(db, "SELECT id, name FROM authors WHERE id = $1", 1)
		}
		switch {
		case p == "/stats":
			mu.Lock()
			json.NewEncoder(w).Encode(counts)
			mu.Unlock()
			return
		case p == "/":
			for _, text := range queries.Index {
				run(db, text)
			}
			note("GET /", len(queries.Index)+n, 0)
		case strings.HasPrefix(p, "/articles/"):
			id, _ := strconv.Atoi(p[10:])
			for _, text := range queries.Detail {
				run(db, text, id)
			}
			note("GET /articles/{id}", len(queries.Detail)+n, 0)
		case strings.HasPrefix(p, "/tags/"):
			s := p[6:]
			tx, err := db.Begin()
			if err != nil {
				panic(err)
			}
			for _, text := range queries.Tag {
				run(tx, text, s)
			}
			tx.Commit()
			note("GET /tags/{slug}", len(queries.Tag)+n, 2)
		default:
			w.WriteHeader(404)
		}
		fmt.Fprint(w, "ok")
	})
	fmt.Println("ready")
	http.ListenAndServe("127.0.0.1:"+os.Args[1], nil)
}
