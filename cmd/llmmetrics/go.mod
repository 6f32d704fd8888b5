module github.com/llmmetrics/llmmetrics/cmd/llmmetrics

go 1.26.0

require (
	github.com/llmmetrics/llmmetrics v0.1.0
	github.com/llmmetrics/llmmetrics/server v0.1.0
	github.com/stretchr/testify v1.12.1
	golang.org/x/mod v0.43.0
)

require (
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/pandatix/go-abnf v0.5.3 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.73.1 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
