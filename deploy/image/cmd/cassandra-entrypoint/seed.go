package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sstable-flight/sstable-flight/deploy/image/cassandra"
)

// seedConf writes each shipped configuration file that dir lacks. The
// image ships them in /etc/cassandra; a pod whose root filesystem is
// read-only mounts an empty volume there (or names another directory
// in CASSANDRA_CONF), which the daemon then starts from, as
// cass-operator's config init container fills its pods' volume.
func seedConf(dir string) error {
	for name, text := range cassandra.ConfFiles() {
		path := filepath.Join(dir, name)
		_, err := os.Lstat(path)
		if err == nil {
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("seed %s: %w", path, err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return fmt.Errorf("seed %s: %w", path, err)
		}
	}
	return nil
}
