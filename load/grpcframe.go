package load

// grpcFrames reads a gRPC response body as it arrives, sans I/O: each
// message is a flag byte (0 plain, 1 compressed), a 4-byte big-endian
// length and that many bytes, and a prefix may be split across DATA
// frames anywhere. It counts the messages and skips their bytes: nothing
// is buffered but the prefix being read, so nothing is allocated.
type grpcFrames struct {
	prefix [5]byte
	have   uint8  // prefix bytes read of the message being read
	left   uint32 // bytes of its message still to skip, once the prefix is whole
	msgs   int64  // messages whose bytes all arrived
	err    grpcFrameErr
	// compressed: a message had its flag set, which needs the
	// grpc-encoding the response names (grpcCall.code).
	compressed bool
}

// grpcFrameErr says what is wrong with a body; 0 when nothing is.
type grpcFrameErr uint8

const (
	grpcFrameOK       grpcFrameErr = iota
	grpcFrameBadFlag               // a flag byte other than 0 or 1
	grpcFrameTooLarge              // a length over the limit
	grpcFrameCut                   // the body ended inside a message
)

// maxGRPCMessage is the largest response message accepted, as gRPC
// clients' default receive limit (4 MiB).
const maxGRPCMessage = 4 << 20

// feed reads p, counting the messages it completes, and returns how many
// it completed; limit bounds each message's length. After an error it
// reads nothing more.
func (f *grpcFrames) feed(p []byte, limit uint32) int {
	before := f.msgs
	for len(p) > 0 && f.err == grpcFrameOK {
		if f.have < 5 {
			n := copy(f.prefix[f.have:], p)
			f.have += uint8(n)
			p = p[n:]
			if f.have < 5 {
				break
			}
			if f.prefix[0] > 1 {
				f.err = grpcFrameBadFlag
				break
			}
			f.compressed = f.compressed || f.prefix[0] == 1
			f.left = uint32(f.prefix[1])<<24 | uint32(f.prefix[2])<<16 | uint32(f.prefix[3])<<8 | uint32(f.prefix[4])
			if f.left > limit {
				f.err = grpcFrameTooLarge
				break
			}
		}
		n := f.left
		if uint64(n) > uint64(len(p)) {
			n = uint32(len(p))
		}
		f.left -= n
		p = p[n:]
		if f.left == 0 {
			f.msgs++
			f.have = 0
		}
	}
	return int(f.msgs - before)
}

// end reports the body's error at its end: grpcFrameCut when it stopped
// inside a message.
func (f *grpcFrames) end() grpcFrameErr {
	if f.err == grpcFrameOK && f.have > 0 {
		f.err = grpcFrameCut
	}
	return f.err
}
