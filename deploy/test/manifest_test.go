package deploytest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The Kubernetes manifests are read as the few lines the tests need, in the
// shape deploy/k8s writes them (deploy/k8s/validate.sh checks them against
// the Kubernetes schemas).

// k8sDir is deploy/k8s, from this package's directory.
const k8sDir = "../k8s"

// manifest is the lines of one file under deploy/k8s.
type manifest struct {
	path  string
	lines []string
}

func readManifest(t *testing.T, rel string) manifest {
	t.Helper()
	path := filepath.Join(k8sDir, rel)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return manifest{path: path, lines: strings.Split(string(data), "\n")}
}

// indent is the number of spaces l begins with.
func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// unquote drops the double quotes around a YAML scalar, if any.
func unquote(t *testing.T, s string) string {
	t.Helper()
	if !strings.HasPrefix(s, `"`) {
		return s
	}
	u, err := strconv.Unquote(s)
	if err != nil {
		t.Fatalf("%q is not a quoted string: %v", s, err)
	}
	return u
}

// list returns the items of the block list under the first "key:" line.
func (m manifest) list(t *testing.T, key string) []string {
	t.Helper()
	for i, l := range m.lines {
		if strings.TrimSpace(l) != key+":" {
			continue
		}
		var items []string
		for _, item := range m.lines[i+1:] {
			text := strings.TrimSpace(item)
			if indent(item) <= indent(l) || !strings.HasPrefix(text, "- ") {
				break
			}
			items = append(items, unquote(t, strings.TrimPrefix(text, "- ")))
		}
		return items
	}
	t.Fatalf("%s has no %s: list", m.path, key)
	return nil
}

// mapping returns the "KEY: value" lines under the first "key:" line,
// comments left out.
func (m manifest) mapping(t *testing.T, key string) map[string]string {
	t.Helper()
	for i, l := range m.lines {
		if strings.TrimSpace(l) != key+":" {
			continue
		}
		out := map[string]string{}
		for _, item := range m.lines[i+1:] {
			text := strings.TrimSpace(item)
			if text == "" || strings.HasPrefix(text, "#") {
				continue
			}
			if indent(item) <= indent(l) {
				break
			}
			k, v, _ := strings.Cut(text, ": ")
			out[k] = unquote(t, v)
		}
		return out
	}
	t.Fatalf("%s has no %s: mapping", m.path, key)
	return nil
}

// value returns the value of the first "key: value" line after the first
// line that is "after:" ("" for the start of the file).
func (m manifest) value(t *testing.T, after, key string) string {
	t.Helper()
	seen := after == ""
	for _, l := range m.lines {
		text := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- "))
		if !seen {
			seen = text == after+":"
			continue
		}
		if v, ok := strings.CutPrefix(text, key+": "); ok {
			return unquote(t, v)
		}
	}
	t.Fatalf("%s has no %s: after %s:", m.path, key, after)
	return ""
}

// envValue returns the value of the container environment variable name
// given as "- name: NAME" followed by "value: V".
func (m manifest) envValue(t *testing.T, name string) string {
	t.Helper()
	for i, l := range m.lines {
		if strings.TrimSpace(l) == "- name: "+name && i+1 < len(m.lines) {
			if v, ok := strings.CutPrefix(strings.TrimSpace(m.lines[i+1]), "value: "); ok {
				return unquote(t, v)
			}
		}
	}
	t.Fatalf("%s sets no %s by value", m.path, name)
	return ""
}

