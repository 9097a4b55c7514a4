//go:build unix

package store

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A named pipe is not a file to hash, and naming one must not leave the
// check waiting for a writer that never comes.
func TestPublishPathNamedPipe(t *testing.T) {
	w := newWorkEnv(t)
	writeRepoFile(t, filepath.Join(w.repo.Path, "out", "ok.txt"), "ok")
	if err := syscall.Mkfifo(filepath.Join(w.repo.Path, "out", "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	w.create(PacketSpec{WriteScope: []string{"out/**"}})
	c := w.claim("ses_a")
	done := make(chan error, 1)
	go func() {
		_, err := w.verify(c, ArtifactSpec{Name: "n", Path: "out/pipe", SHA256: sha256Hex(""), Size: 0})
		done <- err
	}()
	select {
	case err := <-done:
		wantWorkCode(t, err, CodeArtifactMismatch, "publish a named pipe")
	case <-time.After(10 * time.Second):
		t.Fatal("checking a named pipe did not return: it waits for a writer")
	}
}
