package hello

import (
	"expvar"
	"net/http"
	"net/http/pprof"
	"runtime"
	"sync"
)

// publishGoroutines registers the expvar "goroutines" once per process:
// expvar.Publish panics on a second registration of the same name.
var publishGoroutines = sync.OnceFunc(func() {
	expvar.Publish("goroutines", expvar.Func(func() any { return runtime.NumGoroutine() }))
})

// DebugHandler returns a new mux serving /debug/vars (expvar, with a
// "goroutines" variable) and /debug/pprof/, the endpoints gust bench
// samples. The mux is its own, so nothing depends on http.DefaultServeMux.
func DebugHandler() http.Handler {
	publishGoroutines()
	mux := http.NewServeMux()
	mux.Handle("/debug/vars", expvar.Handler())
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
