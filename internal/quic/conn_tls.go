package quic

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"time"
)

// NewClientConn starts a client connection: the ClientHello is ready to
// send with the first AppendDatagram. The Destination Connection ID is
// random, as are this end's IDs.
func NewClientConn(cfg *Config, now time.Time) (*Conn, error) {
	c := newConn(cfg, true)
	dcid, err := c.randomID(8)
	if err != nil {
		return nil, err
	}
	scid, err := c.randomID(c.cfg.ConnIDLen)
	if err != nil {
		return nil, err
	}
	c.cids.init(scid, dcid)
	c.cids.odcid = dcid
	c.addrValidated = true
	if err := c.setInitialKeys(dcid); err != nil {
		return nil, err
	}
	c.tls = tls.QUICClient(&tls.QUICConfig{TLSConfig: tlsConfig(c.cfg.TLSConfig)})
	c.tls.SetTransportParameters(c.transportParams())
	return c, c.start(now)
}

// NewServerConn starts a server connection for a client whose first
// Initial packet was sent to dcid. odcid is nil, or, when the client came
// back after a Retry, the Original Destination Connection ID its token
// carried (dcid is then the Retry's Source Connection ID, and the
// client's address counts as validated). The listener then hands that
// first datagram to Receive. LocalConnIDs lists the IDs to route by.
func NewServerConn(cfg *Config, dcid, odcid []byte, now time.Time) (*Conn, error) {
	c := newConn(cfg, false)
	scid, err := c.randomID(c.cfg.ConnIDLen)
	if err != nil {
		return nil, err
	}
	c.cids.init(scid, nil)
	c.cids.odcid = append([]byte(nil), dcid...)
	if odcid != nil {
		c.cids.retrySCID = c.cids.odcid
		c.cids.odcid = append([]byte(nil), odcid...)
		c.addrValidated = true
	}
	if err := c.setInitialKeys(dcid); err != nil {
		return nil, err
	}
	c.cids.local[0].token = c.resetToken(scid)
	c.tls = tls.QUICServer(&tls.QUICConfig{TLSConfig: tlsConfig(c.cfg.TLSConfig)})
	return c, c.start(now)
}

// tlsConfig returns cfg if it allows TLS 1.3 only, else a copy that does.
// A server's configuration is best given with MinVersion TLS 1.3: its
// session ticket keys live in it, and a copy per connection would make
// keys of its own, so that no ticket would resume on another connection.
func tlsConfig(cfg *tls.Config) *tls.Config {
	if cfg == nil {
		cfg = &tls.Config{}
	}
	if cfg.MinVersion >= tls.VersionTLS13 {
		return cfg
	}
	cfg = cfg.Clone()
	cfg.MinVersion = tls.VersionTLS13
	return cfg
}

// start starts TLS and takes its first events.
func (c *Conn) start(now time.Time) error {
	if err := c.tls.Start(context.Background()); err != nil {
		return err
	}
	c.touchIdle(now)
	return c.handleTLSEvents(now)
}

// setInitialKeys derives the Initial keys from the client's DCID.
func (c *Conn) setInitialKeys(dcid []byte) error {
	ck, sk, err := NewInitialKeys(dcid)
	if err != nil {
		return err
	}
	sp := c.spaces[spaceInitial]
	if c.isClient {
		sp.write, sp.read = ck, sk
	} else {
		sp.write, sp.read = sk, ck
	}
	return nil
}

// transportParams returns this end's transport parameters in wire form.
func (c *Conn) transportParams() []byte {
	p := DefaultTransportParameters()
	p.MaxIdleTimeout = uint64(c.cfg.MaxIdleTimeout / time.Millisecond)
	p.MaxUDPPayloadSize = uint64(max(c.cfg.MaxDatagramSize, 1452))
	p.InitialMaxData = c.cfg.MaxData
	p.InitialMaxStreamDataBidiLocal = c.cfg.MaxStreamData
	p.InitialMaxStreamDataBidiRemote = c.cfg.MaxStreamData
	p.InitialMaxStreamDataUni = c.cfg.MaxStreamData
	p.InitialMaxStreamsBidi = c.cfg.MaxStreamsBidi
	p.InitialMaxStreamsUni = c.cfg.MaxStreamsUni
	p.AckDelayExponent = ackDelayExponent
	p.MaxAckDelay = uint64(maxAckDelay / time.Millisecond)
	p.ActiveConnIDLimit = c.cfg.ActiveConnIDLimit
	p.InitialSrcConnID = c.cids.local[0].id
	if !c.isClient {
		p.OriginalDstConnID = c.cids.odcid
		p.RetrySrcConnID = c.cids.retrySCID
		p.StatelessResetToken = c.cids.local[0].token[:]
	}
	return AppendTransportParameters(nil, &p)
}

