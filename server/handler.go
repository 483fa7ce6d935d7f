package server

// Handler answers requests through the native API.
//
// The Ctx and every byte slice it returns belong to the server and are
// valid only until ServeGust returns: copy what you keep.
type Handler interface {
	ServeGust(c *Ctx)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(c *Ctx)

// ServeGust calls f(c).
func (f HandlerFunc) ServeGust(c *Ctx) { f(c) }
