package main

// The Dockerfile at the repository's root must build the image the
// builder builds: its final stage's facts, parsed, against spec.go.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction: its keyword (upper case)
// and the rest of its line, continuation lines joined.
type instruction struct {
	keyword, rest string
}

// parseDockerfile reads the instructions of a Dockerfile, without its
// comments and blank lines.
func parseDockerfile(t *testing.T, path string) []instruction {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []instruction
	var cur strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if body, ok := strings.CutSuffix(trimmed, `\`); ok {
			cur.WriteString(body + " ")
			continue
		}
		cur.WriteString(trimmed)
		keyword, rest, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{strings.ToUpper(keyword), strings.TrimSpace(rest)})
		cur.Reset()
	}
	return out
}

// finalStage is the instructions from the last FROM on.
func finalStage(ins []instruction) []instruction {
	for i := len(ins) - 1; i >= 0; i-- {
		if ins[i].keyword == "FROM" {
			return ins[i:]
		}
	}
	return nil
}

// only returns the rest of the one instruction of keyword in stage.
func only(t *testing.T, stage []instruction, keyword string) string {
	t.Helper()
	var found []string
	for _, in := range stage {
		if in.keyword == keyword {
			found = append(found, in.rest)
		}
	}
	if len(found) != 1 {
		t.Fatalf("Dockerfile's final stage: want one %s, got %q", keyword, found)
	}
	return found[0]
}

// jsonList reads an exec-form (JSON array) argument.
func jsonList(t *testing.T, keyword, s string) []string {
	t.Helper()
	var l []string
	if err := json.Unmarshal([]byte(s), &l); err != nil {
		t.Fatalf("Dockerfile %s %s: want the exec (JSON) form: %v", keyword, s, err)
	}
	return l
}

func TestDockerfileMatchesSpec(t *testing.T) {
	all := parseDockerfile(t, filepath.Join("..", "..", "Dockerfile"))
	stage := finalStage(all)
	if got := only(t, stage, "FROM"); got != "scratch" {
		t.Errorf("Dockerfile's final base is %q, want scratch (the builder's empty base)", got)
	}
	if got := only(t, stage, "USER"); got != user() {
		t.Errorf("Dockerfile USER %q, builder %q", got, user())
	}
	if got := only(t, stage, "WORKDIR"); got != "/" {
		t.Errorf("Dockerfile WORKDIR %q, builder /", got)
	}
	if got := jsonList(t, "ENTRYPOINT", only(t, stage, "ENTRYPOINT")); !slices.Equal(got, entrypoint()) {
		t.Errorf("Dockerfile ENTRYPOINT %q, builder %q", got, entrypoint())
	}
	if got := jsonList(t, "CMD", only(t, stage, "CMD")); !slices.Equal(got, args()) {
		t.Errorf("Dockerfile CMD %q, builder %q", got, args())
	}
	if got := strings.Fields(only(t, stage, "EXPOSE")); !slices.Equal(got, exposedPorts()) {
		t.Errorf("Dockerfile EXPOSE %q, builder %q", got, exposedPorts())
	}
	if got := jsonList(t, "VOLUME", only(t, stage, "VOLUME")); !slices.Equal(got, volumes()) {
		t.Errorf("Dockerfile VOLUME %q, builder %q", got, volumes())
	}
	for _, in := range stage {
		if in.keyword == "ENV" || in.keyword == "SHELL" || in.keyword == "HEALTHCHECK" {
			t.Errorf("Dockerfile's final stage has %s %s: the builder's image sets none", in.keyword, in.rest)
		}
	}
	// The binary is copied to the entrypoint's path, and built as the
	// builder builds it.
	copied := false
	for _, in := range stage {
		if in.keyword == "COPY" && strings.HasSuffix(in.rest, " "+binaryPath) && strings.Contains(in.rest, "--chmod=0555") {
			copied = true
		}
	}
	if !copied {
		t.Errorf("Dockerfile's final stage copies no binary to %s with mode 0555", binaryPath)
	}
	var goBuild string
	for _, in := range all {
		if in.keyword == "RUN" && strings.Contains(in.rest, "go build") {
			goBuild = in.rest
		}
	}
	if !strings.Contains(goBuild, "CGO_ENABLED=0") || !strings.Contains(goBuild, mainPackage) {
		t.Errorf("Dockerfile's go build %q: want CGO_ENABLED=0 and %s", goBuild, mainPackage)
	}
	for _, f := range buildFlags {
		// The Dockerfile quotes -ldflags' value for the shell.
		k, v, ok := strings.Cut(f, "=")
		if ok && strings.Contains(v, " ") {
			f = k + "='" + v + "'"
		}
		if !strings.Contains(goBuild, f) {
			t.Errorf("Dockerfile's go build %q lacks the builder's flag %s", goBuild, f)
		}
	}
}
