package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// removeRules removes the node's packet-filter state: first kube-proxy
// --cleanup (its own chains, in every mode), then, in both iptables and
// ip6tables, every rule and chain that is new since start and is the
// node's (kube-proxy's and the kubelet's KUBE-*, the CNI plugins'
// CNI-*, our FORWARD rule naming the bridge), and last the nftables tables
// iptables-nft made on first use, if they are empty again.
func removeRules(o options, st *hostState) error {
	var errs []error
	if proxy := filepath.Join(o.bin, proxyName); fileExists(proxy) {
		// Its failure (say, no IPVS in this kernel) is in its log; what
		// it leaves the generic pass below removes.
		cmd := exec.Command(proxy, "--cleanup")
		if log, err := os.OpenFile(logFile(o.dir, proxyName+"-cleanup"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644); err == nil {
			cmd.Stdout, cmd.Stderr = log, log
			_ = cmd.Run()
			log.Close()
		}
	}
	before := map[string]string{}
	if st != nil {
		before = st.Rules
	}
	for _, save := range []string{"iptables-save", "ip6tables-save"} {
		tool := strings.TrimSuffix(save, "-save")
		if err := removeNew(tool, save, before[save]); err != nil {
			errs = append(errs, err)
		}
	}
	if st != nil {
		errs = append(errs, removeEmptyTables(st.Tables))
	}
	return errors.Join(errs...)
}

// ours says whether a rule or chain is the node's.
func ours(s string) bool {
	return strings.Contains(s, "KUBE-") || strings.Contains(s, "CNI-") || strings.Contains(s, bridgeName)
}

// removeNew deletes, with tool, the rules and chains in save's output
// now that were not in before and are ours: rules first (the jumps
// into the chains), then the chains, flushed, then deleted.
func removeNew(tool, save, before string) error {
	nowOut, err := command(save)
	if err != nil {
		return err
	}
	was, now := parseSave(before), parseSave(nowOut)
	var errs []error
	for _, t := range now {
		old := was[t.name]
		seen := map[string]int{}
		if old != nil {
			for _, r := range old.rules {
				seen[r]++
			}
		}
		for _, r := range t.rules {
			if seen[r] > 0 {
				seen[r]--
				continue
			}
			// A rule in a chain that is itself new goes with the chain.
			chain := strings.Fields(r)[0]
			if t.isNewChain(chain, old) || !ours(r) {
				continue
			}
			args, err := splitRule(r)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s -t %s: %w", tool, t.name, err))
				continue
			}
			if _, err := command(tool, append([]string{"-w", "-t", t.name, "-D"}, args...)...); err != nil {
				errs = append(errs, err)
			}
		}
		var chains []string
		for _, c := range t.chains {
			if t.isNewChain(c, old) && ours(c) {
				chains = append(chains, c)
			}
		}
		for _, c := range chains {
			if _, err := command(tool, "-w", "-t", t.name, "-F", c); err != nil {
				errs = append(errs, err)
			}
		}
		for _, c := range chains {
			if _, err := command(tool, "-w", "-t", t.name, "-X", c); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// saveTable is one table of iptables-save's output: its user-defined
// chains, its built-in ones and its rules (each "-A" line without the
// "-A ").
type saveTable struct {
	name    string
	chains  []string
	builtin map[string]bool
	rules   []string
}

// isNewChain says whether c is a user-defined chain that old lacks. A
// built-in chain is never new, even in a table that was not there
// before (iptables-nft makes a table on first use).
func (t *saveTable) isNewChain(c string, old *saveTable) bool {
	if t.builtin[c] {
		return false
	}
	if old == nil {
		return true
	}
	for _, o := range old.chains {
		if o == c {
			return false
		}
	}
	return true
}

func parseSave(out string) map[string]*saveTable {
	tables := map[string]*saveTable{}
	var cur *saveTable
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "*"):
			cur = &saveTable{name: line[1:], builtin: map[string]bool{}}
			tables[cur.name] = cur
		case cur == nil:
		case strings.HasPrefix(line, ":"):
			// ":NAME POLICY [packets:bytes]": a user-defined chain's
			// policy is "-".
			f := strings.Fields(line[1:])
			if len(f) >= 2 && f[1] != "-" {
				cur.builtin[f[0]] = true
			} else {
				cur.chains = append(cur.chains, f[0])
			}
		case strings.HasPrefix(line, "-A "):
			cur.rules = append(cur.rules, line[3:])
		}
	}
	return tables
}

// splitRule splits a rule as iptables-save quotes it (double quotes,
// backslash escapes) into arguments.
func splitRule(r string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inArg, quoted := false, false
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == '\\' && i+1 < len(r):
			i++
			cur.WriteByte(r[i])
			inArg = true
		case c == '"':
			quoted = !quoted
			inArg = true
		case c == ' ' && !quoted:
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteByte(c)
			inArg = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unbalanced quotes in rule %q", r)
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args, nil
}

// nftTables lists nftables's tables ("ip nat", "ip6 filter", ...).
func nftTables() ([]string, error) {
	out, err := command("nft", "list", "tables")
	if err != nil {
		return nil, err
	}
	var tables []string
	for _, line := range strings.Split(out, "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), "table "); ok {
			tables = append(tables, t)
		}
	}
	return tables, nil
}

// removeEmptyTables deletes the tables that were not there before and
// hold no rule: what iptables-nft leaves once the node's rules are
// gone. A new table with rules in it is an error: something of the
// node's that nothing above removed.
func removeEmptyTables(before []string) error {
	now, err := nftTables()
	if err != nil {
		return err
	}
	had := map[string]bool{}
	for _, t := range before {
		had[t] = true
	}
	var errs []error
	for _, t := range now {
		if had[t] {
			continue
		}
		out, err := command("nft", append([]string{"list", "table"}, strings.Fields(t)...)...)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if rules := nftRules(out); len(rules) > 0 {
			errs = append(errs, fmt.Errorf("nftables table %s, new since start, still has rules: %s", t, strings.Join(rules, "; ")))
			continue
		}
		if _, err := command("nft", append([]string{"delete", "table"}, strings.Fields(t)...)...); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// nftRules are the lines of `nft list table` that are rules, not the
// table's and chains' own structure.
func nftRules(listing string) []string {
	var rules []string
	for _, line := range strings.Split(listing, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case l == "", l == "}", strings.HasPrefix(l, "#"), strings.HasPrefix(l, "table "), strings.HasPrefix(l, "chain "), strings.HasPrefix(l, "type "), strings.HasPrefix(l, "policy "):
		default:
			rules = append(rules, l)
		}
	}
	return rules
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
