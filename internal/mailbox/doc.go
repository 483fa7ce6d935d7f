// Package mailbox is the one queue an event loop takes work from other
// goroutines through: any goroutine posts, and the loop that owns the box
// takes what was posted in batches and hands it out one item at a time.
//
// A batch is handed out from the box itself, not from a stack, so that a
// hand-out can resume: when the code an item is handed to never returns
// to the loop (gust/server's Auto mode moves a handler that outlives its
// budget off the loop, and the loop goes on in a new goroutine), the new
// goroutine calls Take and Next again and goes on from the next item.
//
// # Files
//
//   - mailbox.go: Box, its posting side and its resumable hand-out
package mailbox
