package server

// Handler answers requests through the native API.
//
// The Ctx and every byte slice it returns belong to the server and are
// valid only until ServeGust returns: copy what you keep.
//
// A handler that panics or calls runtime.Goexit gets a 500 if nothing of
// its response was sent yet; after a Flush, its response is cut short.
// Either way its connection is closed, the fault is logged to
// Config.ErrorLog and the server goes on (but see Inline for Goexit).
type Handler interface {
	ServeGust(c *Ctx)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(c *Ctx)

// ServeGust calls f(c).
func (f HandlerFunc) ServeGust(c *Ctx) { f(c) }
