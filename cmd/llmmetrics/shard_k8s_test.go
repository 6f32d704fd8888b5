package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/llmmetrics/llmmetrics/drive"
)

// --shard auto reads its i from JOB_COMPLETION_INDEX (0-based: index 1 is
// shard 2) and its N from --shards or LLMMETRICS_SHARDS: the share and the
// plan id are those of --shard 2/3.
func TestShardAuto(t *testing.T) {
	base := []string{"--url", "http://h/v1/chat/completions", "--concurrency", "5", "--rate", "3", "--requests", "10"}
	share := func(args ...string) (share, drive.Plan) {
		t.Helper()
		fs, f := newRunFlags()
		require.NoError(t, fs.Parse(append(slices.Clone(base), args...)))
		p := drive.Plan{Concurrency: 5, Requests: 10, Rate: 3, Seed: 1}
		sh, err := f.shardFlags.apply(fs, &p)
		require.NoError(t, err, "%v", args)
		return sh, p
	}
	want, wantPlan := share("--shard", "2/3")
	t.Setenv(indexVar, "1")
	t.Setenv(shardsVar, "")
	for _, args := range [][]string{{"--shard", "auto", "--shards", "3"}, {"--shard", "auto", "--shards", "3", "--out", "x.jsonl"}} {
		sh, p := share(args...)
		assert.Equal(t, want, sh, "%v", args)
		assert.Equal(t, wantPlan, p, "%v", args)
	}
	t.Setenv(shardsVar, "3")
	for _, args := range [][]string{{"--shard", "auto"}, {"--shard", "auto", "--shards", "3"}} {
		sh, p := share(args...)
		assert.Equal(t, want, sh, "%v", args)
		assert.Equal(t, 2, sh.i)
		assert.Equal(t, 2, p.Concurrency, "5 over 3: 2, 2 and 1")
		assert.Equal(t, 3, p.Requests, "10 over 3: 4, 3 and 3")
	}
}

// Each mistake of --shard auto is one line, exit status 2, naming the
// variable or the flag and what to give.
func TestShardAutoRefusals(t *testing.T) {
	for _, c := range []struct {
		index, shards string // "-": unset
		args          []string
		want          string
	}{
		{"-", "4", []string{"--shard", "auto"}, "--shard auto: JOB_COMPLETION_INDEX is not set: Kubernetes sets it in each pod of an Indexed Job (completionMode: Indexed); elsewhere give --shard i/N"},
		{"", "4", []string{"--shard", "auto"}, "--shard auto: JOB_COMPLETION_INDEX is not set"},
		{"x", "4", []string{"--shard", "auto"}, `--shard auto: JOB_COMPLETION_INDEX "x": want a whole number from 0, the pod's completion index`},
		{"-1", "4", []string{"--shard", "auto"}, `--shard auto: JOB_COMPLETION_INDEX "-1": want a whole number from 0`},
		{"0", "-", []string{"--shard", "auto"}, "--shard auto: the number of shards is not given: give --shards N or set LLMMETRICS_SHARDS to the Indexed Job's completions (Kubernetes sets no variable for them)"},
		{"0", "four", []string{"--shard", "auto"}, `--shard auto: LLMMETRICS_SHARDS "four": want the number of shards, a whole number from 1 (the Job's completions)`},
		{"0", "0", []string{"--shard", "auto"}, `--shard auto: LLMMETRICS_SHARDS "0": want the number of shards`},
		{"0", "-", []string{"--shard", "auto", "--shards", "0"}, "--shard auto: --shards 0: want the number of shards, a whole number from 1"},
		{"0", "3", []string{"--shard", "auto", "--shards", "4"}, "--shard auto: --shards 4 and LLMMETRICS_SHARDS=3 differ: give the number of shards once"},
		// completions 5 but LLMMETRICS_SHARDS 4: the fifth pod's index.
		{"4", "4", []string{"--shard", "auto"}, "--shard auto: JOB_COMPLETION_INDEX 4 is outside 0…3, the indexes of 4 shards (LLMMETRICS_SHARDS): give the Job's completions and LLMMETRICS_SHARDS the same number"},
		{"2", "-", []string{"--shard", "auto", "--shards", "2"}, "--shard auto: JOB_COMPLETION_INDEX 2 is outside 0…1, the indexes of 2 shards (--shards): give the Job's completions and --shards the same number"},
		{"0", "-", []string{"--shard", "1/2", "--shards", "2"}, "--shards 2 belongs to --shard auto (with --shard i/N, N is in i/N)"},
		{"0", "-", []string{"--shards", "2"}, "--shards 2 belongs to --shard auto"},
		{"0", "2", []string{"--shard", "auto", "--concurrency", "1"}, "--shard auto (1/2): --concurrency 1 cannot be shared by 2 shards"},
	} {
		for name, v := range map[string]string{indexVar: c.index, shardsVar: c.shards} {
			t.Setenv(name, v)
			if v == "-" {
				os.Unsetenv(name)
			}
		}
		args := append([]string{"run", "--url", "http://127.0.0.1:1/v1/chat/completions", "--model", "m", "--requests", "3", "--concurrency", "4", "--prompts", promptsFile(t)}, c.args...)
		code, _, errs := runCLI(t, "", args...)
		assert.Equal(t, 2, code, "%v: %s", c.args, errs)
		assert.Contains(t, errs, c.want, "%s=%s %s=%s %v", indexVar, c.index, shardsVar, c.shards, c.args)
		if !strings.Contains(c.want, "--concurrency") { // that one keeps run's usage lines
			assert.Equal(t, 1, strings.Count(errs, "\n"), "one line: %s", errs)
		}
	}
	code, _, errs := runCLI(t, "", "run", "--url", "http://h/x", "--requests", "3", "--search", "concurrency", "--slo", "ttft=1s", "--shards", "2")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--shard, --shards and --start-at belong to a plain run")
}

