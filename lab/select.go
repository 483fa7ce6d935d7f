package lab

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Selection says which servers gust bench runs: the built-ins, servers
// given as commands or as running targets, narrowed to a list of names.
type Selection struct {
	Gust    string   // the path of gust's own binary, for the gust-* built-ins
	PeerDir string   // where the peer binaries are, or are built (PeersBinDir)
	Servers []string // NAME=COMMAND, as --server takes them
	Targets []string // NAME=URL, as --target takes them
	Only    []string // the names to run; all when empty
}

// SelectServers returns the servers sel names, in report order: a server
// or target of a built-in's name replaces it. When a built-in peer is
// among them, the peers are built into sel.PeerDir by build (BuildPeers);
// if that fails the peers' cells will say why, and log says so once.
func SelectServers(sel Selection, build func(dir string, log io.Writer) error, log io.Writer) ([]Server, error) {
	all := BuiltinServers(sel.PeerDir, sel.Gust)
	for _, s := range sel.Servers {
		name, command, err := ParseServerFlag(s)
		if err != nil {
			return nil, fmt.Errorf("--server: %w", err)
		}
		all = append(all, Server{Name: name, Command: command})
	}
	for _, s := range sel.Targets {
		name, url, err := ParseServerFlag(s)
		if err != nil {
			return nil, fmt.Errorf("--target: %w", err)
		}
		if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
			return nil, fmt.Errorf("--target %s: URL %q must start with http:// or https://", name, url)
		}
		all = append(all, Server{Name: name, URL: url})
	}
	names := map[string]bool{}
	for _, s := range all {
		if names[s.Name] && !slices.Contains(PeerNames, s.Name) && !strings.HasPrefix(s.Name, "gust-") && s.Name != "nginx" {
			return nil, fmt.Errorf("server %q is given twice", s.Name)
		}
		names[s.Name] = true
	}
	for _, n := range sel.Only {
		if !names[n] {
			return nil, fmt.Errorf("--servers: no server %q (known: %s)", n, strings.Join(slices.Sorted(maps.Keys(names)), ", "))
		}
	}
	var out []Server
	for i, s := range all {
		replaced := slices.ContainsFunc(all[i+1:], func(o Server) bool { return o.Name == s.Name })
		if replaced || (len(sel.Only) > 0 && !slices.Contains(sel.Only, s.Name)) || (len(sel.Only) == 0 && s.OnRequest) {
			continue
		}
		out = append(out, s)
	}
	builtPeer := func(s Server) bool {
		return slices.Contains(PeerNames, s.Name) && s.Command != "" && strings.Contains(s.Command, sel.PeerDir)
	}
	if !slices.ContainsFunc(out, builtPeer) {
		return out, nil
	}
	if err := build(sel.PeerDir, log); err != nil {
		fmt.Fprintf(log, "gust bench: %v; the peer servers' cells will say so\n", err)
		for i := range out {
			if builtPeer(out[i]) {
				out[i].Missing = out[i].Name + ": " + err.Error()
			}
		}
	}
	return out, nil
}
