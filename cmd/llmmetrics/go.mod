module github.com/llmmetrics/llmmetrics/cmd/llmmetrics

go 1.26.0

require (
	github.com/llmmetrics/llmmetrics v0.0.0
	github.com/stretchr/testify v1.12.1
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect

replace (
	github.com/llmmetrics/llmmetrics => ../../
	github.com/llmmetrics/llmmetrics/server => ../../server
)