// handleTLSEvents takes every event crypto/tls has for the connection.
func (c *Conn) handleTLSEvents(now time.Time) error {
	for {
		ev := c.tls.NextEvent()
		switch ev.Kind {
		case tls.QUICNoEvent:
			if !c.isClient && c.handshakeComplete {
				c.releaseTLS()
			}
			return nil
		case tls.QUICSetReadSecret, tls.QUICSetWriteSecret:
			if err := c.installSecret(ev); err != nil {
				return err
			}
		case tls.QUICWriteData:
			sp := spaceOfLevel(ev.Level)
			c.spaces[sp].cryptoSend.write(ev.Data)
		case tls.QUICTransportParameters:
			if err := c.setPeerParams(ev.Data); err != nil {
				return err
			}
		case tls.QUICTransportParametersRequired:
			c.tls.SetTransportParameters(c.transportParams())
		case tls.QUICHandshakeDone:
			c.handshakeComplete = true
			c.state = stateActive
			if !c.isClient {
				c.handshakeDoneOwed = true
				c.confirmHandshake(now)
				if !c.cfg.TLSConfig.SessionTicketsDisabled {
					// A ticket, so that the client's next connection resumes
					// (its CRYPTO data comes out as the next events).
					c.tls.SendSessionTicket(tls.QUICSessionTicketOptions{})
				}
			}
			c.maxDatagram = uint16(min(uint64(c.cfg.MaxDatagramSize), c.peer.maxUDPPayloadSize, maxUDPPayload))
			c.loss.r.SetMaxDatagramSize(int(c.maxDatagram))
			c.cids.issueMore(c)
			c.event(EventHandshakeDone, 0)
		}
	}
}

// releaseTLS lets crypto/tls's connection go once a server's handshake is
// done and its session ticket written: a client sends no TLS message
// after its Finished in QUIC (RFC 9001 section 4.1.3; keys are updated by
// QUIC itself), and an idle connection then holds a few kilobytes less.
// What ConnectionState reports is kept.
func (c *Conn) releaseTLS() {
	cs := c.tls.ConnectionState()
	c.tlsState = &cs
	c.tls.Close()
	c.tls = nil
}

// spaceOfLevel returns the packet number space of a TLS level.
func spaceOfLevel(l tls.QUICEncryptionLevel) spaceID {
	switch l {
	case tls.QUICEncryptionLevelInitial:
		return spaceInitial
	case tls.QUICEncryptionLevelHandshake:
		return spaceHandshake
	}
	return spaceApp
}

// installSecret makes the keys of a secret TLS reports.
func (c *Conn) installSecret(ev tls.QUICEvent) error {
	if ev.Level == tls.QUICEncryptionLevelEarly {
		return nil // no 0-RTT
	}
	k, err := NewKeys(ev.Suite, ev.Data)
	if err != nil {
		return err
	}
	sp := c.spaces[spaceOfLevel(ev.Level)]
	if ev.Kind == tls.QUICSetReadSecret {
		sp.read = k
		if ev.Level == tls.QUICEncryptionLevelApplication {
			c.keys.suite = ev.Suite
			return c.keys.setRead(k)
		}
	} else {
		sp.write = k
	}
	return nil
}

// setPeerParams parses and checks the peer's transport parameters (RFC
// 9000 section 7.3) and applies their limits.
func (c *Conn) setPeerParams(b []byte) error {
	b = append([]byte(nil), b...) // the parsed values are views
	p, err := ParseTransportParameters(b, c.isClient)
	if err != nil {
		return err
	}
	bad := func(reason string) error {
		return &TransportError{Code: TransportParameterError, Reason: reason}
	}
	if !bytes.Equal(p.InitialSrcConnID, c.cids.peerInitialSCID) || p.InitialSrcConnID == nil {
		return bad("initial_source_connection_id does not match")
	}
	if c.isClient {
		if !bytes.Equal(p.OriginalDstConnID, c.cids.odcid) {
			return bad("original_destination_connection_id does not match")
		}
		if c.retried != (p.RetrySrcConnID != nil) || (c.retried && !bytes.Equal(p.RetrySrcConnID, c.cids.retrySCID)) {
			return bad("retry_source_connection_id does not match")
		}
		if p.StatelessResetToken != nil {
			copy(c.cids.remote[0].token[:], p.StatelessResetToken)
			c.cids.remote[0].hasToken = true
		}
	}
	c.peer = peerLimits{maxAckDelay: uint32(p.MaxAckDelay), ackDelayExponent: uint32(p.AckDelayExponent),
		activeConnIDLimit: p.ActiveConnIDLimit, maxUDPPayloadSize: p.MaxUDPPayloadSize}
	if c.isClient {
		c.peerParams = &p
	}
	if p.MaxIdleTimeout > 0 {
		c.idleTimeout = min(c.idleTimeout, time.Duration(p.MaxIdleTimeout)*time.Millisecond)
	}
	c.flow.sendMax = p.InitialMaxData
	c.strms.setPeerLimits(&p)
	c.loss.r.MaxAckDelay = c.peerMaxAckDelay()
	return nil
}

