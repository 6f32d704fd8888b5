module github.com/llmmetrics/llmmetrics/testing/otelcol

go 1.26.0

require (
	github.com/llmmetrics/llmmetrics v0.1.0
	github.com/stretchr/testify v1.12.1
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)