// k8sObject is what the tests read of a Kubernetes object: a Job's or a
// PersistentVolumeClaim's.
type k8sObject struct {
	Kind     string
	Metadata struct{ Name string }
	Spec     struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int
		Parallelism    int
		AccessModes    []string `yaml:"accessModes"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []k8sContainer
				Volumes       []struct {
					Name                  string
					PersistentVolumeClaim struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				}
			}
		}
	}
}

type k8sContainer struct {
	Command []string
	Env     []struct{ Name, Value string }
	Mounts  []struct {
		Name      string
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

// readManifest reads the objects of a manifest, after replacing ${START_AT}
// by start as the sed of its comment does.
func readManifest(t *testing.T, path, start string) []k8sObject {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := yaml.NewDecoder(strings.NewReader(strings.ReplaceAll(string(b), "${START_AT}", start)))
	var objs []k8sObject
	for {
		var o k8sObject
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			return objs
		}
		require.NoError(t, err, path)
		objs = append(objs, o)
	}
}

// expand replaces $(NAME) in s by the variable's value, as Kubernetes
// does in a container's command and args: $$ is $, and a name without a
// variable is left as written.
func expand(s string, env map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '$')
		if i < 0 || i == len(s)-1 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		switch s = s[i+1:]; {
		case s[0] == '$':
			b.WriteByte('$')
			s = s[1:]
		case s[0] == '(' && strings.Contains(s, ")"):
			name, rest, _ := strings.Cut(s[1:], ")")
			if v, ok := env[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString("$(" + name + ")")
			}
			s = rest
		default:
			b.WriteByte('$')
		}
	}
}

// setFlag sets the value of flag name in args, which must hold it.
func setFlag(t *testing.T, args []string, name, value string) {
	t.Helper()
	i := slices.Index(args, name)
	require.True(t, i >= 0 && i+1 < len(args), "the manifest's command has no %s: %v", name, args)
	args[i+1] = value
}

// sizedSlow is a fake OpenAI-compatible server that counts a prompt as 20
// tokens and one a word (so that --prompt-tokens sizes it) and streams
// max_tokens tokens 25 ms apart (so that shards' windows overlap however
// late one starts); it counts the requests it served.
func sizedSlow(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		served.Add(1)
		var body struct {
			MaxTokens int `json:"max_tokens"`
			Messages  []struct{ Content string }
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Messages) == 0 {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range max(body.MaxTokens, 1) {
			time.Sleep(25 * time.Millisecond)
			fmt.Fprintf(w, `data: {"choices":[{"index":0,"delta":{"content":" t%d"}}]}`+"\n\n", i)
			w.(http.Flusher).Flush()
		}
		fmt.Fprintf(w, `data: {"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d}}`+"\n\ndata: [DONE]\n\n",
			20+len(strings.Fields(body.Messages[0].Content)), max(body.MaxTokens, 1))
	}))
	t.Cleanup(srv.Close)
	return srv, &served
}

