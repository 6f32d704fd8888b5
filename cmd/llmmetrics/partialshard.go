package main

// This file finds what a killed shard left: run --out X.parquet streams
// its records to X.parquet.jsonl and writes X.parquet only when the run
// returns (parquetOut), so a shard killed midway (SIGKILL, a pod evicted)
// leaves the JSONL alone, which a merge of shard-*.parquet does not see.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmmetrics/llmmetrics"
)

// partialSuffix is what parquetOut adds to a Parquet --out for the JSONL
// it streams.
const partialSuffix = ".parquet.jsonl"

// partialShards says, for the missing shards ("i/N"), which partial
// files beside the given ones (in their directories) hold what those
// shards streamed before they stopped: a file that says it is the shard,
// of the same plan. It returns the clause to add to the refusal, or "".
func partialShards(runs []namedRun, missing []string) string {
	plan := runs[0].run.Header.Load["plan"]
	var dirs []string
	for _, r := range runs {
		if d := filepath.Dir(r.name); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	var found []string
	for _, d := range dirs {
		paths, _ := filepath.Glob(filepath.Join(d, "*"+partialSuffix))
		for _, p := range paths {
			h := firstHeader(p)
			if h != nil && h.Load["plan"] == plan && slices.Contains(missing, h.Load["shard"]) {
				found = append(found, fmt.Sprintf("%s holds what shard %s streamed before it stopped", p, h.Load["shard"]))
			}
		}
	}
	if len(found) == 0 {
		return ""
	}
	return "; " + strings.Join(found, ", ") + ": merge it by name with the others (its report reads TRUNCATED)"
}

// firstHeader returns the run header on a JSONL file's first line, or nil.
func firstHeader(path string) *llmmetrics.RunHeader {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 1<<16).ReadSlice('\n')
	if err != nil {
		return nil
	}
	var x struct {
		Run *llmmetrics.RunHeader `json:"llmmetrics_run"`
	}
	if json.Unmarshal(line, &x) != nil {
		return nil
	}
	return x.Run
}
