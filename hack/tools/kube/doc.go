// Package kube only pins k8s.io/kubernetes for `go build k8s.io/kubernetes/cmd/...` (kube-apiserver,
// kube-controller-manager, kubectl; and for `hack/local-cluster up --node` kubelet, kube-scheduler, kube-proxy).
package kube
