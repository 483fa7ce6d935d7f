//go:build linux

package server

// A handler's Flush over HTTP/2 need not wait for the loop: its part takes
// the body's buffer and the handler goes on, up to asyncFlushLimit bytes
// not yet framed, after which Flush waits again. A part posted while the
// one before it is still waiting to be taken, or still being framed, is
// joined to it, so that a response's pieces flushed in a row (gRPC's
// headers, message and trailers) go out in one write instead of one each.

// asyncFlushLimit bounds the flushed bytes a stream holds on the loop's
// side before its handler's Flush waits for them to be framed: the
// client's window, not the server's memory, holds back a client that
// does not read.
const asyncFlushLimit = 64 << 10

// mergePart joins src, a later part of the same response, to dst, not yet
// framed whole: src's body after what is left of dst's, then src's file,
// end and trailers; a reset replaces both. dst's body lies in its own
// pool buffer (a part not waited for always does); src is left empty.
func mergePart(dst, src *h2part) {
	if src.reset {
		dst.free()
		*dst = h2part{reset: true}
		src.free()
		return
	}
	if len(src.body) > 0 {
		if len(dst.body)+len(src.body) <= cap(dst.body) && dst.own != nil {
			dst.body = append(dst.body, src.body...)
		} else {
			nb := append(append(getBuf(), dst.body...), src.body...)
			if dst.own != nil {
				putBuf(dst.own)
			}
			dst.body, dst.own = nb, nb
		}
	}
	if src.own != nil {
		putBuf(src.own)
	}
	if src.status > 0 && dst.status == 0 {
		dst.status, dst.fields = src.status, src.fields
	}
	dst.file = src.file
	dst.end, dst.trailers = src.end, src.trailers
	dst.wait = dst.wait || src.wait
	dst.async += src.async
	*src = h2part{}
}
