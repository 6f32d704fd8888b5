package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/formats"
)

// reportDialect prints a tool's own summary, under the tool's own keys and
// units, with the choices the tool offers its user (its percentiles, its
// goodput limits); flags for choices the tool does not have are refused.
func reportDialect(w io.Writer, name string, f *formats.File, fs *flag.FlagSet, opt llmmetrics.Options, asJSON bool) error {
	refused := map[string]string{
		"method":  "its percentile method is its own",
		"window":  "its throughputs divide by its own duration",
		"lenient": "which requests count is decided by its own rules",
		"strict":  "which requests count is decided by its own rules",
	}
	for _, flagName := range []string{"method", "window", "lenient", "strict"} {
		if flagSet(fs, flagName) {
			return fmt.Errorf("%w: --%s with --dialect: a dialect is the tool's own summary, and %s", errUsage, flagName, refused[flagName])
		}
	}
	var dopt formats.DialectOptions
	if flagSet(fs, "percentiles") {
		for _, p := range opt.Percentiles {
			dopt.Percentiles = append(dopt.Percentiles, p.Float())
		}
	}
	dopt.SLO = opt.SLO
	d, err := f.DialectWith(dopt)
	if errors.Is(err, formats.ErrUnsupported) {
		return fmt.Errorf("%w: --dialect %s: %s", errUsage, f.Tool, trimPrefix(err))
	}
	if err != nil {
		return inFile(name, err)
	}
	if asJSON {
		return writeDialectJSON(w, d)
	}
	return writeDialectTable(w, name, f, d)
}

// writeDialectJSON prints the figures as one object under the tool's keys,
// each number in the shortest form that reads back as the same float64, so
// that it can be diffed against the tool's file.
func writeDialectJSON(w io.Writer, d *formats.Dialect) error {
	var b strings.Builder
	b.WriteByte('{')
	for i, fig := range d.Figures {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(fig.Key)
		v, err := json.Marshal(fig.Value)
		if err != nil {
			return fmt.Errorf("%s: %w", fig.Key, err)
		}
		fmt.Fprintf(&b, "%s:%s", k, v)
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeDialectTable prints the figures for people, to 7 significant
// digits (the JSON form has every digit), marking each figure the file's
// data determine only approximately, and the tool's conventions.
func writeDialectTable(w io.Writer, name string, f *formats.File, d *formats.Dialect) error {
	var b strings.Builder
	if d.Stated {
		fmt.Fprintf(&b, "%s summary of %s (%s), as the file states it: it holds no per-request data to recompute it from\n\n", d.Tool, name, f.Layout)
	} else {
		fmt.Fprintf(&b, "%s summary of %s (%s), computed by llmmetrics with %s's own formulas\n\n", d.Tool, name, f.Layout, d.Tool)
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, fig := range d.Figures {
		note := ""
		if fig.Approx != "" {
			note = "approximate: " + fig.Approx
		}
		fmt.Fprintf(tw, "%s\t%.7g\t%s\n", fig.Key, fig.Value, note)
	}
	tw.Flush()
	b.WriteString("\nits conventions:\n")
	for _, r := range d.Rules {
		fmt.Fprintf(&b, "  - %s\n", r)
	}
	if len(d.Missing) > 0 {
		b.WriteString("\nnot reproducible from the file:\n")
		for _, k := range sortedKeys(d.Missing) {
			fmt.Fprintf(&b, "  - %s: %s\n", k, d.Missing[k])
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
