// Command pause is the pod sandbox's process for kube-harness's node:
// the one that holds a pod's namespaces while its containers come and
// go. It does nothing until SIGTERM or SIGINT, and meanwhile reaps the
// zombies it inherits as PID 1 of a pod that shares its process
// namespace, as Kubernetes's own pause does. Built static (CGO_ENABLED=0)
// so its image is this one file.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range sigs {
		if s != syscall.SIGCHLD {
			return
		}
		reap()
	}
}

// reap collects every child that has exited; one SIGCHLD may stand for
// several.
func reap() {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if pid <= 0 || err != nil {
			return
		}
	}
}
