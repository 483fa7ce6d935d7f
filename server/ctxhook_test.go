package server

import (
	"bytes"
	"testing"
)

// TestCtxResponseHeaders checks what a wrapper reads and removes of the
// response a handler built.
func TestCtxResponseHeaders(t *testing.T) {
	_, c := inMemory(t, hello)
	c.reset()
	c.SetHeader("ETag", `"v1"`)
	c.SetContentType("application/json")
	c.SetHeader("Vary", "Origin")
	c.SetHeader("etag", `"v2"`)
	c.WriteString("body")
	if got := string(c.ResponseHeader("Etag")); got != `"v1"` {
		t.Errorf("ResponseHeader(Etag) = %q, want the first", got)
	}
	if got := string(c.ResponseHeader("content-type")); got != "application/json" {
		t.Errorf("ResponseHeader(content-type) = %q", got)
	}
	if got := c.ResponseHeader("Content-Encoding"); got != nil {
		t.Errorf("ResponseHeader(Content-Encoding) = %q, want nil", got)
	}
	c.DelResponseHeader("ETAG")
	if got := string(c.header); got != "Content-Type: application/json\r\nVary: Origin\r\n" {
		t.Errorf("after DelResponseHeader(ETAG): %q", got)
	}
	c.DelResponseHeader("Content-Type")
	if c.hasCT || bytes.Contains(c.header, []byte("Content-Type")) {
		t.Errorf("Content-Type still noted after its removal: %q", c.header)
	}
	if string(c.ResponseBody()) != "body" {
		t.Errorf("ResponseBody() = %q", c.ResponseBody())
	}
}

type countingHook struct{ n int }

func (h *countingHook) BeforeFlush(c *Ctx) {
	h.n++
	c.SetBody(bytes.ToUpper(c.ResponseBody()))
}

type sinkBuffer struct{ bytes.Buffer }

func (s *sinkBuffer) writeAll(p []byte) error {
	s.Write(p)
	return nil
}

// TestFlushHookRuns checks that Flush calls the hook before it sends, not
// when it cannot send, and that reset forgets it.
func TestFlushHookRuns(t *testing.T) {
	_, c := inMemory(t, hello)
	c.reset()
	c.req.Major, c.req.Minor = 1, 1
	h := &countingHook{}
	c.SetFlushHook(h)
	c.WriteString("part")
	if err := c.Flush(); err != ErrNotStreamable { // no sink in memory: Inline's answer
		t.Fatalf("Flush: %v", err)
	}
	if h.n != 0 || string(c.out) != "part" {
		t.Errorf("a refused Flush ran the hook %d times, body %q", h.n, c.out)
	}
	var sent sinkBuffer
	c.w = &sent
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if h.n != 1 || !bytes.HasSuffix(sent.Bytes(), []byte("4\r\nPART\r\n")) {
		t.Errorf("hook ran %d times; sent %q", h.n, sent.Bytes())
	}
	c.reset()
	if c.hook != nil {
		t.Error("reset kept the hook")
	}
}
