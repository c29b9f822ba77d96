package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fail(errors.New("usage: kube-probe serve|lookup|get|dial|cat ..."))
	}
	var err error
	args := os.Args[2:]
	switch os.Args[1] {
	case "serve":
		err = serve(args)
	case "lookup":
		err = lookup(args)
	case "get":
		err = get(args)
	case "dial":
		err = dial(args)
	case "cat":
		err = cat(args)
	default:
		err = fmt.Errorf("unknown verb %q", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kube-probe:", err)
	os.Exit(1)
}

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	listen := fs.String("listen", ":8080", "HTTP address")
	_ = fs.Parse(args)
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	fmt.Printf("serving on %s as %s\n", l.Addr(), host)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "ok from %s\n", host)
	})}
	go func() { _ = srv.Serve(l) }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return srv.Shutdown(ctx)
}

func lookup(args []string) error {
	if len(args) != 1 {
		return errors.New("lookup NAME")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupHost(ctx, args[0])
	if err != nil {
		return err
	}
	fmt.Println(strings.Join(addrs, " "))
	return nil
}

func get(args []string) error {
	fs := flag.NewFlagSet("get", flag.ExitOnError)
	caFile := fs.String("ca", "", "CA bundle to verify HTTPS against")
	tokenFile := fs.String("token", "", "bearer token file")
	_ = fs.Parse(args)
	if fs.NArg() != 1 {
		return errors.New("get [-ca F] [-token F] URL")
	}
	tr := &http.Transport{}
	if *caFile != "" {
		pem, err := os.ReadFile(*caFile)
		if err != nil {
			return err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("no certificate in %s", *caFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	req, err := http.NewRequest(http.MethodGet, fs.Arg(0), nil)
	if err != nil {
		return err
	}
	if *tokenFile != "" {
		tok, err := os.ReadFile(*tokenFile)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	}
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	fmt.Printf("%s\n%s", resp.Status, body)
	return nil
}

func dial(args []string) error {
	if len(args) != 1 {
		return errors.New("dial HOST:PORT")
	}
	c, err := net.DialTimeout("tcp", args[0], 2*time.Second)
	if err != nil {
		fmt.Println(err)
		return nil
	}
	c.Close()
	fmt.Println("connected")
	return nil
}

func cat(args []string) error {
	if len(args) != 1 {
		return errors.New("cat FILE")
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(b)
	return err
}
