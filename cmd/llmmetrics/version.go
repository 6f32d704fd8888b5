package main

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

var versionCommand = &command{
	name:     "version",
	synopsis: "llmmetrics version",
	about: "Version prints the version of this build, from the build information Go records: the module\n" +
		"version (a tag such as v0.2.0 when installed with go install ...@v0.2.0, \"(devel)\" when built\n" +
		"from a checkout), the source revision and time where the build recorded them, and the Go version.\n" +
		"llmmetrics --version prints the same.",
	examples: []string{"llmmetrics version", "llmmetrics --version"},
	flags:    func() *flag.FlagSet { return flag.NewFlagSet("version", flag.ContinueOnError) },
}

func printVersion(args []string, _ io.Reader, stdout io.Writer) error {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
			return helpRequest{versionCommand}
		}
		return fmt.Errorf("%w: version takes no arguments", errUsage)
	}
	_, err := fmt.Fprintln(stdout, version())
	return err
}

// version describes this build: the module version, the revision and the
// Go version.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "llmmetrics (no build information)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	parts := []string{"llmmetrics", v}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		rev = rev[:min(12, len(rev))]
		if settings["vcs.modified"] == "true" {
			rev += "+modified"
		}
		parts = append(parts, "revision "+rev)
	}
	if t := settings["vcs.time"]; t != "" {
		parts = append(parts, t)
	}
	parts = append(parts, info.GoVersion)
	return strings.Join(parts, " ")
}
