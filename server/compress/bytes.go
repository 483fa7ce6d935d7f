package compress

import "unsafe"

// stringBytes views s as bytes without copying; they must not be modified.
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
