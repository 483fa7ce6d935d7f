package transport

import (
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"time"
)

// VerifyErrorLine turns a certificate verification error (from a
// handshake, wrapped or not) into one line that names the reason: expired
// (with the date), not yet valid, signed by an unknown authority (and who
// signed it), or issued for other names (with the names the certificate
// has). Other errors come back as their own text on one line; nil gives "".
func VerifyErrorLine(err error) string {
	if err == nil {
		return ""
	}
	var inv x509.CertificateInvalidError
	var host x509.HostnameError
	var unknown x509.UnknownAuthorityError
	switch {
	case errors.As(err, &inv) && inv.Reason == x509.Expired && inv.Cert != nil:
		now := time.Now()
		if now.Before(inv.Cert.NotBefore) {
			return fmt.Sprintf("certificate of %s is not valid yet: valid from %s, now %s",
				subject(inv.Cert), stamp(inv.Cert.NotBefore), stamp(now))
		}
		return fmt.Sprintf("certificate of %s has expired: valid until %s, now %s",
			subject(inv.Cert), stamp(inv.Cert.NotAfter), stamp(now))
	case errors.As(err, &host) && host.Certificate != nil:
		return fmt.Sprintf("certificate is not valid for %q: it is for %s", host.Host, names(host.Certificate))
	case errors.As(err, &unknown):
		if unknown.Cert != nil {
			return fmt.Sprintf("certificate of %s is signed by an unknown authority (%s): pass its CA with --cacert, or --insecure",
				subject(unknown.Cert), issuer(unknown.Cert))
		}
		return "certificate signed by an unknown authority: pass its CA with --cacert, or --insecure"
	case errors.As(err, &inv):
		return "certificate refused: " + oneLine(inv.Error())
	}
	return oneLine(err.Error())
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func subject(c *x509.Certificate) string {
	if c.Subject.CommonName != "" {
		return fmt.Sprintf("%q", c.Subject.CommonName)
	}
	return names(c)
}

func issuer(c *x509.Certificate) string {
	if c.Issuer.CommonName != "" {
		return fmt.Sprintf("issuer %q", c.Issuer.CommonName)
	}
	return "issuer " + c.Issuer.String()
}

// names lists the names a certificate is valid for.
func names(c *x509.Certificate) string {
	var all []string
	all = append(all, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		all = append(all, ip.String())
	}
	if len(all) == 0 && c.Subject.CommonName != "" {
		// Go ignores the Common Name since 1.15; say so rather than list it.
		return fmt.Sprintf("no DNS or IP names (only the Common Name %q, which is not checked)", c.Subject.CommonName)
	}
	if len(all) == 0 {
		return "no names at all"
	}
	return strings.Join(all, ", ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
