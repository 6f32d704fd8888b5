module github.com/llmmetrics/llmmetrics

go 1.24
