// Package server reads the server side of an LLM serving run: Prometheus
// scrapes of a vLLM server.
package server