// The Kubernetes manifests of docs/k8s, run as processes: the Indexed
// Job's container command, with its variables and JOB_COMPLETION_INDEX
// 0…N-1 as the Job sets them, expanded as Kubernetes expands them, then
// the merge Job's shell command. The test substitutes only what a cluster
// would give: the fake server's URL for the service's, a temporary
// directory for the volume at /data, .jsonl for .parquet (the Parquet
// writer is another module's), and a plan cut to the fake's size (8
// requests at concurrency 4 in place of 2000 at 64). Every shard must
// write its file, and the merged report must be of N shards, completed.
func TestIndexedJobManifest(t *testing.T) {
	bin := binary(t)
	// Five seconds for N processes to start: a safety net, not a
	// measurement (a start past is refused, and the test would fail).
	start := time.Now().Add(5 * time.Second).UTC().Format(time.RFC3339Nano)
	objs := append(readManifest(t, "../../docs/k8s/indexed-job.yaml", start), readManifest(t, "../../docs/k8s/merge-job.yaml", start)...)
	byName := map[string]k8sObject{}
	for _, o := range objs {
		byName[o.Kind+"/"+o.Metadata.Name] = o
	}
	claim, ok := byName["PersistentVolumeClaim/llmmetrics-data"]
	require.True(t, ok, "the shared volume's claim: %v", byName)
	assert.Equal(t, []string{"ReadWriteMany"}, claim.Spec.AccessModes, "every shard's node mounts it")
	job, ok := byName["Job/llmmetrics-shards"]
	require.True(t, ok)
	merge, ok := byName["Job/llmmetrics-merge"]
	require.True(t, ok)

	// The manifest agrees with itself: an Indexed Job of N pods at once,
	// told N, each mounting the claim at /data, as the merge Job does.
	assert.Equal(t, "Indexed", job.Spec.CompletionMode)
	n := job.Spec.Completions
	require.Greater(t, n, 1)
	assert.Equal(t, n, job.Spec.Parallelism, "every shard at once")
	for _, o := range []k8sObject{job, merge} {
		ps := o.Spec.Template.Spec
		assert.Equal(t, "Never", ps.RestartPolicy, o.Metadata.Name)
		require.Len(t, ps.Containers, 1, o.Metadata.Name)
		require.Len(t, ps.Volumes, 1, o.Metadata.Name)
		require.Len(t, ps.Containers[0].Mounts, 1, o.Metadata.Name)
		assert.Equal(t, "llmmetrics-data", ps.Volumes[0].PersistentVolumeClaim.ClaimName, o.Metadata.Name)
		assert.Equal(t, ps.Volumes[0].Name, ps.Containers[0].Mounts[0].Name, o.Metadata.Name)
		assert.Equal(t, "/data", ps.Containers[0].Mounts[0].MountPath, o.Metadata.Name)
	}
	shard := job.Spec.Template.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range shard.Env {
		env[e.Name] = e.Value
	}
	assert.Equal(t, strconv.Itoa(n), env[shardsVar], "completions and %s are the same N", shardsVar)
	assert.Equal(t, start, env["LLMMETRICS_START_AT"])

	srv, served := sizedSlow(t)
	dir := t.TempDir()
	local := func(s string) string { // the volume and the format, here
		return strings.ReplaceAll(strings.ReplaceAll(s, "/data/", dir+"/"), ".parquet", ".jsonl")
	}
	var procs []*exec.Cmd
	var stderrs []*bytes.Buffer
	for index := range n {
		vars := map[string]string{indexVar: strconv.Itoa(index)} // the Job's
		environ := []string{indexVar + "=" + strconv.Itoa(index)}
		for k, v := range env {
			vars[k] = v
			environ = append(environ, k+"="+v)
		}
		var args []string
		for _, a := range shard.Command {
			args = append(args, local(expand(a, vars)))
		}
		require.Equal(t, "llmmetrics", args[0])
		setFlag(t, args, "--url", srv.URL+"/v1/chat/completions")
		setFlag(t, args, "--requests", "8")
		setFlag(t, args, "--concurrency", "4")
		setFlag(t, args, "--max-tokens", "4")
		cmd := exec.Command(bin, args[1:]...)
		cmd.Env = append(os.Environ(), environ...) // the last of a name wins
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		procs, stderrs = append(procs, cmd), append(stderrs, &stderr)
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
		})
	}
	for i, cmd := range procs {
		assert.NoError(t, cmd.Wait(), "index %d: %s", i, stderrs[i])
	}
	for index := range n {
		run, _, err := readRuns(filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", index)), false)
		require.NoError(t, err, "index %d", index)
		assert.Equal(t, fmt.Sprintf("%d/%d", index+1, n), run.Header.Load["shard"], "index %d is shard %d", index, index+1)
	}
	// 8 requests over N = 4 shards, 2 each, and each shard's test request
	// and one or two sizing requests for its prompts.
	assert.GreaterOrEqual(t, served.Load(), int64(8+n))

	script := merge.Spec.Template.Spec.Containers[0].Command
	require.Len(t, script, 3)
	require.Equal(t, []string{"sh", "-c"}, script[:2])
	cmd := exec.Command("sh", "-c", local(script[2]))
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	written, err := os.ReadFile(filepath.Join(dir, "report.txt"))
	require.NoError(t, err)
	assert.Equal(t, string(written), string(out), "the report, in the log and on the volume")
	for _, bad := range []string{"TRUNCATED", "INTERRUPTED", "WARNING"} {
		assert.NotContains(t, string(out), bad)
	}

	// The same merge as JSON: every shard's end line said completed, and
	// the merged run is the whole plan of N shards.
	files, err := filepath.Glob(filepath.Join(dir, "shard-*.jsonl"))
	require.NoError(t, err)
	require.Len(t, files, n)
	code, js, errs := runCLI(t, "", append([]string{"report", "--json", "--merge"}, files...)...)
	require.Equal(t, 0, code, errs)
	var got struct {
		Completeness struct {
			State            string
			Planned, Written int
		}
		Run struct{ Load map[string]string }
	}
	require.NoError(t, json.Unmarshal([]byte(js), &got))
	assert.Equal(t, "completed", got.Completeness.State)
	assert.Equal(t, got.Completeness.Planned, got.Completeness.Written)
	assert.Equal(t, strconv.Itoa(n), got.Run.Load["shards"])
	assert.Equal(t, "8", got.Run.Load["requests"])
}

