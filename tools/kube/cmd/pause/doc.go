// Command pause is the pod sandbox's process for kube-harness's node:
// the one that holds a pod's namespaces while its containers come and
// go. It does nothing until SIGTERM or SIGINT, and meanwhile reaps the
// zombies it inherits as PID 1 of a pod that shares its process
// namespace, as Kubernetes's own pause does. Built static (CGO_ENABLED=0)
// so its image is this one file.
package main
