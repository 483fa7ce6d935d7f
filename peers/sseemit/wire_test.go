package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// pcapWriter writes a capture as tcpdump -i lo --time-stamp-precision=nano
// does: Ethernet framing, IPv4, TCP.
type pcapWriter struct {
	buf bytes.Buffer
	seq map[[2]uint16]uint32 // a direction's next sequence number
}

func newPcap() *pcapWriter {
	w := &pcapWriter{seq: map[[2]uint16]uint32{}}
	h := make([]byte, 24)
	binary.LittleEndian.PutUint32(h[0:], 0xa1b23c4d) // nanosecond stamps
	binary.LittleEndian.PutUint16(h[4:], 2)
	binary.LittleEndian.PutUint16(h[6:], 4)
	binary.LittleEndian.PutUint32(h[16:], 262144)
	binary.LittleEndian.PutUint32(h[20:], 1) // Ethernet
	w.buf.Write(h)
	return w
}

// segment records a TCP segment from port src to dst carrying payload at
// t after the capture's start, at the direction's next sequence number
// moved by shift (negative: a segment seen again).
func (w *pcapWriter) segment(t time.Duration, src, dst uint16, payload []byte, shift int) {
	dir := [2]uint16{src, dst}
	seq := w.seq[dir] + uint32(shift)
	if shift == 0 {
		w.seq[dir] += uint32(len(payload))
	}
	pkt := make([]byte, 14+20+20, 14+20+20+len(payload))
	pkt[12], pkt[13] = 0x08, 0x00
	ip := pkt[14:]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(40+len(payload)))
	ip[8], ip[9] = 64, 6
	copy(ip[12:], []byte{127, 0, 0, 1, 127, 0, 0, 1})
	tcp := ip[20:]
	binary.BigEndian.PutUint16(tcp[0:], src)
	binary.BigEndian.PutUint16(tcp[2:], dst)
	binary.BigEndian.PutUint32(tcp[4:], seq)
	tcp[12] = 5 << 4
	pkt = append(pkt, payload...)
	rec := make([]byte, 16)
	at := time.Unix(1_800_000_000, 0).Add(t)
	binary.LittleEndian.PutUint32(rec[0:], uint32(at.Unix()))
	binary.LittleEndian.PutUint32(rec[4:], uint32(at.Nanosecond()))
	binary.LittleEndian.PutUint32(rec[8:], uint32(len(pkt)))
	binary.LittleEndian.PutUint32(rec[12:], uint32(len(pkt)))
	w.buf.Write(rec)
	w.buf.Write(pkt)
}

// frames returns the bytes of the frames write puts through a framer.
func frames(t *testing.T, write func(f *http2.Framer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := write(http2.NewFramer(&b, nil)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestWireTruthTimesRequestsAndEvents checks scripts/sse-wire.py, the
// wire's truth bench-sse.sh compares gust load with, on a capture whose
// times are known: events split over segments, two events in one frame,
// a segment seen twice, and a connection caught mid-frame; over the
// whole capture and over a window.
func TestWireTruthTimesRequestsAndEvents(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	const server, c1, c2 = 19750, 40001, 40002
	ms := time.Millisecond
	req := func(ids ...uint32) []byte {
		return frames(t, func(f *http2.Framer) error {
			for _, id := range ids {
				if err := f.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: []byte{0x82}, EndStream: true, EndHeaders: true}); err != nil {
					return err
				}
			}
			return nil
		})
	}
	data := func(id uint32, body string) []byte {
		return frames(t, func(f *http2.Framer) error { return f.WriteData(id, false, []byte(body)) })
	}
	w := newPcap()
	// The first connection, captured from its start.
	w.segment(0, c1, server, append([]byte(http2.ClientPreface), req(1, 3)...), 0)
	w.segment(1*ms, server, c1, frames(t, func(f *http2.Framer) error {
		return f.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: []byte{0x88}, EndHeaders: true})
	}), 0)
	w.segment(3*ms, server, c1, append(data(1, "id: 1\ndata: a\n\n"), data(3, "id: 1\ndata: a\n\n")...), 0)
	second := data(1, "id: 2\ndata: b\n\n")
	w.segment(13*ms, server, c1, second[:12], 0) // the rest of the frame comes 1 ms later
	w.segment(14*ms, server, c1, second[12:], 0)
	both := data(3, "id: 2\ndata: b\n\nid: 3\ndata: c\n\n")
	w.segment(13500*time.Microsecond, server, c1, both, 0)
	w.segment(15*ms, server, c1, both, -len(both)) // seen again: no events of its own
	// The second connection, caught mid-frame: its first server segment
	// is not whole frames and is passed over until one is.
	w.segment(20*ms, c2, server, req(5), 0)
	w.segment(21*ms, server, c2, data(7, "id: 9\ndata: z\n\n")[4:], 0)
	w.segment(25*ms, server, c2, data(5, "id: 1\ndata: a\n\n"), 0)

	path := filepath.Join(t.TempDir(), "wire.pcap")
	if err := os.WriteFile(path, w.buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	type truth struct {
		Connections, Streams, Events int
		NeverInStep                  int              `json:"never_in_step"`
		FirstEvent                   map[string]int64 `json:"first_event"`
		Gap                          map[string]int64
	}
	for _, tc := range []struct {
		name   string
		window []string
		want   truth
	}{
		// First events 3, 3 and 5 ms; gaps 11 ms (stream 1: 3 to 14), 10.5
		// ms and 0 (stream 3: 3 to 13.5, then the second event of the frame).
		{"the whole capture", nil, truth{2, 3, 6, 0,
			map[string]int64{"p50": 3000, "p90": 5000, "p99": 5000, "max": 5000},
			map[string]int64{"p50": 10500, "p90": 11000, "p99": 11000, "max": 11000}}},
		// From 13.5 ms to 20 ms: the gaps that end in it (timed from events
		// before it), no first event (the requests came before it, or the
		// event after it).
		{"a window", []string{"--from", "1800000000.0135", "--to", "1800000000.020"}, truth{2, 0, 3, 0,
			map[string]int64{},
			map[string]int64{"p50": 10500, "p90": 11000, "p99": 11000, "max": 11000}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"../../scripts/sse-wire.py"}, tc.window...), path, "19750")
			out, err := exec.Command(py, args...).Output()
			if err != nil {
				t.Fatalf("sse-wire.py: %v\n%s", err, out)
			}
			var got truth
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if got.Connections != tc.want.Connections || got.Streams != tc.want.Streams || got.Events != tc.want.Events || got.NeverInStep != 0 {
				t.Errorf("connections %d, streams %d, events %d, never in step %d; want %d, %d, %d, 0",
					got.Connections, got.Streams, got.Events, got.NeverInStep, tc.want.Connections, tc.want.Streams, tc.want.Events)
			}
			if len(got.FirstEvent) != len(tc.want.FirstEvent) || len(got.Gap) != len(tc.want.Gap) {
				t.Errorf("first event %v, gap %v; want %v, %v", got.FirstEvent, got.Gap, tc.want.FirstEvent, tc.want.Gap)
			}
			for q, v := range tc.want.FirstEvent {
				if got.FirstEvent[q] != v {
					t.Errorf("first event %s = %d us, want %d", q, got.FirstEvent[q], v)
				}
			}
			for q, v := range tc.want.Gap {
				if got.Gap[q] != v {
					t.Errorf("gap %s = %d us, want %d", q, got.Gap[q], v)
				}
			}
		})
	}
}
