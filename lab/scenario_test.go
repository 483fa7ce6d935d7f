package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestEmbeddedMatricesParse(t *testing.T) {
	full := DefaultScenarios(false)
	if len(full) != 9 {
		t.Errorf("default matrix has %d scenarios, want 9", len(full))
	}
	quick := DefaultScenarios(true)
	var total time.Duration
	for _, s := range quick {
		total += time.Duration(s.Duration + s.Warmup)
	}
	// Five servers must finish in under 60 s, with time to start them.
	if total*5 > 40*time.Second {
		t.Errorf("quick matrix loads for %s per server, too long for 60 s in all", total)
	}
}

func TestParseScenarios(t *testing.T) {
	good := `{"scenarios": [
		{"name": "ka", "connections": 200, "duration": "2s", "warmup": "1s"},
		{"name": "short", "connections": 50, "keepalive": false, "duration": "1s"},
		{"name": "slow", "connections": 100, "delay": "2s", "duration": "5s"}]}`
	sc, err := ParseScenarios([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc) != 3 || !sc[0].KeepAliveOn() || sc[1].KeepAliveOn() || sc[2].IdealRPS() != 50 {
		t.Errorf("parsed %+v", sc)
	}
	if sc[2].Group() != "keep-alive, handler waits 2s" || sc[1].Group() != "new connection per request" {
		t.Errorf("groups %q %q", sc[2].Group(), sc[1].Group())
	}

	bad := []struct{ name, file, want string }{
		{"a syntax error names its line", "{\"scenarios\": [\n{\"name\": \"x\",,}]}", "line 2"},
		{"an unknown field is named", `{"scenarios": [{"name": "x", "conns": 5, "duration": "1s"}]}`, `unknown field "conns"`},
		{"a duration must be a string", `{"scenarios": [{"name": "x", "connections": 5, "duration": 10}]}`, `durations are strings`},
		{"a bad duration is quoted", `{"scenarios": [{"name": "x", "connections": 5, "duration": "10 secs"}]}`, `bad duration "10 secs"`},
		{"connections are required", `{"scenarios": [{"name": "x", "duration": "1s"}]}`, `connections must be at least 1`},
		{"a duration is required", `{"scenarios": [{"name": "x", "connections": 5}]}`, `positive duration`},
		{"names are unique", `{"scenarios": [{"name": "x", "connections": 5, "duration": "1s"}, {"name": "x", "connections": 6, "duration": "1s"}]}`, `appears twice`},
		{"pipelining needs keep-alive", `{"scenarios": [{"name": "x", "connections": 5, "keepalive": false, "pipeline": 4, "duration": "1s"}]}`, `needs keep-alive`},
		{"an empty file says what it needs", `{}`, `no scenarios`},
		{"an unknown attack is named", `{"scenarios": [{"name": "x", "connections": 5, "duration": "1s", "attack": {"kind": "ddos", "connections": 5}}]}`, `attack kind "ddos" is not one of slowloris`},
		{"an attack needs connections", `{"scenarios": [{"name": "x", "connections": 5, "duration": "1s", "attack": {"kind": "slowloris"}}]}`, `attack connections must be between 1 and`},
		{"an attack fits one process", `{"scenarios": [{"name": "x", "connections": 5, "duration": "1s", "attack": {"kind": "idle-conns", "connections": 100000}}]}`, `attack connections must be between 1 and 15000`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseScenarios([]byte(tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestLoadScenariosNamesTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.json")
	os.WriteFile(p, []byte(`{"scenarios": []}`), 0o644)
	_, err := LoadScenarios(p)
	if err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("error %v does not name %s", err, p)
	}
	_, err = LoadScenarios(p + ".missing")
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("error %v", err)
	}
}

func TestParseCPUSet(t *testing.T) {
	s, err := ParseCPUSet("0,2-3")
	if err != nil || s.String() != "0,2,3" {
		t.Errorf("got %v %v", s, err)
	}
	if _, err := ParseCPUSet("3-1"); err == nil {
		t.Error("3-1 accepted")
	}
	a, b := SplitCPUs(CPUSet{0, 1, 2, 3})
	if a.String() != "0,1" || b.String() != "2,3" {
		t.Errorf("split %v %v", a, b)
	}
}

func TestHardeningMatrixParses(t *testing.T) {
	sc, err := LoadScenarios(filepath.Join("scenarios", "hardening.json"))
	if err != nil {
		t.Fatal(err)
	}
	attacks := 0
	for _, s := range sc {
		if s.Attack != nil {
			attacks++
		}
	}
	if attacks != len(AttackKinds) {
		t.Errorf("the hardening matrix has %d attacks, want one of each of the %d kinds", attacks, len(AttackKinds))
	}
}
