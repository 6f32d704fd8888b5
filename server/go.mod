module github.com/llmmetrics/llmmetrics/server

go 1.26.0

replace github.com/llmmetrics/llmmetrics => ../
