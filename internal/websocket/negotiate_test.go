package websocket

import "testing"

func TestNegotiateDeflate(t *testing.T) {
	cases := []struct {
		name     string
		offer    string
		ctx      bool
		ok       bool
		params   DeflateParams
		response string
	}{
		{"a bare offer, context takeover allowed", "permessage-deflate", true, true,
			DeflateParams{}, "permessage-deflate"},
		{"a bare offer, context takeover refused", "permessage-deflate", false, true,
			DeflateParams{ServerNoContextTakeover: true, ClientNoContextTakeover: true},
			"permessage-deflate; server_no_context_takeover; client_no_context_takeover"},
		{"a browser's offer", "permessage-deflate; client_max_window_bits", true, true,
			DeflateParams{}, "permessage-deflate"},
		{"the client's window value is echoed", "permessage-deflate; client_max_window_bits=10", true, true,
			DeflateParams{ClientMaxWindowBits: 10}, "permessage-deflate; client_max_window_bits=10"},
		{"the server's window is accepted", "permessage-deflate; server_max_window_bits=12; server_no_context_takeover", true, true,
			DeflateParams{ServerNoContextTakeover: true, ServerMaxWindowBits: 12}, "permessage-deflate; server_no_context_takeover; server_max_window_bits=12"},
		{"quoted values", `permessage-deflate; server_max_window_bits="9"`, true, true,
			DeflateParams{ServerMaxWindowBits: 9}, "permessage-deflate; server_max_window_bits=9"},
		{"the first acceptable of several offers", "x-webkit-deflate-frame, permessage-deflate; server_max_window_bits=7, permessage-deflate; client_no_context_takeover", true, true,
			DeflateParams{ClientNoContextTakeover: true}, "permessage-deflate; client_no_context_takeover"},
		{"case and spaces", "  Permessage-Deflate ;  client_no_context_takeover  ", true, true,
			DeflateParams{ClientNoContextTakeover: true}, "permessage-deflate; client_no_context_takeover"},
		{"an unknown parameter", "permessage-deflate; foo", true, false, DeflateParams{}, ""},
		{"a repeated parameter", "permessage-deflate; client_no_context_takeover; client_no_context_takeover", true, false, DeflateParams{}, ""},
		{"a value on a flag", "permessage-deflate; server_no_context_takeover=1", true, false, DeflateParams{}, ""},
		{"a window below 8", "permessage-deflate; server_max_window_bits=7", true, false, DeflateParams{}, ""},
		{"a window above 15", "permessage-deflate; client_max_window_bits=16", true, false, DeflateParams{}, ""},
		{"a leading zero", "permessage-deflate; server_max_window_bits=09", true, false, DeflateParams{}, ""},
		{"server_max_window_bits without a value", "permessage-deflate; server_max_window_bits", true, false, DeflateParams{}, ""},
		{"another extension only", "x-foo; a=1", true, false, DeflateParams{}, ""},
		{"empty", "", true, false, DeflateParams{}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, resp, ok := NegotiateDeflate([]byte(tc.offer), tc.ctx)
			if ok != tc.ok || p != tc.params || string(resp) != tc.response {
				t.Fatalf("got %+v %q %v, want %+v %q %v", p, resp, ok, tc.params, tc.response, tc.ok)
			}
			if !ok {
				return
			}
			// What the server answers, the client must read back the same.
			back, err := ParseDeflateResponse(resp)
			if err != nil || back != p {
				t.Fatalf("ParseDeflateResponse(%q) = %+v, %v", resp, back, err)
			}
		})
	}
}

func TestParseDeflateResponse(t *testing.T) {
	for _, bad := range []string{
		"", "x-foo", "permessage-deflate, permessage-deflate", "permessage-deflate; client_max_window_bits",
		"permessage-deflate; bogus", "permessage-deflate; server_max_window_bits=20",
	} {
		if p, err := ParseDeflateResponse([]byte(bad)); err == nil {
			t.Errorf("%q accepted as %+v", bad, p)
		}
	}
	p, err := ParseDeflateResponse([]byte("permessage-deflate; server_no_context_takeover; client_max_window_bits=9"))
	if err != nil || p != (DeflateParams{ServerNoContextTakeover: true, ClientMaxWindowBits: 9}) {
		t.Fatalf("%+v %v", p, err)
	}
}

func TestDeflateOfferAccepts(t *testing.T) {
	offer := DeflateParams{ServerNoContextTakeover: true, ServerMaxWindowBits: 10}
	if got := string(AppendDeflateOffer(nil, offer)); got != "permessage-deflate; server_no_context_takeover; server_max_window_bits=10; client_max_window_bits" {
		t.Fatal(got)
	}
	for resp, want := range map[DeflateParams]bool{
		{ServerNoContextTakeover: true, ServerMaxWindowBits: 10}:                         true,
		{ServerNoContextTakeover: true, ServerMaxWindowBits: 9, ClientMaxWindowBits: 12}: true,
		{ServerNoContextTakeover: true, ServerMaxWindowBits: 11}:                         false,
		{ServerNoContextTakeover: true}:                                                  false,
		{ServerMaxWindowBits: 10}:                                                        false,
	} {
		if got := offer.Accepts(resp); got != want {
			t.Errorf("Accepts(%+v) = %v", resp, got)
		}
	}
}
