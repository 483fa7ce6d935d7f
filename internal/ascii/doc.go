// Package ascii folds ASCII letter case for the protocol code of gust:
// HTTP field names, tokens and schemes are case-insensitive in ASCII only
// (RFC 9110 section 5.1), so only A-Z and a-z are folded and every other
// byte, UTF-8 included, must match exactly.
//
// The functions take a string or a []byte on the side that comes from the
// wire and never allocate, except ToLower when it must return a new string.
// The Lower variants compare against a constant already in lower case,
// which saves one fold a byte on the parsers' hot paths; EqualFold folds
// both sides for names that come from callers.
//
// # Files
//
//   - ascii.go: Lower, EqualFold, EqualLower, HasPrefixLower, LowerInPlace, ToLower
//   - doc.go: this comment
package ascii
