package http3

import (
	"bytes"
	"errors"
	"testing"
)

// readAll feeds b to r in pieces of size step and collects what comes out,
// DATA pieces joined into one frame per DATA frame.
func readAll(r *FrameReader, b []byte, step int) ([]Frame, error) {
	var out []Frame
	var data []byte
	for len(b) > 0 {
		k := min(step, len(b))
		p := b[:k]
		b = b[k:]
		for len(p) > 0 {
			f, n, ok, err := r.Next(p)
			if err != nil {
				return out, err
			}
			p = p[n:]
			if !ok {
				if len(p) != 0 {
					return out, errors.New("not ok with bytes left")
				}
				break
			}
			if f.Type == FrameData {
				data = append(data, f.Payload...)
				if !f.End {
					continue
				}
				f.Payload = data
				data = nil
			}
			f.Payload = append([]byte(nil), f.Payload...)
			out = append(out, f)
		}
	}
	return out, nil
}

func TestFrameReaderAnyPieces(t *testing.T) {
	var req []byte
	req = AppendHeaders(req, []byte("section"))
	req = AppendFrameHeader(req, 0x21+0x1f*7, 5) // reserved: skipped
	req = append(req, "pad!!"...)
	req = AppendData(req, bytes.Repeat([]byte("x"), 300))
	req = AppendData(req, nil)
	req = AppendFrameHeader(req, 0x4242, 0) // unknown, empty: skipped
	req = AppendHeaders(req, nil)
	for _, step := range []int{1, 2, 3, 7, 64, len(req)} {
		r := &FrameReader{}
		fs, err := readAll(r, req, step)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		want := []struct {
			t FrameType
			p string
		}{{FrameHeaders, "section"}, {FrameData, string(bytes.Repeat([]byte("x"), 300))}, {FrameData, ""}, {FrameHeaders, ""}}
		if len(fs) != len(want) {
			t.Fatalf("step %d: %d frames, want %d", step, len(fs), len(want))
		}
		for i, w := range want {
			if fs[i].Type != w.t || string(fs[i].Payload) != w.p {
				t.Errorf("step %d frame %d: %v %q", step, i, fs[i].Type, fs[i].Payload)
			}
		}
		if err := r.End(); err != nil {
			t.Errorf("step %d: End: %v", step, err)
		}
	}
}

func TestFrameReaderControlStream(t *testing.T) {
	s := DefaultSettings()
	s.MaxFieldSectionSize = 1 << 14
	s.H3Datagram = true
	var b []byte
	b = AppendSettings(b, s)
	b = AppendGoAway(b, 400)
	b = AppendCancelPush(b, 3)
	b = AppendMaxPushID(b, 1<<20)
	for _, step := range []int{1, 5, len(b)} {
		fs, err := readAll(&FrameReader{Kind: KindControl}, b, step)
		if err != nil || len(fs) != 4 {
			t.Fatalf("step %d: %d frames, %v", step, len(fs), err)
		}
		got := DefaultSettings()
		if err := ParseSettings(fs[0].Payload, &got); err != nil || got != s {
			t.Errorf("settings %+v, %v; want %+v", got, err, s)
		}
		if fs[1].Type != FrameGoAway || fs[1].ID != 400 || fs[2].ID != 3 || fs[3].ID != 1<<20 {
			t.Errorf("frames %+v", fs[1:])
		}
	}
}

func TestFrameReaderPushPromise(t *testing.T) {
	b := AppendPushPromise(nil, 7, []byte("promised"))
	fs, err := readAll(&FrameReader{Client: true}, b, 1)
	if err != nil || len(fs) != 1 || fs[0].ID != 7 || string(fs[0].Payload) != "promised" {
		t.Fatalf("%+v %v", fs, err)
	}
}

