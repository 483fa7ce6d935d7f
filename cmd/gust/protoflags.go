package main

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gust-http/gust/load"
)

// The values of --proto.
const (
	protoHTTP11 = "http1.1" // HTTP/1.1, the default
	protoH2     = "h2"      // HTTP/2: h2c with prior knowledge over http://, ALPN h2 over https://
	protoAuto   = "auto"    // h2 and http/1.1 offered by ALPN, the server picks per connection
	protoH3     = "h3"      // HTTP/3 over QUIC, https:// only
)

// protoFlags are the protocol flags gust load and gust replay share:
// --proto, --http2, which was there first and stays as --proto h2, and
// --http3, the same as --proto h3.
type protoFlags struct {
	proto protoValue
	http2 bool
	http3 bool
}

// add registers the flags on fl; target names where the URL comes from
// in the help ("URL", "--target").
func (f *protoFlags) add(fl *pflag.FlagSet, target string) {
	f.proto.name = protoHTTP11
	fl.Var(&f.proto, "proto", "protocol: http1.1; h2 (HTTP/2: h2c with prior knowledge to an http:// "+target+
		", h2 by ALPN to https://); auto (https:// only: offer h2 and http/1.1 by ALPN, each connection speaks what the server picks); "+
		"h3 (HTTP/3 over QUIC to an https:// "+target+", a UDP socket per connection)")
	fl.BoolVar(&f.http2, "http2", false, "speak HTTP/2, the same as --proto h2")
	fl.BoolVar(&f.http3, "http3", false, "speak HTTP/3 over QUIC, the same as --proto h3")
}

// resolve returns the protocol asked for, one of the proto constants.
func (f *protoFlags) resolve() (string, error) {
	if f.http2 && f.proto.set && f.proto.name != protoH2 {
		return "", fmt.Errorf("--http2 is --proto h2: give one of them, not --http2 with --proto %s", f.proto.name)
	}
	if f.http3 && (f.http2 || f.proto.set && f.proto.name != protoH3) {
		return "", fmt.Errorf("--http3 is --proto h3: give one protocol, not --http3 with --http2 or --proto %s", f.proto.name)
	}
	if f.http2 {
		return protoH2, nil
	}
	if f.http3 {
		return protoH3, nil
	}
	return f.proto.name, nil
}

// apply sets cfg's protocol (HTTP2, AutoProtocol) from the flags, for
// target, the URL the run connects to. streams is -m, which needs a
// protocol that can speak HTTP/2.
func (f *protoFlags) apply(cfg *load.Config, target string, streams int) error {
	proto, err := f.resolve()
	if err != nil {
		return err
	}
	switch {
	case streams != 0 && proto == protoHTTP11:
		return fmt.Errorf("-m %d (streams per connection) needs --http2, --http3 or --proto auto; for HTTP/1.1 use --pipeline", streams)
	case proto == protoH3 && isPlainHTTP(target):
		return fmt.Errorf("--proto h3 needs an https:// URL: QUIC is always encrypted (got %s)", target)
	case proto == protoAuto && isPlainHTTP(target):
		// The engine refuses it too, but only once the log or body is read.
		return load.ErrAutoNeedsTLS
	}
	cfg.HTTP2 = proto == protoH2
	cfg.AutoProtocol = proto == protoAuto
	cfg.HTTP3 = proto == protoH3
	return nil
}

// isPlainHTTP reports whether target is an http:// URL. Anything else is
// left to the engine, whose error says what is wrong with it.
func isPlainHTTP(target string) bool {
	u, err := url.Parse(target)
	return err == nil && strings.EqualFold(u.Scheme, "http")
}

// protoValue is --proto: one of the proto constants, checked as it is
// parsed, so that a misspelt protocol is a flag error.
type protoValue struct {
	name string
	set  bool // given on the command line, not the default
}

func (p *protoValue) String() string { return p.name }

func (p *protoValue) Set(v string) error {
	switch v {
	case protoHTTP11, protoH2, protoAuto, protoH3:
		p.name, p.set = v, true
		return nil
	}
	return fmt.Errorf("must be %s, %s, %s or %s", protoHTTP11, protoH2, protoAuto, protoH3)
}

func (p *protoValue) Type() string { return "http1.1|h2|auto|h3" }
