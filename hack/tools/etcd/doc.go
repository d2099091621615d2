// Package etcd only pins go.etcd.io/etcd/server/v3 for `go build go.etcd.io/etcd/server/v3`.
package etcd
