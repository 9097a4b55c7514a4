package keyring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/switchboard-dev/switchboard/internal/atomicfile"
)

// File is a Keyring in one owner-only JSON file, for users who opt in to
// keeping the client token on disk when the OS keyring is unavailable.
//
// The file is mode 0600 in a directory created 0700, and is replaced
// atomically on every change, so a crash leaves the old or the new content,
// never a torn file. File refuses to read a file that others may read: its
// secrets may already have leaked, and the user should know. It is safe for
// concurrent use within one process but does not lock against other
// processes. It never waits on anything but the disk, so it ignores its
// contexts.
type File struct {
	path string
	mu   sync.Mutex // serializes read-modify-write of the file
}

var _ Keyring = (*File)(nil)

// fileContent is the file's JSON: secrets by service, then by user.
type fileContent struct {
	Secrets map[string]map[string]string `json:"secrets"`
}

// NewFile returns a keyring kept in the file at path. The file and its
// directory are created on the first Set.
func NewFile(path string) *File {
	return &File{path: path}
}

// Get returns the secret stored for service and user.
func (f *File) Get(_ context.Context, service, user string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e := entry{service, user}
	c, err := f.load()
	if err != nil {
		return "", fmt.Errorf("keyring file get %v: %w", e, err)
	}
	s, ok := c.Secrets[service][user]
	if !ok {
		return "", fmt.Errorf("keyring file get %v: %w", e, ErrNotFound)
	}
	return s, nil
}

// Set stores secret for service and user, replacing any earlier one.
func (f *File) Set(_ context.Context, service, user, secret string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	e := entry{service, user}
	c, err := f.load()
	if err != nil {
		return fmt.Errorf("keyring file set %v: %w", e, err)
	}
	if c.Secrets[service] == nil {
		c.Secrets[service] = make(map[string]string)
	}
	c.Secrets[service][user] = secret
	if err := f.save(c); err != nil {
		return fmt.Errorf("keyring file set %v: %w", e, err)
	}
	return nil
}

// Delete removes the secret stored for service and user.
func (f *File) Delete(_ context.Context, service, user string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	e := entry{service, user}
	c, err := f.load()
	if err != nil {
		return fmt.Errorf("keyring file delete %v: %w", e, err)
	}
	if _, ok := c.Secrets[service][user]; !ok {
		return fmt.Errorf("keyring file delete %v: %w", e, ErrNotFound)
	}
	delete(c.Secrets[service], user)
	if len(c.Secrets[service]) == 0 {
		delete(c.Secrets, service)
	}
	if err := f.save(c); err != nil {
		return fmt.Errorf("keyring file delete %v: %w", e, err)
	}
	return nil
}

// load reads the file; a missing file is an empty keyring.
func (f *File) load() (*fileContent, error) {
	c := &fileContent{Secrets: make(map[string]map[string]string)}
	fh, err := os.Open(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", f.path)
	}
	// Windows reports synthetic permission bits, so the check means nothing there.
	if perm := fi.Mode().Perm(); perm&^0o600 != 0 && runtime.GOOS != "windows" {
		return nil, fmt.Errorf("refusing to read %s: mode %#o is wider than 0600 (others may have read its secrets; check, then chmod 600)", f.path, perm)
	}
	data, err := io.ReadAll(fh)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, c); err != nil {
		// encoding/json quotes bits of the input in its errors, and the
		// input is secrets: say where, never what.
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, fmt.Errorf("%s is not valid JSON (at byte %d)", f.path, syn.Offset)
		}
		return nil, fmt.Errorf("%s is not a keyring file", f.path)
	}
	if c.Secrets == nil {
		c.Secrets = make(map[string]map[string]string)
	}
	return c, nil
}

// save replaces the file atomically: it writes a temporary file in the same
// directory, syncs it, renames it over the old one and syncs the directory.
func (f *File) save(c *fileContent) (err error) {
	data, err := json.MarshalIndent(c, "", "\t")
	if err != nil {
		return err
	}
	dir := filepath.Dir(f.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return atomicfile.Write(f.path, data, 0o600)
}
