package quicgoclient

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/gust-http/gust/server"
)

// Handlers on workers that Flush parts larger than a stream's send
// buffer, many streams at once: every part arrives, in order, and the
// loop and the workers share the streams' state without a data race
// (run with -race).
func TestManyLargeFlushesOnWorkers(t *testing.T) {
	const parts, partLen, streams = 12, 96 << 10, 6
	part := func(i int) []byte { return bytes.Repeat([]byte{byte('a' + i%26)}, partLen) }
	for _, mode := range []server.Mode{server.Pooled, server.Auto} {
		t.Run(mode.String(), func(t *testing.T) {
			origin := start(t, mode, server.HandlerFunc(func(c *server.Ctx) {
				for i := range parts {
					c.Write(part(i))
					if err := c.Flush(); err != nil {
						return
					}
				}
			}))
			cl := client(t)
			var want strings.Builder
			for i := range parts {
				want.Write(part(i))
			}
			var wg sync.WaitGroup
			errs := make(chan error, streams)
			for i := range streams {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := cl.Get(fmt.Sprintf("%s/s%d", origin, i))
					if err != nil {
						errs <- err
						return
					}
					b, err := io.ReadAll(res.Body)
					res.Body.Close()
					if err != nil || string(b) != want.String() {
						errs <- fmt.Errorf("stream %d: %d bytes of %d, %v", i, len(b), want.Len(), err)
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}
