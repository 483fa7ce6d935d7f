package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	// As PID 1 of the pod it also inherits orphans: reap them.
	children := make(chan os.Signal, 1)
	signal.Notify(children, syscall.SIGCHLD)
	for {
		select {
		case <-stop:
			return
		case <-children:
			for {
				pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
		}
	}
}
