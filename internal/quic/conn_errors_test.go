package quic

import (
	"errors"
	"testing"
	"time"
)

// seal1RTT returns a 1-RTT packet from `from` to its peer carrying frames,
// protected with from's keys, as from would send it.
func seal1RTT(from *Conn, frames []byte, now time.Time) []byte {
	s := from.spaces[spaceApp]
	pn := s.nextPN
	s.nextPN++
	b := AppendShortHeader(make([]byte, 0, 64+len(frames)+Overhead), false, from.keys.phase, from.cids.dcid(), pn, 4)
	pnOff := len(b) - 4
	b = append(b, frames...)
	for len(b)-pnOff < 4+sampleLen {
		b = append(b, 0)
	}
	out, err := s.write.Protect(b, pnOff, pn)
	if err != nil {
		panic(err)
	}
	from.loss.onSent(spaceApp, pn, now, len(out), false, false, noFrames)
	return out
}

// frames concatenates frames in their wire form.
func frames(fs ...Frame) []byte {
	var b []byte
	for i := range fs {
		b = AppendFrame(b, &fs[i])
	}
	return b
}

func streamFrame(id, off uint64, n int, fin bool) Frame {
	return Frame{Type: FrameStream, StreamID: id, Offset: off, Data: make([]byte, n), Fin: fin, HasLength: true}
}

func TestConnPeerViolations(t *testing.T) {
	for _, tc := range []struct {
		name    string
		payload []byte
		want    TransportErrorCode
	}{
		{"a stream past MAX_STREAMS is STREAM_LIMIT_ERROR", frames(streamFrame(4*10, 0, 1, false)), StreamLimitError},
		{"data past MAX_STREAM_DATA is FLOW_CONTROL_ERROR", frames(streamFrame(0, 0, 1001, false)), FlowControlError},
		{"data past MAX_DATA over streams is FLOW_CONTROL_ERROR",
			frames(streamFrame(0, 0, 1000, false), streamFrame(4, 0, 1000, false), streamFrame(8, 0, 1000, false)), FlowControlError},
		{"STREAM on the server's unopened stream is STREAM_STATE_ERROR", frames(streamFrame(1, 0, 1, false)), StreamStateError},
		{"STREAM on the server's send-only stream is STREAM_STATE_ERROR", frames(streamFrame(3, 0, 1, false)), StreamStateError},
		{"MAX_STREAM_DATA on the client's send-only stream is STREAM_STATE_ERROR",
			frames(Frame{Type: FrameMaxStreamData, StreamID: 2, Limit: 10}), StreamStateError},
		{"STOP_SENDING on a receive-only stream is STREAM_STATE_ERROR",
			frames(Frame{Type: FrameStopSending, StreamID: 2, Code: 1}), StreamStateError},
		{"data past the final size is FINAL_SIZE_ERROR", frames(streamFrame(0, 0, 10, true), streamFrame(0, 10, 5, false)), FinalSizeError},
		{"a changed final size is FINAL_SIZE_ERROR", frames(streamFrame(0, 0, 10, true), streamFrame(0, 0, 5, true)), FinalSizeError},
		{"RESET_STREAM below the data received is FINAL_SIZE_ERROR",
			frames(streamFrame(0, 0, 10, false), Frame{Type: FrameResetStream, StreamID: 0, FinalSize: 5}), FinalSizeError},
		{"a truncated frame is FRAME_ENCODING_ERROR", []byte{0x0a, 0x00, 0x40, 0x64}, FrameEncodingError},
		{"an unknown frame type is FRAME_ENCODING_ERROR", []byte{0x40, 0x21}, FrameEncodingError},
		{"HANDSHAKE_DONE from a client is PROTOCOL_VIOLATION", frames(Frame{Type: FrameHandshakeDone}), ProtocolViolation},
		{"NEW_TOKEN from a client is PROTOCOL_VIOLATION", frames(Frame{Type: FrameNewToken, Data: []byte{1}}), ProtocolViolation},
		{"an ACK of a packet never sent is PROTOCOL_VIOLATION",
			frames(Frame{Type: FrameAck, LargestAcked: 1000}), ProtocolViolation},
		{"RETIRE_CONNECTION_ID of an unissued ID is PROTOCOL_VIOLATION",
			frames(Frame{Type: FrameRetireConnectionID, SequenceNumber: 100}), ProtocolViolation},
		{"more connection IDs than the limit is CONNECTION_ID_LIMIT_ERROR", frames(
			Frame{Type: FrameNewConnectionID, SequenceNumber: 10, ConnID: []byte{1, 1, 1, 1}, ResetToken: make([]byte, 16)},
			Frame{Type: FrameNewConnectionID, SequenceNumber: 11, ConnID: []byte{2, 2, 2, 2}, ResetToken: make([]byte, 16)},
			Frame{Type: FrameNewConnectionID, SequenceNumber: 12, ConnID: []byte{3, 3, 3, 3}, ResetToken: make([]byte, 16)},
		), ConnectionIDLimitError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newConnPair(t, func(c *Config) {
				c.MaxStreamsBidi, c.MaxStreamData, c.MaxData, c.ActiveConnIDLimit = 10, 1000, 2500, 2
			})
			p.handshake()
			p.server.Receive(seal1RTT(p.client, tc.payload, p.now), p.now)
			var ce *CloseError
			if !errors.As(p.server.Err(), &ce) || ce.Remote || ce.Code != uint64(tc.want) {
				t.Fatalf("server error %v, want a local close with %v", p.server.Err(), tc.want)
			}
			p.run("the close to arrive", func() bool { return p.client.Err() != nil })
			if !errors.As(p.client.Err(), &ce) || !ce.Remote || ce.Code != uint64(tc.want) {
				t.Fatalf("client error %v, want the peer's close with %v", p.client.Err(), tc.want)
			}
		})
	}
}

func TestConnAllowedTraffic(t *testing.T) {
	p := newConnPair(t, func(c *Config) { c.MaxStreamsBidi, c.MaxStreamData, c.MaxData = 10, 1000, 2500 })
	p.handshake()
	// Within every limit, in any order, repeated: no error.
	p.server.Receive(seal1RTT(p.client, frames(streamFrame(4, 500, 500, true), streamFrame(4, 0, 500, false),
		streamFrame(4, 0, 1000, true), Frame{Type: FramePing}, Frame{Type: FrameStreamDataBlocked, StreamID: 8}, streamFrame(36, 0, 0, false)), p.now), p.now)
	if err := p.server.Err(); err != nil {
		t.Fatal(err)
	}
	var opened []uint64
	for ev := p.server.NextEvent(); ev.Kind != EventNone; ev = p.server.NextEvent() {
		if ev.Kind == EventStreamOpened {
			opened = append(opened, ev.StreamID)
		}
	}
	if len(opened) != 10 || opened[0] != 0 || opened[9] != 36 {
		t.Errorf("streams opened: %v, want 0 to 36 in order", opened)
	}
	buf := make([]byte, 2000)
	n, fin, err := p.server.Read(4, buf)
	if n != 1000 || !fin || err != nil {
		t.Errorf("read %d, fin %v, %v", n, fin, err)
	}
}
