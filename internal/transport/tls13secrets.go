package transport

import (
	"bytes"
	"crypto/tls"
	"encoding/hex"
	"io"
)

// How a server connection learns its TLS 1.3 application traffic secrets
// from crypto/tls without forking it: PrepareServerConfig gives the
// server's tls.Config a GetConfigForClient that returns, per connection, a
// clone whose KeyLogWriter is that connection's secretLog. crypto/tls
// writes the secrets there as it derives them (the NSS key log lines
// CLIENT_TRAFFIC_SECRET_0 and SERVER_TRAFFIC_SECRET_0), on the handshake's
// own goroutine; they never leave the process. Session tickets are
// unaffected: a clone without explicit ticket keys uses the original
// Config's (crypto/tls's Config.ticketKeys).

// PrepareServerConfig returns a clone of cfg, for NewServerTLS, whose
// connections take over their record layer from crypto/tls once a TLS 1.3
// handshake on an AES-GCM suite has ended (tls13direct.go): an idle
// connection then holds no crypto/tls state, and a record costs no
// allocation. A GetConfigForClient and a KeyLogWriter of cfg's are still
// called. Connections on a config not prepared keep crypto/tls's record
// layer throughout.
func PrepareServerConfig(cfg *tls.Config) *tls.Config {
	base := cfg.Clone()
	user := cfg.GetConfigForClient
	base.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		chosen := base
		if user != nil {
			c, err := user(hello)
			if err != nil {
				return nil, err
			}
			if c != nil {
				chosen = c
			}
		}
		r, ok := hello.Conn.(*recordConn)
		if !ok || r.secrets == nil || !directRecords {
			if chosen == base {
				return nil, nil
			}
			return chosen, nil
		}
		per := chosen.Clone()
		per.GetConfigForClient = nil
		r.secrets.next = chosen.KeyLogWriter
		per.KeyLogWriter = r.secrets
		return per, nil
	}
	return base
}

// secretLog takes the key log lines of one connection's handshake and
// keeps its application traffic secrets; it also captures what the
// server writes once its own secret is known (its last flight's records:
// Finished, then session tickets under the new key), to learn how many
// records crypto/tls sealed under that key.
type secretLog struct {
	next           io.Writer // the user's KeyLogWriter, if any
	captures       bool      // keep the writes (a server's; a client counts its own records)
	client, server []byte    // CLIENT_ and SERVER_TRAFFIC_SECRET_0
	written        []byte    // the server's records written after server was set
}

var (
	labelClientTraffic = []byte("CLIENT_TRAFFIC_SECRET_0 ")
	labelServerTraffic = []byte("SERVER_TRAFFIC_SECRET_0 ")
)

// Write takes one key log line ("LABEL <client random> <secret>\n", as
// crypto/tls writes them: one line a call).
func (s *secretLog) Write(line []byte) (int, error) {
	if s.next != nil {
		if _, err := s.next.Write(line); err != nil {
			return 0, err
		}
	}
	var dst *[]byte
	switch {
	case bytes.HasPrefix(line, labelClientTraffic):
		dst = &s.client
	case bytes.HasPrefix(line, labelServerTraffic):
		dst = &s.server
	default:
		return len(line), nil
	}
	fields := bytes.Fields(line)
	if len(fields) != 3 {
		return len(line), nil
	}
	secret := make([]byte, hex.DecodedLen(len(fields[2])))
	if _, err := hex.Decode(secret, fields[2]); err == nil {
		*dst = secret
	}
	return len(line), nil
}

// sent keeps a copy of bytes the server wrote during the handshake, once
// its application secret is known.
func (s *secretLog) sent(p []byte) {
	if s.captures && s.server != nil {
		s.written = append(s.written, p...)
	}
}

// recordsSealed returns how many records at the end of the server's
// writes are sealed under d's key (d at sequence number 0): the first
// record that opens at sequence 0 and every one after it, each opening at
// the next number. ok is false if a record after the first one does not
// open: the count would be a guess, and a wrong one would reuse a nonce.
func (s *secretLog) recordsSealed(d *direction) (n uint64, ok bool) {
	var scratch []byte
	started := false
	for b := s.written; len(b) >= recordHeaderLen; {
		end := recordSize(b)
		if end > len(b) {
			return 0, false
		}
		rec := b[:end]
		b = b[end:]
		if rec[0] != 0x17 {
			if started {
				return 0, false
			}
			continue
		}
		d.seq = n
		_, _, err := d.open(scratch[:0], rec)
		switch {
		case err == nil:
			started = true
			n++
		case started:
			return 0, false
		}
	}
	d.seq = 0
	return n, true
}
