package compare

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/gorilla/mux"

	"github.com/gust-http/gust/server"
)

// TestRoutersRunUnchanged serves chi and gorilla/mux routers through
// gust's net/http adapter and checks routing, URL parameters, methods and
// bodies.
func TestRoutersRunUnchanged(t *testing.T) {
	chiRouter := chi.NewRouter()
	chiRouter.Get("/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "chi user %s", chi.URLParam(r, "id"))
	})
	chiRouter.Post("/items", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, "chi created %s", b)
	})

	gorilla := mux.NewRouter()
	gorilla.HandleFunc("/users/{id:[0-9]+}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "gorilla user %s", mux.Vars(r)["id"])
	}).Methods("GET")
	gorilla.HandleFunc("/items", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, "gorilla created %s", b)
	}).Methods("POST")

	for name, router := range map[string]http.Handler{"chi": chiRouter, "gorilla": gorilla} {
		t.Run(name, func(t *testing.T) {
			base := strings.TrimSuffix(startGust(t, server.HTTPHandler(router), server.Pooled), "/")
			client := &http.Client{Timeout: 5 * time.Second}
			tests := []struct {
				method, path, body string
				status             int
				want               string
			}{
				{"GET", "/users/7", "", 200, name + " user 7"},
				{"POST", "/items", "pen", 201, name + " created pen"},
				{"GET", "/missing", "", 404, ""},
				{"DELETE", "/users/7", "", 405, ""},
			}
			for _, tt := range tests {
				req, _ := http.NewRequest(tt.method, base+tt.path, strings.NewReader(tt.body))
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tt.status || (tt.want != "" && string(b) != tt.want) {
					t.Errorf("%s %s: got %d %q, want %d %q", tt.method, tt.path, resp.StatusCode, b, tt.status, tt.want)
				}
			}
		})
	}
}
