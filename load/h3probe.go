package load

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/gust-http/gust/internal/quic"
	"github.com/gust-http/gust/internal/transport"
)

// probeQUIC runs one QUIC handshake with the target before the run, on a
// plain UDP socket, so that a target that does not speak QUIC, refuses
// the certificate check or is not there fails fast with its reason
// instead of a run full of connect errors.
func (e *engine) probeQUIC(ctx context.Context) error {
	uc, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(e.quicRemote))
	if err != nil {
		return fmt.Errorf("cannot reach %s over UDP: %w", e.target.hostPort, unwrapOpError(err))
	}
	defer uc.Close()
	cfg := *e.qcfg
	cfg.TLSConfig = e.qcfg.TLSConfig.Clone()
	cfg.TLSConfig.ClientSessionCache = nil // the run's first handshakes are its own
	deadline := time.Now().Add(e.cfg.Timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	qc, err := quic.NewClientConn(&cfg, time.Now())
	if err != nil {
		return err
	}
	buf := make([]byte, 2048)
	for {
		for {
			d, ok := qc.AppendDatagram(buf[:0], time.Now())
			if !ok {
				break
			}
			if _, err := uc.Write(d); err != nil {
				return e.quicProbeError(err)
			}
		}
		if qc.HandshakeComplete() {
			qc.Close(0x100, "", time.Now()) // H3_NO_ERROR
			if d, ok := qc.AppendDatagram(buf[:0], time.Now()); ok {
				uc.Write(d)
			}
			return nil
		}
		if qc.Err() != nil || ctx.Err() != nil {
			return e.quicProbeError(qc.Err())
		}
		wake := deadline
		if t := qc.NextTimeout(); !t.IsZero() && t.Before(wake) {
			wake = t
		}
		uc.SetReadDeadline(wake)
		n, err := uc.Read(buf)
		now := time.Now()
		switch {
		case err == nil:
			qc.Receive(buf[:n], now)
		case errors.Is(err, net.ErrClosed):
			return err
		case !now.Before(deadline):
			return fmt.Errorf("no QUIC handshake with %s within %s: is it an HTTP/3 server listening on UDP?", e.target.hostPort, e.cfg.Timeout)
		case isTimeout(err):
			qc.OnTimeout(now)
		default:
			return e.quicProbeError(err)
		}
		for qc.NextEvent().Kind != quic.EventNone {
		}
	}
}

// quicProbeError says why the probe's handshake failed, in one line.
func (e *engine) quicProbeError(err error) error {
	var ce *quic.CloseError
	if errors.As(err, &ce) && !ce.Application && ce.Code >= 0x100 && ce.Code <= 0x1ff {
		// A TLS alert, carried as CRYPTO_ERROR: a refused certificate, say.
		return &HandshakeError{Addr: e.target.hostPort, Reason: transport.VerifyErrorLine(err), Err: err}
	}
	if err == nil {
		err = errors.New("the connection closed during the handshake")
	}
	return fmt.Errorf("QUIC handshake with %s failed: %w", e.target.hostPort, unwrapOpError(err))
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
