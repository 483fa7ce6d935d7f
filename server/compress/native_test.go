package compress

import (
	"testing"

	"github.com/gust-http/gust/server"
)

// TestNativeCases runs the response table through Handler on gust's
// native API, over HTTP/1.1 and h2c, in each mode.
func TestNativeCases(t *testing.T) {
	z := New(Config{})
	for _, mode := range []server.Mode{server.Inline, server.Pooled, server.Auto} {
		base := startGust(t, z.Handler(nativeCases), mode)
		for name, client := range clients() {
			t.Run(mode.String()+"/"+name, func(t *testing.T) { checkCases(t, base, client) })
		}
	}
}