// writeLate writes a run file whose process started at start and whose
// load, after a preflight request at 0, sends 10 requests 100 ms apart
// from load (each 200 ms long), as a pod that waited for --start-at does.
func writeLate(t *testing.T, dir, name, start string, load time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"llmmetrics_run":{"tool":"llmmetrics","model":"m","api":"chat","start":%q,"load":{"loop":"closed","concurrency":"1"}}}`+"\n", start)
	fmt.Fprint(&b, `{"id":"p","sent_ns":0,"chunk_arrivals_ns":[100000000],"completion_tokens":1,"preflight":true}`+"\n")
	for i := range 10 {
		sent := load + time.Duration(i)*100*time.Millisecond
		fmt.Fprintf(&b, `{"id":"%d","sent_ns":%d,"chunk_arrivals_ns":[100000000,200000000],"completion_tokens":2}`+"\n", i, sent.Nanoseconds())
	}
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	return p
}

// report --merge judges whether the shards started together by their
// loads' starts, not their processes' (issue #32, point 4: pods of one
// Indexed Job start seconds apart, wait for one --start-at, and every
// merge warned). a's process starts at 10:00:00 and its load 3 s later;
// b's process at 10:00:02.9 and its load 100 ms later, at 10:00:03.0 too:
// no warning, though the processes started 2.9 s apart, above 1 % of the
// 4.1 s window (10:00:00 → 3.0 + 0.9 + 0.2 s). c's load starts at
// 10:00:03.5, 500 ms after a's, above 1 % of the 4.6 s window (10:00:00 →
// 3.5 + 0.9 + 0.2 s): the warning.
func TestMergeJudgesLoadStarts(t *testing.T) {
	dir := t.TempDir()
	a := writeLate(t, dir, "a.jsonl", "2026-11-30T10:00:00Z", 3*time.Second)
	b := writeLate(t, dir, "b.jsonl", "2026-11-30T10:00:02.9Z", 100*time.Millisecond)
	c := writeLate(t, dir, "c.jsonl", "2026-11-30T10:00:02.9Z", 600*time.Millisecond)
	code, out, errs := runCLI(t, "", "report", "--merge", a, b)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, "WARNING")
	code, out, errs = runCLI(t, "", "report", "--merge", a, c)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "WARNING: the files' starts differ by 500ms, more than 1% of the merged window (4.6s)")
}
