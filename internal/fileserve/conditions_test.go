package fileserve

import (
	"net/http"
	"testing"
	"time"
)

func TestEvaluate(t *testing.T) {
	mod := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	lastMod := mod.Format(http.TimeFormat)
	before := mod.Add(-time.Hour).Format(http.TimeFormat)
	after := mod.Add(time.Hour).Format(http.TimeFormat)
	const etag = `"abc-10"`
	b := func(s string) []byte { return []byte(s) }
	tests := []struct {
		name string
		r    Request
		want Answer
	}{
		{"no conditions serve", Request{GetOrHead: true}, Serve},
		{"If-Match with the tag serves", Request{GetOrHead: true, IfMatch: b(`"x", "abc-10"`)}, Serve},
		{"If-Match star serves", Request{GetOrHead: true, IfMatch: b("*")}, Serve},
		{"If-Match with another tag fails", Request{GetOrHead: true, IfMatch: b(`"x"`)}, PreconditionFailed},
		{"If-Match never matches a weak tag", Request{GetOrHead: true, IfMatch: b(`W/"abc-10"`)}, PreconditionFailed},
		{"If-Match overrides If-Unmodified-Since", Request{GetOrHead: true, IfMatch: b(etag), IfUnmodifiedSince: b(before)}, Serve},
		{"modified since If-Unmodified-Since fails", Request{GetOrHead: true, IfUnmodifiedSince: b(before)}, PreconditionFailed},
		{"unmodified since If-Unmodified-Since serves", Request{GetOrHead: true, IfUnmodifiedSince: b(lastMod)}, Serve},
		{"If-None-Match with the tag is not modified", Request{GetOrHead: true, IfNoneMatch: b(etag)}, NotModified},
		{"If-None-Match matches weakly", Request{GetOrHead: true, IfNoneMatch: b(`W/"abc-10"`)}, NotModified},
		{"If-None-Match star is not modified", Request{GetOrHead: true, IfNoneMatch: b("*")}, NotModified},
		{"If-None-Match on another method fails", Request{IfNoneMatch: b(etag)}, PreconditionFailed},
		{"If-None-Match with another tag serves", Request{GetOrHead: true, IfNoneMatch: b(`"x"`)}, Serve},
		{"a malformed tag list serves", Request{GetOrHead: true, IfNoneMatch: b(`abc-10`)}, Serve},
		{"If-None-Match overrides If-Modified-Since", Request{GetOrHead: true, IfNoneMatch: b(`"x"`), IfModifiedSince: b(after)}, Serve},
		{"the echoed Last-Modified is not modified", Request{GetOrHead: true, IfModifiedSince: b(lastMod)}, NotModified},
		{"a later date is not modified", Request{GetOrHead: true, IfModifiedSince: b(after)}, NotModified},
		{"an earlier date serves", Request{GetOrHead: true, IfModifiedSince: b(before)}, Serve},
		{"a bad date serves", Request{GetOrHead: true, IfModifiedSince: b("yesterday")}, Serve},
		{"If-Modified-Since is for GET and HEAD", Request{IfModifiedSince: b(after)}, Serve},
		{"If-Range with the tag serves the range", Request{GetOrHead: true, IfRange: b(etag), Range: b("bytes=0-1")}, Serve},
		{"If-Range with another tag serves the whole", Request{GetOrHead: true, IfRange: b(`"x"`), Range: b("bytes=0-1")}, ServeWhole},
		{"If-Range with a weak tag serves the whole", Request{GetOrHead: true, IfRange: b(`W/"abc-10"`), Range: b("bytes=0-1")}, ServeWhole},
		{"If-Range with the date serves the range", Request{GetOrHead: true, IfRange: b(lastMod), Range: b("bytes=0-1")}, Serve},
		{"If-Range with another date serves the whole", Request{GetOrHead: true, IfRange: b(after), Range: b("bytes=0-1")}, ServeWhole},
		{"If-Range without Range serves", Request{GetOrHead: true, IfRange: b(`"x"`)}, Serve},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Evaluate(&tt.r, etag, mod, lastMod); got != tt.want {
				t.Errorf("Evaluate = %d, want %d", got, tt.want)
			}
		})
	}
}
