package replay

import (
	"bufio"
	"compress/gzip"
	"io"
)

const (
	readBufSize = 64 << 10
	maxLine     = 16 << 20
)

// input reads one pass over a log as lines, decompressing gzip (detected
// by its magic bytes) on the way. Its buffers are kept from pass to pass.
type input struct {
	src   io.Reader
	raw   *bufio.Reader // over src
	gz    *gzip.Reader  // over raw, when the log is gzip-compressed
	lines *bufio.Reader // over gz or raw
	long  []byte        // a line longer than the buffer, put together
	n     int64         // number of the last line read, from 1
}

// reset starts reading r from its beginning.
func (in *input) reset(r io.Reader) error {
	in.src, in.n = r, 0
	if in.raw == nil {
		in.raw = bufio.NewReaderSize(r, readBufSize)
	} else {
		in.raw.Reset(r)
	}
	magic, _ := in.raw.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		var err error
		if in.gz == nil {
			in.gz, err = gzip.NewReader(in.raw)
		} else {
			err = in.gz.Reset(in.raw)
		}
		if err != nil {
			return err
		}
		in.lines = bufio.NewReaderSize(in.gz, readBufSize)
		return nil
	}
	in.lines = in.raw
	return nil
}

// next returns the next line without its line end; it is valid until the
// next call. At the end of the input it returns io.EOF; a line longer than
// maxLine is read over and reported as errLineTooLong.
func (in *input) next() ([]byte, error) {
	line, err := in.lines.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		in.long = append(in.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = in.lines.ReadSlice('\n')
			if len(in.long) <= maxLine {
				in.long = append(in.long, line...)
			}
		}
		line = in.long
	}
	switch {
	case err == io.EOF && len(line) > 0:
		err = nil // the last line has no line end
	case err == io.EOF:
		return nil, io.EOF
	case err != nil:
		return nil, err
	}
	in.n++
	if len(line) > maxLine {
		return nil, errLineTooLong
	}
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}
