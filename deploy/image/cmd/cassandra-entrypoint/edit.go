package main

import (
	"errors"
	"regexp"
	"strings"
)

// Line edits of cassandra.yaml and cassandra-rackdc.properties, the
// official entrypoint's sed expressions in Go.

// setYAMLKey sets top-level key to value: every line `key: ...` or
// `# key: ...` becomes `key: value` (so a commented default is switched
// on); with no such line, one is appended.
func setYAMLKey(text, key, value string) string {
	re := regexp.MustCompile(`(?m)^(# )?` + regexp.QuoteMeta(key) + `:.*$`)
	line := key + ": " + yamlScalar(value)
	if !re.MatchString(text) {
		return appendLine(text, line)
	}
	return re.ReplaceAllLiteralString(text, line)
}

var seedsLine = regexp.MustCompile(`(?m)^(\s*- seeds:).*$`)

// setSeeds sets the SimpleSeedProvider's seeds; the file must have the
// line (the seed provider's block is not something to append blindly).
func setSeeds(text, seeds string) (string, error) {
	if !seedsLine.MatchString(text) {
		return "", errors.New(`no "- seeds:" line to set CASSANDRA_SEEDS in`)
	}
	quoted := `"` + strings.ReplaceAll(seeds, `"`, `\"`) + `"`
	return seedsLine.ReplaceAllStringFunc(text, func(line string) string {
		return seedsLine.FindStringSubmatch(line)[1] + " " + quoted
	}), nil
}

// setProperty sets key=value in a properties file, appending the line
// when absent.
func setProperty(text, key, value string) string {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + `=.*$`)
	line := key + "=" + value
	if !re.MatchString(text) {
		return appendLine(text, line)
	}
	return re.ReplaceAllLiteralString(text, line)
}

func appendLine(text, line string) string {
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + line + "\n"
}

var plainScalar = regexp.MustCompile(`^[A-Za-z0-9._/-][A-Za-z0-9._/: -]*$`)

// yamlScalar writes value as the official script does, bare, unless YAML
// would read it otherwise (a ": " or "#" in a cluster name, say): then
// single-quoted.
func yamlScalar(value string) string {
	if plainScalar.MatchString(value) && !strings.Contains(value, ": ") && !strings.HasSuffix(value, ":") && !strings.HasSuffix(value, " ") {
		return value
	}
	return "'" + strings.ReplaceAll(value, "'", "''") + "'"
}