// podmanSecurity turns a pod's security settings, as deploy/k8s writes
// them, into podman run flags: the user and group, a read-only root file
// system (without the tmpfs podman would add, as Kubernetes adds none),
// every capability dropped, no privilege escalation (no_new_privs), and the
// memory limit. It fails the test when a manifest lacks one of them: the
// container would then run with less than the cluster enforces.
func (m manifest) podmanSecurity(t *testing.T) []string {
	t.Helper()
	want := map[string]string{"runAsNonRoot": "true", "readOnlyRootFilesystem": "true", "allowPrivilegeEscalation": "false", "drop": `["ALL"]`}
	for k, v := range want {
		if got := m.value(t, "", k); got != v {
			t.Fatalf("%s: %s is %s, want %s", m.path, k, got, v)
		}
	}
	memory := m.value(t, "limits", "memory")
	mem, ok := strings.CutSuffix(memory, "Mi")
	unit := "m"
	if !ok {
		mem, ok = strings.CutSuffix(memory, "Gi")
		unit = "g"
	}
	if _, err := strconv.Atoi(mem); !ok || err != nil {
		t.Fatalf("%s: memory limit %q is not in Mi or Gi", m.path, memory)
	}
	return []string{
		"--user", m.value(t, "", "runAsUser") + ":" + m.value(t, "", "runAsGroup"),
		"--read-only", "--read-only-tmpfs=false",
		"--cap-drop", "ALL",
		"--security-opt", "no-new-privileges",
		"--memory", mem + unit,
	}
}

// expand replaces $(NAME) in s by env's NAME, as Kubernetes expands a
// container's args: "$$" is a literal "$", and a reference to a name env
// does not define is left as it is.
func expand(s string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "$$"):
			b.WriteByte('$')
			i++
		case strings.HasPrefix(s[i:], "$("):
			end := strings.IndexByte(s[i:], ')')
			if v, ok := env[s[i+2:i+max(end, 2)]]; end > 2 && ok {
				b.WriteString(v)
				i += end
				continue
			}
			b.WriteByte('$')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func TestExpandAsKubernetes(t *testing.T) {
	env := map[string]string{"JOB_COMPLETION_INDEX": "2", "SHARDS": "4", "EMPTY": ""}
	for in, want := range map[string]string{
		"--shard=$(JOB_COMPLETION_INDEX)/$(SHARDS)": "--shard=2/4",
		"--start-at=$(EMPTY)":                       "--start-at=",
		"$(UNSET) stays":                            "$(UNSET) stays",
		"$$(SHARDS) is escaped":                     "$(SHARDS) is escaped",
		"a $ alone, $( unclosed":                    "a $ alone, $( unclosed",
		"$()":                                       "$()",
	} {
		if got := expand(in, env); got != want {
			t.Errorf("expand(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPodmanSecurityOfTheManifests checks the podman flags the container
// test derives from deploy/k8s, so that a change to a manifest's security
// settings shows here, where it runs without root.
func TestPodmanSecurityOfTheManifests(t *testing.T) {
	common := "--user 65532:65532 --read-only --read-only-tmpfs=false --cap-drop ALL --security-opt no-new-privileges"
	for file, want := range map[string]string{
		"server/deployment.yaml": common + " --memory 512m",
		"load/job.yaml":          common + " --memory 1g",
	} {
		if got := strings.Join(readManifest(t, file).podmanSecurity(t), " "); got != want {
			t.Errorf("%s: podman flags %q, want %q", file, got, want)
		}
	}
	if got := readManifest(t, "load/job.yaml").list(t, "args"); len(got) < 2 || got[1] != "--shard=$(JOB_COMPLETION_INDEX)/$(SHARDS)" {
		t.Errorf("the Job's args %q do not pass JOB_COMPLETION_INDEX as --shard's index", got)
	}
}

func TestRootReadOnly(t *testing.T) {
	const line = "1234 1200 0:50 / / %s master:1 - overlay overlay rw,lowerdir=/a\n"
	other := "1235 1234 0:51 / /proc rw,nosuid - proc proc rw\n"
	for opts, want := range map[string]bool{"ro,relatime": true, "rw,relatime": false, "relatime,ro": true, "rootro": false} {
		if got := rootReadOnly(other + fmt.Sprintf(line, opts)); got != want {
			t.Errorf("root mounted %s: read-only %v, want %v", opts, got, want)
		}
	}
	if rootReadOnly(other) {
		t.Error("no root mount: read-only true, want false")
	}
}
