package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// The command's modules, with their directories from here. They are
// tagged together: vX.Y.Z for the library, server/vX.Y.Z, charts/vX.Y.Z,
// live/vX.Y.Z, parquet/vX.Y.Z and cmd/llmmetrics/vX.Y.Z for the nested
// modules.
var published = []struct{ path, dir string }{
	{"github.com/llmmetrics/llmmetrics", "../.."},
	{"github.com/llmmetrics/llmmetrics/server", "../../server"},
	{"github.com/llmmetrics/llmmetrics/charts", "../../charts"},
	{"github.com/llmmetrics/llmmetrics/live", "../../live"},
	{"github.com/llmmetrics/llmmetrics/parquet", "../../parquet"},
	{"github.com/llmmetrics/llmmetrics/cmd/llmmetrics", "."},
}

// TestPublishedInstall proves that the modules can be installed once
// published, as a user would, outside the workspace: it writes the three
// modules, at the version the command's go.mod requires of the others,
// into a module proxy on the file system (the layout the go command reads:
// @v/list, .info, .mod, .zip), then runs
// go install github.com/llmmetrics/llmmetrics/cmd/llmmetrics@VERSION in an
// empty directory with that proxy (and the local module cache and the
// user's GOPROXY, for the third-party modules) as GOPROXY, and runs the
// installed command.
func TestPublishedInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command from a module proxy")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	version := requiredVersion(t)
	proxy := t.TempDir()
	for _, m := range published {
		publish(t, proxy, m.path, m.dir, version)
	}
	modcache := strings.TrimSpace(run1(t, "", nil, goBin, "env", "GOMODCACHE"))
	// Third-party modules come from the local module cache, or, where the
	// workspace took another version than a published module's go.mod
	// asks (on a fresh machine the cache has only the workspace's), from
	// the user's own proxy.
	upstream := strings.TrimSpace(run1(t, "", nil, goBin, "env", "GOPROXY"))
	work, bin := t.TempDir(), t.TempDir()
	env := append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(modcache, "cache", "download"))+","+upstream,
		"GOFLAGS=-mod=mod",
		"GONOSUMDB=github.com/llmmetrics",
		"GONOSUMCHECK=1",
		"GOSUMDB=off",
		"GOWORK=off",
		"GOBIN="+bin,
	)
	run1(t, work, env, goBin, "install", "github.com/llmmetrics/llmmetrics/cmd/llmmetrics@"+version)
	out := run1(t, work, nil, filepath.Join(bin, "llmmetrics"), "version")
	require.True(t, strings.HasPrefix(out, "llmmetrics "+version+" "), "version of the installed command: %q", out)
	out = run1(t, work, nil, filepath.Join(bin, "llmmetrics"), "report", "--json", filepath.Join(cwd(t), "../../testdata/sample_run.jsonl"))
	require.Contains(t, out, `"offered":240`)
}

// requiredVersion returns the version of the library the command's go.mod
// requires, and checks that it requires the server module at the same one
// and that no go.mod replaces anything: development goes through go.work.
func requiredVersion(t *testing.T) string {
	versions := map[string]string{}
	for _, m := range published {
		b, err := os.ReadFile(filepath.Join(m.dir, "go.mod"))
		require.NoError(t, err)
		f, err := modfile.Parse(m.dir+"/go.mod", b, nil)
		require.NoError(t, err)
		require.Empty(t, f.Replace, "%s/go.mod has replace directives; keep them in go.work", m.dir)
		for _, r := range f.Require {
			if strings.HasPrefix(r.Mod.Path, "github.com/llmmetrics/") {
				versions[r.Mod.Path] = r.Mod.Version
			}
		}
	}
	v := versions["github.com/llmmetrics/llmmetrics"]
	require.NotEmpty(t, v)
	require.Equal(t, v, versions["github.com/llmmetrics/llmmetrics/server"], "the modules are tagged together")
	require.Equal(t, v, versions["github.com/llmmetrics/llmmetrics/charts"], "the modules are tagged together")
	return v
}

// publish writes module path at version, from dir, into the proxy.
func publish(t *testing.T, proxy, path, dir, version string) {
	escaped, err := module.EscapePath(path)
	require.NoError(t, err)
	at := filepath.Join(proxy, filepath.FromSlash(escaped), "@v")
	require.NoError(t, os.MkdirAll(at, 0o755))
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	var z bytes.Buffer
	require.NoError(t, zip.CreateFromDir(&z, module.Version{Path: path, Version: version}, dir))
	for name, data := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": []byte(`{"Version":"` + version + `","Time":"2026-11-30T00:00:00Z"}`),
		version + ".mod":  mod,
		version + ".zip":  z.Bytes(),
	} {
		require.NoError(t, os.WriteFile(filepath.Join(at, name), data, 0o644))
	}
}

func run1(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %v:\n%s", name, args, out)
	return string(out)
}

func cwd(t *testing.T) string {
	d, err := os.Getwd()
	require.NoError(t, err)
	return d
}
