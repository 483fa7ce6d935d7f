package head

import (
	"fmt"
	"testing"
)

func req(i int) (Request, []byte) {
	h := Request{Method: []byte("POST"), Target: []byte(fmt.Sprintf("/u/%d?q=%d", i, i)), Host: []byte("h"),
		Major: 1, Minor: 1, ContentLength: 1,
		Headers: []Field{{Name: []byte("Host"), Value: []byte("h")}, {Name: []byte("X-Id"), Value: []byte(fmt.Sprint(i))}, {Name: []byte("X-Empty"), Value: []byte{}}}}
	return h, []byte{byte('a' + i)}
}

// TestStoreGivesBackWhatWasAdded adds heads, drops the first ones as a
// stage does once they are handed out, and loads the rest.
func TestStoreGivesBackWhatWasAdded(t *testing.T) {
	var s Store
	for i := range 5 {
		h, body := req(i)
		s.Add(&h, body)
	}
	s.Drop(2)
	if s.Len() != 3 {
		t.Fatalf("Len %d after dropping 2 of 5, want 3", s.Len())
	}
	var got Request
	for i := range 3 {
		body := s.Load(i, &got)
		want, wantBody := req(i + 2)
		if string(got.Target) != string(want.Target) || string(body) != string(wantBody) || len(got.Headers) != 3 ||
			string(got.Headers[1].Value) != fmt.Sprint(i+2) || got.Scheme != nil || got.Headers[2].Value == nil {
			t.Fatalf("request %d: %q %q %q, want %q", i, got.Target, body, got.Headers, want.Target)
		}
		if string(got.Path) != fmt.Sprintf("/u/%d", i+2) || string(got.Query) != fmt.Sprint("q=", i+2) {
			t.Fatalf("request %d: path %q query %q", i, got.Path, got.Query)
		}
	}
	allocs := testing.AllocsPerRun(100, func() {
		s.Reset()
		h, body := got, []byte("x")
		s.Add(&h, body)
		s.Load(0, &got)
	})
	if allocs != 0 {
		t.Errorf("a warm Store allocates %.1f times per Add and Load, want 0", allocs)
	}
}
