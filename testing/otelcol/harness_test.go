package otelcol

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// version is the collector's release that .ci/run builds (build.sh).
const version = "0.165.0"

// inCI says whether a missing collector or server fails the test (CI
// builds both) rather than skipping it.
var inCI = os.Getenv("CI") != ""

// need skips the test with why, or fails it under CI.
func need(t *testing.T, why string) {
	t.Helper()
	if inCI {
		t.Fatal(why)
	}
	t.Skip(why)
}

// collectorBin returns the test collector's path: LLMMETRICS_OTELCOL, or
// where .ci/run caches it.
func collectorBin(t *testing.T) string {
	bin := os.Getenv("LLMMETRICS_OTELCOL")
	if bin == "" {
		home, _ := os.UserHomeDir()
		bin = filepath.Join(home, ".cache", "llmmetrics", "otelcol-"+version, "otelcol")
	}
	if _, err := os.Stat(bin); err != nil {
		need(t, fmt.Sprintf("no OpenTelemetry Collector at %s: bash testing/otelcol/build.sh %s builds it (.ci/run does)", bin, filepath.Dir(bin)))
	}
	return bin
}

// freePort returns a loopback port nothing listens on (now).
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// A collector is a running test collector: OTLP on GRPC and HTTP (base
// URLs), everything it receives written to Out.
type collector struct {
	GRPC, HTTP, Out string
	cmd             *exec.Cmd
	log             string
	stopped         bool
}

// startCollector starts the test collector on 127.0.0.1.
func startCollector(t *testing.T) *collector {
	bin := collectorBin(t)
	dir := t.TempDir()
	c := &collector{Out: filepath.Join(dir, "otlp.jsonl"), log: filepath.Join(dir, "collector.log")}
	grpcPort, httpPort := freePort(t), freePort(t)
	c.GRPC, c.HTTP = fmt.Sprintf("http://127.0.0.1:%d", grpcPort), fmt.Sprintf("http://127.0.0.1:%d", httpPort)
	// The collector's own telemetry is off: it would listen on :8888.
	config := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:%d
      http:
        endpoint: 127.0.0.1:%d
exporters:
  file:
    path: %s
    flush_interval: 50ms
service:
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
  pipelines:
    metrics:
      receivers: [otlp]
      exporters: [file]
    traces:
      receivers: [otlp]
      exporters: [file]
`, grpcPort, httpPort, c.Out)
	cfg := filepath.Join(dir, "collector.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(config), 0o644))
	logf, err := os.Create(c.log)
	require.NoError(t, err)
	c.cmd = exec.Command(bin, "--config", cfg)
	c.cmd.Stdout, c.cmd.Stderr = logf, logf
	require.NoError(t, c.cmd.Start())
	t.Cleanup(func() {
		if !c.stopped {
			c.cmd.Process.Kill()
			c.cmd.Wait()
		}
		logf.Close()
	})
	waitListening(t, fmt.Sprintf("127.0.0.1:%d", httpPort), c.log)
	waitListening(t, fmt.Sprintf("127.0.0.1:%d", grpcPort), c.log)
	return c
}

// stop ends the collector as a signal does: it exports what it holds,
// and the file is whole once it has exited.
func (c *collector) stop(t *testing.T) {
	c.stopped = true
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
	err := c.cmd.Wait()
	b, _ := os.ReadFile(c.log)
	require.NoError(t, err, "the collector's exit; its log:\n%s", b)
}

// waitListening waits up to 30 s for something to accept on addr.
func waitListening(t *testing.T, addr, logPath string) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("nothing listens on %s: %s", addr, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// llamaServer starts llama.cpp's llama-server with the tiny model on
// 127.0.0.1, as cmd/llmmetrics' tests do, and returns its base URL.
func llamaServer(t *testing.T) string {
	bin, model := os.Getenv("LLMMETRICS_LLAMA_SERVER"), os.Getenv("LLMMETRICS_TINY_MODEL")
	if bin == "" || model == "" {
		need(t, "no real server: set LLMMETRICS_LLAMA_SERVER and LLMMETRICS_TINY_MODEL (.ci/run builds llama-server and the tiny model from ../shared/realserver and sets them)")
	}
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-m", model, "--host", "127.0.0.1", "--port", fmt.Sprint(port), "--metrics",
		"-a", "tiny", "-np", "2", "-c", "4096", "-n", "256", "-t", "2", "--no-webui")
	logPath := filepath.Join(t.TempDir(), "server.log")
	logf, err := os.Create(logPath)
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = logf, logf
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cancel(); cmd.Wait(); logf.Close() })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("llama-server did not become healthy: %s", b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// bins holds the command and the gateway, built by TestMain.
var bins struct{ llmmetrics, gateway string }

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "otelcol-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins.llmmetrics, bins.gateway = filepath.Join(dir, "llmmetrics"), filepath.Join(dir, "gateway")
	for pkg, out := range map[string]string{
		"github.com/llmmetrics/llmmetrics/cmd/llmmetrics":   bins.llmmetrics,
		"github.com/llmmetrics/llmmetrics/examples/gateway": bins.gateway,
	} {
		// The workspace's modules, as the README's test command has them.
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build %s: %v\n%s", pkg, err, b)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// command runs a built command, returning its standard output and error.
func command(t *testing.T, bin string, env []string, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	require.NoError(t, err, "%s %s:\n%s", filepath.Base(bin), strings.Join(args, " "), errb.String())
	return out.String(), errb.String()
}
