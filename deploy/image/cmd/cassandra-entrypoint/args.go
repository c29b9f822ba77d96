package main

import (
	"fmt"
	"strings"
)

// daemonFlags are bin/cassandra's flags that still mean something in a
// container: -f (foreground: always, so accepted and ignored), -R (allow
// root) and -Dprop=value (a JVM system property).
type daemonFlags struct {
	allowRoot bool
	jvm       []string
}

func parseDaemonArgs(args []string) (daemonFlags, error) {
	var f daemonFlags
	for _, a := range args {
		switch {
		case a == "-f":
		case a == "-R":
			f.allowRoot = true
		case strings.HasPrefix(a, "-D"):
			f.jvm = append(f.jvm, a)
		default:
			return daemonFlags{}, fmt.Errorf("cassandra: unknown argument %q (want -f, -R or -Dprop=value)", a)
		}
	}
	return f, nil
}
