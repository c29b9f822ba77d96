package diskdamage

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Damage is one way a disk or an operator damages a component file.
type Damage struct {
	Name string
	// Open: only while a server holds the file open (else the damage can
	// be done before a server starts too).
	Open bool
	// Apply damages file; outside is a directory outside the data
	// directory for what a link points to.
	Apply func(file, outside string) error
}

// Damages are the sweep's damages, in its order.
var Damages = []Damage{
	{"deleted", false, func(file, _ string) error { return os.Remove(file) }},
	{"a directory", false, func(file, _ string) error {
		return replace(file, func() error { return os.Mkdir(file, 0o755) })
	}},
	{"a FIFO", false, func(file, _ string) error {
		return replace(file, func() error { return syscall.Mkfifo(file, 0o644) })
	}},
	{"a symlink out of the data dir", false, func(file, outside string) error {
		moved := filepath.Join(outside, fmt.Sprintf("%d-%s", time.Now().UnixNano(), filepath.Base(file)))
		if err := os.Rename(file, moved); err != nil {
			return err
		}
		return os.Symlink(moved, file)
	}},
	{"a huge file", false, func(file, _ string) error {
		// A new sparse file of 64 GiB: it costs no disk.
		return replace(file, func() error {
			if err := os.WriteFile(file, nil, 0o644); err != nil {
				return err
			}
			return os.Truncate(file, 64<<30)
		})
	}},
	{"truncated in place", true, func(file, _ string) error {
		fi, err := os.Stat(file)
		if err != nil {
			return err
		}
		return os.Truncate(file, fi.Size()/2)
	}},
}

// replace removes file and puts something else in its place.
func replace(file string, put func() error) error {
	if err := os.Remove(file); err != nil {
		return err
	}
	return put()
}
