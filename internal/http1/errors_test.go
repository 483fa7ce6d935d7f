package http1

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestIsMalformed(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"nil is not malformed", nil, false},
		{"ErrIncomplete is not malformed", ErrIncomplete, false},
		{"a wrapped ErrIncomplete is not malformed", fmt.Errorf("read: %w", ErrIncomplete), false},
		{"an unrelated error is not malformed", io.EOF, false},
		{"an unrelated error with the same text is not malformed", errors.New(ErrBadHeader.Error()), false},
		{"ErrHeadTooLarge is malformed", ErrHeadTooLarge, true},
		{"ErrBadStatusLine is malformed", ErrBadStatusLine, true},
		{"ErrBadVersion is malformed", ErrBadVersion, true},
		{"ErrBadHeader is malformed", ErrBadHeader, true},
		{"ErrBadContentLength is malformed", ErrBadContentLength, true},
		{"ErrBadChunk is malformed", ErrBadChunk, true},
		{"ErrChunkExtTooLong is malformed", ErrChunkExtTooLong, true},
		{"ErrTrailerTooLarge is malformed", ErrTrailerTooLarge, true},
		{"ErrURITooLong is malformed", ErrURITooLong, true},
		{"ErrMethodTooLong is malformed", ErrMethodTooLong, true},
		{"a wrapped parse error is malformed", fmt.Errorf("conn 3: %w", ErrBadChunk), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := IsMalformed(c.err); got != c.want {
				t.Errorf("IsMalformed(%v) = %v, want %v", c.err, got, c.want)
			}
		})
	}
}
