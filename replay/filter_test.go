package replay

import (
	"regexp"
	"strings"
	"testing"
)

func TestFilters(t *testing.T) {
	path := writeFile(t, "a.jsonl", []byte(editsLog))
	t.Run("filters", func(t *testing.T) {
		tests := []struct {
			name string
			opts Options
			want string // request lines' targets
		}{
			{"include", Options{Include: []*regexp.Regexp{regexp.MustCompile(`^/api/users/\d`)}}, "/api/users/1?x=1 /api/users/2 /api/users/3 /api/users/4"},
			{"include and exclude", Options{Include: []*regexp.Regexp{regexp.MustCompile(`^/api/`)}, Exclude: []*regexp.Regexp{regexp.MustCompile(`x=1`), regexp.MustCompile(`/3$`)}}, "/api/users /api/users/2 /api/users/4"},
			{"methods", Options{Methods: []string{"get", "HEAD"}}, "/api/users/1?x=1 /health /api/users/4"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				src := open(t, path, tt.opts)
				var targets []string
				for _, r := range drain(t, src) {
					targets = append(targets, strings.Fields(r.request)[1])
				}
				if got := strings.Join(targets, " "); got != tt.want {
					t.Errorf("sent %s, want %s", got, tt.want)
				}
				if st := src.Stats(); st.Filtered != int64(6-len(targets)) {
					t.Errorf("Filtered = %d, want %d", st.Filtered, 6-len(targets))
				}
			})
		}
	})
}
