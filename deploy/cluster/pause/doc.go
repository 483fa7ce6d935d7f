// Command pause is the sandbox ("pause") container of every pod on the
// cluster of deploy/cluster: it holds the pod's namespaces and does nothing
// else until it is told to stop. Built here because the cluster pulls no
// image from a registry.
//
// # Files
//
//   - main.go: hold the pod's namespaces, reap orphans, exit on SIGTERM
package main
