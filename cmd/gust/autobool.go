package main

import "strconv"

// autoBool is a boolean flag whose default depends on other flags: it
// remembers whether it was given (--flag, --flag=false).
type autoBool struct {
	given, value bool
}

// Set parses a given value.
func (b *autoBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	b.given, b.value = true, v
	return nil
}

// String prints the value.
func (b *autoBool) String() string { return strconv.FormatBool(b.value) }

// Type names the value for help.
func (b *autoBool) Type() string { return "bool" }

// or is the value if given, else def.
func (b *autoBool) or(def bool) bool {
	if b.given {
		return b.value
	}
	return def
}
