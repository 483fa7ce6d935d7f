package http3

import (
	"bytes"
	"errors"
	"testing"
)

// request builds a request stream's bytes: HEADERS of the fields given
// as name, value pairs, then DATA of each body piece, then trailers.
func request(fields []string, body []string, trailers []string) []byte {
	sec := AppendSectionPrefix(nil)
	for i := 0; i+1 < len(fields); i += 2 {
		sec = AppendField(sec, fields[i], fields[i+1])
	}
	b := AppendHeaders(nil, sec)
	for _, p := range body {
		b = AppendData(b, []byte(p))
	}
	if trailers != nil {
		sec = AppendSectionPrefix(nil)
		for i := 0; i+1 < len(trailers); i += 2 {
			sec = AppendField(sec, trailers[i], trailers[i+1])
		}
		b = AppendHeaders(b, sec)
	}
	return b
}

var get = []string{":method", "GET", ":scheme", "https", ":authority", "example.com", ":path", "/a?b=1", "accept", "*/*"}

func post(length string) []string {
	f := []string{":method", "POST", ":scheme", "https", ":authority", "example.com", ":path", "/up"}
	if length != "" {
		f = append(f, "content-length", length)
	}
	return f
}

func TestRequestReader(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      []byte
		fin     bool
		maxBody int64
		done    bool
		code    ErrCode // 0: no error
		conn    bool    // the error is a ConnError
		body    string
	}{
		{name: "GET", in: request(get, nil, nil), fin: true, done: true},
		{name: "GET without its FIN yet", in: request(get, nil, nil)},
		{name: "POST with content-length", in: request(post("10"), []string{"01234", "56789"}, nil), fin: true, maxBody: 100, done: true, body: "0123456789"},
		{name: "POST without content-length, with trailers", in: request(post(""), []string{"abc"}, []string{"x-sum", "3"}), fin: true, maxBody: 100, done: true, body: "abc"},
		{name: "content shorter than content-length", in: request(post("10"), []string{"01234"}, nil), fin: true, maxBody: 100, code: ErrCodeMessage},
		{name: "content longer than content-length", in: request(post("3"), []string{"01234"}, nil), fin: true, maxBody: 100, code: ErrCodeMessage},
		{name: "content past MaxBody", in: request(post(""), []string{"0123456789"}, nil), fin: true, maxBody: 4, code: ErrCodeExcessiveLoad},
		{name: "no :path", in: request([]string{":method", "GET", ":scheme", "https", ":authority", "x"}, nil, nil), fin: true, code: ErrCodeMessage},
		{name: "upper-case field name", in: request(append(append([]string(nil), get...), "X-Up", "1"), nil, nil), fin: true, code: ErrCodeMessage},
		{name: "stream ended before the head", in: nil, fin: true, code: ErrCodeRequestIncomplete},
		{name: "DATA before HEADERS", in: AppendData(nil, []byte("x")), fin: true, code: ErrCodeFrameUnexpected, conn: true},
		{name: "HEADERS after the trailers", in: append(request(post(""), []string{"a"}, []string{"x", "1"}), AppendHeaders(nil, []byte{0, 0})...), fin: true, maxBody: 10, code: ErrCodeFrameUnexpected, conn: true},
		{name: "a field section that does not decode", in: AppendHeaders(nil, []byte{0, 0, 0xff}), fin: true, code: ErrCodeQPACKDecompressionFailed, conn: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, step := range []int{len(tc.in) + 1, 1} { // whole, and a byte at a time
				var r RequestReader
				r.Reset(4)
				r.MaxBody = tc.maxBody
				var err error
				for i := 0; i < len(tc.in) && err == nil; i += step {
					end := min(i+step, len(tc.in))
					err = r.Receive(tc.in[i:end], tc.fin && end == len(tc.in))
				}
				if len(tc.in) == 0 {
					err = r.Receive(nil, tc.fin)
				}
				if tc.code == 0 {
					if err != nil || r.Done() != tc.done || string(r.Body) != tc.body {
						t.Fatalf("step %d: err %v, done %v, body %q; want done %v, body %q", step, err, r.Done(), r.Body, tc.done, tc.body)
					}
					continue
				}
				var ce ConnError
				if CodeOf(err) != tc.code || errors.As(err, &ce) != tc.conn {
					t.Fatalf("step %d: err %v (%T); want code %v, connection error %v", step, err, err, tc.code, tc.conn)
				}
				if tc.code == ErrCodeExcessiveLoad && !IsBodyTooLarge(err) {
					t.Errorf("IsBodyTooLarge(%v) = false", err)
				}
			}
		})
	}
}

