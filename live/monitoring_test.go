package live

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

const monitoring = "../monitoring"

var metricName = regexp.MustCompile(`\b(?:gen_ai|llmmetrics)_[a-z_]+\b`)

// exported reports whether a name in a query is one the recorder exports:
// a family of MetricNames, or a histogram's _bucket, _sum or _count.
func exported(name string) bool {
	names := MetricNames()
	if slices.Contains(names, name) {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && slices.Contains(names, base) {
			return true
		}
	}
	return false
}

// namesIn returns the metric names a query uses (label names such as
// gen_ai_request_model are left out: they follow { , or by ( ).
func namesIn(expr string) []string {
	var out []string
	for _, loc := range metricName.FindAllStringIndex(expr, -1) {
		rest := strings.TrimLeft(expr[loc[1]:], " ")
		if strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "!=") || strings.HasPrefix(rest, "=~") {
			continue // a label matcher
		}
		name := expr[loc[0]:loc[1]]
		if strings.HasPrefix(name, "gen_ai_request_model") || strings.HasPrefix(name, "gen_ai_operation_name") ||
			strings.HasPrefix(name, "gen_ai_provider_name") || strings.HasPrefix(name, "gen_ai_response_model") ||
			strings.HasPrefix(name, "gen_ai_token_type") || strings.HasPrefix(name, "llmmetrics_outcome") ||
			strings.HasPrefix(name, "llmmetrics_reason") || strings.HasPrefix(name, "llmmetrics_basis") {
			continue // a label in by (...) or a legend
		}
		out = append(out, name)
	}
	return out
}

// The alert rules load in promtool (when it is installed), and every
// metric they and the Grafana dashboard query is one the recorder
// exports.
func TestMonitoringFiles(t *testing.T) {
	rules := filepath.Join(monitoring, "alerts.yml")
	var doc struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	readYAML(t, rules, &doc)
	var exprs []string
	for _, g := range doc.Groups {
		for _, r := range g.Rules {
			exprs = append(exprs, r.Expr)
		}
	}
	require.NotEmpty(t, exprs)

	d, err := os.ReadFile(filepath.Join(monitoring, "grafana-dashboard.json"))
	require.NoError(t, err)
	var dash struct {
		Panels     []panel `json:"panels"`
		Templating struct {
			List []struct {
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	require.NoError(t, json.Unmarshal(d, &dash))
	require.NotEmpty(t, dash.Panels)
	for _, p := range dash.Panels {
		require.NotEmpty(t, p.Targets, p.Title)
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	for _, v := range dash.Templating.List {
		if s, ok := v.Query.(string); ok && v.Type == "query" {
			exprs = append(exprs, s)
		}
	}
	// The duration histogram holds successes (error_type "") and failures
	// (fast ones, often): a query of it that does not pick one or the
	// other mixes them.
	for _, e := range exprs {
		if strings.Contains(e, "gen_ai_client_operation_duration_seconds") {
			assert.Regexp(t, `error_type!?=""`, e, "the duration histogram read without an error_type filter")
		}
	}
	checkTestedPanel(t, dash.Panels, "Operation duration (E2E)")
	used := map[string]bool{}
	for _, e := range exprs {
		names := namesIn(e)
		assert.NotEmpty(t, names, "no metric in %q", e)
		for _, n := range names {
			used[n] = true
			assert.True(t, exported(n), "%s (in %q) is not a metric the recorder exports", n, e)
		}
	}
	// Every exported family is shown or alerted on somewhere.
	for _, n := range MetricNames() {
		found := false
		for u := range used {
			if u == n || strings.HasPrefix(u, n+"_") {
				found = true
			}
		}
		assert.True(t, found, "%s is exported but on no panel or rule", n)
	}

	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("no promtool on PATH (Debian's prometheus package ships it; .ci/run installs it): the rules were not checked by it")
	}
	out, err := exec.Command(promtool, "check", "rules", rules).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(promtool, "test", "rules", filepath.Join(monitoring, "alerts_test.yml")).CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// readYAML decodes a YAML file into v.
func readYAML(t *testing.T, name string, v any) {
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(b, v), name)
}

// A panel of the Grafana dashboard.
type panel struct {
	Title   string `json:"title"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

// checkTestedPanel checks that the first query of the dashboard's panel
// of that title, its $model as .*, is one alerts_test.yml's
// promql_expr_test evaluates, so that promtool tests the query the
// dashboard has.
func checkTestedPanel(t *testing.T, panels []panel, title string) {
	var doc struct {
		Tests []struct {
			PromQL []struct {
				Expr string `yaml:"expr"`
			} `yaml:"promql_expr_test"`
		} `yaml:"tests"`
	}
	readYAML(t, filepath.Join(monitoring, "alerts_test.yml"), &doc)
	var tested []string
	for _, tc := range doc.Tests {
		for _, p := range tc.PromQL {
			tested = append(tested, p.Expr)
		}
	}
	for _, p := range panels {
		if p.Title == title {
			require.NotEmpty(t, p.Targets, title)
			assert.Contains(t, tested, strings.ReplaceAll(p.Targets[0].Expr, "$model", ".*"), "the first query of %q", title)
			return
		}
	}
	t.Errorf("no panel %q", title)
}

// The checker itself: a made-up name is caught, a histogram's series and
// a label are not mistaken.
func TestMonitoringChecker(t *testing.T) {
	assert.True(t, exported("gen_ai_client_operation_duration_seconds_bucket"))
	assert.False(t, exported("gen_ai_client_operation_duration_bucket"))
	assert.False(t, exported("llmmetrics_requests"))
	assert.Equal(t, []string{"llmmetrics_requests_total"}, namesIn(`sum by (gen_ai_request_model) (rate(llmmetrics_requests_total{llmmetrics_outcome="failed"}[5m]))`))
}
