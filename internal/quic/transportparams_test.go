package quic

import (
	"bytes"
	"errors"
	"net/netip"
	"reflect"
	"testing"
)

func sampleServerParams() TransportParameters {
	p := DefaultTransportParameters()
	p.OriginalDstConnID = []byte{0x83, 0x94, 0xc8, 0xf0}
	p.MaxIdleTimeout = 30000
	p.StatelessResetToken = bytes.Repeat([]byte{0x5a}, 16)
	p.MaxUDPPayloadSize = 1472
	p.InitialMaxData = 1 << 20
	p.InitialMaxStreamDataBidiLocal = 1 << 16
	p.InitialMaxStreamDataBidiRemote = 1 << 17
	p.InitialMaxStreamDataUni = 1 << 18
	p.InitialMaxStreamsBidi = 100
	p.InitialMaxStreamsUni = 3
	p.AckDelayExponent = 8
	p.MaxAckDelay = 20
	p.DisableActiveMigration = true
	p.HasPreferredAddress = true
	p.PreferredAddress = PreferredAddress{
		IPv4:       netip.MustParseAddrPort("192.0.2.1:4433"),
		IPv6:       netip.MustParseAddrPort("[2001:db8::1]:4433"),
		ConnID:     []byte{1, 2, 3, 4, 5, 6, 7, 8},
		ResetToken: bytes.Repeat([]byte{0xa5}, 16),
	}
	p.ActiveConnIDLimit = 4
	p.InitialSrcConnID = []byte{}
	p.RetrySrcConnID = []byte{9, 9}
	return p
}

func TestTransportParametersRoundTrip(t *testing.T) {
	want := sampleServerParams()
	wire := AppendTransportParameters(nil, &want)
	got, err := ParseTransportParameters(wire, true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip\n got %+v\nwant %+v", got, want)
	}
	if _, err := ParseTransportParameters(wire, false); err == nil {
		t.Error("server-only parameters accepted from a client")
	}
	def := DefaultTransportParameters()
	if w := AppendTransportParameters(nil, &def); len(w) != 0 {
		t.Errorf("defaults appended as %x, want nothing", w)
	}
	got, err = ParseTransportParameters(nil, false)
	if err != nil || !reflect.DeepEqual(got, def) {
		t.Errorf("empty parameters = %+v, %v", got, err)
	}
}

func TestTransportParametersSkipUnknown(t *testing.T) {
	// A reserved parameter, 31*2+27, with a value, then max_idle_timeout.
	wire := []byte{0x40, 0x59, 2, 0xff, 0xff, 0x01, 0x02, 0x40, 0x64}
	p, err := ParseTransportParameters(wire, false)
	if err != nil || p.MaxIdleTimeout != 100 {
		t.Errorf("got %d, %v", p.MaxIdleTimeout, err)
	}
}

func TestTransportParametersErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		wire []byte
	}{
		{"duplicate", []byte{0x01, 0x01, 0x05, 0x01, 0x01, 0x06}},
		{"truncated value", []byte{0x01, 0x02, 0x40}},
		{"integer length mismatch", []byte{0x01, 0x02, 0x05, 0x00}},
		{"max_udp_payload_size below 1200", []byte{0x03, 0x02, 0x44, 0xaf}},
		{"ack_delay_exponent above 20", []byte{0x0a, 0x01, 21}},
		{"max_ack_delay 2^14", []byte{0x0b, 0x04, 0x80, 0x00, 0x40, 0x00}},
		{"active_connection_id_limit 1", []byte{0x0e, 0x01, 0x01}},
		{"initial_max_streams_bidi above 2^60", append([]byte{0x08, 0x08}, AppendVarint(nil, maxStreams+1)...)},
		{"disable_active_migration with a value", []byte{0x0c, 0x01, 0x00}},
		{"connection ID of 21 bytes", append([]byte{0x0f, 21}, make([]byte, 21)...)},
	} {
		_, err := ParseTransportParameters(tc.wire, false)
		var te *TransportError
		if !errors.As(err, &te) || te.Code != TransportParameterError {
			t.Errorf("%s: %x gave %v, want a TRANSPORT_PARAMETER_ERROR", tc.name, tc.wire, err)
		}
	}
	bad := sampleServerParams()
	bad.PreferredAddress.ConnID = []byte{}
	if _, err := ParseTransportParameters(AppendTransportParameters(nil, &bad), true); err == nil {
		t.Error("a preferred address with an empty connection ID was accepted")
	}
}

func FuzzTransportParameters(f *testing.F) {
	p := sampleServerParams()
	f.Add(AppendTransportParameters(nil, &p), true)
	f.Fuzz(func(t *testing.T, b []byte, fromServer bool) {
		p, err := ParseTransportParameters(b, fromServer)
		if err != nil {
			return
		}
		again, err := ParseTransportParameters(AppendTransportParameters(nil, &p), fromServer)
		if err != nil || !reflect.DeepEqual(again, p) {
			t.Fatalf("%x parsed to %+v, reparsed to %+v, %v", b, p, again, err)
		}
	})
}
