package hello

import (
	"math/rand/v2"
	"strconv"
)

// JSON returns a JSON document of n bytes (at least 64), the same for
// every n on every run: an array of records with ids, names, scores,
// flags and tags drawn from a fixed seed, so it compresses as API
// responses do rather than as a repeated greeting does. gust serve
// --body-json and the peers' -body-json answer with it.
func JSON(n int) []byte {
	n = max(n, 64)
	r := rand.New(rand.NewPCG(23, 5))
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
		"india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa"}
	b := make([]byte, 0, n+256)
	b = append(b, `{"items":[`...)
	for i := 0; len(b) < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, int64(100000+r.IntN(900000)), 10)
		b = append(b, `,"name":"`...)
		b = append(b, words[r.IntN(len(words))]...)
		b = append(b, ' ')
		b = append(b, words[r.IntN(len(words))]...)
		b = append(b, `","score":`...)
		b = strconv.AppendFloat(b, float64(r.IntN(100000))/1000, 'f', 3, 64)
		b = append(b, `,"active":`...)
		b = strconv.AppendBool(b, r.IntN(2) == 0)
		b = append(b, `,"tags":["`...)
		b = append(b, words[r.IntN(len(words))]...)
		b = append(b, `","`...)
		b = append(b, words[r.IntN(len(words))]...)
		b = append(b, `"]}`...)
	}
	// Cut back to n bytes and close the document: drop whole records
	// until the closing "]}" fits, then pad with blanks.
	for len(b)+2 > n {
		i := len(b) - 1
		for i > 0 && b[i] != '{' {
			i--
		}
		if i <= len(`{"items":[`) {
			b = b[:len(`{"items":[`)]
			break
		}
		b = b[:i-1] // the record and its comma
	}
	b = append(b, "]}"...)
	for len(b) < n {
		b = append(b, ' ')
	}
	return b
}
