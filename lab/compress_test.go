package lab

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestCompressScenarios(t *testing.T) {
	sc, err := LoadScenarios(filepath.Join("scenarios", "compress.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc) != 3 || sc[0].Compress.coding() != "gzip" || sc[0].Compress.bodyBytes() != 100<<10 {
		t.Fatalf("compress.json: %+v", sc)
	}
	if h := sc[1].requestHeader(); len(h) != 1 || h[0] != [2]string{"Accept-Encoding", "br"} {
		t.Errorf("br cell's header: %q", h)
	}
	if h := (Scenario{}).requestHeader(); h != nil {
		t.Errorf("a plain cell sends %q", h)
	}
	if g := sc[0].Group(); !strings.Contains(g, "gzip-compressed 100 KiB JSON") {
		t.Errorf("group %q", g)
	}
}

func TestCompressCommand(t *testing.T) {
	sc := Scenario{Name: "c", Compress: &Compress{BodyBytes: 2048}}
	servers := BuiltinServers("/peers", "/bin/gust")
	want := map[string]string{
		"fasthttp":    " -compress -body-json 2048",
		"nethttp":     " -compress -body-json 2048",
		"gust-native": " --compress --body-json 2048",
		"nbio":        "",
	}
	for _, srv := range servers {
		w, ok := want[srv.Name]
		if !ok {
			continue
		}
		srv.Probe = nil // no gust binary here to ask
		got, err := srv.compressCommand("X", sc)
		switch {
		case w == "" && err == nil:
			t.Errorf("%s: %q, want an error (it cannot compress)", srv.Name, got)
		case w != "" && (err != nil || got != "X"+w):
			t.Errorf("%s: %q, %v; want %q", srv.Name, got, err, "X"+w)
		}
	}
	br := Scenario{Name: "c", Compress: &Compress{Coding: "br"}}
	for _, srv := range servers {
		if !runs(srv, br) {
			continue // a WebSocket library's peer has no compression cells
		}
		srv.Probe = nil
		if _, err := srv.compressCommand("X", br); (err != nil) != (srv.Name == "nethttp" || srv.Name == "nbio" || srv.Name == "nginx") {
			t.Errorf("%s with br: %v", srv.Name, err)
		}
	}
	if got, err := servers[0].compressCommand("X", Scenario{}); got != "X" || err != nil {
		t.Errorf("a plain cell: %q, %v", got, err)
	}
}

func TestCompressValidate(t *testing.T) {
	for _, c := range []Compress{{Coding: "deflate"}, {BodyBytes: 10}} {
		sc := Scenario{Name: "c", Connections: 1, Duration: Duration(1e9), Compress: &c}
		if err := sc.validate(); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}
