package server

// markCloseOnExec does nothing on Windows, where a handle is inherited by
// a child only when asked for.
func markCloseOnExec(int) error { return nil }
