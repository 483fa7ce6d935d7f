package load

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/result"
)

// wireOf returns r as HTTP/1.1 text.
func wireOf(r *SourceRequest) string {
	return string(append(http1.AppendHead(nil, &r.Request), r.Body...))
}

// drain takes up to n requests from s, as their HTTP/1.1 text.
func drain(t *testing.T, s *DataSource, n int) []string {
	t.Helper()
	var out []string
	var r SourceRequest
	for range n {
		r = SourceRequest{Endpoint: -1, Request: RequestHead{Headers: r.Request.Headers[:0]}}
		err := s.Next(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, wireOf(&r))
	}
	return out
}

var users = &Data{Name: "users.csv", Columns: []string{"id", "name"},
	Rows: [][]string{{"1", "ada"}, {"2", "grace"}, {"3", "linus, t"}}, Lines: []int{2, 3, 4}}

// TestDataSourceFills checks every placeholder of target, header and body
// filled from the row, Content-Length recomputed for each body, and the
// run ending with the rows.
func TestDataSourceFills(t *testing.T) {
	s, err := NewDataSource(DataConfig{Host: "h", Data: users, Requests: []RequestTemplate{{
		Method: "POST", Target: "/users/{{id}}?n={{id}}", Header: [][2]string{{"X-User", "{{name}}"}},
		Body: `{"id":{{id}},"name":"{{name}}"}`,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	got := drain(t, s, 10)
	want := []string{
		"POST /users/1?n=1 HTTP/1.1\r\nHost: h\r\nUser-Agent: gust\r\nX-User: ada\r\nContent-Length: 21\r\n\r\n{\"id\":1,\"name\":\"ada\"}",
		"POST /users/2?n=2 HTTP/1.1\r\nHost: h\r\nUser-Agent: gust\r\nX-User: grace\r\nContent-Length: 23\r\n\r\n{\"id\":2,\"name\":\"grace\"}",
	}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || !strings.HasSuffix(got[2], `"name":"linus, t"}`) {
		t.Fatalf("requests:\n%q\nwant 3, the first two\n%q", got, want)
	}
	if n, ranOut := s.RowsUsed(); n != 3 || !ranOut {
		t.Fatalf("rows used %d, ran out %v; want 3 and the end", n, ranOut)
	}
}

func TestDataSourceRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  RequestTemplate
		data *Data
		want string
	}{
		{"missing column", RequestTemplate{Target: "/{{uid}}", Where: "t.txt:3"}, users,
			"t.txt:3: placeholder {{uid}} names no column of the data (its columns: id, name)"},
		{"no data", RequestTemplate{Target: "/", Body: "{{id}}"}, nil, "body: placeholder {{id}} needs data"},
		{"header column", RequestTemplate{Target: "/", Header: [][2]string{{"A", "{{x}}"}}}, users, "header A: placeholder {{x}}"},
		{"placeholder in header name", RequestTemplate{Target: "/", Header: [][2]string{{"{{id}}", "v"}}}, users, "not a token"},
		{"space in target", RequestTemplate{Target: "/u/{{name}}"}, users, `users.csv:4: column "name" has ' '`},
		{"relative target", RequestTemplate{Target: "u"}, nil, "must start with /"},
		{"bad method", RequestTemplate{Method: "G T", Target: "/"}, nil, "bad method"},
		{"CR in header", RequestTemplate{Target: "/", Header: [][2]string{{"A", "{{name}}"}}},
			&Data{Name: "d.csv", Columns: []string{"name"}, Rows: [][]string{{"a\r\nB: c"}}}, `d.csv: row 1: column "name" has a control byte, which cannot go in a header value`},
	} {
		_, err := NewDataSource(DataConfig{Host: "h", Data: tc.data, Requests: []RequestTemplate{tc.req}})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line with %q", tc.name, err, tc.want)
		}
	}
}

// TestDataSourceEndpointsCapped: past MaxDataEndpoints requests, the
// rest share "(other)".
func TestDataSourceEndpointsCapped(t *testing.T) {
	for _, n := range []int{MaxDataEndpoints, MaxDataEndpoints + 5} {
		reqs := make([]RequestTemplate, n)
		for i := range reqs {
			reqs[i].Target = fmt.Sprintf("/%d", i)
		}
		s, err := NewDataSource(DataConfig{Host: "h", Order: SequentialOrder, Requests: reqs})
		if err != nil {
			t.Fatal(err)
		}
		got := picks(t, s, n)
		names := s.Endpoints()
		last := names[len(names)-1]
		switch {
		case len(names) != MaxDataEndpoints || got[n-1] != MaxDataEndpoints-1 || got[MaxDataEndpoints-2] != MaxDataEndpoints-2:
			t.Errorf("%d requests: %d endpoints, the last request's %d", n, len(names), got[n-1])
		case n == MaxDataEndpoints && last != fmt.Sprintf("GET /%d", n-1), n > MaxDataEndpoints && last != OtherEndpoint:
			t.Errorf("%d requests: the last endpoint is %q", n, last)
		}
	}
}

// picks returns the endpoints of n requests from s.
func picks(t *testing.T, s *DataSource, n int) []int {
	var out []int
	var r SourceRequest
	for range n {
		if err := s.Next(&r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r.Endpoint)
	}
	return out
}

func TestDataSourceOrders(t *testing.T) {
	reqs := []RequestTemplate{{Target: "/a", Weight: 3}, {Target: "/b"}, {Target: "/c", Weight: 2}}
	for _, tc := range []struct {
		order Order
		want  []int
	}{
		{SequentialOrder, []int{0, 1, 2, 0, 1, 2, 0}},
		// Smooth weighted round robin: a round of 6, each as often as its
		// weight, a's spread out.
		{WeightedOrder, []int{0, 2, 0, 1, 2, 0, 0, 2, 0, 1, 2, 0}},
	} {
		s, err := NewDataSource(DataConfig{Host: "h", Order: tc.order, Requests: reqs})
		if err != nil {
			t.Fatal(err)
		}
		if got := picks(t, s, len(tc.want)); !slices.Equal(got, tc.want) {
			t.Errorf("order %d: %v, want %v", tc.order, got, tc.want)
		}
	}
	// Weights 4, 1, 1 (the README's example), and many requests of large
	// weights: each as often as its weight in a round, quickly.
	if got := evenRound([]RequestTemplate{{Weight: 4}, {}, {}}); !slices.Equal(got, []uint32{0, 0, 1, 2, 0, 0}) {
		t.Errorf("weights 4, 1, 1: %v, want a a b c a a", got)
	}
	many := make([]RequestTemplate, 500)
	for i := range many {
		many[i].Weight = 200 + i%300
	}
	turns := make([]int, len(many))
	for _, i := range evenRound(many) {
		turns[i]++
	}
	for i, n := range turns {
		if n != many[i].Weight {
			t.Fatalf("request %d of weight %d picked %d times a round", i, many[i].Weight, n)
		}
	}
	// Random: by weight within 2% of 60,000 draws, the same for a seed.
	draw := func(seed uint64) []int {
		s, err := NewDataSource(DataConfig{Host: "h", Order: RandomOrder, Seed: seed, Requests: reqs})
		if err != nil {
			t.Fatal(err)
		}
		return picks(t, s, 60000)
	}
	a := draw(42)
	if b := draw(42); !slices.Equal(a, b) {
		t.Error("random order differs for the same seed")
	}
	if c := draw(43); slices.Equal(a, c) {
		t.Error("random order is the same for seeds 42 and 43")
	}
	var count [3]int
	for _, i := range a {
		count[i]++
	}
	for i, w := range []int{3, 1, 2} {
		if want := 10000 * w; count[i] < want*98/100 || count[i] > want*102/100 {
			t.Errorf("random: request %d drawn %d times, want %d +- 2%%", i, count[i], want)
		}
	}
}

// rowsOf returns the X-Row field of n requests from s.
func rowsOf(t *testing.T, s *DataSource, n int) []string {
	var out []string
	for _, w := range drain(t, s, n) {
		_, v, _ := strings.Cut(w, "X-Row: ")
		v, _, _ = strings.Cut(v, "\r\n")
		out = append(out, v)
	}
	return out
}

func TestDataSourceRows(t *testing.T) {
	data := &Data{Name: "d.csv", Columns: []string{"n"}}
	for i := range 10 {
		data.Rows = append(data.Rows, []string{fmt.Sprint(i)})
	}
	all := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
	req := []RequestTemplate{{Target: "/", Header: [][2]string{{"X-Row", "{{n}}"}}}}
	mk := func(c DataConfig) *DataSource {
		c.Host, c.Data, c.Requests = "h", data, req
		s, err := NewDataSource(c)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if got := rowsOf(t, mk(DataConfig{}), 100); !slices.Equal(got, all) {
		t.Errorf("in order: %v, want %v and the end", got, all)
	}
	if got := rowsOf(t, mk(DataConfig{Loop: true}), 25); !slices.Equal(got[20:], all[:5]) || len(got) != 25 {
		t.Errorf("looped: %v, want the rows again and again", got)
	}
	// Random: each row once a pass, in a new order each pass.
	got := rowsOf(t, mk(DataConfig{RowOrder: RandomOrder, Loop: true, Seed: 1}), 20)
	first, second := slices.Clone(got[:10]), slices.Clone(got[10:])
	if slices.Equal(first, second) || slices.Equal(first, all) {
		t.Errorf("random passes %v and %v: want two different shuffles", first, second)
	}
	slices.Sort(first)
	slices.Sort(second)
	if !slices.Equal(first, all) || !slices.Equal(second, all) {
		t.Errorf("random passes hold %v and %v, want every row once each", first, second)
	}
	// Shards: disjoint shares that together are all the rows.
	var union []string
	for i := range 3 {
		sh := result.Shard{Index: i, Count: 3}
		s := mk(DataConfig{Shard: sh})
		if !s.Sharded(sh) || s.Sharded(result.Shard{Index: (i + 1) % 3, Count: 3}) {
			t.Errorf("shard %d: Sharded wrong", i)
		}
		union = append(union, rowsOf(t, s, 100)...)
	}
	slices.Sort(union)
	if !slices.Equal(union, all) {
		t.Errorf("shards' rows together %v, want each row once: %v", union, all)
	}
}

// TestDataSourceNextDoesNotAllocate holds template filling to zero
// allocations once its buffers have grown.
func TestDataSourceNextDoesNotAllocate(t *testing.T) {
	s, err := NewDataSource(DataConfig{Host: "h", Data: users, Loop: true, Order: RandomOrder, RowOrder: RandomOrder,
		Requests: []RequestTemplate{
			{Method: "POST", Target: "/u/{{id}}", Header: [][2]string{{"X-N", "{{name}}"}}, Body: `{"n":"{{name}}"}`},
			{Target: "/static", Weight: 2},
		}})
	if err != nil {
		t.Fatal(err)
	}
	var r SourceRequest
	next := func() {
		r = SourceRequest{Endpoint: -1, Request: RequestHead{Headers: r.Request.Headers[:0]}}
		if err := s.Next(&r); err != nil {
			t.Fatal(err)
		}
	}
	for range 100 {
		next()
	}
	if allocs := testing.AllocsPerRun(1000, next); allocs != 0 {
		t.Errorf("Next allocates %.2f times per request, want 0", allocs)
	}
}
