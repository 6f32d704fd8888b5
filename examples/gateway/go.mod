module github.com/llmmetrics/llmmetrics/examples/gateway

go 1.26.0

require (
	github.com/llmmetrics/llmmetrics v0.1.0
	github.com/llmmetrics/llmmetrics/live v0.1.0
	github.com/prometheus/client_golang v1.25.0
	github.com/prometheus/client_model v0.6.3
	github.com/stretchr/testify v1.12.1
)
