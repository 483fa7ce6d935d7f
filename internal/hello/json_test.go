package hello

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestJSON(t *testing.T) {
	for _, n := range []int{64, 100, 1000, 1024, 100 << 10, 1 << 20} {
		b := JSON(n)
		if len(b) != n {
			t.Errorf("JSON(%d) is %d bytes", n, len(b))
		}
		var v struct{ Items []map[string]any }
		if err := json.Unmarshal(b, &v); err != nil {
			t.Errorf("JSON(%d) is not JSON: %v", n, err)
		}
		if n >= 1000 && len(v.Items) < n/150 {
			t.Errorf("JSON(%d) has %d records", n, len(v.Items))
		}
		if !bytes.Equal(b, JSON(n)) {
			t.Errorf("JSON(%d) differs between calls", n)
		}
	}
}
