package main

import (
	"bufio"
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"net"
	"sync"
	"unicode/utf8"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsflate"
	"github.com/gobwas/ws/wsutil"

	"github.com/gust-http/gust/peers/internal/peer"
)

// conn is an upgraded connection and its reading side: wsutil's frame
// Reader, which takes fragmented messages whole and hands control frames
// to wsutil's handler (pong, close), and the inflating of compressed
// messages when permessage-deflate was negotiated.
type conn struct {
	net.Conn
	deflated bool
	rd       wsutil.Reader
	control  wsutil.FrameHandlerFunc
	state    wsflate.MessageState // the RSV1 bit of the message being read
}

// newConn reads from nc, after what buffered holds of it: bytes a client
// sent behind its upgrade request, read by net/http before the hijack.
func newConn(nc net.Conn, buffered *bufio.Reader, deflated bool) *conn {
	var src io.Reader = nc
	if n := buffered.Buffered(); n > 0 {
		early, _ := buffered.Peek(n)
		src = io.MultiReader(bytes.NewReader(bytes.Clone(early)), nc)
	}
	c := &conn{Conn: nc, deflated: deflated, control: wsutil.ControlFrameHandler(nc, ws.StateServerSide)}
	c.rd = wsutil.Reader{
		Source:         src,
		State:          ws.StateServerSide,
		CheckUTF8:      !deflated, // a compressed text is checked once inflated
		MaxMessageSize: peer.WSMaxMessage,
		OnIntermediate: c.control,
	}
	if deflated {
		// Extended: the header check lets RSV1 through, for the state to read.
		c.rd.State |= ws.StateExtended
		c.rd.Extensions = []wsutil.RecvExtension{&c.state}
	}
	return c
}

var errInvalidUTF8 = errors.New("text message is not valid UTF-8")

// next returns the next data message, answering control frames on the
// way. An error ends the connection.
func (c *conn) next() (ws.OpCode, []byte, error) {
	for {
		h, err := c.rd.NextFrame()
		if err != nil {
			return 0, nil, err
		}
		if h.OpCode.IsControl() {
			if err := c.control(h, &c.rd); err != nil {
				return 0, nil, err
			}
			continue
		}
		if !c.deflated || !c.state.IsCompressed() {
			data, err := io.ReadAll(&c.rd)
			return h.OpCode, data, err
		}
		data, err := inflate(&c.rd)
		if err == nil {
			// What the inflater left of the message (bytes past a final
			// block), so that the next frame starts where it should.
			err = c.rd.Discard()
		}
		if err == nil && h.OpCode == ws.OpText && !utf8.Valid(data) {
			err = errInvalidUTF8
		}
		return h.OpCode, data, err
	}
}

// Inflaters and deflaters are pooled: without context takeover a message
// needs one only while it is read or written, and compress/flate's are
// large (a deflater at BestSpeed is hundreds of KiB).
var (
	inflaters = sync.Pool{New: func() any {
		return wsflate.NewReader(nil, func(r io.Reader) wsflate.Decompressor { return flate.NewReader(r) })
	}}
	deflaters = sync.Pool{New: func() any {
		return wsflate.NewWriter(nil, func(w io.Writer) wsflate.Compressor {
			fw, _ := flate.NewWriter(w, flate.BestSpeed) // no error at a valid level
			return fw
		})
	}}
)

// inflate reads a compressed message from src, up to peer.WSMaxMessage.
func inflate(src io.Reader) ([]byte, error) {
	fr := inflaters.Get().(*wsflate.Reader)
	defer inflaters.Put(fr)
	fr.Reset(src)
	data, err := io.ReadAll(io.LimitReader(fr, peer.WSMaxMessage+1))
	if err == nil && len(data) > peer.WSMaxMessage {
		err = wsutil.ErrMessageTooLarge
	}
	return data, err
}

// frame returns data as one server frame of type op, compressed when
// deflated.
func frame(op ws.OpCode, data []byte, deflated bool) []byte {
	f := ws.NewFrame(op, true, data)
	if deflated {
		var buf bytes.Buffer
		fw := deflaters.Get().(*wsflate.Writer)
		fw.Reset(&buf)
		_, err := fw.Write(data)
		if err == nil {
			err = fw.Flush()
		}
		deflaters.Put(fw)
		if err == nil {
			f.Payload = buf.Bytes()
			f.Header.Length = int64(len(f.Payload))
			f.Header, err = wsflate.SetBit(f.Header)
		}
		if err != nil { // compress/flate into a buffer does not fail
			panic(err)
		}
	}
	return ws.MustCompileFrame(f)
}
