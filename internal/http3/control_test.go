package http3

import (
	"bytes"
	"testing"
)

func TestClientControlStream(t *testing.T) {
	settings := AppendSettings(nil, Settings{MaxFieldSectionSize: 1000})
	typ := AppendStreamType(nil, StreamControl)
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	tests := []struct {
		name   string
		stream []byte
		fin    bool
		code   ErrCode // 0: no error
		goAway uint64  // the GOAWAY in force after, 0 for none
	}{
		{"SETTINGS then GOAWAY", cat(typ, settings, AppendGoAway(nil, 8)), false, 0, 8},
		{"GOAWAY lowered", cat(typ, settings, AppendGoAway(nil, 8), AppendGoAway(nil, 4)), false, 0, 4},
		{"unknown and reserved frames skipped", cat(typ, settings, frame(0x21, []byte("abc")), frame(0x3f00, nil)), false, 0, 0},
		{"GOAWAY raised", cat(typ, settings, AppendGoAway(nil, 4), AppendGoAway(nil, 8)), false, ErrCodeID, 0},
		{"GOAWAY naming a server stream", cat(typ, settings, AppendGoAway(nil, 5)), false, ErrCodeID, 0},
		{"no SETTINGS first", cat(typ, AppendGoAway(nil, 8)), false, ErrCodeMissingSettings, 0},
		{"a second SETTINGS", cat(typ, settings, settings), false, ErrCodeFrameUnexpected, 0},
		{"DATA on the control stream", cat(typ, settings, AppendData(nil, []byte("x"))), false, ErrCodeFrameUnexpected, 0},
		{"HEADERS on the control stream", cat(typ, settings, AppendHeaders(nil, section(":status", "200"))), false, ErrCodeFrameUnexpected, 0},
		{"MAX_PUSH_ID from a server", cat(typ, settings, AppendMaxPushID(nil, 1)), false, ErrCodeFrameUnexpected, 0},
		{"CANCEL_PUSH with no push allowed", cat(typ, settings, AppendCancelPush(nil, 0)), false, ErrCodeID, 0},
		{"a bad SETTINGS payload", cat(typ, frame(FrameSettings, []byte{0x02, 0x00})), false, ErrCodeSettings, 0},
		{"the control stream closed", cat(typ, settings), true, ErrCodeClosedCriticalStream, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Client
			var err error
			for i := 0; i < len(tt.stream) && err == nil; i++ {
				_, err = c.ReceiveUni(3, tt.stream[i:i+1], tt.fin && i == len(tt.stream)-1)
			}
			if code, onStream := codeOf(err); (err != nil || tt.code != 0) && (code != tt.code || onStream) {
				t.Fatalf("error %v, want a connection error %v", err, tt.code)
			}
			if err != nil {
				return
			}
			if s, ok := c.PeerSettings(); !ok || s.MaxFieldSectionSize != 1000 {
				t.Errorf("settings %+v, %v", s, ok)
			}
			if id, ok := c.GoAway(); id != tt.goAway || ok != (tt.goAway != 0) {
				t.Errorf("GOAWAY %d %v, want %d", id, ok, tt.goAway)
			}
		})
	}
}

func TestClientUniStreams(t *testing.T) {
	control := append(AppendStreamType(nil, StreamControl), AppendSettings(nil, DefaultSettings())...)
	encoder := AppendStreamType(nil, StreamQPACKEncoder)
	decoder := AppendStreamType(nil, StreamQPACKDecoder)
	type arrival struct {
		id  uint64
		p   []byte
		fin bool
	}
	tests := []struct {
		name     string
		arrivals []arrival
		code     ErrCode
		ignored  bool // the last arrival's stream is to be ignored
	}{
		{"control, encoder and decoder streams", []arrival{{3, control, false}, {7, encoder, false}, {11, decoder, false}, {7, []byte{0x20}, false}, {11, []byte{0x80, 0x01}, false}}, 0, false},
		{"a second control stream", []arrival{{3, control, false}, {7, control, false}}, ErrCodeStreamCreation, false},
		{"a second encoder stream", []arrival{{3, encoder, false}, {7, encoder, false}}, ErrCodeStreamCreation, false},
		{"a push stream", []arrival{{3, AppendStreamType(nil, StreamPush), false}}, ErrCodeID, false},
		{"a dynamic table insert", []arrival{{7, append(encoder, 0x3f, 0x01), false}}, ErrCodeQPACKEncoderStream, false},
		{"the decoder stream closed", []arrival{{11, decoder, false}, {11, nil, true}}, ErrCodeClosedCriticalStream, false},
		{"an unknown type split over arrivals", []arrival{{15, varint(0x21 + 0x1f)[:1], false}, {15, append(varint(0x21 + 0x1f)[1:], "junk"...), false}}, 0, true},
		{"an unknown type's stream ended", []arrival{{15, append(varint(0x54), "junk"...), true}}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Client
			var err error
			var ignored bool
			for _, a := range tt.arrivals {
				if ignored, err = c.ReceiveUni(a.id, a.p, a.fin); err != nil {
					break
				}
			}
			if code, _ := codeOf(err); (err != nil || tt.code != 0) && code != tt.code {
				t.Fatalf("error %v, want %v", err, tt.code)
			}
			if ignored != tt.ignored {
				t.Errorf("ignored %v, want %v", ignored, tt.ignored)
			}
		})
	}
}
