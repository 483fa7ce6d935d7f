// Command flowserver is the login/items service user-journey runs are
// checked against: GET /login?user=N answers {"token": "<token of N>"},
// a token only that user gets, and GET /items?user=N answers the items
// only with "Authorization: Bearer <token of N>"; any other token is
// counted as wrong and answered 403. GET /stats says how many logins,
// item lists and wrong tokens it saw, so that a run of many virtual users
// can show that each one sent back its own token.
//
// Flags: those of every peer (-addr, default 127.0.0.1:8088; -delay;
// -debug-addr; the TLS flags).
package main

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/gust-http/gust/peers/internal/peer"
)

func main() { peer.Main("flowserver", "127.0.0.1:8088", run) }

func run(f peer.Flags) error {
	ln, dbg, err := peer.Listen("flowserver", f)
	if err != nil {
		return err
	}
	var s stats
	srv := &http.Server{Handler: s.handler()}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	err = peer.Wait("flowserver", f.URL(ln.Addr().String()), errc, srv.Shutdown, dbg)
	fmt.Printf("logins %d items %d wrong_tokens %d\n", s.logins.Load(), s.items.Load(), s.wrong.Load())
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// stats counts what the service saw.
type stats struct{ logins, items, wrong atomic.Int64 }

// tokenOf is user n's token: a value no other user gets.
func tokenOf(n string) string { return "tok-" + n + "-" + strconv.Itoa(len(n)*7919) }

func (s *stats) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		s.logins.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"token": %q}`, tokenOf(r.URL.Query().Get("user")))
	})
	mux.HandleFunc("GET /items", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+tokenOf(r.URL.Query().Get("user")) {
			s.wrong.Add(1)
			http.Error(w, "wrong token", http.StatusForbidden)
			return
		}
		s.items.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"items": [{"name": "widget", "price": 3}]}`))
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "logins %d items %d wrong_tokens %d\n", s.logins.Load(), s.items.Load(), s.wrong.Load())
	})
	return mux
}
