package testbed

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteReport writes a benchmark's report.md and report.json (rep as
// indented JSON) into dir: the files a record is kept in.
func WriteReport(dir string, rep any, md string) error {
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	for name, b := range map[string][]byte{"report.md": []byte(md), "report.json": append(js, '\n')} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
	}
	return nil
}

// Command is how a benchmark's run was asked for, for its record: through
// make when make started it (its flags then in flagsVar, e.g.
// BENCH_FLIGHT_FLAGS, of make target), else go run ./cmd/target.
func Command(target, flagsVar string, args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	flags := strings.Join(quoted, " ")
	if os.Getenv("MAKELEVEL") != "" {
		if flags == "" {
			return "make " + target
		}
		return "make " + target + " " + flagsVar + "='" + strings.ReplaceAll(flags, "'", `'\''`) + "'"
	}
	return strings.TrimSpace("go run ./cmd/" + target + " " + flags)
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// FlagsNote is ", extra flags `...`" for a record's load line, or
// nothing when there are none.
func FlagsNote(args string) string {
	if strings.TrimSpace(args) == "" {
		return ""
	}
	return ", extra flags `" + strings.TrimSpace(args) + "`"
}
