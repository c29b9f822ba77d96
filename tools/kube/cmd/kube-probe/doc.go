// Command kube-probe is a test image's one program (static, no shell in
// the image): what a test on kube-harness's node runs in a pod, or
// execs in one, to see the cluster from inside.
//
//	kube-probe serve [-listen :8080]  print "serving", answer "ok" over HTTP
//	                                   until SIGTERM
//	kube-probe lookup NAME            print NAME's addresses, by the pod's
//	                                   resolv.conf
//	kube-probe get URL [-ca F] [-token F]
//	                                   GET URL (HTTPS verified against F),
//	                                   print the status line and the body
//	kube-probe dial HOST:PORT         connect (2 s), print "connected" or
//	                                   the error, exit 0 either way
//	kube-probe cat FILE               print a file (/proc/net/route,
//	                                   /etc/resolv.conf)
//
// Failures exit 1 with the error on stderr.
package main
