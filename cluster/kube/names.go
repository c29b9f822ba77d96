package kube

import (
	"errors"
	"fmt"
	"strings"
)

// The API server's rules for the names a Config gives (apimachinery's
// validation, which the server does not link): a namespace is a DNS-1123
// label, a Service name a DNS-1035 label, a port name an IANA service
// name. A name that breaks them could never match, so it is refused.

// checkName checks a DNS label of at most max characters: lower-case
// letters, digits and '-', starting and ending with a letter or digit,
// and with letterFirst (DNS-1035) starting with a letter.
func checkName(name string, max int, letterFirst bool) error {
	switch {
	case name == "":
		return errors.New("empty")
	case len(name) > max:
		return fmt.Errorf("longer than %d characters", max)
	case strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "":
		return errors.New("not only lower-case letters, digits and '-'")
	case name[0] == '-' || name[len(name)-1] == '-':
		return errors.New("starts or ends with '-'")
	case letterFirst && !isLetter(name[0]):
		return errors.New("does not start with a letter")
	}
	return nil
}

// checkPortName checks an IANA service name: at most 15 lower-case
// letters, digits and '-', at least one letter, no '-' first, last or
// twice in a row.
func checkPortName(name string) error {
	if err := checkName(name, 15, false); err != nil {
		return err
	}
	if strings.Contains(name, "--") {
		return errors.New("has '--'")
	}
	if !strings.ContainsFunc(name, func(r rune) bool { return r < 128 && isLetter(byte(r)) }) {
		return errors.New("has no letter")
	}
	return nil
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' }
