package compress

import (
	"fmt"
	"math/rand/v2"
)

// jsonBody returns about n bytes of realistic JSON, the same every call.
func jsonBody(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}
	b := []byte(`{"items":[`)
	for i := 0; len(b) < n-100; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `{"id":%d,"name":"%s %s","score":%.3f,"active":%t,"tags":["%s","%s"]}`,
			i, words[r.IntN(8)], words[r.IntN(8)], r.Float64()*100, r.IntN(2) == 0, words[r.IntN(8)], words[r.IntN(8)])
	}
	return append(b, "]}"...)
}
