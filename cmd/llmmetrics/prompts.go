package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// readPrompts reads --prompts: plain text, one prompt a line; JSONL, one
// {"prompt": "...", "max_tokens": N} a line (max_tokens optional); or a
// ShareGPT-style JSON array of {"conversations": [{"from": "human",
// "value": "..."}, …]}, each conversation's first human turn a prompt.
// each is nil unless a JSONL line gave its max_tokens (0 where a line did
// not).
func readPrompts(path string) (prompts []string, each []int, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")))
	switch {
	case bytes.HasPrefix(trimmed, []byte("[")):
		prompts, err = shareGPT(trimmed)
	case bytes.HasPrefix(trimmed, []byte("{")):
		prompts, each, err = promptLines(trimmed)
	default:
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if t := strings.TrimSpace(sc.Text()); t != "" {
				prompts = append(prompts, t)
			}
		}
		err = sc.Err()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(prompts) == 0 {
		return nil, nil, fmt.Errorf("%s: no prompts", path)
	}
	return prompts, each, nil
}

// shareGPT reads a ShareGPT-style conversation file: the first human turn
// of each conversation.
func shareGPT(b []byte) ([]string, error) {
	var convs []struct {
		Conversations []struct {
			From  string `json:"from"`
			Value string `json:"value"`
		} `json:"conversations"`
	}
	if err := json.Unmarshal(b, &convs); err != nil {
		return nil, fmt.Errorf("not a ShareGPT-style conversation file: %v", err)
	}
	var out []string
	for _, c := range convs {
		for _, turn := range c.Conversations {
			if (turn.From == "human" || turn.From == "user") && strings.TrimSpace(turn.Value) != "" {
				out = append(out, turn.Value)
				break
			}
		}
	}
	return out, nil
}

// promptLines reads JSONL of {"prompt": "...", "max_tokens": N}.
func promptLines(b []byte) ([]string, []int, error) {
	var prompts []string
	var each []int
	given := false
	for i, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var v struct {
			Prompt    *string `json:"prompt"`
			MaxTokens *int    `json:"max_tokens"`
		}
		if err := json.Unmarshal(line, &v); err != nil || v.Prompt == nil || strings.TrimSpace(*v.Prompt) == "" {
			return nil, nil, fmt.Errorf("line %d: want {\"prompt\": \"...\", \"max_tokens\": N}", i+1)
		}
		m := 0
		if v.MaxTokens != nil {
			if *v.MaxTokens < 1 {
				return nil, nil, fmt.Errorf("line %d: max_tokens %d: want a positive count", i+1, *v.MaxTokens)
			}
			m, given = *v.MaxTokens, true
		}
		prompts, each = append(prompts, *v.Prompt), append(each, m)
	}
	if !given {
		each = nil
	}
	return prompts, each, nil
}
