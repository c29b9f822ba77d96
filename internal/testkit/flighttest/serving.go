package flighttest

import (
	"bufio"
	"encoding/json"
	"strings"
)

// ServingAddr finds the Flight address a server process logged on its
// stderr (the JSON line "serving Flight" and its addr), or "" while it
// has not: how the tests that start the binary, from the repository or
// from the image, learn the port it took.
func ServingAddr(log string) string {
	return LoggedAddr(log, "serving Flight")
}

// LoggedAddr finds the addr of the server's JSON log line msg ("serving
// Flight", "serving admin"), or "" while it has not logged it.
func LoggedAddr(log, msg string) string {
	sc := bufio.NewScanner(strings.NewReader(log))
	for sc.Scan() {
		var rec struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == msg && rec.Addr != "" {
			return rec.Addr
		}
	}
	return ""
}
