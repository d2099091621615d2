// Command pause is the process of hack/local-cluster's pod sandboxes (containerd's sandbox_image): it holds the
// pod's namespaces, reaps the children that end up with it, and exits 0 on SIGINT or SIGTERM. The project's own,
// written for this purpose (no registry is reachable here to pull registry.k8s.io/pause); built static for a
// FROM-scratch image by hack/tools/build.sh pause.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "-v" || os.Args[1] == "--version") {
		fmt.Println("provbench pause 1")
		return
	}
	if os.Getpid() != 1 {
		fmt.Fprintln(os.Stderr, "warning: pause should be the first process of its PID namespace")
	}
	signals := make(chan os.Signal, 16)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			fmt.Fprintf(os.Stderr, "shutting down, got signal %v\n", s)
			os.Exit(0)
		}
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