// The head and trailers outlive the bytes they arrived in and the
// decoder's next section: they are the reader's own until Reset.
func TestRequestReaderOwnsItsFields(t *testing.T) {
	in := request(post(""), []string{"x"}, []string{"x-trailer", "huffman-coded value here"})
	var r RequestReader
	r.Reset(0)
	r.MaxBody = 10
	buf := append([]byte(nil), in...)
	if err := r.Receive(buf, true); err != nil || !r.Done() {
		t.Fatal(err)
	}
	for i := range buf {
		buf[i] = 'Z' // the caller reuses its buffer
	}
	var other Decoder
	r.Decoder = other
	if string(r.Head.Method) != "POST" || string(r.Head.Path) != "/up" || string(r.Head.Authority) != "example.com" {
		t.Errorf("head after the input changed: %s %s %s", r.Head.Method, r.Head.Path, r.Head.Authority)
	}
	if len(r.Trailers) != 1 || string(r.Trailers[0].Name) != "x-trailer" || string(r.Trailers[0].Value) != "huffman-coded value here" {
		t.Errorf("trailers after the input changed: %+v", r.Trailers)
	}
}

// A server's uni streams: a client may not open a push stream, and its
// control stream may carry MAX_PUSH_ID and a GOAWAY naming a push ID.
func TestServerUniStreams(t *testing.T) {
	var s Server
	ctl := AppendControlStreamStart(nil, DefaultSettings())
	ctl = append(ctl, AppendMaxPushID(nil, 7)...)
	ctl = append(ctl, AppendGoAway(nil, 3)...) // a push ID: not a multiple of 4
	if _, err := s.ReceiveUni(2, ctl, false); err != nil {
		t.Fatalf("client control stream: %v", err)
	}
	if _, ok := s.PeerSettings(); !ok {
		t.Error("no SETTINGS seen")
	}
	if _, err := s.ReceiveUni(6, AppendStreamType(nil, StreamPush), false); CodeOf(err) != ErrCodeStreamCreation {
		t.Errorf("a client's push stream: %v, want H3_STREAM_CREATION_ERROR", err)
	}
	start := s.Start(nil)
	if !bytes.HasPrefix(start, AppendStreamType(nil, StreamControl)) {
		t.Errorf("Start: %x", start)
	}
}

// FuzzRequestReader feeds arbitrary bytes to a RequestReader whole and a
// byte at a time: it must never panic, and the outcome (done, error code,
// body) must not depend on how the bytes were split.
func FuzzRequestReader(f *testing.F) {
	f.Add(request(get, nil, nil), true)
	f.Add(request(post("3"), []string{"abc"}, []string{"x", "y"}), true)
	f.Add(AppendData(nil, []byte("x")), false)
	f.Fuzz(func(t *testing.T, in []byte, fin bool) {
		run := func(step int) (bool, ErrCode, string) {
			var r RequestReader
			r.Reset(0)
			r.MaxBody = 64
			var err error
			for i := 0; i < len(in) && err == nil; i += step {
				end := min(i+step, len(in))
				err = r.Receive(in[i:end], fin && end == len(in))
			}
			if len(in) == 0 {
				err = r.Receive(nil, fin)
			}
			return r.Done(), CodeOf(err), string(r.Body)
		}
		d1, c1, b1 := run(len(in) + 1)
		d2, c2, b2 := run(1)
		if d1 != d2 || c1 != c2 || (c1 == ErrCodeNo && b1 != b2) {
			t.Fatalf("whole: %v %v %q; byte by byte: %v %v %q", d1, c1, b1, d2, c2, b2)
		}
	})
}
