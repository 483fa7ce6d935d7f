package flow

import (
	"testing"
	"unsafe"
)

// TestFlowUserAllocatesNothing: once its buffers have grown, a user's
// iteration (requests built, a JSON capture, a cookie, checks, a think)
// allocates nothing, and its state is a few hundred bytes (its requests are built in the
// loop's Builder).
func TestFlowUserAllocatesNothing(t *testing.T) {
	f := compile(t, loginFlow, Options{})
	st := f.NewStats()
	u := f.NewUser(7, 10, 1)
	var b Builder
	login := Response{Status: 200, Head: []byte("HTTP/1.1 200 OK\r\nSet-Cookie: a=b\r\n\r\n"), Body: []byte(`{"ok":true, "token" : "t-7"}`)}
	items := Response{Status: 200, Head: []byte("HTTP/1.1 200 OK\r\n\r\n")}
	run := func() {
		now := int64(0)
		u.Begin(now)
		for {
			s, at := u.Next(now, st)
			if s == Ended {
				return
			}
			if s == Wait {
				now = at
				continue
			}
			if u.Request(&b).Method == "POST" {
				u.Done(&login, now, st)
			} else {
				u.Done(&items, now, st)
			}
		}
	}
	run()
	if n := testing.AllocsPerRun(1000, run); n != 0 {
		t.Errorf("%.1f allocations per iteration, want 0", n)
	}
	if size := unsafe.Sizeof(*u); size > 256 {
		t.Errorf("a User is %d bytes", size)
	}
}
