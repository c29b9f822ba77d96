package kube

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// kubeconfig is the part of a kubeconfig file (clientcmd's v1 Config)
// the server reads: its current context's cluster and user.
type kubeconfig struct {
	CurrentContext string `json:"current-context"`
	Contexts       []struct {
		Name    string `json:"name"`
		Context struct {
			Cluster string `json:"cluster"`
			User    string `json:"user"`
		} `json:"context"`
	} `json:"contexts"`
	Clusters []struct {
		Name    string `json:"name"`
		Cluster struct {
			Server                   string `json:"server"`
			CertificateAuthority     string `json:"certificate-authority"`
			CertificateAuthorityData []byte `json:"certificate-authority-data"`
			InsecureSkipTLSVerify    bool   `json:"insecure-skip-tls-verify"`
			TLSServerName            string `json:"tls-server-name"`
			ProxyURL                 string `json:"proxy-url"`
		} `json:"cluster"`
	} `json:"clusters"`
	Users []struct {
		Name string `json:"name"`
		User struct {
			ClientCertificate     string `json:"client-certificate"`
			ClientCertificateData []byte `json:"client-certificate-data"`
			ClientKey             string `json:"client-key"`
			ClientKeyData         []byte `json:"client-key-data"`
			Token                 string `json:"token"`
			TokenFile             string `json:"tokenFile"`
			// Ways to authenticate the server does not take: named in
			// the refusal.
			Exec         json.RawMessage `json:"exec"`
			AuthProvider json.RawMessage `json:"auth-provider"`
			Username     string          `json:"username"`
			Impersonate  string          `json:"as"`
		} `json:"user"`
	} `json:"users"`
}

// readKubeconfig reads the current context's cluster and user from the
// kubeconfig at path, files it names relative to its own directory, as
// kubectl does. It takes client certificates and bearer tokens (inline
// or in a file), and refuses, naming them, credential plugins (exec,
// auth-provider), basic auth and impersonation: the server runs in a pod
// on its service account, and a kubeconfig is for trying it from
// outside, where a token or certificate serves.
func readKubeconfig(path string) (*clientConfig, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read kubeconfig %s: %w", path, err)
	}
	cfg, err := parseKubeconfig(b, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("read kubeconfig %s: %w", path, err)
	}
	return cfg, nil
}

func parseKubeconfig(b []byte, dir string) (*clientConfig, error) {
	var k kubeconfig
	if err := yaml.Unmarshal(b, &k); err != nil {
		return nil, err
	}
	if k.CurrentContext == "" {
		return nil, fmt.Errorf("no current-context")
	}
	ctx := -1
	for i, c := range k.Contexts {
		if c.Name == k.CurrentContext {
			ctx = i
		}
	}
	if ctx < 0 {
		return nil, fmt.Errorf("current-context %q: no such context", k.CurrentContext)
	}
	clusterName, userName := k.Contexts[ctx].Context.Cluster, k.Contexts[ctx].Context.User
	cfg := &clientConfig{}
	found := false
	for _, c := range k.Clusters {
		if c.Name != clusterName {
			continue
		}
		found = true
		cl := c.Cluster
		if cl.Server == "" {
			return nil, fmt.Errorf("cluster %q: no server", clusterName)
		}
		cfg.server, cfg.insecure, cfg.serverName, cfg.proxyURL = cl.Server, cl.InsecureSkipTLSVerify, cl.TLSServerName, cl.ProxyURL
		var err error
		if cfg.caPEM, err = dataOrFile(cl.CertificateAuthorityData, cl.CertificateAuthority, dir); err != nil {
			return nil, fmt.Errorf("cluster %q: certificate-authority: %w", clusterName, err)
		}
	}
	if !found {
		return nil, fmt.Errorf("context %q: no cluster %q", k.CurrentContext, clusterName)
	}
	if userName == "" {
		return cfg, nil
	}
	found = false
	for _, u := range k.Users {
		if u.Name != userName {
			continue
		}
		found = true
		us := u.User
		for _, no := range []struct {
			set  bool
			what string
		}{
			{len(us.Exec) > 0 && string(us.Exec) != "null", "an exec credential plugin"},
			{len(us.AuthProvider) > 0 && string(us.AuthProvider) != "null", "an auth-provider plugin"},
			{us.Username != "", "basic auth (username)"},
			{us.Impersonate != "", "impersonation (as)"},
		} {
			if no.set {
				return nil, fmt.Errorf("user %q: %s is not supported: give a client certificate, token or tokenFile", userName, no.what)
			}
		}
		var err error
		if cfg.certPEM, err = dataOrFile(us.ClientCertificateData, us.ClientCertificate, dir); err != nil {
			return nil, fmt.Errorf("user %q: client-certificate: %w", userName, err)
		}
		if cfg.keyPEM, err = dataOrFile(us.ClientKeyData, us.ClientKey, dir); err != nil {
			return nil, fmt.Errorf("user %q: client-key: %w", userName, err)
		}
		cfg.token = us.Token
		if us.TokenFile != "" {
			cfg.tokenFile = resolve(us.TokenFile, dir)
		}
	}
	if !found {
		return nil, fmt.Errorf("context %q: no user %q", k.CurrentContext, userName)
	}
	return cfg, nil
}

// dataOrFile is a kubeconfig's inline data, else the file it names
// (nil if neither).
func dataOrFile(data []byte, file, dir string) ([]byte, error) {
	if len(data) > 0 || file == "" {
		return data, nil
	}
	return os.ReadFile(resolve(file, dir))
}

// resolve makes a kubeconfig's relative path relative to its directory.
func resolve(p, dir string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}
