// Package fileserve is the portable logic of gust's file server: the name
// a request path gives under the root, the cache of open files and their
// validators, conditional requests, Range and the parts of a
// multipart/byteranges body, and the choice of a precompressed sibling.
// It reads request fields as byte slices and returns decisions; it writes
// no response and touches no socket.
//
// package server drives it (FileServer, Ctx.SendFile) and sends what it
// decides: the response head, then the file's bytes from a File, with
// sendfile(2) on the loop or a piece at a time on an HTTP/2 stream. A
// cache hit allocates nothing.
//
// # Files
//
//   - cache.go: Cache: an entry per path, checked again by stat after an interval, bounded
//   - conditions.go: Request and Evaluate: If-Match, If-None-Match, If-Modified-Since, If-Range
//   - doc.go: this comment
//   - encodings.go: precompressed siblings (.br, .zst, .gz) picked by Accept-Encoding q-values
//   - entry.go: Entry: what a path names, a file's size, validators, type and small bytes
//   - fields.go: the optional-whitespace and list helpers the field parsers share
//   - file.go: File: an open file shared by the cache and responses, closed by the last Drop
//   - inode_other.go: no inode number where the system has none
//   - inode_unix.go: a file's inode number, so the cache sees a file replaced
//   - paths.go: CleanPath: a request path decoded once into a name under the root
//   - ranges.go: ParseRanges, Content-Range and the heads of multipart/byteranges parts
package fileserve