// confirmHandshake confirms the handshake (RFC 9001 section 4.1.2): the
// Handshake keys go, and 1-RTT key updates become possible.
func (c *Conn) confirmHandshake(now time.Time) {
	if c.handshakeConfirmed {
		return
	}
	c.handshakeConfirmed = true
	c.loss.r.SetHandshakeConfirmed()
	c.dropSpace(spaceHandshake)
	c.dropSpace(spaceInitial)
}

// dropSpace discards a space's keys and everything sent in it (RFC 9001
// section 4.9).
func (c *Conn) dropSpace(s spaceID) {
	sp := c.spaces[s]
	if sp.dropped {
		return
	}
	sp.dropped = true
	sp.read, sp.write = nil, nil
	sp.ackDeadline, sp.ackEliciting, sp.ackNew = time.Time{}, 0, false
	sp.cryptoSend.reset()
	sp.cryptoRecv = recvBuf{} // nothing more arrives in a dropped space: its buffer goes
	c.probeOwed[s] = 0
	c.loss.discard(c, s)
	if c.long != nil && c.long[0].dropped && c.long[1].dropped {
		for i := range c.long {
			r := c.long[i].ecnRecv
			c.longMarks += r.ECT0 + r.ECT1 + r.CE
		}
		c.spaces[spaceInitial], c.spaces[spaceHandshake], c.long = &discardedSpace, &discardedSpace, nil
	}
}

// cryptoError turns a crypto/tls failure into the transport error for its
// alert (RFC 9001 section 4.8).
func cryptoError(err error) error {
	var te *TransportError
	if errors.As(err, &te) {
		return te
	}
	var alert tls.AlertError
	if errors.As(err, &alert) {
		return &TransportError{Code: CryptoErrorBase + TransportErrorCode(alert), Reason: err.Error(), Cause: err}
	}
	return &TransportError{Code: CryptoErrorBase + 80, Reason: err.Error(), Cause: err} // internal_error alert
}

// keyUpdate holds the 1-RTT keys across key updates (RFC 9001 section 6).
type keyUpdate struct {
	suite       uint16
	phase       bool  // the key phase of the current keys
	next        *Keys // read keys of the next phase, made ahead
	prev        *Keys // read keys of the previous phase, for late packets
	firstPN     int64 // the first packet sent in the current phase; -1 before it
	confirmed   bool  // a packet of the current phase was acknowledged
	sentInPhase uint64
}

// setRead installs the first 1-RTT read keys.
func (k *keyUpdate) setRead(r *Keys) error {
	n, err := r.Next()
	if err != nil {
		return err
	}
	k.next, k.firstPN, k.confirmed = n, -1, true
	return nil
}

// rotate moves both directions to the next phase.
func (c *Conn) rotateKeys() error {
	sp := c.spaces[spaceApp]
	w, err := sp.write.Next()
	if err != nil {
		return err
	}
	nn, err := c.keys.next.Next()
	if err != nil {
		return err
	}
	c.keys.prev = sp.read
	sp.read, sp.write = c.keys.next, w
	c.keys.next = nn
	c.keys.phase = !c.keys.phase
	c.keys.firstPN, c.keys.confirmed, c.keys.sentInPhase = -1, false, 0
	return nil
}

// errKeyUpdateNotYet refuses a key update before it is allowed.
var errKeyUpdateNotYet = errors.New("quic: key update not allowed yet")

// UpdateKeys starts a 1-RTT key update (RFC 9001 section 6.1). It is
// refused until the handshake is confirmed and a packet of the current
// phase has been acknowledged.
func (c *Conn) UpdateKeys() error {
	if !c.handshakeConfirmed || !c.keys.confirmed || c.spaces[spaceApp].write == nil {
		return errKeyUpdateNotYet
	}
	return c.rotateKeys()
}

// KeyPhase returns the current 1-RTT key phase bit.
func (c *Conn) KeyPhase() bool { return c.keys.phase }
