// CoreDNS with only the plugins hack/local-node.sh's Corefile uses (bind, errors, cache, template, kubernetes), in
// the order of CoreDNS's own directive list: the full build links every plugin (cloud DNS SDKs among them) and
// took most of a cold `hack/tools/build.sh node`. See CoreDNS's "compile time enabling or disabling plugins".
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/template"
)

func init() {
	dnsserver.Directives = []string{"bind", "errors", "cache", "template", "kubernetes"}
}

func main() {
	coremain.Run()
}