func TestFrameReaderErrors(t *testing.T) {
	settings := AppendSettings(nil, DefaultSettings())
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	for _, c := range []struct {
		name string
		r    FrameReader
		in   []byte
		code ErrCode
	}{
		{"an HTTP/2 PING is refused", FrameReader{}, AppendFrameHeader(nil, 0x06, 0), ErrCodeFrameUnexpected},
		{"an HTTP/2 CONTINUATION is refused", FrameReader{}, AppendFrameHeader(nil, 0x09, 0), ErrCodeFrameUnexpected},
		{"a control stream must start with SETTINGS", FrameReader{Kind: KindControl}, AppendGoAway(nil, 0), ErrCodeMissingSettings},
		{"a second SETTINGS is unexpected", FrameReader{Kind: KindControl}, cat(settings, settings), ErrCodeFrameUnexpected},
		{"DATA on the control stream", FrameReader{Kind: KindControl}, cat(settings, AppendData(nil, nil)), ErrCodeFrameUnexpected},
		{"HEADERS on the control stream", FrameReader{Kind: KindControl}, cat(settings, AppendHeaders(nil, nil)), ErrCodeFrameUnexpected},
		{"SETTINGS on a request stream", FrameReader{}, settings, ErrCodeFrameUnexpected},
		{"GOAWAY on a request stream", FrameReader{}, AppendGoAway(nil, 0), ErrCodeFrameUnexpected},
		{"PUSH_PROMISE to a server", FrameReader{}, AppendPushPromise(nil, 0, nil), ErrCodeFrameUnexpected},
		{"PUSH_PROMISE on a push stream", FrameReader{Kind: KindPush, Client: true}, AppendPushPromise(nil, 0, nil), ErrCodeFrameUnexpected},
		{"MAX_PUSH_ID to a client", FrameReader{Kind: KindControl, Client: true}, cat(settings, AppendMaxPushID(nil, 1)), ErrCodeFrameUnexpected},
		{"GOAWAY with a trailing byte", FrameReader{Kind: KindControl}, cat(settings, AppendFrameHeader(nil, FrameGoAway, 2), []byte{1, 0}), ErrCodeFrame},
		{"GOAWAY longer than an integer", FrameReader{Kind: KindControl}, cat(settings, AppendFrameHeader(nil, FrameGoAway, 9)), ErrCodeFrame},
		{"CANCEL_PUSH empty", FrameReader{Kind: KindControl}, cat(settings, AppendFrameHeader(nil, FrameCancelPush, 0)), ErrCodeFrame},
		{"MAX_PUSH_ID with a cut integer", FrameReader{Kind: KindControl}, cat(settings, AppendFrameHeader(nil, FrameMaxPushID, 1), []byte{0x40}), ErrCodeFrame},
		{"PUSH_PROMISE without a push ID", FrameReader{Client: true}, AppendFrameHeader(nil, FramePushPromise, 0), ErrCodeFrame},
		{"HEADERS over the limit", FrameReader{MaxFrameSize: 10}, AppendFrameHeader(nil, FrameHeaders, 11), ErrCodeExcessiveLoad},
		{"SETTINGS over the default limit", FrameReader{Kind: KindControl}, AppendFrameHeader(nil, FrameSettings, DefaultMaxFrameSize+1), ErrCodeExcessiveLoad},
		{"SETTINGS with an HTTP/2 setting", FrameReader{Kind: KindControl}, cat(AppendFrameHeader(nil, FrameSettings, 2), []byte{0x04, 0x00}), ErrCodeSettings},
		{"SETTINGS cut inside a value", FrameReader{Kind: KindControl}, cat(AppendFrameHeader(nil, FrameSettings, 2), []byte{0x06, 0x40}), ErrCodeFrame},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := readAll(&c.r, c.in, 1)
			if CodeOf(err) != c.code {
				t.Fatalf("got %v, want %v", err, c.code)
			}
		})
	}
}

func TestFrameReaderLargeDataNotBuffered(t *testing.T) {
	// DATA far above MaxFrameSize streams through in pieces.
	b := AppendData(nil, make([]byte, 1<<20))
	r := &FrameReader{MaxFrameSize: 16}
	total := 0
	for p := b; len(p) > 0; {
		f, n, ok, err := r.Next(p[:min(len(p), 4096)])
		if err != nil || !ok {
			t.Fatalf("%v %v", ok, err)
		}
		total += len(f.Payload)
		p = p[n:]
	}
	if total != 1<<20 || r.InFrame() {
		t.Fatalf("read %d, in frame %v", total, r.InFrame())
	}
}

func TestFrameReaderTruncatedAtEnd(t *testing.T) {
	b := AppendHeaders(nil, []byte("abc"))
	for cut := 1; cut < len(b); cut++ {
		r := &FrameReader{}
		if _, err := readAll(r, b[:cut], 1); err != nil {
			t.Fatal(err)
		}
		if CodeOf(r.End()) != ErrCodeFrame {
			t.Errorf("cut at %d: End gave %v", cut, r.End())
		}
	}
}

func TestParseSettingsDuplicate(t *testing.T) {
	p := appendSetting(appendSetting(nil, SettingMaxFieldSectionSize, 1), SettingMaxFieldSectionSize, 2)
	s := DefaultSettings()
	if CodeOf(ParseSettings(p, &s)) != ErrCodeSettings {
		t.Error("a repeated setting was accepted")
	}
	p = appendSetting(nil, SettingEnableConnectProtocol, 2)
	if CodeOf(ParseSettings(p, &s)) != ErrCodeSettings {
		t.Error("ENABLE_CONNECT_PROTOCOL 2 was accepted")
	}
	p = appendSetting(appendSetting(nil, 0x21, 1), 0x21, 1)
	if err := ParseSettings(p, &s); err != nil {
		t.Errorf("reserved settings: %v", err)
	}
}

func TestReservedCodesAndNames(t *testing.T) {
	for _, v := range []uint64{0x21, 0x40, 0x1f*1000 + 0x21} {
		if !IsReservedCode(v) {
			t.Errorf("%#x not reserved", v)
		}
	}
	for _, v := range []uint64{0, 0x20, 0x22, 0x3f} {
		if IsReservedCode(v) {
			t.Errorf("%#x reserved", v)
		}
	}
	if ErrCodeFrameUnexpected.String() != "H3_FRAME_UNEXPECTED" || ErrCodeVersionFallback.String() != "H3_VERSION_FALLBACK" ||
		ErrCodeQPACKDecoderStream.String() != "QPACK_DECODER_STREAM_ERROR" || ErrCode(0x21).String() != "H3_0x21" {
		t.Error("error code names")
	}
	if !StreamQPACKDecoder.Known() || StreamType(0x21).Known() {
		t.Error("stream types")
	}
	if st, n := ParseStreamType(AppendStreamType(nil, StreamPush)); st != StreamPush || n != 1 {
		t.Error("stream type round trip")
	}
}
