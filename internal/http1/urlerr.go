package http1

import (
	"errors"
	"net/url"
)

// UnwrapURLError returns the reason inside a *url.Error (url.Parse's
// "parse \"x\": ..." wrapper), so that a message quoting the URL itself does
// not quote it twice; other errors are returned as they are.
func UnwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
