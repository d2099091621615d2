// Package kube only pins k8s.io/kubernetes for `go build k8s.io/kubernetes/cmd/...`.
package kube
