//go:build !wasm

package app

import (
	"io"
	"os"
	"path/filepath"
)

func (p *preferences) storageWriter() (writeSyncCloser, error) {
	return p.storageWriterForPath(p.storagePath())
}

func (p *preferences) storageReader() (io.ReadCloser, error) {
	return p.storageReaderForPath(p.storagePath())
}

// Switchboard patch (PATCH.md, "Preferences are replaced whole"): the
// preferences are written to a new file beside path, owner-only, and
// renamed over it on Close, so that a reader (the watcher's reload, the
// next start after a crash) finds the old file or the new one, never one
// cut short.
func (p *preferences) storageWriterForPath(path string) (writeSyncCloser, error) {
	err := os.MkdirAll(filepath.Dir(path), 0o700)
	if err != nil { // this is not an exists error according to docs
		return nil, err
	}
	file, err := os.CreateTemp(filepath.Dir(path), ".preferences-*.tmp")
	if err != nil {
		return nil, err
	}
	return &replacingFile{File: file, path: path}, nil
}

// replacingFile is a new file that replaces path when closed.
type replacingFile struct {
	*os.File
	path string
}

// abort closes and removes the new file: path keeps what it held.
func (f *replacingFile) abort() {
	f.File.Close()
	os.Remove(f.Name())
}

// Close closes the file and renames it over path; on any error the new
// file is removed and path keeps what it held.
func (f *replacingFile) Close() error {
	err := f.File.Close()
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func (p *preferences) storageReaderForPath(path string) (io.ReadCloser, error) {
	file, err := os.Open(path) // #nosec
	if err != nil {
		if os.IsNotExist(err) {
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return nil, err
			}
			return nil, errEmptyPreferencesStore
		}
		return nil, err
	}
	return file, nil
}

// the following are only used in tests to save preferences to a tmp file

func (p *preferences) saveToFile(path string) error {
	file, err := p.storageWriterForPath(path)
	if err != nil {
		return err
	}
	return p.saveToStorage(file)
}

func (p *preferences) loadFromFile(path string) error {
	file, err := p.storageReaderForPath(path)
	if err != nil {
		return err
	}
	return p.loadFromStorage(file)
}
