package replay

import (
	"strings"
	"testing"
	"time"
)

func TestRecordedTimes(t *testing.T) {
	t.Run("lines in one second are spread over it", func(t *testing.T) {
		var log strings.Builder
		for s := 0; s < 3; s++ {
			for k := 0; k < 4; k++ {
				log.WriteString(clfLine(s, "GET", "/"))
			}
		}
		got := drain(t, open(t, writeFile(t, "a.log", []byte(log.String())), Options{Timed: true}))
		for i, r := range got {
			if want := time.Duration(i) * 250 * time.Millisecond; r.at != want {
				t.Errorf("request %d at %s, want %s", i, r.at, want)
			}
		}
	})
	t.Run("fractional times are kept, missing ones follow the line before, backward ones wait", func(t *testing.T) {
		log := `{"path":"/","time":"2026-01-02T03:04:05.100Z"}
{"path":"/","time":"2026-01-02T03:04:05.350Z"}
{"path":"/"}
{"path":"/","time":1767323045.2}
{"path":"/","time":1767323046.6}
`
		got := drain(t, open(t, writeFile(t, "a.jsonl", []byte(log)), Options{Timed: true}))
		want := []time.Duration{0, 250 * time.Millisecond, 250 * time.Millisecond, 250 * time.Millisecond, 1500 * time.Millisecond}
		for i, r := range got {
			if r.at != want[i] {
				t.Errorf("request %d at %s, want %s", i, r.at, want[i])
			}
		}
	})
	t.Run("each pass follows the one before", func(t *testing.T) {
		log := clfLine(0, "GET", "/a") + clfLine(1, "GET", "/b") + clfLine(1, "GET", "/c")
		src := open(t, writeFile(t, "a.log", []byte(log)), Options{Timed: true, Passes: 3})
		got := drain(t, src)
		var ats []string
		for _, r := range got {
			ats = append(ats, r.at.String())
		}
		// A pass spans 2 s: the log's seconds 0 and 1, each a whole second.
		want := "0s 1s 1.5s 2s 3s 3.5s 4s 5s 5.5s"
		if strings.Join(ats, " ") != want {
			t.Errorf("times %v, want %s", ats, want)
		}
		if st := src.Stats(); st.Passes != 3 || st.Lines != 3 || st.Requests != 9 {
			t.Errorf("stats %+v, want 3 passes over 3 lines, 9 requests", st)
		}
	})
	t.Run("untimed replays carry no times", func(t *testing.T) {
		got := drain(t, open(t, writeFile(t, "a.log", []byte(clfLine(0, "GET", "/")+clfLine(5, "GET", "/"))), Options{}))
		if len(got) != 2 || got[0].at != 0 || got[1].at != 0 {
			t.Errorf("got %+v, want two requests at 0", got)
		}
	})
}
