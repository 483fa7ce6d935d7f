package lab

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestSelectServers(t *testing.T) {
	names := func(ss []Server) string {
		var n []string
		for _, s := range ss {
			n = append(n, s.Name)
		}
		return strings.Join(n, ",")
	}
	for _, tc := range []struct {
		name      string
		sel       Selection
		buildErr  error
		want      string // the names selected, in order
		wantErr   string
		built     bool   // the peers were built
		missing   string // a Missing of the first peer selected
		replacedC string // the command of the last server, when set
	}{
		{name: "all built-ins, peers built", want: "fasthttp,nethttp,nbio,gust-native,gust-adapter,gorillaws,coderws,gobwasws,quicgo,nginx", built: true},
		{name: "the dispatch modes run when named", sel: Selection{Only: []string{"gust-inline", "gust-auto", "gust-pooled"}},
			want: "gust-auto,gust-pooled,gust-inline"},
		{name: "only gust's own: no build", sel: Selection{Only: []string{"gust-native"}}, want: "gust-native"},
		{name: "a target beside them", sel: Selection{Targets: []string{"nginx=http://x:1/"}, Only: []string{"nginx", "gust-native"}}, want: "gust-native,nginx"},
		{name: "a server replaces a built-in of its name", sel: Selection{Servers: []string{"nbio=./mine {addr}"}, Only: []string{"nbio"}},
			want: "nbio", replacedC: "./mine {addr}"},
		{name: "a failed build marks the peers", sel: Selection{Only: []string{"nethttp"}}, buildErr: errors.New("no go"),
			want: "nethttp", built: true, missing: "nethttp: no go"},
		{name: "an unknown name", sel: Selection{Only: []string{"apache"}}, wantErr: `no server "apache" (known: coderws, fasthttp, gobwasws, gorillaws, gust-adapter`},
		{name: "a server replaces the built-in nginx", sel: Selection{Servers: []string{"nginx=./nginx.sh {mode} {addr}"}, Only: []string{"nginx"}},
			want: "nginx", replacedC: "./nginx.sh {mode} {addr}"},
		{name: "a target without http", sel: Selection{Targets: []string{"t=x:1"}}, wantErr: "must start with http://"},
		{name: "a bad server flag", sel: Selection{Servers: []string{"=x"}}, wantErr: "--server: bad"},
		{name: "a name given twice", sel: Selection{Servers: []string{"a=x", "a=y"}}, wantErr: `server "a" is given twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.sel.Gust, tc.sel.PeerDir = "/bin/gust", "/cache/peers"
			built := false
			build := func(dir string, _ io.Writer) error {
				built = dir == tc.sel.PeerDir
				return tc.buildErr
			}
			var log bytes.Buffer
			got, err := SelectServers(tc.sel, build, &log)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if names(got) != tc.want {
				t.Errorf("servers %s, want %s", names(got), tc.want)
			}
			if built != tc.built {
				t.Errorf("peers built: %v, want %v", built, tc.built)
			}
			if tc.missing != "" && (got[0].Missing != tc.missing || !strings.Contains(log.String(), "cells will say so")) {
				t.Errorf("Missing %q, log %q; want %q", got[0].Missing, log.String(), tc.missing)
			}
			if tc.replacedC != "" && got[len(got)-1].Command != tc.replacedC {
				t.Errorf("command %q, want %q", got[len(got)-1].Command, tc.replacedC)
			}
		})
	}
}
