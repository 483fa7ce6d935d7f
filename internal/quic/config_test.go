package quic

import (
	"crypto/tls"
	"testing"
	"time"
)

// TestConfigWithDefaultsIsShared: connections made from a Config that
// holds its defaults (WithDefaults) share it; from one that does not,
// each keeps a copy with the defaults, which later changes to the
// caller's Config do not reach.
func TestConfigWithDefaultsIsShared(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	tc := &tls.Config{ServerName: "localhost", NextProtos: []string{"gust-test"}}
	ready := Config{TLSConfig: tc, MaxIdleTimeout: time.Minute}.WithDefaults()
	a, err := NewClientConn(&ready, now)
	if err != nil {
		t.Fatal(err)
	}
	defer a.tls.Close()
	b, err := NewClientConn(&ready, now)
	if err != nil {
		t.Fatal(err)
	}
	defer b.tls.Close()
	if a.cfg != &ready || b.cfg != &ready {
		t.Errorf("connections of a prepared Config keep copies")
	}
	raw := Config{TLSConfig: tc}
	c, err := NewClientConn(&raw, now)
	if err != nil {
		t.Fatal(err)
	}
	defer c.tls.Close()
	raw.MaxData = 1
	if c.cfg == &raw || c.cfg.MaxData != defaultMaxData || c.cfg.MaxIdleTimeout != defaultIdleTimeout || c.cfg.Rand == nil {
		t.Errorf("a connection of an unprepared Config: shared %v, MaxData %d, idle %v", c.cfg == &raw, c.cfg.MaxData, c.cfg.MaxIdleTimeout)
	}
	for _, tweak := range []func(*Config){
		func(c *Config) { c.ConnIDLen = 3 },       // clamped to 4
		func(c *Config) { c.MaxDatagramSize = 1 }, // raised to 1200
		func(c *Config) { c.Rand = nil },
		func(c *Config) { c.ActiveConnIDLimit = 1 },
	} {
		cfg := ready
		tweak(&cfg)
		if got := cfg.ready(); got == &cfg {
			t.Errorf("%+v taken as prepared", cfg)
		}
	}
}
