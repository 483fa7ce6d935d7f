package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/gust-http/gust/internal/transport"
)

// certReloader serves the certificate of --tls-cert and --tls-key to
// every handshake and reads the files again on SIGHUP, so that a renewed
// certificate is served without a restart: connections that are open
// keep theirs, new ones get the new one.
type certReloader struct {
	certFile, keyFile string
	cur               atomic.Pointer[tls.Certificate]
}

// newCertReloader loads the pair once; an error is the flags' to report.
func newCertReloader(certFile, keyFile string) (*certReloader, error) {
	r := &certReloader{certFile: certFile, keyFile: keyFile}
	if _, err := r.reload(); err != nil {
		return nil, err
	}
	return r, nil
}

// get is the tls.Config's GetCertificate.
func (r *certReloader) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return r.cur.Load(), nil
}

// reload reads the files again and serves their certificate from the
// next handshake on, and describes it; on an error the certificate served
// so far stays.
func (r *certReloader) reload() (string, error) {
	c, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		return "", fmt.Errorf("--tls-cert %s --tls-key %s: %w", r.certFile, r.keyFile, err)
	}
	note := ""
	if leaf, err := x509.ParseCertificate(c.Certificate[0]); err == nil {
		note = fmt.Sprintf("certificate %s for %s; SHA-256 fingerprint %s", r.certFile, leafNames(leaf), transport.Fingerprint(leaf.Raw))
	}
	r.cur.Store(&c)
	return note, nil
}

// watchReload makes SIGHUP reload certs (nil: say there is nothing to
// reload) and say on log what it did, until the function it returns is
// called.
func watchReload(certs *certReloader, log io.Writer) (stop func()) {
	hup := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-hup:
			}
			if certs == nil {
				fmt.Fprintln(log, "gust serve: SIGHUP: nothing to reload (certificates from --tls-cert and --tls-key are)")
				continue
			}
			if note, err := certs.reload(); err != nil {
				fmt.Fprintf(log, "gust serve: SIGHUP: keeping the certificate served so far: %v\n", err)
			} else {
				fmt.Fprintf(log, "gust serve: SIGHUP: now serving %s\n", note)
			}
		}
	}()
	return func() {
		signal.Stop(hup)
		close(done)
	}
}
